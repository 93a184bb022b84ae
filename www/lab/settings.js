// The page's settings: one object, driven by one table (in the manner of TF Playground's
// state.ts). Each row is one setting: its key (a RunConfig field, or a page setting such as the
// workers), its control, its URL key and how the control shows the value. Defaults and what is
// valid come from Rust (RunConfig::default() via run_defaults(), check_run_config); what a
// control offers (a slider's ends, a select's options) is the page's own choice.
//
// Only this module reads a control's value. One input handler updates the object and tells
// the page which setting a person changed (`onInput`); lessons, links, pins, calibration and
// Reset change settings through `apply(partial)`, which moves the controls too; `config()` is
// pure. The URL is written from a run's config (`toHash`) and read back through Rust's check
// (`fromHash`), the one path for a link's own settings as for its pins. User input is never
// looked up on a plain object, and reaches a message only shortened (shown.js).

import { shown } from '../core/shown.js';
import { BY_FIELD, BY_KEY, ROWS, scaleOf } from './setting-rows.js';

const $ = (id) => document.getElementById(id);
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
const shownNumber = (v) =>
  Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-4)
    ? v.toExponential(2)
    : String(+v.toPrecision(6));

// ---- A run's config from the object, and back (pure) ----

// The RunConfig of `values` over `defaults`: a switched field is null while its switch is off;
// the lot as set (never cut to the data's N here, silently: the worker says when it is larger,
// and lot-size.js changes it with a message); the seed is null — drawn in the worker from the
// browser's cryptographic source — for a student's file unless a fixed seed was chosen, and
// when the box holds no usable seed (`seedOk`).
export function configOf(values, defaults, seedOk = () => true, rows = ROWS) {
  const cfg = { ...defaults };
  for (const row of rows) {
    if (!row.field) continue;
    const v = row.switch && !values[row.switch] ? null : values[row.key];
    // left out: none
    if (row.none !== undefined && (v === row.none || v === null || v === undefined)) continue;
    // A required box left blank keeps the default (an optional one is off).
    cfg[row.field] = v === null && !row.switch ? defaults[row.field] : v;
  }
  const hidden = cfg.dataset === 'own' && !values.fixed_seed;
  if (hidden || !seedOk(values.seed)) cfg.seed = null;
  return cfg;
}

// The object's values that give `cfg` (a RunConfig or part of one): a switched field turns its
// switch on with its value, or off (null) keeping the box's number.
export function valuesOf(cfg, rows = ROWS) {
  const out = {};
  for (const row of rows) {
    if (!row.field || !Object.hasOwn(cfg, row.field)) continue;
    const v = cfg[row.field];
    if (row.none !== undefined) out[row.key] = v ?? row.none;
    else if (row.switch) {
      out[row.switch] = v !== null && v !== undefined;
      if (out[row.switch]) out[row.key] = v;
    } else if (row.key !== 'seed' || v !== null) {
      out[row.key] = v;
    }
  }
  return out;
}

// The URL hash of `cfg` (version 1), after `extra` (the teacher's keys): never a student's file
// or its seed, and an optional setting only when it is on.
// The version of the lab's links (`v`): written in each, and a link of another one is said.
export const LINK_VERSION = '1';

export function toHash(cfg, extra = [], rows = ROWS) {
  const params = new URLSearchParams({ v: LINK_VERSION });
  for (const [k, v] of extra) params.set(k, v);
  for (const row of rows) {
    if (!row.field) continue; // a page setting: Settings.pageParams
    const v = cfg[row.field];
    if (!row.url || (row.hideForOwnData && cfg.dataset === 'own')) continue;
    // A none choice is said (groups=none): a lesson's link, opened, would else put its own back.
    if ((v === null || v === undefined) && row.none !== undefined) params.set(row.url, row.none);
    if (v === null || v === undefined) continue;
    if (row.urlWith && (cfg[row.urlWith] === null || cfg[row.urlWith] === undefined)) continue;
    params.set(row.url, String(v));
  }
  return params;
}

