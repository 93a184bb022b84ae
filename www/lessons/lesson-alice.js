// @ts-check
// The lesson "Is Alice in the data?" (#41 §2): neighbouring data sets made visible. Its numbers
// come from the Alice view's result (Rust's `audit::alice`, through lesson-facts.js); its claims
// are held to by tests/e2e/lessons.test.mjs and tests/e2e/alice.test.mjs.
//
// The settings: logistic regression on blobs with every example in every lot (L = 600 = N:
// q = 1, the page's run and the audit's runs on D with her and on D′ without, #53 §3), so that
// without noise nothing but the data differs between runs.

/** @type {import('./lessons.js').Lesson} */
export const ALICE_LESSON = {
  title: 'Is Alice in the data?',
  base: {
    dataset: 'blobs',
    model: 'logistic',
    lot_size: 600,
    epochs: 20,
    clip: 1,
    lr: 2,
    seed: 1,
    audit_runs: 100,
  },
  steps: [
    {
      set: { sigma: 0 },
      label: 'σ = 0',
      charts: ['alice-chart'],
      controls: ['alice-start', 'sigma'],
      say: [
        { asSet: true, text: 'No noise (σ = {sigma}, ε = {eps}).' },
        // Who she is (the lab's pick, or the example clicked) the Alice panel says. The box's
        // count: what the button does; the result below names the count it was trained with.
        '"Train with and without Alice": {auditRuns} runs without her, {auditRuns} with her, ' +
          "and each model's loss on her.",
        {
          when: (f) => (f.alice ? f.alice.tpr > 0.9 : undefined),
          yes:
            'Guessing "in" when her loss is low catches {alice.tpr} of the runs with her ' +
            '({alice.range} at 95% confidence, from {alice.runs} runs a side) at a 5% ' +
            'false-alarm rate.',
          no:
            'This time the guess catches only {alice.tpr} of the runs with her ({alice.range} ' +
            'at 95% confidence, from {alice.runs} runs a side) at a 5% false-alarm rate.',
          wait: '',
        },
        {
          // Rust's best threshold tells every run with her from every run without her.
          only: (f) => f.alice?.best === 1 && f.alice?.bestFpr === 0,
          text: 'The histograms do not touch: one threshold on her loss tells them all apart.',
        },
      ],
      ask: 'What, besides Alice, differs between the runs with her and without her here?',
    },
    {
      set: { sigma: 4 },
      label: 'σ = 4',
      charts: ['alice-chart'],
      controls: ['alice-start', 'sigma'],
      say: [
        // The whole run's ε: what each of the runs with and without her, trained to the end,
        // is held to.
        {
          // Not under an ε budget: the runs stop where it is spent (lesson-audit.js).
          only: (f) => f.cfg?.budget_epsilon == null,
          sheet: true, // the worksheet prints it: its premise is the step's own settings
          text:
            'σ = {sigma}: the moments accountant now promises ε = {whole.moments} at δ = ' +
            '{delta} for the whole run. Train with and without Alice again.',
        },
        {
          // The audit's region check (the 95% band): the test stays within what ε allows,
          // however high the rate it catches (σ lowered: ε allows more).
          when: (f) => (f.alice ? f.alice.verdict !== 'outside' : undefined),
          // Within chance (Rust's verdict): its ROC above the region somewhere, the catch rate
          // above what is allowed, say — said, so that "at most" is not left contradicted.
          yes: (f) =>
            'At a 5% false-alarm rate the guess catches {alice.tpr} of the runs with her ' +
            "({alice.range} at 95% confidence); the PLD accountant's privacy region for these " +
            'runs allows at most {alice.allowed}.' +
            (f.alice?.verdict === 'within-chance'
              ? ' Its ROC rises above the region somewhere, but within its 95% band: as much ' +
                'as chance allows with {alice.runs} runs a side.'
              : ''),
          no:
            'The guess catches {alice.tpr} ({alice.range} at 95% confidence) at a 5% ' +
            "false-alarm rate, where the PLD accountant's privacy region for these runs allows " +
            '{alice.allowed}: a 1-in-20 fluke, or a bug.',
          wait: '',
        },
      ],
      ask:
        'If the guess catches fewer runs with her than ε allows, could a cleverer observer do ' +
        'better than a threshold on the loss?',
    },
  ],
};
