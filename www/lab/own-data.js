// A student's own data on the page: the file picker, the label column, the stated column
// ranges (the text field, and the form of ranges a file too small for the private estimate
// gets) are read here; the file(s) are parsed in the training worker (wasm), which answers
// with 'own-data-loaded' or 'own-data-rejected' (protocol.js). The panel's markup is its own
// file, own-data.html, put into details#own-data the first time a student opens it.
import { LabData } from '../pkg/dpsgd_lab.js';
import { TO_WORKER } from '../core/protocol.js';
import { settings } from './settings.js';
import { fitOwnLot } from './lot-size.js';
import { counted, shown } from '../core/shown.js';

const $ = (id) => document.getElementById(id);
// Rows the form shows at most: a wider file states the rest in the text field (10,000
// columns would be 20,000 inputs, seconds of the main thread).
const MAX_FORM_COLUMNS = 1000;

// The form of ranges: one row per numeric column of a file refused for want of ranges (Rust's
// `RangesNeeded`), pre-filled with the ranges it was given, and where they come from. Column
// names are the file's, shown as text (shortened: shown.js) and sent back as they are, never
// used as keys.
const form = {
  names: [], // the names of the rows shown, in order
  shown: () => $('ranges-form')?.hidden === false,

  show(needed) {
    const columns = needed.columns.filter((c) => c && typeof c.name === 'string');
    const rows = columns.slice(0, MAX_FORM_COLUMNS).map((c, i) => {
      const tr = document.createElement('tr');
      const th = Object.assign(document.createElement('th'), {
        scope: 'row',
        textContent: shown(c.name),
        title: shown(c.name, 1000),
      });
      tr.appendChild(th);
      const range =
        c.range && Number.isFinite(c.range.lo) && Number.isFinite(c.range.hi) ? c.range : null;
      tr.classList.toggle('missing', !range);
      for (const [end, v] of [
        ['min', range?.lo],
        ['max', range?.hi],
      ]) {
        const input = Object.assign(document.createElement('input'), {
          type: 'number',
          step: 'any',
          value: v === undefined ? '' : String(v),
        });
        input.dataset.row = String(i);
        input.setAttribute('aria-label', `${end} of ${shown(c.name)}`);
        tr.appendChild(document.createElement('td')).appendChild(input);
      }
      return tr;
    });
    this.names = columns.slice(0, MAX_FORM_COLUMNS).map((c) => c.name);
    $('ranges-table').tBodies[0].replaceChildren(...rows);
    const more = columns.length - rows.length;
    $('ranges-more').hidden = more <= 0;
    $('ranges-more').textContent =
      `and ${more.toLocaleString('en-US')} more numeric columns: state their ranges in the ` +
      `text field above (name=min:max).`;
    const rowsText = Number(needed.rows).toLocaleString('en-US');
    $('ranges-why').textContent = needed.estimated
      ? `The private estimate found no range for some columns (what it spent counts in your ` +
        `file's total). Give the range of every numeric column — ${columns.length} — from ` +
        `public knowledge:`
      : `${rowsText} rows are too few to estimate these ranges privately ` +
        `(about ${Number(needed.rows_needed).toLocaleString('en-US')} would be needed); ` +
        `nothing was released. ` +
        (`Give the range of every numeric column — ${columns.length}, filled in where the ` +
          `text field gave one — from public knowledge:`);
    $('ranges-form').hidden = false;
    $('ranges-table').querySelector('tr.missing input')?.focus();
  },

  hide() {
    $('ranges-form').hidden = true;
    $('ranges-table').tBodies[0].replaceChildren();
    this.names = [];
    for (const r of document.querySelectorAll('input[name="ranges-source"]')) r.checked = false;
  },

  // The ranges typed ([[name, min, max], …]) and whether they were read off the file, or a
  // problem to say first (the numbers themselves are checked in Rust, with the text field's).
  read() {
    const ranges = [];
    for (const tr of $('ranges-table').tBodies[0].rows) {
      const [lo, hi] = [...tr.querySelectorAll('input')];
      const name = this.names[Number(lo.dataset.row)];
      if (lo.value.trim() === '' && hi.value.trim() === '') continue;
      if (lo.value.trim() === '' || hi.value.trim() === '')
        return { problem: `Give both the min and the max of '${shown(name)}' (or neither).` };
      ranges.push([name, Number(lo.value), Number(hi.value)]);
    }
    const readOff = $('ranges-file').checked;
    if (ranges.length && !readOff && !$('ranges-public').checked) {
      return {
        problem:
          'Say where these ranges come from: public knowledge, or read off this file (then ' +
          'nothing after is private).',
      };
    }
    return { ranges, readOff };
  },
};

// The panel's markup (own-data.html) into details#own-data, once, the first time it opens;
// then `wire()`. A failed fetch says so in the panel, and the next opening tries again.
function loadPanelOnOpen(wire) {
  const panel = $('own-data');
  let loading = null;
  const failed = (e) => {
    loading = null;
    if (panel.querySelector('.panel-error')) return;
    const p = Object.assign(document.createElement('p'), {
      className: 'help panel-error',
      textContent:
        `This panel could not be loaded (${shown(String(e.message || e))}): close it and open ` +
        `it again, or reload the page.`,
    });
    p.setAttribute('role', 'alert');
    panel.append(p);
  };
  panel.addEventListener('toggle', () => {
    if (!panel.open || loading) return;
    loading = fetch(new URL('../own-data.html', import.meta.url))
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
      .then((html) => {
        const body = new DOMParser().parseFromString(html, 'text/html').body;
        panel.querySelector('.panel-error')?.remove();
        panel.append(...body.childNodes);
        wire(); // once: `loading` stays set from here on
      }, failed);
  });
}