// A link's settings: each URL key of `rows` read, checked in three steps — its form (a number,
// one of the choices `offered(row)` gives), the control's own range (`range(row)`: [lo, hi] of
// a slider, a whole-number box), then Rust's check of a run's settings (`check`, over
// `defaults`) — and kept as a RunConfig part (a page setting, or a switched field's box under
// its `urlOff` key with the field not on: in `page`), or named in `problems` and skipped.
export function fromHash(
  params,
  { check, defaults, range = () => null, offered = () => true, rows = ROWS },
) {
  const problems = [];
  const part = {};
  const page = {};
  for (const table of rows) {
    const off = table.urlOff && params.has(table.urlOff) && !params.has(table.url);
    const row = off ? { ...table, url: table.urlOff } : table;
    if (!row.url || !params.has(row.url)) continue;
    const text = params.get(row.url);
    const value = readLinkValue(row, text, range(row), offered, problems);
    if (value === undefined) continue;
    if (!row.field) {
      page[row.key] = value; // a page setting, not the run's: nothing of Rust's to check
      continue;
    }
    const v = row.none !== undefined && value === row.none ? null : value;
    try {
      check({ ...defaults, [row.field]: v });
    } catch (e) {
      // Rust names the config field; the link's reader knows the link's key (`budget`).
      const said = String(e.message || e);
      const named = said.startsWith(`${row.field}:`)
        ? row.url + said.slice(row.field.length)
        : said;
      problems.push(named.slice(0, 200));
      continue;
    }
    if (off) page[row.key] = v;
    else part[row.field] = v;
  }
  return { part, page, problems };
}

// One value of a link in its row's form, or undefined (the problem said).
function readLinkValue(row, text, ends, offered, problems) {
  if (row.kind === 'select') {
    if (row.key === 'dataset' && text === 'own') {
      // Never trained from a link (as pins, link.js): the file's ε is spent by the student's click.
      problems.push(
        `dataset = own was skipped (a link cannot train on your own file): its other ` +
          `settings are used on the data set the page has (a lesson's, or the default)`,
      );
      return undefined;
    }
    if (offered(row, text)) return text;
    problems.push(`${row.url} = '${shown(text)}' is not one of the choices`);
    return undefined;
  }
  const v = Number(text);
  if (row.whole) {
    const [lo, hi] = ends ?? [0, Number.MAX_SAFE_INTEGER];
    if (text.trim() !== '' && Number.isInteger(v) && v >= lo && v <= hi) return v;
    problems.push(`${row.url} = '${shown(text)}' is not a whole number from ${lo} to ${hi}`);
    return undefined;
  }
  if (text.trim() === '' || !Number.isFinite(v)) {
    problems.push(`${row.url} = '${shown(text)}' is not a number`);
    return undefined;
  }
  if (row.kind !== 'slider') return v;
  // A slider shows what it can reach: a value beyond its ends is named, not moved to an end
  // (the lot excepted: its end is the data set's N, and a larger lot means all of it).
  const scale = scaleOf(row);
  const [lo, hi] = ends ?? [-Infinity, Infinity];
  const pos = scale.toSlider(v);
  // The lot past the end kept as it is: the end is the N of the data set the page has, not
  // yet the link's (60,000 images, read against Adult's 32,561, were cut to q ≈ 0.54 unsaid).
  // Where the link's data set has fewer rows, the run says so as it starts (lot-size.js).
  if (row.clampToEnds && pos > hi && Number.isSafeInteger(Math.round(v))) return Math.round(v);
  const reach = Number.isFinite(pos) && (row.clampToEnds || (pos >= lo - 1e-9 && pos <= hi + 1e-9));
  if (!reach) {
    const fmt = row.fmt ?? String;
    problems.push(
      `${row.url} = ${shownNumber(v)} is out of range (${fmt(scale.toValue(lo))} ` +
        `to ${fmt(scale.toValue(hi))})`,
    );
    return undefined;
  }
  // The value at the knob: the link's number itself where that is the knob's value but for
  // float noise (through the scale 1e-5 came back 1.0000000000000001e-5), else what the
  // slider rounds it to (2.5 epochs: 3) or its end.
  const back = scale.toValue(clamp(pos, lo, hi));
  if (Math.abs(back - v) <= 1e-9 * Math.abs(v)) return v;
  // moved to a position, named where that changes it (δ = 2e-5 to 1e-5 doubles what δ allows)
  if (Math.abs(back - v) > 0.005 * Math.abs(v))
    problems.push(
      `${row.url} = ${shownNumber(v)} is between the slider's positions: ` +
        `${(row.fmt ?? String)(back)} is used`,
    );
  return back;
}

