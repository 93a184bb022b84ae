// One worker of the core probe (core-probe.js): asked {type: 'probe', ms: d}, it runs a fixed
// busy loop for d ms by its own clock and answers {type: 'rate', rate}: steps per ms (protocol.js).
// Plain arithmetic, no wasm and no memory traffic, so that the rate measures only how much of a
// core it was given. A window of time, not a fixed amount of work: loops given the same window all
// run for the whole of it (with a fixed amount, those the system ran first finish first and look
// faster than they were).
onmessage = (ev) => {
  if (ev.data?.type !== 'probe') return;
  const window = Number(ev.data.ms) || 0;
  const t0 = performance.now();
  let steps = 0;
  let x = 1;
  let elapsed = 0;
  do {
    for (let i = 0; i < 10_000; i++) x = (Math.imul(x, 1103515245) + 12345 + i) | 0;
    steps += 10_000;
    elapsed = performance.now() - t0;
  } while (elapsed < window);
  postMessage({ type: 'rate', rate: steps / Math.max(elapsed, 1e-3), x });
};
