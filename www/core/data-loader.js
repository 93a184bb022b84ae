// A built-in data set for a worker: its files fetched from data/ (or generated from the
// config's seed and noise), decoded by the wasm core. Shared by the training and audit workers.
import { LabData } from '../pkg/dpsgd_lab.js';
import { labRoot } from './build.js';

// The cache key of `config`'s data set: a generated set depends on its seed and noise.
export function dataKeyOf(config) {
  return LabData.filesOf(config.dataset).length
    ? config.dataset
    : `${config.dataset}/${config.seed}/${config.data_noise}`;
}

// A response's body, with `onBytes(loaded)` called as it arrives.
async function readCounting(res, onBytes) {
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onBytes(loaded);
  }
  const all = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

// The response for data/`file`, or an error that says why there is none.
async function fetchFile(file, dataset) {
  let res;
  try {
    res = await fetch(new URL(`data/${file}`, labRoot)); // outside the build's snapshot (build.js)
  } catch {
    // Offline, and this data set was not stored on an earlier visit (sw.js stores it on first use).
    throw new Error(
      `cannot download data/${file}: the network cannot be reached, and this data set has ` +
        `not been used here before (it is stored for offline use once it has loaded)`,
    );
  }
  if (res.status === 404 && LabData.notShippedNote(dataset)) {
    throw new Error(`data/${file} is not on this server. ${LabData.notShippedNote(dataset)}.`);
  }
  if (!res.ok) throw new Error(`cannot load data/${file} (HTTP ${res.status})`);
  return res;
}

// Fetches and decodes the built-in data set `config.dataset`; `progress({stage, loaded,
// total})` hears how the download goes (bytes of all its files; total 0 when a server does not
// say) and when decoding starts.
export async function loadBuiltin(config, progress = () => {}) {
  const files = LabData.filesOf(config.dataset);
  const responses = await Promise.all(files.map((file) => fetchFile(file, config.dataset)));
  const sizes = responses.map((r) => Number(r.headers.get('Content-Length')) || 0);
  const total = sizes.every((t) => t > 0) ? sizes.reduce((a, b) => a + b, 0) : 0;
  const loaded = new Array(files.length).fill(0);
  const bytes = await Promise.all(
    responses.map((res, i) =>
      readCounting(res, (got) => {
        loaded[i] = got;
        progress({ stage: 'download', loaded: loaded.reduce((a, b) => a + b, 0), total });
      }),
    ),
  );
  if (files.length) progress({ stage: 'decode' });
  return LabData.builtin(config.dataset, bytes, config.seed ?? 0, config.data_noise);
}
