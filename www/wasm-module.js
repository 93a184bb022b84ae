// The lab's WebAssembly, downloaded and compiled once per page. The page instantiates the
// compiled module, and every worker it starts receives the module in a message of its own
// ({type: 'wasm', module} — a WebAssembly.Module can be posted), so the page and its three or
// more workers cost one download and one compilation instead of one each.

const URL_OF_WASM = new URL('./pkg/dpsgd_lab_bg.wasm', import.meta.url);

async function compile() {
  const response = await fetch(URL_OF_WASM);
  if (!response.ok) throw new Error(`${URL_OF_WASM.pathname}: HTTP ${response.status}`);
  // Streaming compilation needs the wasm MIME type; a static host may not send it.
  if ((response.headers.get('Content-Type') || '').startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

let compiled = null;

// The compiled module (a promise), compiled on first use.
export function wasmModule() {
  if (!compiled) compiled = compile();
  return compiled;
}

// Gives `worker` the compiled module, or the reason there is none.
export function sendWasm(worker) {
  wasmModule().then(
    (module) => worker.postMessage({ type: 'wasm', module }),
    (e) => worker.postMessage({ type: 'wasm', error: String(e.message || e) }),
  );
}
