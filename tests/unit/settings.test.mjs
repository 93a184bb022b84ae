// The settings table without a browser: a link written from a run's config reads back to the
// same config (for every row, and for a row added as a new setting would be), Rust's check is
// the gate for a link's values, and user strings never reach a prototype.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ROWS } from '../../www/lab/setting-rows.js';
import { configOf, fromHash, toHash, valuesOf } from '../../www/lab/settings.js';
import { configKey, sameConfig } from '../../www/lab/config-key.js';

// A run's config as Rust's run_defaults() gives it (the fields the table's rows name).
const DEFAULTS = Object.freeze({
  sigma: 1,
  clip: 1,
  lot_size: 256,
  lr: 2,
  epochs: 20,
  delta: 1e-5,
  seed: null,
  dataset: 'adult',
  model: 'logistic',
  report: 'teaching',
  amplification: 'rigorous',
  budget_accountant: 'moments',
  pca: null,
  pca_sigma: 7,
  clip_quantile: null,
  budget_epsilon: null,
});
const CHOICES = new Map([
  ['dataset', ['adult', 'blobs', 'mnist']],
  ['model', ['logistic', 'mlp']],
  ['report', ['private', 'teaching']],
  ['amplification', ['rigorous', 'classical', 'paper']],
  ['budget_accountant', ['naive', 'strong', 'moments', 'rdp', 'pld']],
  ['groups', ['none']],
]);
const offered = (row, v) => (CHOICES.get(row.key) ?? []).includes(v);
const ENDS = new Map([
  ['sigma', [0, 16]],
  ['clip', [-2, 1.30103]],
  ['lot_size', [0, 4.5126975]],
  ['lr', [-3, 1]],
  ['epochs', [1, 100]],
  ['delta', [-10, -3]],
  ['seed', [0, 4294967295]],
  ['momentum', [0, 0.99]],
]);
const range = (row) => ENDS.get(row.key) ?? null;
const accept = (cfg) => cfg;

const roundTrip = (cfg, rows = ROWS, check = accept) =>
  fromHash(toHash(cfg, [], rows), { check, defaults: DEFAULTS, range, offered, rows });

test('a link of a run reads back to the same run', () => {
  const cfg = {
    ...DEFAULTS,
    sigma: 2.5,
    clip: 0.1,
    lot_size: 600,
    lr: 0.5,
    epochs: 7,
    delta: 1e-6,
    seed: 42,
    dataset: 'blobs',
    model: 'mlp',
    report: 'private',
    amplification: 'paper',
    pca: 12,
    pca_sigma: 3,
    clip_quantile: 0.8,
    budget_epsilon: 2,
    budget_accountant: 'rdp',
  };
  const { part, problems } = roundTrip(cfg);
  assert.deepEqual(problems, []);
  // No grouping: left out of the config, said in the link (groups=none), null in the part.
  const off = (v) => v ?? null;
  for (const row of ROWS)
    if (row.url) assert.equal(off(part[row.field]), off(cfg[row.field]), row.key);
  // The settings object that reopens it gives the same config.
  const { groups, ...rest } = part;
  assert.equal(groups, null);
  assert.deepEqual(configOf({ ...valuesOf(DEFAULTS), ...valuesOf(part) }, DEFAULTS), {
    ...DEFAULTS,
    ...rest,
  });
  // Without a budget, neither the budget nor its accountant is in the link.
  const plain = toHash({ ...cfg, budget_epsilon: null }, [], ROWS);
  assert.ok(!plain.has('budget') && !plain.has('budget_acc'), String(plain));
});

test('a new setting is one row: its link round trip needs nothing else', () => {
  const rows = [
    ...ROWS,
    {
      key: 'momentum',
      control: 'momentum',
      field: 'momentum',
      url: 'mom',
      kind: 'slider',
      scale: 'linear',
    },
  ];
  const cfg = { ...DEFAULTS, momentum: 0.9 };
  const params = toHash(cfg, [], rows);
  assert.equal(params.get('mom'), '0.9');
  const { part, problems } = roundTrip(cfg, rows);
  assert.deepEqual(problems, []);
  assert.equal(part.momentum, 0.9);
  // Beyond its slider's ends: named, not moved to an end.
  const far = fromHash(new URLSearchParams('mom=5'), {
    check: accept,
    defaults: DEFAULTS,
    range,
    offered,
    rows,
  });
  assert.deepEqual(far.part, {});
  assert.match(far.problems[0], /^mom = 5 is out of range \(0 to 0\.99\)$/);
});

test("Rust's check decides: a value it refuses is named with its message and skipped", () => {
  const check = (cfg) => {
    if (cfg.pca === 0) throw new Error('pca: PCA needs at least 1 dimension');
    return cfg;
  };
  const params = new URLSearchParams('pca=0&sigma=3');
  const { part, problems } = fromHash(params, { check, defaults: DEFAULTS, range, offered });
  assert.deepEqual(part, { sigma: 3 });
  assert.deepEqual(problems, ['pca: PCA needs at least 1 dimension']);
});

