// A student's own data on the page: the file picker, the label column and the stated column
// ranges are read here, the file(s) parsed in the training worker (wasm), which answers with
// 'own-data-loaded' or 'own-data-rejected' (protocol.js).
import { LabData } from './pkg/dpsgd_lab.js';
import { TO_WORKER } from './protocol.js';

const $ = (id) => document.getElementById(id);

// Wires the picker to the training worker (`currentWorker()`: it may have been restarted).
// Returns `name()`, the loaded files' names for the data set's label, `loaded()`, to call when
// the worker has accepted them, and `resend()`, which gives the accepted files to a new worker
// (false when there are none).
export function setUpOwnData(currentWorker, showMessage) {
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
  return {
    name: () => name,
    loaded: () => { accepted = sent; },
    resend: () => {
      if (accepted) currentWorker().post(accepted);
      return accepted !== null;
    },
  };
}
