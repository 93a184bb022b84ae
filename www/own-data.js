// A student's own data on the page: the file picker and the label column are read here, the
// file(s) parsed in the training worker (wasm), which answers with an 'own-data' message.
const $ = (id) => document.getElementById(id);
const MAX_FILE_BYTES = 100 * 1024 * 1024;

// Wires the picker to `worker`; returns the loaded files' names, for the data set's label.
export function setUpOwnData(worker, setStatus) {
  let name = '';
  $('data-file').addEventListener('change', async () => {
    const files = [...$('data-file').files];
    const select = $('label-column');
    select.replaceChildren();
    select.disabled = true;
    $('load-data').disabled = files.length === 0;
    if (files.length === 1 && !/\.(gz|idx|ubyte)$/i.test(files[0].name)) {
      const head = (await files[0].slice(0, 65536).text()).split(/\r?\n/)[0] || '';
      for (const column of head.split(',').map((c) => c.trim().replace(/^"|"$/g, ''))) {
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
      setStatus('Choose one CSV file, or two IDX files (images and labels).', true);
      return;
    }
    const big = files.find((f) => f.size > MAX_FILE_BYTES);
    if (big) {
      setStatus(`${big.name} is ${(big.size / 1048576).toFixed(0)} MB; the limit is 100 MB. Nothing changed.`, true);
      return;
    }
    name = files.map((f) => f.name).join(' + ');
    const bytes = await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
    worker.postMessage({ type: 'own-data', files: bytes, label: $('label-column').value });
  });
  return () => name;
}
