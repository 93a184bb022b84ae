// @ts-check
// The lessons' claims' helpers (lessons.js and the lessons of their own files): each answers
// undefined until the numbers it needs are known, so that a claim waits rather than guesses.

/** Whether every one of `v` is a finite number. */
export const known = (/** @type {unknown[]} */ ...v) =>
  v.every((x) => typeof x === 'number' && Number.isFinite(x));
/** a < b, once both are known. */
export const below = (/** @type {any} */ a, /** @type {any} */ b) =>
  known(a, b) ? a < b : undefined;
/** The claim, once the run is done. */
export const ended = (/** @type {{done: boolean}} */ f, /** @type {any} */ claim) =>
  f.done ? claim : undefined;
// A comparison of two accuracies (Rust's train/gap.rs): a gain only beyond its ± (two standard
// errors of the difference on the test set's size); "no better" is anything else.
export const gained = (/** @type {any} */ g) => (g ? g.clear && g.points > 0 : undefined);
export const notGained = (/** @type {any} */ g) => (g ? !(g.clear && g.points > 0) : undefined);
