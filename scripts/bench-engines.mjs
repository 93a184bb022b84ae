// `make bench`, the engines (#55 §3): the page's default run in Chromium, in WebKitGTK (Safari's
// engine) and in Firefox ESR, on a plain static host (no COOP/COEP: no shared memory, as on GitHub
// Pages), each visit in a fresh browser, the engines alternating round by round. The page marks
// when its run started and when it was done (`performance.mark`, www/page/session.js), so every
// engine is timed by its own clock the same way: from the navigation to the run's end (a first
// visit: the wasm compiled, the data loaded, every epoch), and from the run's start to its end (the
// training alone), and each stage of the start-up between (`stages`). Prints one line per visit,
// then the medians and each engine's ratio to Chromium, paired round by round — figures, not a
// test. ROUNDS=3, ENGINES=chromium,webkit,webkit-software,firefox (the first is the reference).
// - `webkit-software`: the same WebKitGTK with accelerated compositing off
//   (WEBKIT_DISABLE_COMPOSITING_MODE=1). On a machine without a GPU, WebKitGTK composites the page
//   through Mesa's GL emulation (llvmpipe): 1.1 of the 4.5 core-seconds a visit took on the
//   2-core VM (its threads' CPU time, read from /proc), on the two cores the training worker
//   needs. Safari composites on the GPU; painting in software is the nearer stand-in for it.
import { serveWww } from '../tests/e2e/serve.mjs';
import { launch as launchChromium } from '../tests/e2e/browser.mjs';
import { launch as launchOther, missing } from '../tests/e2e/engines.mjs';

const ROUNDS = Number(process.env.ROUNDS || 3);
const ENGINES = (process.env.ENGINES || 'chromium,webkit,webkit-software,firefox').split(',');
const SOFTWARE = { env: { WEBKIT_DISABLE_COMPOSITING_MODE: '1' } };

// Chromium behind engines.mjs's small interface (goto, evaluate, waitFor, close).
async function chromium() {
  const context = await launchChromium({ testHooks: false });
  const page = await context.newPage();
  const call = (fn, args) => `(${fn})(...${JSON.stringify(args)})`;
  return {
    name: 'Chromium',
    goto: (url) => page.goto(url),
    evaluate: (fn, ...args) => page.evaluate(call(fn, args)),
    // Polled from here: the page's CSP refuses the string a `waitForFunction` would evaluate.
    waitFor: async (fn, args = [], timeout = 60_000) => {
      const until = Date.now() + timeout;
      while (!(await page.evaluate(call(fn, args)))) {
        if (Date.now() > until) throw new Error(`Chromium: timed out after ${timeout} ms`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    close: () => context.close(),
  };
}

// The page's marks in the order it passes them (main.js: the start-up's; session.js: the run's).
const STAGES = [
  'page-started',
  'wasm-response',
  'wasm-compiled',
  'wasm-ready',
  'worker-ready',
  'run-started',
  'first-epoch',
  'run-done',
];

// In the page, once its run is done: the marks' times (ms from the navigation) and what ran.
/** @param {string[]} stages */
const marks = (stages) => {
  const at = (name) => performance.getEntriesByName(name).at(-1)?.startTime ?? null;
  const ms = (name) => (at(name) === null ? null : Math.round(at(name)));
  return {
    started: at('dpsgd:run-started'),
    done: at('dpsgd:run-done'),
    // where a visit's time goes, in the order the page passes them (ms from the navigation)
    stages: Object.fromEntries(stages.map((s) => [s, ms(`dpsgd:${s}`)])),
    wasm: document.getElementById('engine')?.textContent ?? '',
    epochs: document.getElementById('run-log')?.tBodies[0].rows.length ?? 0,
  };
};

async function visit(engine, url) {
  const b =
    engine === 'chromium'
      ? await chromium()
      : engine === 'webkit-software'
        ? await launchOther('webkit', SOFTWARE)
        : await launchOther(engine);
  try {
    await b.goto(url);
    await b.waitFor(
      () => /^(Done|Stopped)/.test(document.getElementById('status')?.textContent || ''),
      [],
      300_000,
    );
    const m = await b.evaluate(marks, STAGES);
    if (m.started === null || m.done === null) throw new Error(`${engine}: no marks ${m}`);
    return { engine, ...m, to_done_s: m.done / 1000, run_s: (m.done - m.started) / 1000 };
  } finally {
    await b.close();
  }
}

const lacking = ENGINES.filter((e) => e !== 'chromium' && missing(e));
if (lacking.length) throw new Error(`not installed (scripts/setup installs them): ${lacking}`);
const server = await serveWww({ isolated: false, serviceWorker: false });
const seen = new Map(ENGINES.map((e) => [e, []]));
try {
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const engine of ENGINES) {
      const v = await visit(engine, server.url);
      seen.get(engine).push(v);
      const line = { bench: 'engines', round, ...v };
      line.to_done_s = +v.to_done_s.toFixed(2);
      line.run_s = +v.run_s.toFixed(2);
      line.started = Math.round(v.started);
      line.done = Math.round(v.done);
      console.log(JSON.stringify(line));
    }
  }
  const range = (r) => [Math.min(...r), Math.max(...r)].map((x) => +x.toFixed(2));
  const span = (v, from, to) => (v.stages[to] - v.stages[from]) / 1000;
  const median = (v) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
  const [reference] = ENGINES;
  for (const engine of ENGINES) {
    const mine = seen.get(engine);
    const ref = seen.get(reference);
    const ratios = (key) => mine.map((v, i) => v[key] / ref[i][key]);
    console.log(
      JSON.stringify({
        bench: 'engines',
        engine,
        to_done_s: +median(mine.map((v) => v.to_done_s)).toFixed(2),
        run_s: +median(mine.map((v) => v.run_s)).toFixed(2),
        // the run's first epoch (cold code, the accountants' first composition) and the rest
        first_epoch_s: +median(mine.map((v) => span(v, 'run-started', 'first-epoch'))).toFixed(2),
        after_first_s: +median(mine.map((v) => span(v, 'first-epoch', 'run-done'))).toFixed(2),
        [`to_done_over_${reference}`]: +median(ratios('to_done_s')).toFixed(2),
        [`run_over_${reference}`]: +median(ratios('run_s')).toFixed(2),
        to_done_ratio_range: range(ratios('to_done_s')),
        run_ratio_range: range(ratios('run_s')),
      }),
    );
  }
} finally {
  await server.close();
}