test("a link's bad values are named; prototype keys do nothing", () => {
  const params = new URLSearchParams(
    'sigma=banana&dataset=__proto__&seed=x&__proto__=1&constructor=2' +
      '&lot_size=99999999&model=toString',
  );
  const { part, problems } = fromHash(params, {
    check: accept,
    defaults: DEFAULTS,
    range,
    offered,
  });
  assert.deepEqual(Object.keys(part), ['lot_size']);
  // kept past the slider's end (Adult's N): the link's data set may be larger, and on a smaller
  // one the run says it takes all of it (lot-size.js)
  assert.equal(part.lot_size, 99999999);
  assert.equal(Object.getPrototypeOf(part), Object.prototype);
  assert.deepEqual(problems, [
    "sigma = 'banana' is not a number",
    "dataset = '__proto__' is not one of the choices",
    "model = 'toString' is not one of the choices",
    "seed = 'x' is not a whole number from 0 to 4294967295",
  ]);
});

test("switched settings: off is null, the box keeps its number; a student's file stays", () => {
  const values = {
    ...valuesOf(DEFAULTS),
    pca: 60,
    pca_on: false,
    clip_quantile: 0.9,
    adapt_on: true,
    budget_epsilon: 2,
    until_budget: false,
    fixed_seed: false,
  };
  const cfg = configOf(values, DEFAULTS);
  assert.equal(cfg.pca, null);
  assert.equal(cfg.clip_quantile, 0.9);
  assert.equal(cfg.budget_epsilon, null);
  assert.equal(
    configOf({ ...values, lot_size: 5000 }, DEFAULTS).lot_size,
    5000,
    "never cut to the data's N silently (lot-size.js says it)",
  );
  const own = configOf({ ...values, dataset: 'own', seed: 7 }, DEFAULTS);
  assert.equal(own.seed, null, "a student's file: a hidden random seed unless fixed");
  assert.equal(
    configOf({ ...values, dataset: 'own', seed: 7, fixed_seed: true }, DEFAULTS).seed,
    7,
  );
  const hash = toHash({ ...cfg, dataset: 'own', seed: 7 });
  // The file is never in a link, nor its seed; that the run was on one is (its reader is told).
  assert.equal(hash.get('dataset'), 'own');
  assert.ok(!hash.has('seed') && !hash.has('pca') && !hash.has('pca_sigma'), String(hash));
  // A blank required box keeps the default.
  assert.equal(configOf({ ...values, pca_sigma: null }, DEFAULTS).pca_sigma, 7);
});

test('a select with a none choice (groups) leaves its field out; its link reads back', () => {
  const row = ROWS.find((r) => r.key === 'groups');
  assert.equal(row.none, 'none');
  // None: the field is left out of the config (a pinned run's link does not grow), and said in
  // the hash: a lesson's link (who pays sets groups) opened elsewhere put its own grouping back.
  assert.equal(
    Object.hasOwn(configOf({ ...valuesOf(DEFAULTS), groups: 'none' }, DEFAULTS), 'groups'),
    false,
  );
  assert.equal(toHash({ ...DEFAULTS }).get('groups'), 'none');
  const picked = configOf({ ...valuesOf(DEFAULTS), groups: 'race' }, DEFAULTS);
  assert.equal(picked.groups, 'race');
  const offeredGroups = (r, v) =>
    r.key === 'groups' ? ['none', 'sex', 'race', 'class'].includes(v) : offered(r, v);
  const back = fromHash(toHash(picked), {
    check: accept,
    defaults: DEFAULTS,
    range,
    offered: offeredGroups,
  });
  assert.deepEqual(back.problems, []);
  assert.equal(back.part.groups, 'race');
  // A link's groups=none is null in the part (Rust's check sees no grouping), none on the control.
  const none = fromHash(new URLSearchParams('groups=none'), {
    check: (c) => {
      assert.equal(c.groups, null);
      return c;
    },
    defaults: DEFAULTS,
    range,
    offered: offeredGroups,
  });
  assert.deepEqual(none.part, { groups: null });
  assert.equal(valuesOf(none.part).groups, 'none');
  // A choice that is not one: named and skipped.
  const bad = fromHash(new URLSearchParams('groups=__proto__'), {
    check: accept,
    defaults: DEFAULTS,
    range,
    offered: offeredGroups,
  });
  assert.deepEqual(bad.part, {});
  assert.equal(bad.problems.length, 1);
});

// One identity for settings (#54 §1): the same settings in another key order (as a link, a pin
// or Rust's check gives them back) are the same; any value changed, nested ones included, is not.
test("configKey tells settings apart by their values, not their keys' order", () => {
  const a = { sigma: 1, clip: 4, hidden: [1000], nested: { b: 2, a: 1 } };
  const b = { nested: { a: 1, b: 2 }, hidden: [1000], clip: 4, sigma: 1 };
  assert.equal(configKey(a), configKey(b));
  assert.ok(sameConfig(a, b));
  assert.ok(!sameConfig(a, { ...b, clip: 4.5 }));
  assert.ok(!sameConfig(a, { ...b, nested: { a: 1, b: 3 } }));
  assert.ok(!sameConfig(a, { ...b, hidden: [100] }));
  assert.ok(!sameConfig({ sigma: 1 }, { sigma: 1, seed: null }), 'a field more is another config');
  assert.equal(configKey([{ y: 1, x: 2 }, null]), '[{"x":2,"y":1},null]');
});

