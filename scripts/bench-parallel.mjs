// `make bench`, data-parallel training: the training worker's own lot loop (worker.js) on the
// benchmark cases of `dpsgd bench` (private, lot 600), with 1 and 2 workers, on the
// relaxed-SIMD build and on the simd128 build (a page each; the second page is told the
// browser has no relaxed SIMD), alternating, twice each, after a second's warm-up, in
// headless Chromium. Prints examples/s, the k = 2 / k = 1 ratio per build and the
// relaxed / simd128 ratio per k — figures, not a test. Then where a lot's time goes with two
// workers: the milliseconds per lot of each phase of the training worker's lot loop, beside
// the same two parts summed one after the other in the training worker alone (no helper), and
// the ratio of the two parts' summing time at the same moment in two workers to that time in
// one worker (`parts_concurrent_over_alone`: 1 when two workers do not slow each other down);
// and the kernels' own speed two at once over alone (`kernels-at-once`), with the k = 2 loop
// over the ceiling at that speed.
// The pages are cross-origin isolated, as `make serve` serves them, so parts go through shared
// memory (www/workers/shared-channel.js); a third page, served without COOP/COEP like a static
// host, runs the relaxed build's k = 2 by message, beside the same k = 1 (`messages_2_over_1`).
import { serveWww } from '../tests/e2e/serve.mjs';
import { coresTimed, launch } from '../tests/e2e/browser.mjs';

const MS = Number(process.env.BENCH_MS || 3000);
// BATCH: the examples summed at once within a part (default: the case's own, the whole lot).
const BATCH = process.env.BATCH ? Number(process.env.BATCH) : undefined;
const CASES = (process.env.CASES || 'mlp 60-1000-10,logistic 784-10,mlp 784-128-10').split(',');
const server = await serveWww();
const plainServer = await serveWww({ isolated: false, serviceWorker: false });
const context = await launch();

async function openPage(relaxed, at = server) {
  const page = await context.newPage();
  if (!relaxed) {
    await page.addInitScript(() => {
      const validate = WebAssembly.validate;
      WebAssembly.validate = (bytes) => (bytes.byteLength < 100 ? false : validate(bytes));
    });
  }
  await page.goto(`${at.url}#v=1`);
  // The page's own default run finishes first: it would compete for the cores.
  await page.waitForFunction(
    () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
    null,
    { timeout: 300_000 },
  );
  await coresTimed(page);
  const engine = await page.locator('#engine').textContent();
  if (/no relaxed/.test(engine) === relaxed)
    throw new Error(`asked for relaxed = ${relaxed}, the page says: ${engine}`);
  return page;
}

const lotLoop = (page, model, workers, alone = false) =>
  page.evaluate(
    async ([model, workers, ms, alone, batch]) => {
      const { sendWasm } = await import('./core/wasm-module.js');
      const w = new Worker('workers/worker.js', { type: 'module' });
      sendWasm(w);
      const answer = new Promise((resolve, reject) => {
        w.onmessage = (ev) => {
          if (ev.data?.type === 'bench') resolve(ev.data);
          // A failed bench message comes back as the worker's error (worker.js's `failed`).
          if (ev.data?.type === 'error') reject(new Error(ev.data.message));
        };
        w.onerror = (e) => reject(new Error(e.message));
      });
      w.postMessage({ type: 'bench', model, workers, ms, alone, batch });
      const got = await answer;
      w.terminate();
      return got;
    },
    [model, workers, MS, alone, BATCH],
  );

// The kernel's GFLOP/s on `model`'s products for a part of `n` examples, in each of `workers`
// fresh training workers at once (Rust's `bench::ceiling::products_gflops`, MS each): every
// worker first answers a short run (its module compiled, its code warm), then all are asked
// together; their mean. One worker is the ceiling's own measure; two at once is what the
// cores' kernels reach while both run — the k = 2 loop runs against that.
const productsSpeed = (page, model, n, workers) =>
  page.evaluate(
    async ([model, n, ms, workers]) => {
      const { sendWasm } = await import('./core/wasm-module.js');
      const all = Array.from({ length: workers }, () => {
        const w = new Worker('workers/worker.js', { type: 'module' });
        sendWasm(w);
        return w;
      });
      const ask = (w, ms) =>
        new Promise((resolve, reject) => {
          w.onmessage = (ev) => {
            if (ev.data?.type === 'bench-products') resolve(ev.data.gflops);
            if (ev.data?.type === 'error') reject(new Error(ev.data.message));
          };
          w.onerror = (e) => reject(new Error(e.message));
          w.postMessage({ type: 'bench-products', model, n, ms });
        });
      await Promise.all(all.map((w) => ask(w, 300)));
      const speeds = await Promise.all(all.map((w) => ask(w, ms)));
      for (const w of all) w.terminate();
      return speeds.reduce((a, b) => a + b, 0) / speeds.length;
    },
    [model, n, MS, workers],
  );

