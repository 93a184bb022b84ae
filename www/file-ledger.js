// "Your file, all runs together": each run's ε covers that run alone, but every moved slider
// starts a new run on the same private rows, and a student who tried twenty settings has
// released twenty runs. This keeps the list of what was shown — each preparation of the file,
// each run's settings and the steps its last report showed — and asks Rust to compose it
// (`file_ledger`, src/privacy/ledger.rs, in the accounting worker). The count starts when a
// file is loaded and lives as long as the page: the same file loaded again keeps it (same
// names, sizes and dates); another file, or a reloaded page, starts from zero.
const $ = (id) => document.getElementById(id);
const EVERY_MS = 1000; // at most one composition a second (hundreds of runs: 0.1 s each)

export class FileLedger {
  constructor(accounting, fmtEps) {
    this.accounting = accounting;
    this.fmtEps = fmtEps;
    this.timer = null;
    this.reset();
  }

  // A new file: nothing released about it yet.
  reset() {
    this.preparations = []; // the facts of each time a worker prepared it
    this.runs = new Map(); // generation → { config, facts, steps }
    clearTimeout(this.timer);
    this.timer = null;
    this.stale = false; // a change came while the last second's composition was enough
    this.accounting.cancel('file-ledger');
    $('file-ledger').hidden = true;
  }

  // A worker prepared the file: a `fresh` one (another file than before), or the same again
  // (loaded again, or given to a restarted worker: a new split and range estimate).
  prepared(facts, fresh) {
    if (fresh) this.reset();
    this.preparations.push(facts);
    this.update();
  }

  // Run `generation` began on the file with settings `config` (its data's `facts`): what it
  // shows before its first step (DP-PCA's projection) counts from now.
  started(generation, config, facts) {
    this.runs.set(generation, { config, facts, steps: 0 });
    this.update();
  }

  // Run `generation`'s latest report showed its first `steps` steps.
  shown(generation, steps) {
    const run = this.runs.get(generation);
    if (!run || !(steps >= run.steps)) return;
    run.steps = steps;
    this.update();
  }

  // Composes at once if nothing was composed in the last second, else once the second is over.
  update() {
    if (!this.runs.size) return;
    if (this.timer) {
      this.stale = true;
      return;
    }
    this.ask();
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.stale) this.update();
    }, EVERY_MS);
  }

  ask() {
    this.stale = false;
    const runs = [...this.runs.values()];
    this.accounting.ask('file-ledger', { preparations: this.preparations, runs }, (m) => {
      if (m.error) this.show(`Your file's runs together: cannot compute their ε (${m.error}).`);
      else this.show(this.sentence(m.result, runs));
    });
  }

  sentence(l, runs) {
    const eps = this.fmtEps;
    const many = (n, word) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
    const seeded = runs.some((r) => r.config.seed !== null && r.config.seed !== undefined);
    const teaching = runs.some((r) => r.config.report === 'teaching');
    const parts = [];
    if (seeded || teaching) parts.push('Not private in full:');
    parts.push(`Your file, all runs together since you loaded it: ${many(l.runs, 'run')}, `
      + `${many(l.steps, 'training step')} reported, ε = ${eps(l.moments)} (moments accountant; RDP ${eps(l.rdp)}) `
      + `at δ = ${Number(l.delta).toExponential(0)}.`);
    if (l.moments === 'inf') parts.push('A run without privacy (no noise, or no clipping) showed your data: no later run can take that back.');
    else parts.push('The status line\'s ε is the latest run alone; this is all of them.');
    if (l.preparations > 1) parts.push(`The file was prepared ${l.preparations} times (each time its split and column ranges are drawn again).`);
    if (seeded) parts.push('Runs with a fixed seed are not private against whoever knows it.');
    if (teaching) parts.push('Runs at the teaching level showed your exact test accuracy and training data, which this ε does not cover.');
    return parts.join(' ');
  }

  show(text) {
    $('file-ledger').textContent = text;
    $('file-ledger').hidden = false;
  }
}
