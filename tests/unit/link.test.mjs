// A link's pinned runs without a browser: each pin is written as what it changes from the
// link's own settings, so a Compare's four pins fit a QR code, and reads back as the settings
// it was pinned with — also from a link written before, which carried every field.
import test from 'node:test';
import assert from 'node:assert/strict';
import { changedFrom, linkBase, pinsFromLink, pinsParam, unknownKeys } from '../../www/lab/link.js';
import { comparison } from '../../www/lab/pins.js';
import { toHash } from '../../www/lab/settings.js';

// RunConfig::default() as run_defaults() gives it.
const DEFAULTS = Object.freeze({
  ...{ sigma: 1, clip: 1, lot_size: 256, lr: 2, epochs: 20, delta: 1e-5, seed: null },
  ...{ batch_size: 256, model: 'logistic', hidden: [128], clipping: 'flat', layer_clips: null },
  ...{ mode: 'dp', sampling: 'poisson', lr_end: null, lr_decay_epochs: 0, dataset: 'adult' },
  ...{ data_noise: 0.1, pca: null, pca_sigma: 7, pca_sample: 1, budget_epsilon: null },
  ...{ budget_accountant: 'moments', amplification: 'rigorous', report: 'teaching' },
  ...{ clip_quantile: null, clip_lr: 0.2, count_noise: null, eval_noise: 20 },
});
// Rust's check as far as a link needs it: a missing field is the default, an unknown one or
// a negative σ is refused, and an optional field that is none is left out (no `groups`).
const check = (cfg) => {
  for (const k of Object.keys(cfg))
    if (!(k in DEFAULTS) && k !== 'groups') throw new Error(`unknown field ${k}`);
  if (cfg.sigma < 0) throw new Error('sigma: must be at least 0');
  const out = { ...DEFAULTS, ...cfg };
  if (out.groups === null || out.groups === undefined) delete out.groups;
  return out;
};

// A lecturer's MNIST MLP run with a seed and a budget, as the page holds it.
const RUN = Object.freeze({
  ...DEFAULTS,
  ...{ dataset: 'mnist', model: 'mlp', pca: 60, sigma: 4, clip: 4 },
  ...{ lot_size: 600, lr: 0.05, epochs: 100, seed: 1234567, budget_epsilon: 2 },
});

const linkOf = (cfg, pins) => {
  const params = toHash(cfg, [['lesson', 'clipping']]);
  params.set('pins', pinsParam(params, pins, DEFAULTS, check));
  return params;
};
const readBack = (params) =>
  pinsFromLink(params.get('pins'), check, linkBase(params, DEFAULTS, check));

test("Compare's four pins carry their mode, no more, and read back as pinned", () => {
  const pins = comparison(RUN);
  const params = linkOf(RUN, pins);
  const carried = JSON.parse(params.get('pins'));
  // The link's own run keeps its budget; Compare's runs have none.
  const said = carried.map((p) => Object.keys(p.cfg).sort().join(' '));
  assert.deepEqual(said, [...Array(3).fill('budget_epsilon mode'), 'budget_epsilon']);
  // A QR code of version 25 at level M holds 1,273 bytes (share.rs): room for the host's
  // address (written in full, these pins took 3,300 characters).
  assert.ok(`#${params}`.length < 800, `#${params}`);
  const { queue, problems } = readBack(params);
  assert.deepEqual(problems, []);
  // each marked a link's (a moved control keeps it queued: page/session.js)
  assert.deepEqual(
    queue,
    pins.map((p) => ({ label: p.label, cfg: p.cfg, link: true })),
  );
});

test('a pin differing in fields a link has no key for reads back whole', () => {
  const pin = { ...RUN, hidden: [64, 32], layer_clips: [1, 2, 3], seed: null, mode: 'clip-only' };
  const params = linkOf(RUN, [{ label: 'mine', cfg: pin }]);
  const { queue, problems } = readBack(params);
  assert.deepEqual(problems, []);
  assert.deepEqual(queue, [{ label: 'mine', cfg: pin, link: true }]);
  assert.deepEqual(changedFrom(RUN, RUN), {});
  // No grouping is a field Rust leaves out: against a link grouped by class it is said as null,
  // and the pin reads back without one (not the link's grouping).
  const { groups: _none, ...plain } = { ...RUN, groups: null };
  const byClass = { ...RUN, groups: 'class' };
  assert.deepEqual(changedFrom(plain, byClass), { groups: null });
  const linked = toHash(byClass);
  linked.set('pins', pinsParam(linked, [{ label: 'none', cfg: plain }], DEFAULTS, check));
  assert.equal(readBack(linked).queue[0].cfg.groups ?? null, null);
});

test("the base is the link's keys alone: the reader's page does not shift a pin", () => {
  const params = linkOf(RUN, [{ label: 'σ 8', cfg: { ...RUN, sigma: 8 } }]);
  // A key the reader refuses (here σ < 0) is left out of the base at both ends alike.
  params.set('sigma', '-1');
  params.set(
    'pins',
    pinsParam(params, [{ label: 'σ 8', cfg: { ...RUN, sigma: 8 } }], DEFAULTS, check),
  );
  assert.equal(linkBase(params, DEFAULTS, check).sigma, DEFAULTS.sigma);
  assert.deepEqual(readBack(params).queue[0].cfg, { ...RUN, sigma: 8 });
});

test('a link written before, with every field in each pin, reads back the same', () => {
  const pins = comparison(RUN).map((p) => ({ label: p.label, cfg: p.cfg }));
  const params = toHash(RUN);
  params.set('pins', JSON.stringify(pins));
  assert.deepEqual(
    readBack(params).queue,
    pins.map((p) => ({ ...p, link: true })),
  );
  // A pin that is not an object of settings is still named and skipped.
  const bad = pinsFromLink(JSON.stringify([{ label: 'x', cfg: [1] }]), check, DEFAULTS);
  assert.deepEqual(bad.queue, []);
  assert.match(bad.problems[0], /pinned run "x" has no settings/);
});

test('a key no link has, and another version of links, are said, not dropped unseen', () => {
  const teacher = ['lesson', 'step', 'big'];
  assert.deepEqual(unknownKeys(toHash(RUN, [['lesson', 'noise']]), teacher), []);
  const typo = new URLSearchParams('v=1&Sigma=3&sigm=2&lesson=noise&pins=[]');
  assert.deepEqual(unknownKeys(typo, teacher), [
    "no setting of this lab, skipped: 'Sigma', 'sigm'",
  ]);
  const newer = new URLSearchParams('v=2&sigma=3');
  assert.deepEqual(unknownKeys(newer, teacher), [
    'the link is of another version of links than v = 1, read as one',
  ]);
  // Hostile keys reach the message shortened (shown.js), and a prototype key is just a key.
  const hostile = new URLSearchParams(`__proto__=1&${'x'.repeat(500)}=1`);
  const [said] = unknownKeys(hostile, teacher);
  assert.ok(said.startsWith("no setting of this lab, skipped: '__proto__', 'xxx"), said);
  assert.ok(said.length < 200, said);
});
