// "Your file, all runs together": each run's ε covers that run alone, but every moved slider
// starts a new run on the same private rows, and a student who tried twenty settings has
// released twenty runs. This keeps the list of what was shown — each preparation of the file,
// each run's settings and the steps its last report showed — and asks Rust to compose it
// (`file_ledger`, src/privacy/ledger.rs, in the accounting worker), with what that ε does not
// cover (Rust's `caveats`). There is one count per file contents (LabData.contentKey), for as
// long as the page lives: another file starts its own, and loading the first again — renamed
// or re-saved too — takes its count up where it was. A reloaded page starts from zero, and
// each tab keeps its own count (two tabs on one file each count their own runs): the sentence
// says so.
import { deltaText } from '../core/shown.js';
const $ = (id) => document.getElementById(id);
const EVERY_MS = 1000; // at most one composition a second (hundreds of runs: 0.1 s each)
const LATE_MS = 1500; // an answer later than this: the total on show is marked behind

export class FileLedger {
  constructor(accounting, fmtEps) {
    this.accounting = accounting;
    this.fmtEps = fmtEps;
    this.timer = null;
    this.stale = false; // a change came while the last second's composition was enough
    this.files = new Map(); // contents key → { preparations, runs: Map(generation → run) }
    this.file = null; // the count of the file loaded last
    this.text = ''; // the last total shown
    this.late = null;
  }

  // A worker prepared the file with contents `key` (loaded, loaded again, or given to a
  // restarted worker: each draws a new split and range estimate, a release).
  prepared(facts, key) {
    const file = this.count(key);
    if (file !== this.file) {
      // The total on show was another file's.
      this.accounting.cancel('file-ledger');
      clearTimeout(this.late);
      this.text = '';
      $('file-ledger').hidden = true;
    }
    this.file = file;
    file.preparations.push(facts.releases);
    this.update();
  }

  // A preparation of the file with contents `key` that was refused after it released
  // `releases` (its range estimate): counted, and the file on show stays the one it was.
  spent(releases, key) {
    this.count(key).preparations.push(releases);
    this.update();
  }

  // The count of the file with contents `key`, begun empty.
  count(key) {
    if (!this.files.has(key)) this.files.set(key, { preparations: [], runs: new Map() });
    return this.files.get(key);
  }

  // Run `generation` began on the file loaded last with settings `config` (its data's
  // `facts`): what it shows before its first step (DP-PCA's projection) counts from now.
  started(generation, config, facts) {
    this.file?.runs.set(generation, { config, facts, steps: 0 });
    this.update();
  }

  // Run `generation`'s latest report showed its first `steps` steps (on whichever file it ran).
  shown(generation, steps) {
    const run = [...this.files.values()].map((f) => f.runs.get(generation)).find(Boolean);
    if (!run || !(steps >= run.steps)) return;
    run.steps = steps;
    this.update();
  }

  // Composes at once if nothing was composed in the last second, else once the second is over.
  update() {
    if (!this.file?.runs.size) return;
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
    const { preparations } = this.file;
    const runs = [...this.file.runs.values()];
    // An answer held up (a calibration can keep the accounting worker for seconds) would leave
    // a total on show that later steps have passed: it says so until the answer comes.
    clearTimeout(this.late);
    this.late = setTimeout(() => {
      if (this.text)
        this.show(`${this.text} Updating: the steps since are not in this total yet…`, false);
    }, LATE_MS);
    this.accounting.ask('file-ledger', { preparations, runs }, (m) => {
      clearTimeout(this.late);
      if (m.error) this.show(`Your file's runs together: cannot compute their ε (${m.error}).`);
      else this.show(this.sentence(m.result));
    });
  }

  // The composed figures in words; what they do not cover is Rust's (`caveats`).
  sentence(l) {
    const eps = this.fmtEps;
    const many = (n, word) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
    const parts = [];
    if (l.caveats.length) parts.push('Not private in full:');
    parts.push(
      `Your file, all runs in this tab together since you first loaded it here (other tabs ` +
        `count their own): ${many(l.runs, 'run')}, ` +
        (`${many(l.steps, 'training step')} reported, ε = ${eps(l.moments)} (moments ` +
          `accountant; RDP ${eps(l.rdp)}) `) +
        `at δ = ${deltaText(Number(l.delta))}.`,
    );
    if (l.unbounded)
      parts.push(l.unbounded); // Rust's cause: ranges read off the file, or a run without noise
    else parts.push("The status line's ε is the latest run alone; this is all of them.");
    if (l.preparations > 1)
      parts.push(
        `The file was prepared ${l.preparations} times (each time its split and column ` +
          `ranges are drawn again).`,
      );
    parts.push(...l.caveats);
    return parts.join(' ');
  }

  show(text, current = true) {
    if (current) this.text = text;
    $('file-ledger').textContent = text;
    $('file-ledger').hidden = false;
  }
}
