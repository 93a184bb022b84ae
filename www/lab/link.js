// A link's hash, read: the teacher keys (applied to the page), the lesson's settings and then
// the link's own (onto the settings, each bad one named and skipped), and the pinned runs, each
// checked on its own — the link's settings and its pins both through Rust's check.
// Hostile input is normal here: nothing in it is looked up on a plain object, and no value
// reaches the page's text unshortened.
import { MAX_PINS } from './pins.js';
import { ROWS } from './setting-rows.js';
import { configKey } from './config-key.js';
import { fromHash, LINK_VERSION, settings, toHash } from './settings.js';
import { shown } from '../core/shown.js';

// Reads `hash` (location.hash) with `check` (Rust's check of a run's settings) and `teacher`
// (the lessons room's applyTeacherMode, passed down by main.js with its keys, `teacherKeys`: a
// lab module imports no room above it); returns { teacherParams, step: the lesson step it
// opens (or null), queue: the pinned runs to train, problems: what was skipped and why }.
export function readLink(hash, check, teacher, teacherKeys = []) {
  const params = new URLSearchParams(hash.slice(1));
  const problems = unknownKeys(params, teacherKeys);
  const { kept: teacherParams, lesson, step } = teacher(params, problems);
  settings.apply(lesson); // the lesson's settings; the link's own, below, go over them
  const own = settings.readHash(params, check);
  settings.applyConfig(own.part);
  settings.apply(own.page);
  problems.push(...own.problems);
  const base = linkBase(params, settings.defaults, check);
  const linked = pinsFromLink(params.get('pins') || '[]', check, base);
  problems.push(...linked.problems);
  return { teacherParams, step, queue: linked.queue, problems };
}

// The settings a link's own keys (`params`) give over `defaults`, read without the page (no
// slider's ends, no lesson, no data set loaded): the base a link's pins are written against
// (writeLink) and read back over (pinsFromLink). The same pure function at both ends, so a
// pin reads back as the settings it was pinned with, whatever the reader's page holds.
export function linkBase(params, defaults, check) {
  try {
    return check({ ...defaults, ...fromHash(params, { check, defaults }).part });
  } catch {
    return check(defaults); // values fine alone but refused together: the pins carry theirs
  }
}

// The fields of `cfg` that differ from `base` (both whole RunConfigs): what a pin carries in a
// link. A Compare's pin differs from the link's own run in its mode alone — a link of four
// pins written in full was 3,300 characters, past any QR code; a field missing from a pin is
// the base's.
export function changedFrom(cfg, base) {
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  // A field the pin leaves out is none (Rust writes no `groups` for no grouping): said as null
  // where the base has one, else the pin would take the base's grouping.
  const keys = new Set([...Object.keys(cfg), ...Object.keys(base)]);
  return Object.fromEntries(
    [...keys].map((k) => [k, cfg[k] ?? null]).filter(([k, v]) => !same(v, base[k] ?? null)),
  );
}

// What a link has that this lab does not read, said rather than dropped unseen: a key that is
// none of a link's (a typo, `Sigma`; a newer lab's), and another version of links.
export function unknownKeys(params, teacherKeys) {
  const keys = ROWS.flatMap((r) => [r.url, r.urlOff]).filter(Boolean);
  const known = new Set(['v', 'pins', ...teacherKeys, ...keys]);
  const unknown = [...new Set(params.keys())].filter((k) => !known.has(k));
  const listed = unknown.slice(0, 5).map((k) => `'${shown(k)}'`);
  if (unknown.length > 5) listed.push(`${unknown.length - 5} more`);
  const problems = unknown.length ? [`no setting of this lab, skipped: ${listed.join(', ')}`] : [];
  if (params.has('v') && params.get('v') !== LINK_VERSION)
    problems.push(`the link is of another version of links than v = ${LINK_VERSION}, read as one`);
  return problems;
}

// The pinned runs of a link (`text`: the `pins` parameter, JSON), each over `base` (linkBase:
// a pin carries what differs from the link's own settings; a link written before carries all
// of them) and checked on its own by `check` (Rust's check of a run's settings): a bad pin is
// dropped with a message naming it, and the others and the link's own run go ahead.
// Returns { queue, problems }.
export function pinsFromLink(text, check, base = {}) {
  const problems = [];
  let list;
  try {
    list = JSON.parse(text);
  } catch {
    return { queue: [], problems: ['the pinned runs in the link are damaged and were skipped'] };
  }
  if (!Array.isArray(list))
    return { queue: [], problems: ['the pinned runs in the link are not a list and were skipped'] };
  const queue = [];
  list.slice(0, MAX_PINS).forEach((p, i) => {
    const label =
      p && typeof p === 'object' && typeof p.label === 'string' ? shown(p.label) : `pin ${i + 1}`;
    if (
      !p ||
      typeof p !== 'object' ||
      !p.cfg ||
      typeof p.cfg !== 'object' ||
      Array.isArray(p.cfg)
    ) {
      problems.push(`pinned run "${label}" has no settings and was skipped`);
      return;
    }
    try {
      const cfg = check({ ...base, ...p.cfg });
      // A link never carries a student's file (pins.js), so a pin naming it was written by
      // hand: it would train on the file with the link's settings — a seed chosen by the
      // link's author, whose noise that author could then subtract.
      if (cfg.dataset === 'own') {
        problems.push(`pinned run "${label}" was skipped (a link cannot train on your own file)`);
        return;
      }
      queue.push({ label, cfg, link: true });
    } catch (e) {
      problems.push(`pinned run "${label}" was skipped (${String(e.message || e).slice(0, 160)})`);
    }
  });
  if (list.length > MAX_PINS) problems.push(`only the first ${MAX_PINS} pinned runs are kept`);
  return { queue, problems };
}

// The runs to train and pin for a link: the lesson step's own (`stepRuns`), then the link's
// pins (`linkRuns`) less those that repeat one of the step's — same label, same settings once
// both are through `check` (Rust's): a link copied before #53 carried the step's pin, which the
// step pins again, so it showed twice.
export function stepThenLinkRuns(stepRuns, linkRuns, check) {
  const key = (cfg) => configKey(check(cfg));
  const own = stepRuns.map((r) => `${r.label}\n${key(r.cfg)}`);
  return [...stepRuns, ...linkRuns.filter((r) => !own.includes(`${r.label}\n${key(r.cfg)}`))];
}

// The `pins` parameter of a link whose own keys are `params`: each pin as its label and what it
// changes from the settings those keys give (linkBase).
export function pinsParam(params, sharedPins, defaults, check) {
  const base = linkBase(params, defaults, check);
  return JSON.stringify(sharedPins.map((p) => ({ label: p.label, cfg: changedFrom(p.cfg, base) })));
}

// The window's event after writeLink changed the address (replaceState fires no hashchange):
// the share dialog's QR code follows it (share.js).
export const LINK_CHANGED = 'lab-link-changed';

// Writes the link of `cfg` into the address bar: the teacher's keys (`teacherParams`), the
// run's settings and the pins a link may carry (`sharedPins`, Pins.shared()), each as what it
// changes from the link's own settings (linkBase over `defaults`, through `check`: Rust's).
export function writeLink(cfg, teacherParams, sharedPins, defaults, check) {
  const params = toHash(cfg, teacherParams);
  if (sharedPins.length) params.set('pins', pinsParam(params, sharedPins, defaults, check));
  window.history.replaceState(null, '', `#${params}`);
  window.dispatchEvent(new Event(LINK_CHANGED));
}
