// What the status line and the footer say about a run: text only, built from the worker's
// reports (every number in them, ε included, comes from Rust; `fmtEps` is Rust's formatter).
import { counted, deltaText } from '../core/shown.js';

const pct = (v) => `${(100 * v).toFixed(2)}%`;

// A noisy accuracy and its ± (Rust's `private_test_acc_noise`: the standard deviation from the
// count's noise), with as many decimals as the noise leaves meaningful: "62% ± 65%".
function plusMinus(acc, noise) {
  const digits = noise.sd >= 0.1 ? 0 : noise.sd >= 0.01 ? 1 : 2;
  const p = (v) => `${(100 * v).toFixed(digits)}%`;
  return { acc: p(acc), sd: p(noise.sd), p };
}

// The noisy accuracy of report `r` for the run log's cell: "62% ± 65% (too noisy)", or
// undefined when the report has none.
export function noisyAccuracyCell(r) {
  const noise = r.private_test_acc_noise;
  if (typeof r.private_test_acc !== 'number') return undefined;
  if (!noise || typeof noise.sd !== 'number') return pct(r.private_test_acc);
  const { acc, sd } = plusMinus(r.private_test_acc, noise);
  const clamped = typeof noise.clamped_from === 'number' ? ', clamped' : '';
  const why = noise.too_noisy ? ` (too noisy${clamped})` : clamped ? ' (clamped)' : '';
  return `${acc} ± ${sd}${why}`;
}

// The noisy accuracy in words: "test accuracy 62% ± 65% (noisy count over 31 held-out rows:
// too few to measure)", saying when the noisy count fell outside [0, 100]% and was clamped.
function noisyAccuracyText(r) {
  const noise = r.private_test_acc_noise;
  if (!noise || typeof noise.sd !== 'number')
    return `test accuracy ${pct(r.private_test_acc)} (noisy count)`;
  const { acc, sd, p } = plusMinus(r.private_test_acc, noise);
  const parts = [
    `noisy count over ${Number(noise.held_out).toLocaleString('en-US')} held-out rows`,
  ];
  if (typeof noise.clamped_from === 'number')
    parts.push(`it came out at ${p(noise.clamped_from)}, clamped to ${acc}`);
  return (
    `test accuracy ${acc} ± ${sd} ` +
    `(${parts.join('; ')}${noise.too_noisy ? ': too few to measure' : ''})`
  );
}

// "test accuracy 84.12%", said not to be private when ε does not cover it (a student's own
// held-out rows, exactly), the noisy count's with its ±, or undefined when the report has none.
function accuracyText(r) {
  if (r.test_acc === undefined)
    return r.private_test_acc === undefined ? undefined : noisyAccuracyText(r);
  const outside = (r.not_private || []).includes('test_acc')
    ? ' (not private: your held-out rows, exactly)'
    : '';
  return `test accuracy ${pct(r.test_acc)}${outside}`;
}

// The line shown as an epoch's report arrives, and beside it (`aside`, set smaller on a
// projector: the lesson says it too, and at 1280 × 720 its lines took the charts' plots)
// `verdict`: Rust's sentence on why the run learned nothing (RunView.verdict), if it did.
export function epochStatus(r, fmtEps, verdict) {
  const shown = accuracyText(r) ?? 'test accuracy not released';
  const line =
    `Epoch ${r.epoch}: ${shown}, ε = ${fmtEps(r.epsilon.moments)} (moments accountant, δ ` +
    `= ${deltaText(r.delta)})`;
  return { line: verdict ? `${line}.` : line, aside: verdict };
}

// The line shown when a run ends, and its aside: `r` its last report, `epochs` how many it had,
// `verdict` as for epochStatus.
export function doneStatus(r, epochs, fmtEps, verdict) {
  if (r.divergence)
    return {
      line: `Stopped in epoch ${r.epoch}. ${verdict ?? 'The model diverged (see the message).'}`,
    };
  // Rust says which budget and how it was measured (not the report's ε: for naive and strong
  // it may follow another convention than the budget's).
  if (r.budget_stop)
    return {
      line: `Stopped by the budget in epoch ${r.epoch} (step ${r.steps}): ${r.budget_stop}.`,
    };
  const acc = accuracyText(r);
  const line =
    `Done: ${counted(epochs, 'epoch')}${acc === undefined ? '' : `, ${acc}`}, ε ` +
    `= ${fmtEps(r.epsilon.moments)} (moments) — ${fmtEps(r.epsilon.pld)} (PLD) at δ = ` +
    `${deltaText(r.delta)}.`;
  return { line, aside: verdict };
}

// The ε chart's text alternative: ε for the whole run, by accountant (`last`: the preview's
// last epoch, or nothing yet; `named`: Rust's accountant_labels — the accountants, those
// `last` has named, and what a starred name means, as the chart's badge says it, or null;
// `budget`: the run's ε budget, which may stop it first, or null; `delta`: the run's δ).
export function epsilonChartLabel(last, fmtEps, named, budget = null, delta = undefined) {
  const { accountants, caveat } = named;
  const each = last
    ? accountants
        .filter((a) => Object.hasOwn(last, a.name))
        .map((a) => `${a.label} ${fmtEps(last[a.name])}`)
    : [];
  const unless =
    budget === null || budget === undefined
      ? ''
      : `, unless its ε budget of ${budget} stops it first`;
  const text = last
    ? `for the whole run (${counted(last.epoch, 'epoch')}${unless}): ${each.join(', ')}`
    : 'not computed yet';
  const at = typeof delta === 'number' ? ` at δ = ${deltaText(delta)}` : '';
  const starred = last && caveat ? ` Starred (*): ${caveat}.` : '';
  return (
    `Privacy spent ε${at} against epochs; ${text}.${starred} The run log below has every ` +
    `epoch's numbers.`
  );
}

// What the footer says of the WebAssembly build the browser chose (wasm-choice.js), by the
// name Rust gives its matrix kernel.
const ENGINES = new Map([
  ['relaxed-simd fma', 'Engine: WebAssembly with relaxed SIMD (fused multiply-add matrix kernel).'],
  [
    'gemm simd128',
    'Engine: WebAssembly SIMD (no relaxed SIMD in this browser: slower matrix products, the ' +
      'same runs up to float rounding).',
  ],
]);

export const engineText = (kernel) => ENGINES.get(kernel) ?? String(kernel);