test("Rust's refusal of a link's value names the link's key, not the config field", () => {
  const refuse = (cfg) => {
    if (cfg.budget_epsilon !== null && cfg.budget_epsilon <= 0)
      throw new Error(`budget_epsilon: the ε budget = ${cfg.budget_epsilon} must be above 0`);
    return cfg;
  };
  const params = new URLSearchParams({ budget: '-1' });
  const { part, problems } = fromHash(params, {
    check: refuse,
    defaults: DEFAULTS,
    range,
    offered,
  });
  assert.deepEqual(problems, ['budget: the ε budget = -1 must be above 0']);
  assert.equal(part.budget_epsilon, undefined);
});

test('a link never trains on your own file: dataset = own is named and skipped', () => {
  const params = new URLSearchParams({ dataset: 'own', sigma: '0' });
  // Offered: the file is loaded, so the menu shows "Your data".
  const { part, problems } = fromHash(params, {
    check: accept,
    defaults: DEFAULTS,
    range,
    offered: () => true,
  });
  assert.equal(part.dataset, undefined);
  assert.deepEqual(problems, [
    'dataset = own was skipped (a link cannot train on your own file): its other settings are ' +
      "used on the data set the page has (a lesson's, or the default)",
  ]);
});

// The audit's runs a side: a page setting, not the run's. A link carries it (the lecturer's
// lowered count reached no student's audit), read apart from the run's settings, whole and in
// the box's range, never through Rust's check of a run.
test("a link's page setting (runs a side) is read apart from the run's", () => {
  const ends = (row) => (row.key === 'audit_runs' ? [2, 1000] : range(row));
  const read = (hash) =>
    fromHash(new URLSearchParams(hash), {
      check: (cfg) => {
        assert.ok(!('audit_runs' in cfg), 'a page setting never reaches the run check');
        return cfg;
      },
      defaults: DEFAULTS,
      range: ends,
      offered,
    });
  const { part, page, problems } = read('sigma=2&audit_runs=40');
  assert.deepEqual([part, page, problems], [{ sigma: 2 }, { audit_runs: 40 }, []]);
  for (const bad of ['5000', '2.5', 'x', '']) {
    const r = read(`audit_runs=${bad}`);
    assert.deepEqual(r.page, {}, bad);
    assert.match(r.problems.join(), /^audit_runs = '.*' is not a whole number from 2 to 1000$/);
  }
  // A run's link never writes it from the run's config: Settings.pageParams does.
  assert.ok(!toHash({ ...DEFAULTS, audit_runs: 40 }).has('audit_runs'));
});

// The budget box, its switch off, is the σ chart's target ε: a link carries it as `target`, read
// into the page (the box), not the run's budget; `budget` (the budget on) wins over it; a value
// Rust refuses is named by the link's own key.
test("the σ chart's target travels as `target`, not as the run's budget", () => {
  const read = (text, check = accept) =>
    fromHash(new URLSearchParams(text), { check, defaults: DEFAULTS, range, offered });
  assert.deepEqual(read('target=1'), { part: {}, page: { budget_epsilon: 1 }, problems: [] });
  assert.deepEqual(read('budget=3&target=1').part, { budget_epsilon: 3 });
  assert.deepEqual(read('budget=3&target=1').page, {});
  const refuse = (cfg) => {
    if (cfg.budget_epsilon !== null && cfg.budget_epsilon <= 0)
      throw new Error('budget_epsilon: the ε budget must be positive');
    return cfg;
  };
  assert.deepEqual(read('target=-1', refuse).problems, ['target: the ε budget must be positive']);
  assert.equal(read('target=x').problems[0], "target = 'x' is not a number");
});

// A hand-written value between a slider's positions moves to one, and is named where that
// changes it (δ = 2e-5 read as 1e-5 doubled what δ allows, unsaid); a slider's own rounding
// (σ to four decimals) is not.
test("a link's value between a slider's positions is named with the one used", () => {
  const read = (text) =>
    fromHash(new URLSearchParams(text), { check: accept, defaults: DEFAULTS, range, offered });
  const { part, problems } = read('delta=2e-5&epochs=2.5&sigma=1.23456');
  const { delta, ...rest } = part;
  assert.deepEqual(rest, { sigma: 1.2346, epochs: 3 });
  assert.ok(Math.abs(delta - 1e-5) < 1e-15, String(delta)); // 10 ** -5 in JavaScript
  assert.deepEqual(problems, [
    "epochs = 2.5 is between the slider's positions: 3 is used",
    "delta = 2.00e-5 is between the slider's positions: 1e-5 is used",
  ]);
});
