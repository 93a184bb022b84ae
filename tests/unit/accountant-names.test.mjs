// One list of accountants (#38): their names as string literals live in one Rust file
// (src/privacy/accountant/table.rs), and the page holds no list of them — it iterates what
// Rust sends (`accountants()`, a report's or a preview's keys).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const TABLE = 'src/privacy/accountant/table.rs';

function files(dir, ext) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return ['www/pkg', 'www/data', 'www/v'].includes(path) ? [] : files(path, ext);
    return path.endsWith(ext) ? [path] : [];
  });
}

test('the accountants\' names are string literals in one Rust file only', () => {
  // "rdp" is left out: it is also one of Opacus's accountants, which the Opacus export names.
  // Unit-test files may quote a name to check it is refused (opacus_tests.rs: "pld").
  const literal = /"(naive|strong|moments|pld)"/;
  const rust = files('src', '.rs').filter((f) => !/_tests\.rs$/.test(f));
  assert.ok(rust.includes(TABLE), 'the table is where this test looks for it');
  assert.match(readFileSync(join(root, TABLE), 'utf8'), literal);
  const elsewhere = rust.filter((f) => f !== TABLE && literal.test(readFileSync(join(root, f), 'utf8')));
  assert.deepEqual(elsewhere, []);
});

test('the page names no accountant as a string: it iterates what Rust sends', () => {
  const literal = /(['"`])(naive|strong|moments|rdp|pld)\1/;
  const js = files('www', '.js');
  assert.ok(js.length > 20, `the page's scripts: ${js.length}`);
  const named = js.flatMap((f) => readFileSync(join(root, f), 'utf8').split('\n')
    .map((line, i) => [line, `${f}:${i + 1}`])
    .filter(([line]) => literal.test(line) && !/^\s*(\/\/|\*)/.test(line))
    .map(([line, at]) => `${at}: ${line.trim()}`));
  assert.deepEqual(named, []);
});
