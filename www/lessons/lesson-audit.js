// @ts-check
// The lesson "What ε means: an attack": the audit's attacks on DP-SGD's own runs, against the
// accountants' promise (the audit panel, Rust's `audit`, through lesson-facts.js). Its claims
// are held to by tests/e2e/lessons.test.mjs, tests/e2e/audit.test.mjs and
// tests/e2e/audit-region.test.mjs.
import { known } from './when.js';

/** @type {import('./lessons.js').Lesson} */
export const AUDIT_LESSON = {
  title: 'What ε means: an attack',
  base: {
    dataset: 'blobs',
    model: 'logistic',
    lot_size: 60,
    epochs: 20,
    clip: 1,
    lr: 2,
    seed: 1,
    audit_runs: 300,
  },
  steps: [
    {
      set: { sigma: 0 },
      charts: ['audit-region', 'audit-epsilons'],
      controls: ['audit-start', 'sigma'],
      say: [
        {
          asSet: true,
          text: 'No noise (σ = {sigma}): the accountant promises nothing, ε = {eps}.',
        },
        '"Audit this run" trains {auditRuns} runs with an odd, mislabeled point and ' +
          '{auditRuns} without, and attacks each final model.',
        {
          when: (f) => (f.audit ? f.audit.realistic > 1 : undefined),
          yes:
            'The attack tells them apart: it proves ε ≥ {audit.realistic} (at 95% confidence, ' +
            'from {audit.runs} runs a side).',
          no:
            'This time the attack proves only ε ≥ {audit.realistic} (at 95% confidence, from ' +
            '{audit.runs} runs a side).',
          wait: '',
        },
      ],
      ask: 'What could an attacker learn about the odd point from a model like this?',
    },
    {
      set: { sigma: 2 },
      charts: ['audit-region', 'audit-epsilons'],
      controls: ['audit-start', 'sigma'],
      say: [
        // The whole run's ε: what the audit's runs, each trained to the end, are held to.
        {
          // Not under an ε budget: the audit's runs stop where it is spent, and the whole
          // run's ε is not what they are held to (the "Off the step" line names the budget).
          only: (f) => f.cfg?.budget_epsilon == null,
          sheet: true, // the worksheet prints it: its premise is the step's own settings
          text:
            'σ = {sigma}: the moments accountant now promises ε = {whole.moments} at δ = ' +
            '{delta} for the whole run. Audit again.',
        },
        {
          // Rust's region check: the same test that draws the shaded 95% band.
          when: (f) => (f.audit?.region ? f.audit.region.verdict !== 'outside' : undefined),
          yes: '{audit.region}',
          no:
            'Its ROC (blue) leaves the grey region beyond its 95% band: a 1-in-20 fluke, ' +
            'or a bug.',
          wait: '',
        },
        {
          // Against the PLD accountant's ε, the tightest promise and the region drawn.
          // Rust's comparison (`lower_above_pld`), never the two numbers compared here.
          when: (f) =>
            f.audit && known(f.audit.upper) && typeof f.audit.aboveUpper === 'boolean'
              ? !f.audit.aboveUpper
              : undefined,
          // "As it must be" only where its ROC stays in the region too (Rust's verdict): a
          // curve can leave the region elsewhere with ε_lower still below the PLD's ε.
          yes: (f) =>
            'The same attack proves only ε ≥ {audit.realistic} (at 95% confidence): below ' +
            "the PLD accountant's ε = {audit.upper}, the grey region's" +
            (f.audit?.region?.verdict === 'outside'
              ? ', though its ROC leaves the region elsewhere (above).'
              : ', as it must be.'),
          no:
            'The attack proves ε ≥ {audit.realistic} (at 95% confidence), above the PLD ' +
            "accountant's ε = {audit.upper}, the grey region's: a 1-in-20 fluke — audit " +
            'again — or the accounting is wrong.',
          wait: '',
        },
        // Said only beside an audit of other settings (step 1's, kept on the region chart).
        {
          only: (f) => !!(f.audit && f.earlierAudit),
          text: 'At {earlierAudit.label} (long dashes) it proved ε ≥ {earlierAudit.realistic}.',
        },
      ],
      ask:
        'Does the attack prove as much as the accountant promises? If less, is the promise ' +
        'too careful, or the attack too weak?',
    },
  ],
};
