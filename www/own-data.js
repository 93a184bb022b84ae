// A student's own data on the page: the file picker, the label column and the stated column
// ranges are read here, the file(s) parsed in the training worker (wasm), which answers with
// 'own-data-loaded' or 'own-data-rejected' (protocol.js).
import { LabData } from './pkg/dpsgd_lab.js';
import { TO_WORKER } from './protocol.js';

const $ = (id) => document.getElementById(id);
const MAX_FILE_BYTES = 100 * 1024 * 1024;

// Wires the picker to the training worker (`currentWorker()`: it may have been restarted);
// returns the loaded files' names, for the data set's label.
export function setUpOwnData(currentWorker, showMessage) {
  let name = '';
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
    const big = files.find((f) => f.size > MAX_FILE_BYTES);
    if (big) {
      showMessage(`${big.name} is ${(big.size / 1048576).toFixed(0)} MB; the limit is 100 MB. Nothing changed.`);
      return;
    }
    name = files.map((f) => f.name).join(' + ');
    const bytes = await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    // Transferred, not copied: a 100 MB copy would hold the main thread.
    currentWorker().post(TO_WORKER.ownData(bytes, $('label-column').value, $('bounds').value), bytes.map((b) => b.buffer));
  });
  return () => name;
}
