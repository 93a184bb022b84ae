// A student's own data on the page: the file picker, the label column and the stated column
// ranges are read here, the file(s) parsed in the training worker (wasm), which answers with
// 'own-data-loaded' or 'own-data-rejected' (protocol.js).
import { LabData } from './pkg/dpsgd_lab.js';
import { TO_WORKER } from './protocol.js';
import { settings } from './settings.js';

const $ = (id) => document.getElementById(id);

// Wires the picker to the training worker (`currentWorker()`: it may have been restarted) and
// tells `ledger` (file-ledger.js) each time the file is prepared.
export function setUpOwnData(currentWorker, showMessage, ledger) {
  $('data-file').addEventListener('change', async () => {
    const files = [...$('data-file').files];
    const select = $('label-column');
    select.replaceChildren();
    select.disabled = true;
    $('load-data').disabled = files.length === 0;
    if (files.length === 1 && !/\.(gz|idx|ubyte)$/i.test(files[0].name)) {
      // The header as the parser reads it (Rust), from at most the file's first megabyte.
      const size = LabData.csvHeaderPrefix();
      let columns = [];
      try {
        columns = LabData.csvColumns(new Uint8Array(await files[0].slice(0, size).arrayBuffer()), files[0].size <= size);
      } catch (e) {
        showMessage(`${files[0].name}: ${e.message || e}`);
      }
      for (const column of columns) {
        const o = document.createElement('option');
        o.value = column;
        o.textContent = column;
        select.appendChild(o);
      }
      select.value = select.options.length ? select.options[select.options.length - 1].value : '';
      select.disabled = select.options.length === 0;
    }
  });
  $('load-data').addEventListener('click', async () => {
    const files = [...$('data-file').files];
    if (files.length < 1 || files.length > 2) {
      showMessage('Choose one CSV file, or two IDX files (images and labels).');
      return;
    }
    const limit = LabData.maxFileBytes();
    const big = files.find((f) => f.size > limit);
    if (big) {
      showMessage(`${big.name} is ${(big.size / 1048576).toFixed(0)} MB; the limit is ${limit / 1048576} MB. Nothing changed.`);
      return;
    }
    // The File handles, not their bytes: the worker reads them. Reading 50 MB here held the
    // main thread for 150 ms (the e2e test's long-task check found it).
    const load = {
      message: TO_WORKER.ownData(files, $('label-column').value, $('bounds').value),
      name: files.map((f) => f.name).join(' + '),
      again: false,
    };
    sent.push(load);
    currentWorker().post(load.message);
  });
  // The worker answers loads in order: `sent` are those it has not answered yet.
  const sent = [];
  let accepted = null; // the load the worker holds
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
      $('own-option').textContent = `Your data: ${load.name} (${own.n_train} train, ${own.n_test} test, ${own.n_features} features)`;
      settings.apply({ dataset: 'own', report: 'private' });
      showMessage('Your file is loaded as private data: the lab now shows only what ε covers and uses a hidden random seed. '
        + 'You may switch "What the lab shows" to teaching: what ε does not cover is then marked.');
      return true;
    },
    // The worker refused the next load; what preparing it released (`spent`) still counts
    // toward the file's total (`file`: its contents key).
    rejected: (file, spent) => {
      sent.shift();
      if (typeof file === 'string' && Array.isArray(spent) && spent.length) ledger.spent(spent, file);
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
        said = ' and your file (its split and column ranges drawn again: a new release, added to your file\'s total)';
      }
      if (lost.length) said += `; ${lost.join(', ')} was still loading and is not loaded: choose Load again`;
      return said;
    },
  };
}
