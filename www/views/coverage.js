// "What ε covers": the two lists Rust wrote for the run (`Session.coverage`, src/train/
// coverage.rs) — its releases, and what lies outside the guarantee — so the page shows where
// the guarantee ends instead of hiding it. Nothing is decided or formatted here.

const $ = (id) => document.getElementById(id);

function item(text) {
  const li = document.createElement('li');
  li.textContent = text;
  return li;
}

// Fills the two lists from the run's `coverage` ({covered, outside}: sentences).
export function renderCoverage(coverage) {
  $('covered').replaceChildren(...coverage.covered.map(item));
  $('not-covered').replaceChildren(...coverage.outside.map(item));
}
