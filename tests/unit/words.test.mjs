// What the page writes, without a browser (#40, section 3): a user string in a message is
// short whatever its length (shown.js, Rust's rule), the file ledger says its count is this
// tab's, and the CSV export names each column once.
import test from 'node:test';
import assert from 'node:assert/strict';
import { deltaText, shown } from '../../www/core/shown.js';
import { doneStatus } from '../../www/views/status-text.js';
import { FileLedger } from '../../www/views/file-ledger.js';
import { csvOf } from '../../www/views/runlog.js';
import { fromHash } from '../../www/lab/settings.js';

test('a user string is shown on one line, its first 60 characters and its length (3.6)', () => {
  assert.equal(shown('age'), 'age');
  assert.equal(shown('a\nb\tc'), 'a\\nb\\tc');
  assert.equal(shown('x'.repeat(60)), 'x'.repeat(60));
  assert.equal(shown('x'.repeat(61)), `${'x'.repeat(60)}… (61 characters)`);
  const huge = shown('é'.repeat(900_000)); // a 900 KB column name
  assert.equal(huge, `${'é'.repeat(60)}… (900,000 characters)`);
  assert.equal(
    shown('😀'.repeat(61)),
    `${'😀'.repeat(60)}… (61 characters)`,
    'characters, not UTF-16 units',
  );
});

test("a link's huge value is named short (3.6)", () => {
  const params = new URLSearchParams({ sigma: 'x'.repeat(100_000), dataset: 'z'.repeat(100_000) });
  const { problems } = fromHash(params, {
    check: (c) => c,
    defaults: { sigma: 1, dataset: 'adult' },
    offered: () => false,
  });
  assert.ok(problems.length >= 2, problems.join(' | '));
  for (const p of problems) assert.ok(p.length < 200, p.slice(0, 300));
});

test('the file ledger says its count is this tab\'s (3.8: two tabs each said "1 run")', () => {
  const ledger = Object.create(FileLedger.prototype);
  ledger.fmtEps = (v) => String(v);
  const text = ledger.sentence({
    caveats: [],
    runs: 1,
    steps: 10,
    moments: 0.5,
    rdp: 0.6,
    delta: 1e-5,
    unbounded: null,
    preparations: 1,
  });
  assert.match(
    text,
    new RegExp(
      String.raw`all runs in this tab together since you first loaded it here \(other tabs ` +
        String.raw`count their own\): 1 run, 10 training steps reported`,
    ),
  );
});

test("the CSV export has each column once: the report's lr and the lr setting apart (3.8)", () => {
  const report = {
    epoch: 1,
    lr: 1.5,
    test_acc: 0.8,
    epsilon: { moments: 1 },
    not_private: [],
    notes: [],
  };
  const csv = csvOf([report], { sigma: 1, lot_size: 256, lr: 2, seed: null, dataset: 'adult' });
  const head = csv.split('\n')[0].split(',');
  assert.equal(new Set(head).size, head.length, head.join(','));
  assert.ok(head.includes('lr') && head.includes('lr (setting)'), head.join(','));
  const row = csv.split('\n')[1].split(',');
  assert.equal(row[head.indexOf('lr')], '1.5');
  assert.equal(row[head.indexOf('lr (setting)')], '2');
});

test('δ is written as a person writes it, as the charts do (Rust: text::delta_in_words)', () => {
  assert.equal(deltaText(10 ** -5), '1e-5', "the slider's 9.999999999999999e-6");
  assert.equal(deltaText(1e-3), '1e-3');
  assert.equal(deltaText(2.5e-7), '2.5e-7', 'not 3e-7: a link keeps its δ exact');
  assert.equal(deltaText(1.2345e-6), '1.23e-6');
});

test('the Done line says the δ its ε is at', () => {
  const last = {
    epoch: 3,
    steps: 30,
    test_acc: 0.84,
    delta: 2.5e-7,
    epsilon: { moments: 1, pld: 0.5 },
  };
  const { line } = doneStatus(last, 3, (v) => v.toFixed(3), undefined);
  assert.match(line, /ε = 1\.000 \(moments\) — 0\.500 \(PLD\) at δ = 2\.5e-7\.$/);
});
