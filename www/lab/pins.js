// Pinned runs: up to four, drawn with the current run, each in its own colour and dash. A pin keeps
// only what ε covers (it stays on the charts whatever the release level) and Rust's caveats on its
// numbers (its last report's notes: shuffled lots, no guarantee…), listed with the run's own notes
// and its name marked "*" where it is drawn; and a run on the student's own data is
// never written into a link (its settings cannot reopen it, and a fixed seed must not travel).
import { sameConfig } from './config-key.js';

const $ = (id) => document.getElementById(id);
export const MAX_PINS = 4;

// A pin's name, marked in front (a chart shortens long names at the end) when it has notes.
const marked = (p) => (p.notes.length ? `* ${p.label}` : p.label);

export class Pins {
  // `onChange`: called when the pins (and so their notes) change; `caveatsOf(cfg)`: Rust's
  // caveats of a pin beyond its reports' notes (pin_caveats: "DP-SGD" at σ = 0, no guarantee);
  // `labelOf(cfg, others)`: Rust's name for a run pinned beside runs `others` (pin_label).
  constructor(onChange, caveatsOf, labelOf) {
    this.list = [];
    this.version = 0; // counts changes (the charts set the pins they draw when it moves)
    this.onChange = onChange;
    this.caveatsOf = caveatsOf;
    this.labelOf = labelOf;
  }

  // The Pin button's name for run `cfg`: σ, C, L and what sets it apart from the pins here.
  nameFor(cfg) {
    return this.labelOf(
      cfg,
      this.list.map((p) => p.cfg),
    );
  }

  // `lessonStep`: the run of a lesson's earlier step, which the lesson pins again itself;
  // `link`: a run a link asked for (a lesson's Compare keeps it: `linked`).
  add(label, cfg, runHistory, lessonStep = false, link = false) {
    if (!runHistory.length) return;
    const keep = (r) => {
      const outside = new Set(r.not_private || []);
      return {
        epoch: r.epoch,
        test_acc: outside.has('test_acc') ? undefined : r.test_acc,
        private_test_acc: r.private_test_acc,
        epsilon: r.epsilon,
        groups: outside.has('groups') ? undefined : r.groups,
        // whether the run ended here (Rust's RunView: a cost compares two runs' ends)
        stopped_by_budget: r.stopped_by_budget,
        divergence: r.divergence,
      };
    };
    const last = runHistory[runHistory.length - 1].notes;
    const notes = Array.isArray(last) ? last.map(String) : [];
    for (const n of this.caveatsOf(cfg)) if (!notes.includes(n)) notes.push(n);
    this.restore([{ label, cfg, lessonStep, link, history: runHistory.map(keep), notes }]);
  }

  // Pins as `linked` gave them, after the others (the oldest go past four).
  restore(pins) {
    this.list.push(...pins);
    this.list.splice(0, Math.max(0, this.list.length - MAX_PINS));
    this.render();
  }

  // The pins a link asked for, as they are: a step's Compare, pressed as a link opens it, pins
  // them again after its own four, as on the lecturer's screen (pinned there after Compare).
  linked() {
    return this.list.filter((p) => p.link && !p.lessonStep);
  }

  clear() {
    this.list = [];
    this.render();
  }

  // A lesson's earlier-step runs leave, to be trained again (a setting moved in the step).
  dropLessonRuns() {
    this.list = this.list.filter((p) => !p.lessonStep);
    this.render();
  }

  render() {
    this.version += 1;
    $('pin-list').replaceChildren(
      ...this.list.map((p) =>
        Object.assign(document.createElement('li'), { textContent: marked(p) }),
      ),
    );
    this.onChange();
  }

  // What the charts draw: labels (marked when the pin has notes), modes (for the cost of
  // privacy the accuracy chart writes) and histories.
  drawn() {
    return this.list.map((p) => ({
      label: marked(p),
      mode: p.cfg.mode,
      cfg: p.cfg, // the comparisons hold a pin to runs alike but for the mode (Rust's RunView)
      history: p.history,
    }));
  }