// ---- The object and its controls ----
class Settings {
  constructor() {
    this.values = {};
    this.defaults = null;
    this.listeners = [];
    /** @type {string | undefined} the lot slider's end in the page's markup */
    this.lotMax = undefined;
  }

  // Wires every control to the one input handler (sliders as they move, the others on change).
  // `defaults`: RunConfig::default(); `suggested`: what a switched field's box shows until
  // someone types (Rust's); page settings start at their control's value in the markup.
  start(defaults, suggested) {
    for (const row of ROWS) {
      const el = $(row.control);
      el.addEventListener(row.kind === 'slider' ? 'input' : 'change', () => this.input(row));
      this.values[row.key] = read(row, el, true);
    }
    this.reset(defaults, suggested);
  }

  // Every run setting back to its default (a link opened in place of another gives the run a
  // fresh load would); a switched field's box shows Rust's suggestion.
  reset(defaults, suggested = this.suggested) {
    this.defaults = defaults;
    this.suggested = suggested;
    // The lot slider's end as the page loads it (Adult's N), not the last data set's: a link's
    // lot is read against it (1,024 after breast cancer's 455); main.js sets N again after.
    this.lotMax ??= $('lot-size').max;
    $('lot-size').max = this.lotMax;
    const boxes = {};
    for (const [field, v] of Object.entries(suggested))
      if (BY_FIELD.has(field)) boxes[BY_FIELD.get(field).key] = v;
    // a field left out of the defaults
    for (const row of ROWS) if (row.none !== undefined) boxes[row.key] = row.none;
    // a page setting a link or lesson may change: the markup's value (setting-rows.js `fresh`)
    for (const row of ROWS) if (row.fresh) boxes[row.key] = read(row, $(row.control), true);
    this.apply({ ...boxes, ...valuesOf(defaults) });
  }

  // Calls `f(key)` when a person changes a setting on the page.
  onInput(f) {
    this.listeners.push(f);
  }

  input(row) {
    const was = this.values.dataset;
    this.values[row.key] = read(row, $(row.control));
    show(row, this.values[row.key]);
    if (row.key === 'dataset') this.leftOwnData(was);
    for (const f of this.listeners) f(row.key);
  }

  // A seed fixed for a student's file stays the file's: leaving it, the box has the markup's
  // seed (a link carried the file's: its noise, reproducible).
  leftOwnData(was) {
    if (was !== 'own' || this.values.dataset === 'own' || !this.values.fixed_seed) return;
    this.apply({ fixed_seed: false, seed: read(BY_KEY.get('seed'), $('seed'), true) });
  }

  // Sets some settings (`part`: keys of the table) and moves their controls; a slider keeps the
  // value it can show: `v` itself where the knob stands for it (η = 0.5 on the log slider, whose
  // 0.01 grid reads back 0.501: a lesson said η = 0.5 and ran 0.501), else the value at the knob
  // (an end, for a value beyond it). Unknown keys are ignored.
  apply(part) {
    const was = this.values.dataset;
    for (const [key, v] of Object.entries(part)) {
      const row = BY_KEY.get(key);
      if (!row) continue;
      const el = $(row.control);
      write(row, el, v);
      const kept = row.kind === 'slider' && knobStandsFor(row, el, v);
      this.values[key] =
        !kept && (row.kind === 'slider' || row.kind === 'select') ? read(row, el) : v;
      show(row, this.values[key]);
    }
    if (Object.hasOwn(part, 'dataset')) this.leftOwnData(was);
  }

  // Sets the settings of a RunConfig (or a part of one).
  applyConfig(cfg) {
    this.apply(valuesOf(cfg));
  }

  get(key) {
    return BY_KEY.has(key) ? this.values[key] : undefined;
  }

  // The RunConfig of the settings now.
  config() {
    return configOf(this.values, this.defaults, (s) => !seedProblem(s, this));
  }

  // The RunConfig the settings would give with `part` (keys of the table) over them: a
  // lesson's earlier step, trained for comparison without moving the controls.
  configWith(part) {
    return configOf({ ...this.values, ...part }, this.defaults, (s) => !seedProblem(s, this));
  }

  // A link's settings, read and checked (see fromHash): { part: a RunConfig part, page: the
  // page settings it sets (keys of the table), problems }.
  readHash(params, check) {
    return fromHash(params, {
      check,
      defaults: this.defaults,
      range: controlRange,
      offered: hasOption,
    });
  }