// Wires the picker to the training worker (`currentWorker()`: it may have been restarted) and
// tells `ledger` (file-ledger.js) each time the file is prepared; `fmtEps` is Rust's ε format.
export function setUpOwnData(currentWorker, showMessage, ledger, fmtEps) {
  // The worker answers loads in order: `sent` are those it has not answered yet.
  const sent = [];
  let accepted = null; // the load the worker holds
  loadPanelOnOpen(() => wirePanel(currentWorker, showMessage, sent));
  return {
    // The worker accepted the next load (`own`: its facts; `file`: a key of the contents,
    // LabData.contentKey). A file is chosen on the page (private data, the private level); the
    // ledger counts one more preparation of those contents. Returns false for a restarted
    // worker's copy (nothing to announce).
    loaded: (own, file) => {
      const load = sent.shift();
      if (!load) return false;
      ledger.prepared(own, file);
      if (load.again) return false;
      accepted = load;
      $('own-option').hidden = false;
      $('own-option').textContent =
        `Your data: ${load.name} (${own.n_train} train, ${own.n_test} ` +
        `test, ${counted(own.n_features, 'feature')})`;
      settings.apply({ dataset: 'own', report: 'private' });
      const lot = fitOwnLot(settings.config(), own, fmtEps);
      showMessage(
        'Your file is loaded as private data: the lab now shows only what ε covers and uses ' +
          'a hidden random seed. ' +
          (`You may switch "What the lab shows" to teaching: what ε does not cover is then ` +
            `marked.${lot ? ` ${lot}` : ''}`),
      );
      return true;
    },
    // The worker refused the next load (`m`: its message); what preparing it released
    // (`spent`) still counts toward the file's total. A refusal for want of ranges shows the
    // form. Returns what to say.
    rejected: (m) => {
      sent.shift();
      if (typeof m.file === 'string' && Array.isArray(m.spent) && m.spent.length)
        ledger.spent(m.spent, m.file);
      const unchanged = 'the current data and run are unchanged';
      const said = `Your file was not loaded (${unchanged}): ${m.message}`;
      if (!m.ranges || !Array.isArray(m.ranges.columns)) return said;
      form.show(m.ranges);
      return (
        `${said}. The form under the file lists every numeric column: give their ranges and ` +
        `where they come from, then Load again.`
      );
    },
    // Gives the accepted files to a new worker (loads sent to the old one are lost with it).
    // Returns what to add to the restart's message: the file given again, files not loaded.
    resend: () => {
      const lost = sent.filter((l) => !l.again).map((l) => l.name);
      sent.length = 0;
      let said = '';
      if (accepted) {
        sent.push({ ...accepted, again: true });
        currentWorker().post(accepted.message);
        said =
          ' and your file (its split and column ranges drawn again: a new release, added to ' +
          "your file's total)";
      }
      if (lost.length)
        said += `; ${lost.join(', ')} was still loading and is not loaded: choose Load again`;
      return said;
    },
  };
}

// The panel's controls, once its markup is in: the picker lists the file's columns (Rust reads
// its header) and Load sends the file(s) to the training worker, noted in `sent`.
function wirePanel(currentWorker, showMessage, sent) {
  $('data-file').addEventListener('change', async () => {
    const files = [...$('data-file').files];
    form.hide(); // its columns were another file's
    const select = $('label-column');
    select.replaceChildren();
    select.disabled = true;
    $('load-data').disabled = files.length === 0;
    if (files.length === 1 && !/\.(gz|idx|ubyte)$/i.test(files[0].name)) {
      // The header as the parser reads it (Rust), from at most the file's first megabyte.
      const size = LabData.csvHeaderPrefix();
      let columns = [];
      try {
        columns = LabData.csvColumns(
          new Uint8Array(await files[0].slice(0, size).arrayBuffer()),
          files[0].size <= size,
        );
      } catch (e) {
        showMessage(`${shown(files[0].name)}: ${e.message || e}`);
      }
      for (const column of columns) {
        const o = document.createElement('option');
        o.value = column;
        o.textContent = shown(column);
        select.appendChild(o);
      }
      select.value = select.options.length ? select.options[select.options.length - 1].value : '';
      select.disabled = select.options.length === 0;
    }
  });
  // Load and "Load again with these ranges" both send the text field's ranges and, while the
  // form shows, the form's over them.
  const load = (event) => {
    event?.preventDefault();
    const files = [...$('data-file').files];
    if (files.length < 1 || files.length > 2) {
      showMessage('Choose one CSV file, or two IDX files (images and labels).');
      return;
    }
    const limit = LabData.maxFileBytes();
    const big = files.find((f) => f.size > limit);
    if (big) {
      showMessage(
        `${shown(big.name)} is ${(big.size / 1048576).toFixed(0)} MB; the limit ` +
          `is ${limit / 1048576} MB. Nothing changed.`,
      );
      return;
    }
    const typed = form.shown() ? form.read() : { ranges: [], readOff: false };
    if (typed.problem) {
      showMessage(typed.problem);
      return;
    }
    // The File handles, not their bytes: the worker reads them. Reading 50 MB here held the
    // main thread for 150 ms (the e2e test's long-task check found it).
    const request = {
      message: TO_WORKER.ownData(
        files,
        $('label-column').value,
        $('bounds').value,
        typed.ranges,
        typed.readOff,
        Number(settings.get('delta')),
      ),
      name: files.map((f) => shown(f.name)).join(' + '),
      again: false,
    };
    sent.push(request);
    currentWorker().post(request.message);
  };
  $('load-data').addEventListener('click', () => load());
  $('ranges-form').addEventListener('submit', load);
}
