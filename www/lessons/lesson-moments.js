// @ts-check
// The lesson "Why the moments accountant matters" (Abadi et al. 2016, §3.1 and Fig. 2): the
// paper's own setting, where naive and strong composition are read in the paper's optimistic
// convention, then the same run with the exact per-step bound, against the moments accountant,
// RDP and PLD. Every ε is Rust's, filled from the run's preview (lesson-facts.js).

import { below, known } from './when.js';

/** @typedef {import('./lessons.js').Lesson} Lesson */
/** @typedef {import('./lesson-facts.js').Facts} Facts */

// Whether the whole run's ε (the preview, all its epochs) is what the run on screen spends: without
// an ε budget, or once it is done and its budget never stopped it (Rust's report). While it
// trains under a budget, or once the budget stopped it, the run's ε need not be the whole run's.
/** @param {Facts} f */
const wholeIsSpent = (f) => f.cfg?.budget_epsilon == null || (f.done && f.budgetStopped === false);

// Moments 1's figures off its settings: still the paper's optimistic convention, no bound, while
// the convention menu says so (the step's intro, which says it, is only said at its settings).
// Under an ε budget that stops (or may stop) the run the whole run's figures are not said, so
// nothing follows to introduce.
/** @param {Facts} f */
const paperConventionOffStep = (f) => {
  const next = wholeIsSpent(f) ? ' For the whole run:' : '';
  return f.cfg?.amplification === 'paper'
    ? "Naive and strong composition here are in the paper's own optimistic convention, which " +
        'is no bound.' +
        next
    : next.trim();
};

/** @param {Facts} f */
const budgetMayStop = (f) => !wholeIsSpent(f);

// Said in place of the whole run's ε where an ε budget stops (or may stop) the run.
const BUDGET_STOPS = {
  only: budgetMayStop,
  text:
    'With an ε budget a run stops where its ε is spent, maybe before its last epoch: ' +
    "the whole run's ε, which this step compares, need not be what it spent. Turn " +
    'the budget off to compare.',
};

/** @type {Lesson} */
export const MOMENTS_LESSON = {
  title: 'Why the moments accountant matters',
  base: {
    dataset: 'adult',
    model: 'logistic',
    sigma: 4,
    clip: 1,
    lr: 2,
    epochs: 100,
    lot_size: 326,
    seed: 1,
  }, // q ≈ 0.01 on Adult
  steps: [
    {
      set: { amplification: 'paper' },
      charts: ['epsilon-chart', 'accuracy-chart'],
      controls: ['sigma', 'epochs'],
      say: [
        // The whole run's ε is the thin curves while it trains; once done, the thick ones cover
        // them.
        {
          asSet: true,
          only: (f) => !f.done,
          text:
            "The paper's setting (its Fig. 2): q = {q}, σ = {sigma}, {epochs} epochs, with " +
            "naive and strong composition in the paper's own optimistic convention. For " +
            'the whole run (thin curves):',
          offStep: paperConventionOffStep,
        },
        {
          asSet: true,
          only: (f) => f.done,
          text:
            "The paper's setting (its Fig. 2): q = {q}, σ = {sigma}, {epochs} epochs, with " +
            "naive and strong composition in the paper's own optimistic convention. For " +
            "the whole run (the curves' ends):",
          offStep: paperConventionOffStep,
        },
        {
          // Not under an ε budget that stops (or may stop) the run where it is spent: the whole
          // run's ε (its preview) is not what it spent then (the "Off the step" line names the
          // budget).
          only: wholeIsSpent,
          when: (f) =>
            known(f.whole.naive, f.whole.strong, f.whole.moments)
              ? f.whole.naive > f.whole.strong && f.whole.strong > f.whole.moments
              : undefined,
          yes:
            'naive composition says ε = {whole.naive}, strong composition {whole.strong}, ' +
            'the moments accountant {whole.moments}.',
          no:
            'naive composition says ε = {whole.naive}, strong composition {whole.strong}, ' +
            'the moments accountant {whole.moments} — not in the order the paper reports.',
          wait: "the accountants' ε is being computed…",
        },
        BUDGET_STOPS,
      ],
      ask:
        'Naive composition grows like the number of epochs, strong composition like its ' +
        'square root. Where would each be after 400 epochs?',
    },
    {
      set: { amplification: 'rigorous' },
      compare: 'preview',
      charts: ['epsilon-chart', 'sigma-chart'],
      controls: ['sigma', 'amplification'],
      say: [
        {
          when: (f) => below(f.prev.whole.strong, f.whole.strong),
          // Only of a run in the exact convention: moved back to the paper's, both figures
          // would be the paper's (the "Off the step" line names the move). Not under an ε
          // budget that stops (or may stop) the run: the whole run's ε, which this step
          // compares, is not what it spent then (as in step 1).
          only: (f) => f.cfg?.amplification === 'rigorous' && wholeIsSpent(f),
          yes:
            "The paper's convention is not a bound. With the exact per-step bound strong " +
            'composition says ε = {whole.strong}, not {prev.whole.strong} — ' +
            "{strongOverMoments} the moments accountant's {whole.moments}.",
          no:
            'With the exact per-step bound strong composition says ε = {whole.strong}, ' +
            "against {prev.whole.strong} in the paper's convention.",
          wait: 'The exact per-step bound is being computed…',
        },
        {
          only: wholeIsSpent,
          sheet: true, // the worksheet prints it: its premise is the step's own settings
          text:
            "Today's libraries use RDP ({whole.rdp}) or the privacy loss distribution " +
            '({whole.pld}).',
        },
        BUDGET_STOPS,
        'The σ chart turns it around: the noise each accountant would need for the target ε.',
      ],
      ask:
        'For the same ε, how much more noise would strong composition need than the ' +
        'moments accountant?',
    },
  ],
};
