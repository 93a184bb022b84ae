// Lines a projector-sized editor shows whole (#54 §2, CONTRIBUTING.md): no line of the page's,
// the tests' or the scripts' JavaScript is over 100 columns. Prettier (`make fmt`, checked by
// `make test`) wraps the code at 100; comments, sentences and regular expressions it leaves as
// written, so this test holds them. Columns are characters, as an editor counts them: "ε" is one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX = 100;
// Built or data, not written by hand (.prettierignore).
const SKIP = new Set(['www/pkg', 'www/v', 'www/data', 'www/version.js', 'tests/fixtures']);

// The scripts under `dir` (relative to the root) whose names end in `ext`, subfolders included.
function scriptsUnder(dir, ext) {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (SKIP.has(rel) || entry.name.startsWith('.')) return [];
    if (entry.isDirectory()) return scriptsUnder(rel, ext);
    return rel.endsWith(ext) ? [rel] : [];
  });
}

// "file:line: N columns" for each line of `text` over MAX columns.
export function overlong(file, text) {
  return text
    .split('\n')
    .map((line, i) => [i + 1, [...line].length])
    .filter(([, n]) => n > MAX)
    .map(([line, n]) => `${file}:${line}: ${n} columns`);
}

test('no line of the JavaScript is over 100 columns', () => {
  const files = [
    ...scriptsUnder('www', '.js'),
    ...scriptsUnder('tests', '.mjs'),
    ...scriptsUnder('scripts', '.mjs'),
  ];
  assert.ok(files.includes('www/main.js') && files.includes('tests/e2e/lab.mjs'), files.join());
  assert.ok(files.includes('www/workers/worker.js') && files.length > 100, `${files.length}`);
  const over = files.flatMap((f) => overlong(f, readFileSync(path.join(ROOT, f), 'utf8')));
  assert.deepEqual(over, [], 'wrap these (CONTRIBUTING.md: `make fmt`, then comments by hand)');
});

test('the count is of characters: 100 Greek letters fit, 101 do not', () => {
  assert.deepEqual(overlong('a.js', `${'ε'.repeat(100)}\nok`), []);
  assert.deepEqual(overlong('a.js', `ok\n${'ε'.repeat(101)}`), ['a.js:2: 101 columns']);
});