// The ceiling (#55): the lot loop's examples/s over k × what one worker would train if a part
// cost only its matrix products at the speed this build's kernel reaches on them, measured in
// the same worker after the loop (Rust's `bench::ceiling`); and where a lot's time goes in the
// training worker: its own part's phases (Rust's, scaled to the loop's `own`), the noise, the
// parts' exchange (sending, waiting, taking the helpers' parts) and the step, against the
// products' time at the kernel's speed.
// At k = 2, also the kernels' speed two at once over alone (`atOnce`, measured after the loops)
// and the lot loop over the ceiling at that speed: the part of the gap the cores' sharing
// explains is the difference of the two ratios.
function ceilingLine(engine, model, k, runs, atOnce) {
  const all = runs.get(`${engine} ${k}`);
  const mean = (f) => all.reduce((a, r) => a + f(r), 0) / all.length;
  const rate = mean((r) => r.examples_per_sec);
  const perWorker = mean((r) => r.ceiling.ceiling_examples_per_sec);
  const round = (x) => +x.toFixed(3);
  const phase = (p) => mean((r) => r.phases[p] || 0);
  const own = phase('own');
  const partMs = mean((r) => Object.values(r.ceiling.phases_ms).reduce((a, b) => a + b, 0));
  const lotMs = {
    ...Object.fromEntries(
      Object.keys(all[0].ceiling.phases_ms).map((p) => [
        p,
        round((mean((r) => r.ceiling.phases_ms[p]) / partMs) * own),
      ]),
    ),
    noise: round(phase('noise')),
    exchange: round(phase('send') + phase('wait') + phase('others')),
    step: round(phase('step')),
  };
  const ownProducts = Object.fromEntries(
    Object.keys(all[0].ceiling.products_ms).map((p) => [
      p,
      round((mean((r) => r.ceiling.products_ms[p]) / partMs) * own),
    ]),
  );
  return {
    bench: 'ceiling',
    engine,
    model,
    workers: k,
    kernel: all[0].ceiling.kernel,
    flops_per_example: all[0].ceiling.flops_per_example,
    kernel_gflops: +mean((r) => r.ceiling.kernel_gflops).toFixed(1),
    ceiling_examples_per_sec: Math.round(k * perWorker),
    examples_per_sec: Math.round(rate),
    lot_over_ceiling: +(rate / (k * perWorker)).toFixed(3),
    part_over_ceiling: +mean((r) => r.ceiling.part_over_ceiling).toFixed(3),
    training_worker_ms_per_lot: lotMs,
    its_products_at_kernel_speed_ms: ownProducts,
    helpers_ms_per_lot: k > 1 ? round(phase('helpers')) : null,
    ...(k > 1 && atOnce
      ? {
          kernels_two_at_once_over_alone: round(atOnce),
          lot_over_ceiling_two_at_once: round(rate / (k * perWorker * atOnce)),
        }
      : {}),
  };
}

