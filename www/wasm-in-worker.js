// In a worker: instantiates the lab's wasm from the module the page compiled and posted
// (wasm-module.js), instead of downloading and compiling it again. Resolves when `init` has
// run; rejects with the page's reason when the page could not compile it. The 'wasm' message
// also reaches the worker's own handler, which ignores it. The module stays available to
// hand on (the training worker gives it to its data-parallel helpers).

let module = null;

export const sharedModule = () => module;

export function initFromPage(init) {
  return new Promise((resolve, reject) => {
    const first = (ev) => {
      const m = ev.data;
      if (!m || m.type !== 'wasm') return;
      removeEventListener('message', first);
      if (m.module instanceof WebAssembly.Module) {
        module = m.module;
        init({ module_or_path: m.module }).then(resolve, reject);
      } else reject(new Error(`the page could not load the lab's WebAssembly: ${String(m.error).slice(0, 200)}`));
    };
    addEventListener('message', first);
  });
}
