// "Your file, all runs together": each run's ε covers that run alone, but every moved slider
// starts a new run on the same private rows, and a student who tried twenty settings has
// released twenty runs. This keeps the list of what was shown — each preparation of the file,
// each run's settings and the steps its last report showed — and asks Rust to compose it
// (`file_ledger`, src/privacy/ledger.rs, in the accounting worker). The count starts when a
// file is loaded and lives as long as the page: loading the file again starts a new one.
const $ = (id) => document.getElementById(id);

export class FileLedger {
  constructor(accounting, fmtEps) {
    this.accounting = accounting;
    this.fmtEps = fmtEps;
    this.reset();
  }

  // A new file: nothing released about it yet.
  reset() {
    this.preparations = []; // the facts of each time a worker prepared it
    this.runs = new Map(); // generation → { config, facts, steps }
    this.accounting.cancel('file-ledger');
    $('file-ledger').hidden = true;
  }

  // A worker prepared the file: a `fresh` one, or the same again after a restart (a new split
  // and range estimate).
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

  update() {
    if (!this.runs.size) return;
    const runs = [...this.runs.values()];
    this.accounting.ask('file-ledger', { preparations: this.preparations, runs }, (m) => {
      if (m.error) this.show(`Your file's runs together: cannot compute their ε (${m.error}).`);
      else this.show(this.sentence(m.result, runs));
    });
  }

  sentence(l, runs) {
    const eps = this.fmtEps;
    const many = (n, word) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
    const parts = [`Your file, all runs together since you loaded it: ${many(l.runs, 'run')}, `
      + `${many(l.steps, 'training step')} shown, ε = ${eps(l.moments)} (moments accountant; RDP ${eps(l.rdp)}) `
      + `at δ = ${Number(l.delta).toExponential(0)}.`];
    if (l.moments === 'inf') parts.push('A run without noise released your data: no later run can bring this back.');
    else parts.push('Each run\'s own ε counts that run alone.');
    if (l.preparations > 1) parts.push(`The file was prepared ${l.preparations} times (a restarted worker draws its split and ranges again).`);
    if (runs.some((r) => r.config.seed !== null && r.config.seed !== undefined)) parts.push('Runs with a fixed seed are not private against whoever knows it.');
    if (runs.some((r) => r.config.report === 'teaching')) parts.push('Runs at the teaching level showed diagnostics this ε does not cover.');
    return parts.join(' ');
  }

  show(text) {
    $('file-ledger').textContent = text;
    $('file-ledger').hidden = false;
  }
}
