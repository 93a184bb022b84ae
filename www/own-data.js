// A student's own data on the page: the file picker, the label column and the stated column
// ranges are read here, the file(s) parsed in the training worker (wasm), which answers with
// 'own-data-loaded' or 'own-data-rejected' (protocol.js).
import { LabData } from './pkg/dpsgd_lab.js';
import { TO_WORKER } from './protocol.js';

const $ = (id) => document.getElementById(id);

// Wires the picker to the training worker (`currentWorker()`: it may have been restarted) and
// tells `ledger` (file-ledger.js) each time the file is prepared.
export function setUpOwnData(currentWorker, showMessage, ledger) {
  let name = '';
  let sent = null;
  let accepted = null;
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
    name = files.map((f) => f.name).join(' + ');
    // The File handles, not their bytes: the worker reads them. Reading 50 MB here held the
    // main thread for 150 ms (the e2e test's long-task check found it).
    sent = TO_WORKER.ownData(files, $('label-column').value, $('bounds').value);
    currentWorker().post(sent);
  });
  let resent = false; // the accepted files went to a restarted worker
  return {
    name: () => name,
    // The worker accepted the files (`own`: their facts). A new file is chosen on the page
    // (private data, the private level) and its ledger starts; the accepted files given to a
    // restarted worker are the same file prepared once more. Returns whether the file is new.
    loaded: (own) => {
      ledger.prepared(own, !resent);
      if (resent) {
        resent = false;
        return false;
      }
      accepted = sent;
      $('own-option').hidden = false;
      $('own-option').textContent = `Your data: ${name} (${own.n_train} train, ${own.n_test} test, ${own.n_features} features)`;
      $('dataset').value = 'own';
      $('report').value = 'private';
      showMessage('Your file is loaded as private data: the lab now shows only what ε covers and uses a hidden random seed. '
        + 'You may switch "What the lab shows" to teaching: what ε does not cover is then marked.');
      return true;
    },
    rejected: () => { resent = false; },
    // Gives the accepted files to a new worker; false when there are none.
    resend: () => {
      resent = accepted !== null;
      if (resent) currentWorker().post(accepted);
      return resent;
    },
  };
}
