// What the status line and the footer say about a run: text only, built from the worker's
// reports (every number in them, ε included, comes from Rust; `fmtEps` is Rust's formatter).
const pct = (v) => `${(100 * v).toFixed(2)}%`;

// "test accuracy 84.12%", said not to be private when ε does not cover it (a student's own
// held-out rows, exactly), or undefined when the report has none.
function accuracyText(r) {
  const acc = r.test_acc ?? r.private_test_acc;
  if (acc === undefined) return undefined;
  const outside = (r.not_private || []).includes('test_acc') ? ' (not private: your held-out rows, exactly)' : '';
  return `test accuracy ${pct(acc)}${outside}`;
}

// The line shown as an epoch's report arrives; `verdict`: Rust's sentence on why the run
// learned nothing (RunView.verdict), if it did.
export function epochStatus(r, fmtEps, verdict) {
  const shown = accuracyText(r) ?? 'test accuracy not released';
  const line = `Epoch ${r.epoch}: ${shown}, ε = ${fmtEps(r.epsilon.moments)} (moments accountant, δ = ${r.delta.toExponential(0)})`;
  return verdict ? `${line}. ${verdict}` : line;
}

// The line shown when a run ends: `r` its last report, `epochs` how many it had, `verdict` as
// for epochStatus.
export function doneStatus(r, epochs, fmtEps, verdict) {
  if (r.divergence) return `Stopped in epoch ${r.epoch}. ${verdict ?? 'The model diverged (see the message).'}`;
  // Rust says which budget and how it was measured (not the report's ε: for naive and strong
  // it may follow another convention than the budget's).
  if (r.budget_stop) return `Stopped by the budget in epoch ${r.epoch} (step ${r.steps}): ${r.budget_stop}.`;
  const acc = accuracyText(r);
  const line = `Done: ${epochs} epochs${acc === undefined ? '' : `, ${acc}`}, ε = ${fmtEps(r.epsilon.moments)} (moments) — ${fmtEps(r.epsilon.pld)} (PLD).`;
  return verdict ? `${line} ${verdict}` : line;
}

// The ε chart's text alternative: ε for the whole run, by accountant (`last`: the preview's
// last epoch, or nothing yet; `accountants`: Rust's accountants(), those `last` has named).
export function epsilonChartLabel(last, fmtEps, accountants) {
  const each = last ? accountants.filter((a) => Object.hasOwn(last, a.name)).map((a) => `${a.label} ${fmtEps(last[a.name])}`) : [];
  const text = last ? `for the whole run (${last.epoch} epochs): ${each.join(', ')}` : 'not computed yet';
  return `Privacy spent ε against epochs; ${text}. The run log below has every epoch's numbers.`;
}

// What the footer says of the WebAssembly build the browser chose (wasm-choice.js), by the
// name Rust gives its matrix kernel.
const ENGINES = new Map([
  ['relaxed-simd fma', 'Engine: WebAssembly with relaxed SIMD (fused multiply-add matrix kernel).'],
  ['gemm simd128', 'Engine: WebAssembly SIMD (no relaxed SIMD in this browser: slower matrix products, the same runs up to float rounding).'],
]);

export const engineText = (kernel) => ENGINES.get(kernel) ?? String(kernel);
