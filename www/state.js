// The page's settings, in one table (in the manner of TF Playground's state.ts): each
// setting's control, how the control maps to its value, its URL key and, for the run, its
// RunConfig field. The controls, the URL hash and the config sent to the worker are all derived
// from it; the defaults come from Rust (RunConfig::default(), via run_defaults()), never typed
// twice. User input — the URL above all — is checked here: a bad value keeps the default and
// is reported, and no key is ever looked up on a plain object.

const $ = (id) => document.getElementById(id);
const log10 = Math.log10;
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

// How a range slider's position maps to a value and back.
const SCALES = {
  linear: { toValue: (s) => +s.toFixed(4), toSlider: (v) => v },
  log3: { toValue: (s) => +(10 ** s).toPrecision(3), toSlider: log10 },
  logInt: { toValue: (s) => Math.max(1, Math.round(10 ** s)), toSlider: log10 },
  int: { toValue: (s) => Math.round(s), toSlider: (v) => v },
  pow10: { toValue: (s) => 10 ** Math.round(s), toSlider: (v) => Math.round(log10(v)) },
};

// The sliders: id, RunConfig field, scale, how the value is shown.
export const SLIDERS = [
  { id: 'sigma', field: 'sigma', scale: 'linear', fmt: (v) => v.toFixed(2) },
  { id: 'clip', field: 'clip', scale: 'log3', fmt: String },
  { id: 'lot-size', field: 'lot_size', scale: 'logInt', fmt: String },
  { id: 'lr', field: 'lr', scale: 'log3', fmt: String },
  { id: 'epochs', field: 'epochs', scale: 'int', fmt: String },
  { id: 'delta', field: 'delta', scale: 'pow10', fmt: (v) => v.toExponential(0) },
];

// Choices: id, RunConfig field, URL key. Only values the <select> offers are accepted.
const SELECTS = [
  { id: 'dataset', field: 'dataset', url: 'dataset' },
  { id: 'model', field: 'model', url: 'model' },
  { id: 'report', field: 'report', url: 'report' },
  { id: 'amplification', field: 'amplification', url: 'amp' },
  { id: 'budget-accountant', field: 'budget_accountant', url: null },
];

const MAX_SEED = 4294967295;

let defaults = null; // RunConfig::default(), once wasm has loaded

// Sets the defaults (a RunConfig object from Rust) and puts them on the controls.
// Everything a link can set goes back to its default, so that a link opened in place of
// another (hashchange) gives the same run as on a fresh load.
export function setDefaults(config) {
  defaults = config;
  for (const s of SLIDERS) setSlider(s, config[s.field]);
  $('pca-sigma').value = String(config.pca_sigma);
  $('pca-on').checked = config.pca !== null;
  $('pca-k').value = String(config.pca ?? 60);
  $('adapt-on').checked = config.clip_quantile !== null;
  $('adapt-quantile').value = String(config.clip_quantile ?? 0.9);
  $('seed').value = String(config.seed ?? 1);
  for (const c of SELECTS) {
    const v = config[c.field];
    if (typeof v === 'string' && hasOption(c.id, v)) $(c.id).value = v;
  }
}

function hasOption(id, value) {
  return [...$(id).options].some((o) => o.value === value && !o.hidden);
}

// Moves slider `s` to `value`; with `strict`, a value beyond the slider's ends is refused
// (false) instead of moved to the nearest end.
function setSlider(s, value, strict = false) {
  const el = $(s.id);
  const pos = SCALES[s.scale].toSlider(value);
  if (!Number.isFinite(pos)) return false;
  if (strict && (pos < Number(el.min) - 1e-9 || pos > Number(el.max) + 1e-9)) return false;
  el.value = String(clamp(pos, Number(el.min), Number(el.max)));
  return true;
}

// The value a slider shows now (and its label updated).
function sliderValue(s) {
  const v = SCALES[s.scale].toValue(Number($(s.id).value));
  $(`${s.id}-value`).textContent = s.fmt(v);
  return v;
}

// Whether the run uses the student's own data (private: no seed anyone can see).
export const ownData = () => $('dataset').value === 'own';

// Own data hides the seed (a random one is drawn) unless the student fixes one.
export function showSeedMode() {
  const own = ownData();
  for (const el of document.querySelectorAll('#seed-control .own-only')) el.hidden = !own;
  $('seed-help').hidden = own;
  $('seed').hidden = own && !$('fixed-seed').checked;
}

// The seed the run uses: the number in the box, or null (drawn from the browser's
// cryptographic source by the worker) for own data unless a fixed seed was chosen.
function seed() {
  if (ownData() && !$('fixed-seed').checked) return null;
  const v = Number($('seed').value);
  return Number.isInteger(v) && v >= 0 && v <= MAX_SEED ? v : null;
}

// Why the seed box's value cannot be used, or null.
export function seedProblem() {
  if (ownData() && !$('fixed-seed').checked) return null;
  const text = $('seed').value.trim();
  const v = Number(text);
  if (text === '' || !Number.isInteger(v) || v < 0 || v > MAX_SEED) {
    return `the seed must be a whole number from 0 to ${MAX_SEED}; '${text.slice(0, 20)}' is not, so a random seed is used`;
  }
  return null;
}

