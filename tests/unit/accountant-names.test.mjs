// One list of accountants (#38, #54 §5): their names as string literals live in one Rust file
// (src/privacy/accountant/table.rs), no file writes a list of them out (two names with a comma
// or a bar between, code or comment), and the page holds no name as a string or a key — it
// iterates what Rust sends (`accountants()`, a report's or a preview's keys).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const TABLE = 'src/privacy/accountant/table.rs';

function files(dir, ext) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory())
      return ['www/pkg', 'www/data', 'www/v'].includes(path) ? [] : files(path, ext);
    return path.endsWith(ext) ? [path] : [];
  });
}

const NAMES = 'naive|strong|moments|rdp|pld';
// A list of accountants written out: two names with a comma or a bar between them, in code or
// in a comment ("naive, strong, moments", "--accountant naive|strong").
const LIST = new RegExp(`\\b(${NAMES})\\s*[,|]\\s*(${NAMES})\\b`);
// A name quoted in the page's code: a string that is one ('moments') or a key that ends in one
// ('whole.naive'); `rdp` too, which the Opacus export's names share in Rust, not in the page.
const QUOTED_JS = new RegExp(`(['"\`])([\\w.]*\\.)?(${NAMES})\\1`);
// A name as a Rust string literal but "rdp", Opacus's accountant's too (its export names it).
const QUOTED_RS = /"(naive|strong|moments|pld)"/;

// The lines of `text` that name the accountants by hand: as `rule` reads them, or a list.
function byHand(text, rule, skipComments) {
  return text
    .split('\n')
    .map((line, i) => [line, i + 1])
    .filter(
      ([line]) =>
        LIST.test(line) || ((!skipComments || !/^\s*(\/\/|\*)/.test(line)) && rule.test(line)),
    )
    .map(([line, at]) => `${at}: ${line.trim()}`);
}

test("the accountants' names are written in one Rust file only", () => {
  const rust = files('src', '.rs').filter((f) => !/_tests\.rs$/.test(f));
  assert.ok(rust.includes(TABLE), 'the table is where this test looks for it');
  assert.match(readFileSync(join(root, TABLE), 'utf8'), QUOTED_RS);
  const elsewhere = rust
    .filter((f) => f !== TABLE)
    .flatMap((f) =>
      byHand(readFileSync(join(root, f), 'utf8'), QUOTED_RS, false).map((l) => `${f}:${l}`),
    );
  assert.deepEqual(elsewhere, []);
});

test('the page names no accountant as a string or a list: it iterates what Rust sends', () => {
  const js = files('www', '.js');
  assert.ok(js.length > 20, `the page's scripts: ${js.length}`);
  const named = js.flatMap((f) =>
    byHand(readFileSync(join(root, f), 'utf8'), QUOTED_JS, true).map((l) => `${f}:${l}`),
  );
  assert.deepEqual(named, []);
});

test('the check finds a list by hand, a quoted name and a key that ends in one', () => {
  // The two this test missed before #54: the CLI's help listing the accountants, and the
  // lessons' fillers keyed 'whole.naive' … 'whole.pld' one by one.
  assert.deepEqual(
    byHand(
      'let help = "naive, strong, moments, rdp or pld";\n// fine: naive and strong',
      QUOTED_RS,
      false,
    ),
    ['1: let help = "naive, strong, moments, rdp or pld";'],
  );
  assert.deepEqual(
    byHand(
      "  'whole.naive': (f) => eps(f.whole.naive),\n  x: f.whole.moments,\n  // 'pld' in a comment",
      QUOTED_JS,
      true,
    ),
    ["1: 'whole.naive': (f) => eps(f.whole.naive),"],
  );
  assert.deepEqual(byHand('/// The accountant: naive|strong|moments', QUOTED_RS, false), [
    '1: /// The accountant: naive|strong|moments',
  ]);
  assert.deepEqual(byHand('const a = ["rdp"]; // Opacus', QUOTED_RS, false), []);
});

// One enum lists the accountants (#54 §5): AccountantName in the table. `Accountant` is a name
// and an amplification convention, not a second list whose variants could drift from it.
const ENUM_OF_ACCOUNTANTS = /\benum\s+(\w+)\s*\{[^}]*?\b(Naive|Moments|Pld)\b[^}]*\}/g;
const enumsListing = (text) => [...text.matchAll(ENUM_OF_ACCOUNTANTS)].map((m) => m[1]);

test('one enum lists the accountants: AccountantName', () => {
  const rust = files('src', '.rs');
  const found = rust.flatMap((f) =>
    enumsListing(readFileSync(join(root, f), 'utf8')).map((e) => `${f}: ${e}`),
  );
  assert.deepEqual(found, [`${TABLE}: AccountantName`]);
  assert.deepEqual(
    enumsListing(
      'pub enum Accountant {\n    Naive(Amplification),\n    Moments,\n}\nenum Other { A, B }',
    ),
    ['Accountant'],
  );
});