try {
  const pages = {
    relaxed: await openPage(true),
    simd128: await openPage(false),
    messages: await openPage(true, plainServer),
  };
  const mean = (v) => v.reduce((a, b) => a + b, 0) / v.length;
  for (const model of CASES) {
    const rates = new Map();
    const runs = new Map(); // `${engine} ${k}` → the bench's answers (with their ceiling)
    const phases = new Map(); // `${engine} helpers` | `${engine} alone` → phases of each k = 2 run
    const add = (key, p) => phases.set(key, [...(phases.get(key) || []), p]);
    for (let round = 0; round < 2; round += 1) {
      for (const engine of ['relaxed', 'simd128']) {
        for (const workers of [1, 2]) {
          const line = await lotLoop(pages[engine], model, workers);
          const key = `${engine} ${workers}`;
          rates.set(key, [...(rates.get(key) || []), line.examples_per_sec]);
          runs.set(key, [...(runs.get(key) || []), line]);
          if (workers === 2) add(`${engine} helpers`, line.phases);
          console.log(
            JSON.stringify({
              bench: 'data-parallel',
              impl: 'wasm',
              engine,
              model,
              private: true,
              workers: line.workers,
              channel: line.channel,
              examples_per_sec: Math.round(line.examples_per_sec),
            }),
          );
        }
        const alone = await lotLoop(pages[engine], model, 2, true);
        add(`${engine} alone`, alone.phases);
      }
      const line = await lotLoop(pages.messages, model, 2);
      if (line.channel !== 'messages')
        throw new Error(`the page without COOP/COEP used ${line.channel}`);
      rates.set('messages 2', [...(rates.get('messages 2') || []), line.examples_per_sec]);
      add('messages helpers', line.phases);
      console.log(
        JSON.stringify({
          bench: 'data-parallel',
          impl: 'wasm',
          engine: 'relaxed',
          model,
          private: true,
          workers: line.workers,
          channel: line.channel,
          examples_per_sec: Math.round(line.examples_per_sec),
        }),
      );
    }
    const meanPhases = (runs) =>
      Object.fromEntries(
        Object.keys(runs[0]).map((p) => [p, +mean(runs.map((r) => r[p] || 0)).toFixed(3)]),
      );
    for (const engine of ['relaxed', 'simd128']) {
      const [both, alone] = [
        meanPhases(phases.get(`${engine} helpers`)),
        meanPhases(phases.get(`${engine} alone`)),
      ];
      console.log(
        JSON.stringify({
          bench: 'data-parallel-phases',
          engine,
          model,
          ms_per_lot: { two_workers: both, one_worker_two_parts: alone },
          parts_concurrent_over_alone: +(
            (both.own + both.helpers) /
            (alone.own + alone.others)
          ).toFixed(2),
        }),
      );
    }
    // The kernels alone and two at once, alternating, twice each, at part 0's size at k = 2.
    const atOnce = {};
    for (const engine of ['relaxed', 'simd128']) {
      const k2 = runs.get(`${engine} 2`);
      const n = Math.round(mean(k2.map((r) => r.ceiling.part_examples)));
      const speeds = { 1: [], 2: [] };
      for (let round = 0; round < 2; round += 1)
        for (const workers of [1, 2])
          speeds[workers].push(await productsSpeed(pages[engine], model, n, workers));
      atOnce[engine] = mean(speeds[2]) / mean(speeds[1]);
      console.log(
        JSON.stringify({
          bench: 'kernels-at-once',
          engine,
          model,
          part_examples: n,
          gflops_alone: speeds[1].map((g) => +g.toFixed(1)),
          gflops_two_at_once: speeds[2].map((g) => +g.toFixed(1)),
          two_at_once_over_alone: +atOnce[engine].toFixed(3),
        }),
      );
    }
    for (const engine of ['relaxed', 'simd128'])
      for (const k of [1, 2])
        console.log(JSON.stringify(ceilingLine(engine, model, k, runs, atOnce[engine])));
    const m = (engine, k) => mean(rates.get(`${engine} ${k}`));
    console.log(
      JSON.stringify({
        bench: 'data-parallel',
        model,
        relaxed_k1: Math.round(m('relaxed', 1)),
        relaxed_k2: Math.round(m('relaxed', 2)),
        simd128_k1: Math.round(m('simd128', 1)),
        simd128_k2: Math.round(m('simd128', 2)),
        speedup_2_over_1: {
          relaxed: +(m('relaxed', 2) / m('relaxed', 1)).toFixed(2),
          simd128: +(m('simd128', 2) / m('simd128', 1)).toFixed(2),
        },
        messages_k2: Math.round(m('messages', 2)),
        messages_2_over_1: +(m('messages', 2) / m('relaxed', 1)).toFixed(2),
        messages_wait_ms: meanPhases(phases.get('messages helpers')).wait,
        relaxed_over_simd128: {
          k1: +(m('relaxed', 1) / m('simd128', 1)).toFixed(2),
          k2: +(m('relaxed', 2) / m('simd128', 2)).toFixed(2),
        },
      }),
    );
  }
} finally {
  await context.close();
  await server.close();
  await plainServer.close();
}