// The RunConfig of the controls, with the lot clamped to the data's N (when known).
export function readConfig(nTrain) {
  const cfg = { ...defaults };
  for (const s of SLIDERS) cfg[s.field] = sliderValue(s);
  for (const c of SELECTS) cfg[c.field] = $(c.id).value;
  if (nTrain) cfg.lot_size = Math.min(cfg.lot_size, nTrain);
  cfg.seed = seed();
  const k = Number($('pca-k').value);
  cfg.pca = $('pca-on').checked && Number.isInteger(k) && k >= 1 ? k : null;
  const ps = Number($('pca-sigma').value);
  cfg.pca_sigma = Number.isFinite(ps) && ps >= 0 ? ps : defaults.pca_sigma;
  const budget = Number($('budget-eps').value);
  cfg.budget_epsilon = $('until-budget').checked && budget > 0 ? budget : null;
  const gamma = Number($('adapt-quantile').value);
  cfg.clip_quantile = $('adapt-on').checked && gamma > 0 && gamma < 1 ? gamma : null;
  return cfg;
}

// The URL hash of a config (version 1): never a seed for own data, never own data itself.
export function toHash(cfg, extra) {
  const params = new URLSearchParams({ v: '1' });
  for (const [k, v] of extra) params.set(k, v);
  for (const s of SLIDERS) params.set(s.field, String(cfg[s.field]));
  for (const c of SELECTS) if (c.url) params.set(c.url, cfg[c.field]);
  if (cfg.dataset === 'own') params.delete('dataset');
  else if (cfg.seed !== null) params.set('seed', String(cfg.seed));
  if (cfg.pca) {
    params.set('pca', String(cfg.pca));
    params.set('pca_sigma', String(cfg.pca_sigma));
  }
  if (cfg.clip_quantile) params.set('adapt', String(cfg.clip_quantile));
  return params;
}

// A number as a message shows it: at most a few significant digits (1e+308, not 309 digits).
const shortNumber = (v) => (Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-4) ? v.toExponential(2) : String(+v.toPrecision(6)));

// A slider's range in its own units, for messages.
function rangeOf(s) {
  const el = $(s.id);
  const end = (pos) => s.fmt(SCALES[s.scale].toValue(Number(pos)));
  return `${end(el.min)} to ${end(el.max)}`;
}

// Applies a URL hash's settings to the controls; returns the problems found (bad values are
// skipped, each named once).
export function fromHash(params) {
  const problems = [];
  const number = (key) => {
    const text = params.get(key);
    const v = Number(text);
    if (text === null || text.trim() === '' || !Number.isFinite(v)) {
      problems.push(`${key} = '${String(text).slice(0, 20)}' is not a number`);
      return null;
    }
    return v;
  };
  for (const s of SLIDERS) {
    if (!params.has(s.field)) continue;
    const v = number(s.field);
    const ok = v !== null && (v > 0 || (s.field === 'sigma' && v === 0)) && setSlider(s, v, s.field !== 'lot_size');
    if (v !== null && !ok) problems.push(`${s.field} = ${shortNumber(v)} is out of range (${rangeOf(s)})`);
  }
  for (const c of SELECTS) {
    const v = c.url && params.get(c.url);
    if (!v) continue;
    if (hasOption(c.id, v)) $(c.id).value = v;
    else problems.push(`${c.url} = '${v.slice(0, 20)}' is not one of the choices`);
  }
  if (params.has('seed')) {
    const text = params.get('seed');
    const v = Number(text);
    if (text.trim() !== '' && Number.isInteger(v) && v >= 0 && v <= MAX_SEED) $('seed').value = String(v);
    else problems.push(`seed = '${text.slice(0, 20)}' is not a whole number from 0 to ${MAX_SEED}`);
  }
  if (params.has('pca')) {
    const k = number('pca');
    if (k !== null && Number.isInteger(k) && k >= 1 && k <= 784) {
      $('pca-on').checked = true;
      $('pca-k').value = String(k);
    } else if (k !== null) problems.push(`pca = ${k} must be a whole number from 1 to 784`);
    const ps = params.has('pca_sigma') ? number('pca_sigma') : null;
    if (ps !== null && ps >= 0 && ps <= 100) $('pca-sigma').value = String(ps);
  }
  if (params.has('adapt')) {
    const g = number('adapt');
    if (g !== null && g > 0 && g < 1) {
      $('adapt-on').checked = true;
      $('adapt-quantile').value = String(g);
    } else if (g !== null) problems.push(`adapt = ${g} must be strictly between 0 and 1`);
  }
  return problems;
}

// Moves the σ slider to exactly `sigma` (a calibrated σ, already rounded up by Rust).
export function setSigma(sigma) {
  setSlider(SLIDERS[0], sigma);
}

// Sets the lot-size slider's range to 1..N, and its value to `lot` when given.
export function setLotRange(nTrain, lot) {
  const el = $('lot-size');
  el.max = String(log10(Math.max(1, nTrain)));
  if (lot) el.value = String(log10(Math.min(lot, nTrain)));
}
