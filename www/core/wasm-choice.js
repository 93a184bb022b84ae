// Which build of the lab's WebAssembly this browser runs: the one with relaxed SIMD's fused
// multiply-add kernel (src/linalg/fma.rs) where the engine validates `f32x4.relaxed_madd`,
// else the simd128 build. A classic script, so the service worker (importScripts) and the
// page (a side-effect import) read the same choice: self.labWasmFile.
(() => {
  const v128 = (x) => [0xfd, 0x0c, ...new Array(16).fill(x)]; // v128.const
  // f32x4.relaxed_madd
  const body = [0x00, ...v128(1), ...v128(2), ...v128(3), 0xfd, 0x85, 0x02, 0x0b];
  const probe = new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00, // \0asm, version 1
    0x01,
    0x05,
    0x01,
    0x60,
    0x00,
    0x01,
    0x7b, // one type: () -> v128
    0x03,
    0x02,
    0x01,
    0x00, // one function of that type
    0x0a,
    body.length + 2,
    0x01,
    body.length,
    ...body, // its code
  ]);
  let relaxed = false;
  try {
    relaxed = typeof WebAssembly === 'object' && WebAssembly.validate(probe);
  } catch {
    relaxed = false;
  }
  self.labWasmFile = relaxed ? 'pkg/dpsgd_lab_relaxed_bg.wasm' : 'pkg/dpsgd_lab_bg.wasm';
})();