  // A note several pins share is said once, naming them all (Compare's three runs without a
  // guarantee make one line, not three).
  notes() {
    const byNote = new Map();
    for (const p of this.list)
      for (const n of p.notes) byNote.set(n, [...(byNote.get(n) ?? []), `"${marked(p)}"`]);
    return [...byNote].map(
      ([n, names]) => `pinned run${names.length > 1 ? 's' : ''} ${names.join(', ')}: ${n}`,
    );
  }

  // What a link may carry: the settings of pins not on the student's own data.
  // The pins a link carries: not a student's file's, and not a lesson step's own (the lesson
  // pins that again when the link opens its step: carried too, it was pinned twice, #53).
  shared() {
    return this.list
      .filter((p) => p.cfg.dataset !== 'own' && !p.lessonStep)
      .map((p) => ({ label: p.label, cfg: p.cfg }));
  }
}

// "Compare": the settings `base` in each of the four modes, to train and pin one after another
// (no budget: the comparison is of what noise and clipping do).
export const comparison = (base) =>
  [
    ['non-private', 'non-private'],
    ['clip-only', 'clip only'],
    ['noise-only', 'noise only'],
    ['dp', 'DP-SGD'],
  ].map(([mode, label]) => ({ label, cfg: { ...base, mode, budget_epsilon: null } }));

// Whether `run`, trained to be pinned and now done, is the run the controls would train next
// (settings `cfg`): Compare's last run, "DP-SGD", has the controls' own settings, and the page
// then kept it as the run instead of training it again (one run in five of every Compare: the
// same settings and seed give the same reports). Not a run that failed or diverged, and not on
// a student's file, whose ledger counts every run trained on it.
export const pinIsTheRun = (run, cfg) =>
  !!run?.pin &&
  run.done &&
  !run.failed &&
  !run.history.at(-1)?.divergence &&
  cfg.dataset !== 'own' &&
  sameConfig(run.pin.cfg, cfg);

// Compare's click handler: on a student's own file (`onOwnData()`) three of its four runs have
// no guarantee (ε = ∞ for that file, for good: the file ledger can never come back from it),
// so the first click only says so on the button and a second within WINDOW_MS runs `compare`.
const WINDOW_MS = 8000;
export function guardCompare(button, onOwnData, compare) {
  const label = button.textContent;
  let armed = null;
  const disarm = () => {
    clearTimeout(armed);
    armed = null;
    button.textContent = label;
    button.classList.remove('confirm');
  };
  return () => {
    if (armed || !onOwnData()) {
      disarm();
      compare();
      return;
    }
    // No count: at σ = 0 the fourth run has no privacy either.
    button.textContent =
      'Click again to confirm: Compare trains on your file without noise or clipping (ε = ∞ ' +
      'for it, for good)';
    button.classList.add('confirm');
    armed = setTimeout(disarm, WINDOW_MS);
  };
}

// Wires Pin, Clear pins and Compare. `current()`: the settings' config; `shown()`: the config of
// the run on screen (a run Compare or a lesson queued has its own, not the sliders'); `history()`:
// that run's reports; `pinRun(label, cfg, history)` pins a run; `changed()` runs after the pins
// change; `queue(runs, linked)` trains runs one after another to pin them (and pins a link's,
// `linked`, after them when a lesson pressed Compare); `ownData()`: whether the
// settings name the student's own file.
export function setUpPinButtons(
  pins,
  { current, shown, history, pinRun, changed, queue, ownData },
) {
  $('pin').addEventListener('click', () => {
    // The pin's name and settings are the run's it draws (they travel in a link).
    const c = shown();
    pinRun(pins.nameFor(c), c, history());
    changed();
  });
  $('clear-pins').addEventListener('click', () => {
    pins.clear();
    changed();
  });
  $('compare').addEventListener(
    'click',
    guardCompare($('compare'), ownData, () => {
      const linked = pins.linked();
      pins.clear();
      queue(comparison(current()), linked);
    }),
  );
}
