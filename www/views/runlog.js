// The run log (the charts' text alternative: one row per epoch) and its CSV export. Which
// fields a report carries and which of them ε does not cover both come from the report itself
// (Rust's release level and its `not_private` list); columns outside the guarantee are marked
// in the table and named so in the export.

import { noisyAccuracyCell } from './status-text.js';

const $ = (id) => document.getElementById(id);
const pct = (v) => `${(100 * v).toFixed(2)}%`;

// Every column the log can show, in order: the report field (a path), its heading, its format
// (`cell`: of the whole report, for a value with its ±).
// A column is shown when the run's reports carry its field. `accountants`: one ε column per
// accountant Rust reports (its accountants() list), in its order.
const COLUMNS = [
  { key: 'epoch', label: 'epoch', fmt: String },
  { key: 'test_acc', label: 'test acc', fmt: pct },
  {
    key: 'private_test_acc',
    label: 'test acc (noisy count, ± 1 sd)',
    fmt: pct,
    cell: noisyAccuracyCell,
  },
  { accountants: true },
  { key: 'clip', label: 'C', fmt: (v) => v.toPrecision(3) },
  { key: 'private_clipped_fraction', label: 'clipped (noisy count)', fmt: pct },
  { key: 'train_acc', label: 'train acc', fmt: pct },
  { key: 'clipped_fraction', label: 'clipped', fmt: pct },
  { key: 'median_grad_norm', label: 'median ‖g‖', fmt: (v) => v.toFixed(3) },
];

const get = (r, key) =>
  key
    .split('.')
    .reduce((v, k) => (v && Object.prototype.hasOwnProperty.call(v, k) ? v[k] : undefined), r);
const topKey = (key) => key.split('.')[0];
const badge = () =>
  Object.assign(document.createElement('span'), { className: 'badge', textContent: 'not private' });

export class RunLog {
  // `fmtEps` formats an ε the one way the lab does (Rust's format_epsilon); `labelsOf(cfg)` gives
  // the accountants' names beside a run in its convention (Rust's accountant_labels).
  constructor(fmtEps, labelsOf = null) {
    this.fmtEps = fmtEps;
    this.labelsOf = labelsOf;
    this.columns = [];
    this.all = COLUMNS.filter((c) => !c.accountants);
    this.accountants = [];
    this.table = $('run-log');
  }

  // The accountants a report lists ([{name, label}], Rust's accountants()), once wasm has loaded,
  // and what a starred name means (`caveat`, Rust's: naive and strong in a convention that is
  // no bound), said in the table's caption.
  setAccountants(list, caveat = null) {
    this.accountants = list;
    const eps = list.map((a) => ({ key: `epsilon.${a.name}`, label: `ε ${a.label}`, eps: true }));
    this.all = COLUMNS.flatMap((c) => (c.accountants ? eps : [c]));
    $('run-log-caveat').textContent = caveat ? ` Starred (*): ${caveat}.` : '';
    $('run-log-caveat').hidden = !caveat;
  }

  // A new run (`cfg`, its settings): its columns named in its convention.
  clear(generation, cfg = null) {
    if (cfg && this.labelsOf) {
      const named = this.labelsOf(cfg);
      this.setAccountants(named.accountants, named.caveat);
    }
    this.table.dataset.generation = String(generation); // lets tests tell runs apart
    this.table.tBodies[0].replaceChildren();
    this.table.tHead.rows[0].replaceChildren();
    this.columns = [];
  }

  // The header, from the first report of a run.
  header(report) {
    const notPrivate = new Set(report.not_private || []);
    this.columns = this.all
      .filter((c) => get(report, c.key) !== undefined)
      .map((c) => ({ ...c, notPrivate: notPrivate.has(topKey(c.key)) }));
    this.table.tHead.rows[0].replaceChildren(
      ...this.columns.map((c) => {
        const th = document.createElement('th');
        th.scope = 'col';
        th.textContent = c.label;
        th.dataset.key = c.key;
        if (c.notPrivate) th.append(badge());
        return th;
      }),
    );
  }

  append(report, budgetStop) {
    if (!this.columns.length) this.header(report);
    const tr = document.createElement('tr');
    for (const c of this.columns) {
      const td = document.createElement('td');
      const v = get(report, c.key);
      td.textContent = c.eps
        ? this.fmtEps(v)
        : typeof v === 'number'
          ? (c.cell ?? c.fmt)(c.cell ? report : v)
          : '—';
      td.dataset.key = c.key;
      if (c.notPrivate) td.classList.add('not-private');
      tr.appendChild(td);
    }
    if (budgetStop) tr.classList.add('budget-stop');
    this.table.tBodies[0].appendChild(tr);
  }
}

// Scalar fields of a report, flattened ("epsilon.moments"); lists and notes are left out.
function scalarFields(r, prefix = '') {
  const out = [];
  for (const [k, v] of Object.entries(r)) {
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')
      out.push([`${prefix}${k}`, v]);
    else if (v && typeof v === 'object' && !Array.isArray(v))
      out.push(...scalarFields(v, `${prefix}${k}.`));
  }
  return out;
}

// A CSV field: quoted when it holds a comma, a quote or a line end (a message, say).
const cell = (v) => {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

// The run's reports as CSV: every scalar field they carry, those outside the guarantee headed
// "(not private)", Rust's caveats on the numbers ("notes", joined), what the run's ε does not
// cover (Rust's coverage list, `outside`: the same on every row), on a student's own data what
// all runs on the file spent together as the page said it at export (`fileTotal`: the file
// ledger's sentence; each row's ε is that run's alone), then the settings — with no seed for a
// private data set; a setting a report also carries (`lr`: the epoch's, with a schedule) is
// headed "lr (setting)", so no column name is there twice.
export function csvOf(history, cfg, { outside = [], fileTotal = '' } = {}) {
  const first = history[0] || {};
  const notPrivate = new Set(first.not_private || []);
  const keys = [];
  for (const r of history) for (const [k] of scalarFields(r)) if (!keys.includes(k)) keys.push(k);
  const own = cfg.dataset === 'own';
  const run = [['not_covered', outside.join('; ')]];
  if (own) run.push(['file_all_runs_at_export', fileTotal || 'not composed yet: see the page']);
  const settings = [
    ['sigma', cfg.sigma],
    ['lot_size', cfg.lot_size],
    ['lr', cfg.lr],
  ];
  if (!own && cfg.seed !== null) settings.push(['seed', cfg.seed]);
  const after = [...run, ...settings];
  const head = keys.map((k) => (notPrivate.has(topKey(k)) ? `${k} (not private)` : k));
  const notes = (r) => (Array.isArray(r.notes) ? r.notes.join('; ') : '');
  const afterHead = after.map(([k]) => (keys.includes(k) ? `${k} (setting)` : k));
  const lines = [[...head, 'notes', ...afterHead].join(',')];
  for (const r of history) {
    lines.push(
      [
        ...keys.map((k) => cell(get(r, k) ?? '')),
        cell(notes(r)),
        ...after.map(([, v]) => cell(v)),
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}
