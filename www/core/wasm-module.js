// @ts-check
// The lab's WebAssembly, downloaded once per page. The workers share one compiled module: each
// worker the page starts receives it in a message of its own ({type: 'wasm', module} — a
// WebAssembly.Module can be posted), so the page and its three or more workers cost one
// download and two compilations instead of one of each per worker. The page compiles its own
// copy, streamed as it downloads: sharing the workers' module made its main thread pay for
// their training (tasks over 100 ms after load in the e2e long-task check). Both start as soon
// as the bytes come (the cores are timed later, once a run has ended: cores.js).

import './wasm-choice.js';

// The relaxed-SIMD build where the browser has it, else the simd128 one (wasm-choice.js).
const URL_OF_WASM = new URL(
  `../${/** @type {{labWasmFile: string}} */ (/** @type {unknown} */ (self)).labWasmFile}`,
  import.meta.url,
);

let response = null;
let forWorkers = null;

// The wasm file's response (a promise), fetched on first use; read only through clones.
function fetched() {
  if (!response) {
    response = fetch(URL_OF_WASM).then((r) => {
      if (!r.ok) throw new Error(`${URL_OF_WASM.pathname}: HTTP ${r.status}`);
      performance.mark('dpsgd:wasm-response'); // its headers in (main.js: the start-up's marks)
      return r;
    });
  }
  return response;
}

// A module of the page's own, compiled while it streams in (where the host sends the wasm
// MIME type, which streaming needs).
export async function pageModule() {
  const r = (await fetched()).clone();
  if ((r.headers.get('Content-Type') || '').startsWith('application/wasm'))
    return WebAssembly.compileStreaming(r);
  return WebAssembly.compile(await r.arrayBuffer());
}

// The module every worker shares, compiled on first use.
function workerModule() {
  if (!forWorkers)
    forWorkers = fetched()
      .then((r) => r.clone().arrayBuffer())
      .then((b) => WebAssembly.compile(b));
  return forWorkers;
}

/** Gives `worker` the compiled module, or the reason there is none.
 * @param {{postMessage: (message: any) => void}} worker */
export function sendWasm(worker) {
  workerModule().then(
    (module) => worker.postMessage({ type: 'wasm', module }),
    (e) => worker.postMessage({ type: 'wasm', error: String(e.message || e) }),
  );
}