  // A link's page settings (rows with a URL key, no RunConfig field; a switched field's box, its
  // switch off, under `urlOff`) as [key, value]: a value a reader accepts, where it is not the
  // markup's — or, a page setting, always with `lesson` (the link opens one, whose own value its
  // reader would get instead: the audit lesson's 300; no lesson sets the target).
  pageParams(lesson = false) {
    const ok = (row, v, [lo, hi] = controlRange(row) ?? [-Infinity, Infinity]) =>
      (row.whole ? Number.isInteger(v) : Number.isFinite(v)) && v >= lo && v <= hi;
    const keyOf = (row) => (row.field ? row.urlOff : row.url);
    return ROWS.filter((row) => (row.field ? !this.values[row.switch] : true) && keyOf(row))
      .filter((row) => ok(row, this.values[row.key]))
      .filter(
        (row) => (lesson && !row.field) || this.values[row.key] !== read(row, $(row.control), true),
      )
      .map((row) => [keyOf(row), String(this.values[row.key])]);
  }

  // Whether the run uses the student's own data.
  ownData() {
    return this.values.dataset === 'own';
  }

  // Why the seed box's value cannot be used, or null.
  seedProblem() {
    return seedProblem(this.values.seed, this);
  }

  // The lot-size slider's far end becomes N (the data set's size), its value `lot` when given.
  setLotRange(nTrain, lot) {
    $('lot-size').max = String(Math.log10(Math.max(1, nTrain)));
    this.apply({ lot_size: lot ? Math.min(lot, nTrain) : this.values.lot_size });
  }

  // The largest value a slider reaches, in its own units.
  sliderMax(key) {
    const row = BY_KEY.get(key);
    return scaleOf(row).toValue(Number($(row.control).max));
  }
}

// Why `seed` cannot be used, or null: none is used for a student's file unless fixed.
function seedProblem(seed, s) {
  if (s.ownData() && !s.values.fixed_seed) return null;
  const [lo, hi] = controlRange(BY_KEY.get('seed'));
  if (Number.isInteger(seed) && seed >= lo && seed <= hi) return null;
  const text = $('seed').value.trim();
  return (
    `the seed must be a whole number from ${lo} to ${hi}; '${shown(text)}' is not, so a random ` +
    `seed is used`
  );
}

// The value a control holds; `initial`: as the markup gives it (a blank box: null).
function read(row, el, initial = false) {
  if (row.kind === 'check') return initial ? el.defaultChecked : el.checked;
  if (row.kind === 'select') return el.value;
  const text = initial && row.kind === 'number' ? el.defaultValue : el.value;
  if (row.kind === 'slider') return scaleOf(row).toValue(Number(text));
  return text.trim() === '' ? null : Number(text);
}

// Whether slider `el`'s knob, as `write` put it, stands for `v`: a value its scale gives at some
// position (not one it rounds, as the power-of-ten δ slider does) within half a step of the knob.
function knobStandsFor(row, el, v) {
  const scale = scaleOf(row);
  const pos = typeof v === 'number' ? scale.toSlider(v) : NaN;
  const step = Number(el.step) || 0;
  return (
    Number.isFinite(pos) &&
    scale.toValue(pos) === v &&
    Math.abs(pos - Number(el.value)) <= step / 2 + 1e-9
  );
}

function write(row, el, v) {
  if (row.kind === 'check') el.checked = Boolean(v);
  else if (row.kind === 'select') {
    if (typeof v === 'string' && hasOption(row, v)) el.value = v;
  } else if (row.kind === 'slider') {
    const pos = scaleOf(row).toSlider(v);
    // a lot past the end: a link's, read before its data set's N is known (setLotRange)
    if (row.clampToEnds && pos > Number(el.max)) el.max = String(pos);
    if (Number.isFinite(pos)) el.value = String(clamp(pos, Number(el.min), Number(el.max)));
  } else el.value = v === null || v === undefined ? '' : String(v);
}

// A slider's label shows its value.
function show(row, v) {
  if (row.kind === 'slider') $(`${row.control}-value`).textContent = (row.fmt ?? String)(v);
}

// What a control offers: a slider's ends (positions) or a box's min and max.
function controlRange(row) {
  const el = $(row.control);
  return el.min !== '' && el.max !== '' ? [Number(el.min), Number(el.max)] : null;
}

function hasOption(row, value) {
  return [...$(row.control).options].some((o) => o.value === value && !o.hidden);
}

export const settings = new Settings();
