// `make bench`, the matrix kernels in the browser: the relaxed-SIMD build's fused multiply-add
// kernel (src/linalg/fma.rs) and gemm's simd128 kernel, on the three products of a lot of 600
// on the MLP 60→1000→10 (and the hidden layer's backward chain: product, ReLU sweep, gradient),
// measured in the same page, in one run, alternating; prints GFLOP/s and the ratio — figures,
// not a test. Needs a browser with relaxed SIMD (Chromium ≥ 114).
import { serveWww } from '../tests/e2e/serve.mjs';
import { launch } from '../tests/e2e/browser.mjs';

const server = await serveWww();
const context = await launch();
try {
  const page = await context.newPage();
  await page.goto(`${server.url}pkg/`).catch(() => {});
  const lines = await page.evaluate(async () => {
    await import('/core/wasm-choice.js');
    if (!self.labWasmFile.includes('relaxed')) return null;
    const m = await import('/pkg/dpsgd_lab.js');
    await m.default({ module_or_path: '/pkg/dpsgd_lab_relaxed_bg.wasm' });
    const out = [];
    for (let round = 0; round < 3; round += 1)
      out.push(
        ...m
          .bench_kernels(400)
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      );
    return out;
  });
  if (!lines) throw new Error('this Chromium does not validate relaxed SIMD');
  const best = new Map();
  for (const l of lines) {
    const key = `${l.kernel}|${l.backend}`;
    best.set(key, Math.max(best.get(key) || 0, l.gflops));
  }
  for (const kernel of new Set(lines.map((l) => l.kernel))) {
    const shape = lines.find((l) => l.kernel === kernel).shape;
    const fma = best.get(`${kernel}|relaxed-simd fma`);
    const gemm = best.get(`${kernel}|gemm simd128`);
    // The gradient's Δ reaches the fused kernel in column panels (as the model gives it); the
    // same kernel reading Δ row-major, in place, is printed beside it.
    const rowMajorKey = [...best.keys()].find((k) => k.startsWith(`${kernel}|relaxed-simd fma, `));
    const rowMajor = rowMajorKey && best.get(rowMajorKey);
    console.log(
      JSON.stringify({
        bench: 'kernels',
        impl: 'wasm',
        kernel,
        shape,
        relaxed_fma_gflops: +fma.toFixed(1),
        gemm_simd128_gflops: +gemm.toFixed(1),
        ratio: +(fma / gemm).toFixed(2),
        ...(rowMajor
          ? {
              relaxed_fma_row_major_gflops: +rowMajor.toFixed(1),
              panels_over_row_major: +(fma / rowMajor).toFixed(2),
            }
          : {}),
      }),
    );
  }
} finally {
  await context.close();
  await server.close();
}
