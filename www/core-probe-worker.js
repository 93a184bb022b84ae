// One worker of the core probe (core-probe.js): asked {spins: n}, it runs a fixed busy loop of n
// steps and answers {ms} (how long the loop took, by this worker's clock). Plain arithmetic, no
// wasm and no memory traffic, so that the time measures only how much of a core it was given.
onmessage = (ev) => {
  const spins = Number(ev.data?.spins) || 0;
  const t0 = performance.now();
  let x = 1;
  for (let i = 0; i < spins; i++) x = (Math.imul(x, 1103515245) + 12345 + i) | 0;
  postMessage({ ms: performance.now() - t0, x });
};
