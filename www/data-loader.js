// A built-in data set for a worker: its files fetched from data/ (or generated from the
// config's seed and noise), decoded by the wasm core. Shared by the training and audit workers.
import { LabData } from './pkg/dpsgd_lab.js';

// The cache key of `config`'s data set: a generated set depends on its seed and noise.
export function dataKeyOf(config) {
  return LabData.filesOf(config.dataset).length ? config.dataset : `${config.dataset}/${config.seed}/${config.data_noise}`;
}

// Fetches and decodes the built-in data set `config.dataset`.
export async function loadBuiltin(config) {
  const files = LabData.filesOf(config.dataset);
  const bytes = await Promise.all(files.map(async (file) => {
    let res;
    try {
      res = await fetch(`data/${file}`);
    } catch {
      // Offline, and this data set was not stored on an earlier visit (sw.js stores it on first use).
      throw new Error(`cannot download data/${file}: the network cannot be reached, and this data set has not been used here before (it is stored for offline use once it has loaded)`);
    }
    if (res.status === 404 && LabData.notShippedNote(config.dataset)) {
      throw new Error(`data/${file} is not on this server. ${LabData.notShippedNote(config.dataset)}.`);
    }
    if (!res.ok) throw new Error(`cannot load data/${file} (HTTP ${res.status})`);
    return new Uint8Array(await res.arrayBuffer());
  }));
  return LabData.builtin(config.dataset, bytes, config.seed ?? 0, config.data_noise);
}
