// "What ε covers": the run's releases, read from the mechanism Rust derived for it, and what
// lies outside the guarantee — so the page shows where the guarantee ends instead of hiding it.

const $ = (id) => document.getElementById(id);

// v to three significant digits, rounded toward the side that never flatters the guarantee:
// a noise multiplier down, a sampling rate up (0.99951 is "0.999", not "1.00").
function sig3(v, round) {
  if (Number.isInteger(v) || !Number.isFinite(v) || v === 0) return String(v);
  const unit = 10 ** (Math.floor(Math.log10(Math.abs(v))) - 2);
  return (round(v / unit) * unit).toPrecision(3);
}
const noise = (v) => sig3(Number(v), Math.floor);
const rate = (v) => sig3(Number(v), Math.ceil);

// A release without noise, by its kind in Rust's mechanism.
const BARE = new Map([
  ['dp-pca', 'DP-PCA\'s projection (σ_p = 0)'],
  ['bounds', 'the estimate of your columns\' ranges'],
  ['evaluation', 'the test accuracy of your held-out rows'],
]);

function item(text) {
  const li = document.createElement('li');
  li.textContent = text;
  return li;
}

// Fills the two lists from the run's `mechanism`, its settings `cfg` and the data's `facts`.
export function renderCoverage(mechanism, cfg, facts) {
  const covered = [];
  const outside = [];
  const step = mechanism.step;
  const steps = mechanism.total_steps;
  if (mechanism.open) {
    // Rust's verdict: a release without noise (the mode, σ = 0 or σ_p = 0) leaves ε = ∞.
    const bare = [...mechanism.before, ...mechanism.per_epoch].filter((r) => !(r.sigma > 0)).map((r) => BARE.get(r.what) ?? r.what);
    outside.push(step.sigma > 0
      ? `Everything: ${bare.length ? bare.join(' and ') : 'one of this run\'s releases'} has no noise, so ε = ∞.`
      : 'Everything: this run does not both clip and add noise, so ε = ∞.');
  } else {
    covered.push(`The model after each of the ${steps} training steps: a Poisson-sampled lot `
      + `(q = ${rate(step.q)}) whose clipped gradients get Gaussian noise, accounted with noise `
      + `multiplier σ = ${noise(step.sigma)}${cfg.clip_quantile ? ' (with the noisy count of unclipped examples that adapts C)' : ''} — and so anything computed from the model alone.`);
    for (const r of mechanism.before) {
      if (r.what === 'dp-pca') covered.push(`DP-PCA's projection: one Gaussian release (σ_p = ${noise(r.sigma)}), before training.`);
      if (r.what === 'bounds') covered.push(`The ranges of your numeric columns: one Gaussian release over their histograms (σ = ${noise(r.sigma)}).`);
    }
    for (const r of mechanism.per_epoch) {
      if (r.what === 'evaluation') covered.push(`The test accuracy after each epoch, from a count of correct predictions with Gaussian noise (σ = ${noise(r.sigma)}).`);
    }
  }
  if (!mechanism.open && !facts.private) covered.push('The accuracy on the held-out test set: public data, not protected by training.');
  if (cfg.report === 'teaching') {
    outside.push('Train accuracy, the gradient-norm histogram, signal against noise, the clipped fraction, the median gradient norm and the training points of the decision-boundary view: the training data itself, or measured on it without noise (marked "not private").');
    if (facts.private) outside.push('The exact test accuracy of your held-out rows (choose "only what ε covers" to release it from a noisy count instead).');
  }
  if (cfg.amplification === 'paper') outside.push('Naive and strong composition in the paper\'s convention (q·ε₀): optimistic, not a bound.');
  if (facts.private) {
    outside.push('Your file\'s column names, categories and classes: treated as public.');
    if (cfg.seed !== null) outside.push('The fixed seed you chose: whoever has it can subtract the noise.');
  } else {
    outside.push('How the built-in data were scaled: fixed from their documentation (Adult\'s public bounds), or standardised on the training split (breast cancer, a benchmark convention).');
  }
  outside.push(facts.private
    ? 'Trying many settings, or running again: each run\'s ε covers that one run. All runs on your file since you loaded it are composed under the status line (another file, or reloading the page, starts a new count).'
    : 'Trying many settings and keeping the best (hyperparameter search), or running again: each run\'s ε covers that one run.');
  outside.push('The number of examples N, treated as public (as in the paper).');
  outside.push('The noise is drawn in floating point; floating-point noise can leak in ways the maths does not model (see the README).');
  $('covered').replaceChildren(...covered.map(item));
  $('not-covered').replaceChildren(...outside.map(item));
}
