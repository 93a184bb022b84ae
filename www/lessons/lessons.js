// @ts-check
// The lessons, as data: every word a lesson says lives here and nowhere else.
//
// A lesson is 2–4 steps. A step applies its settings (`set`, over the lesson's `base`, both
// keys of the settings table in settings.js) through the one settings object, puts the charts
// and controls it speaks about (`charts`, `controls`: element ids) on the first screen, says
// what to look at (`say`) and asks the class a question (`ask`). `then` names a button the step
// presses for the class once its run is set ('compare'). A step that compares with the one
// before (`compare`) has it on screen too: 'run' pins the earlier step's run (named by its
// `label`) on the charts, 'preview' reads only its ε for the whole run.
//
// What a step says is made of sentences. A number in a sentence is never written in prose: a
// `{name}` is filled from the run's own report (lesson-facts.js FILL lists the names), and
// `{prev.name}` from the previous step's run as it ended. A sentence that claims something
// about the charts is an object: `when(facts)` decides, from the same numbers, whether the
// claim holds for the run on screen — true: `yes` is said; false: `no` (what the charts show
// instead); undefined (not known yet): `wait`. At the lesson's own settings and seed every
// `when` must be true: tests/e2e/lessons.test.mjs holds each step to it.

import { WHO_PAYS } from './lesson-who-pays.js';
import { ALICE_LESSON } from './lesson-alice.js';
import { AUDIT_LESSON } from './lesson-audit.js';
import { MOMENTS_LESSON } from './lesson-moments.js';
import { below, ended, gained, known, notGained } from './when.js';

/** @typedef {import('./lesson-facts.js').Facts} Facts */

// A sentence whose fixed words hold only at the step's own settings ("the paper's setting",
// "the same noise") is marked `asSet`: with a setting moved it is not said (lesson-claims.js),
// and its `offStep(facts)`, if any, is said instead: what of it still holds (or '').
// A claim's yes or no may be a function of the facts, where its words depend on them.
/**
 * @typedef {string
 *   | {text: string, asSet?: boolean, only?: (f: Facts) => boolean, sheet?: boolean,
 *       offStep?: (f: Facts) => string}
 *   | {when: (f: Facts) => boolean | undefined,
 *       yes: string | ((f: Facts) => string), no: string | ((f: Facts) => string),
 *       wait?: string | ((f: Facts, live: boolean) => string),
 *       asSet?: boolean, only?: (f: Facts) => boolean, offStep?: (f: Facts) => string}} Sentence
 */
/**
 * @typedef {{set: Record<string, any>, label?: string, compare?: 'run' | 'preview',
 *   charts: string[], controls: string[], say: Sentence[], ask: string, then?: 'compare'}} Step
 */
/** @typedef {{title: string, base: Record<string, any>, steps: Step[]}} Lesson */

/** @type {Map<string, Lesson>} */
export const LESSONS = new Map(
  Object.entries({
    clipping: {
      title: 'What clipping does',
      base: {
        dataset: 'adult',
        model: 'logistic',
        sigma: 1,
        lot_size: 256,
        lr: 2,
        epochs: 10,
        seed: 1,
      },
      steps: [
        {
          set: { clip: 0.1 },
          label: 'C = 0.1',
          charts: ['clipping-chart', 'accuracy-chart'],
          controls: ['clip'],
          say: [
            // {clipped}: the epoch's share (the report's); the histogram shows its last lot.
            'C = {clip}: every gradient is cut to length at most C; this epoch {clipped} ' +
              'were longer (the orange bars: its last lot).',
            {
              // Rust's verdict with the test set's ± (RunView.learned), as in noise 1: "no
              // better" unless the accuracy ends clearly above the line — a run that ends near
              // it, or below it (σ or L moved), without three flat epochs is no better either.
              when: (f) =>
                ended(f, known(f.acc, f.majority) ? f.learnedNothing !== false : undefined),
              yes:
                'The test accuracy ends at {acc}, no better than the grey majority line ' +
                '({majority}) within chance: no better than always guessing the most common ' +
                'answer.',
              no:
                'The test accuracy reaches {acc}, above the grey majority line ({majority}) by ' +
                'more than chance allows.',
              wait: 'Watch the accuracy against the grey majority line ({majority}).',
            },
          ],
          ask:
            'Which examples have the longest gradients: those the model gets right, or those ' +
            'it gets wrong?',
        },
        {
          set: { clip: 1 },
          label: 'C = 1',
          compare: 'run',
          charts: ['clipping-chart', 'accuracy-chart'],
          controls: ['clip'],
          say: [
            "C = {clip}: now {clipped} of the epoch's gradients are cut.",
            {
              when: (f) => ended(f, gained(f.accGap)),
              yes:
                'The test accuracy climbs to {acc}, against {prev.acc} with C = {prev.clip}: ' +
                '{accGap} points, beyond the ±{accMargin} that chance allows on {nTest} test ' +
                'examples.',
              no:
                'The test accuracy is {acc}, against {prev.acc} with C = {prev.clip}: {accGap} ' +
                '± {accMargin} points, no clear gain.',
              wait:
                'Watch the accuracy against the grey majority line, and against {prev.acc} ' +
                'with C = {prev.clip}.',
            },
          ],
          ask: 'The noise σC grew tenfold with C. If the model learns better all the same, why?',
        },
        {
          set: { clip: 5 },
          compare: 'run',
          charts: ['noise-chart', 'accuracy-chart'],
          controls: ['clip'],
          say: [
            {
              asSet: true,
              text:
                'C = {clip}: {clipped} of the gradients are cut, but the noise σC grew with C: ' +
                'it is {noiseRatio} the clipped signal of a lot (it was {prev.noiseRatio} at C ' +
                '= {prev.clip}).',
            },
            {
              when: (f) => ended(f, notGained(f.accGap)),
              asSet: true,
              yes:
                'The test accuracy ends at {acc}, against {prev.acc} with C = {prev.clip}: ' +
                '{accGap} ± {accMargin} points, no better — more noise, no more signal.',
              no:
                'The test accuracy ends at {acc}, clearly above the {prev.acc} of C = ' +
                '{prev.clip}: {accGap} ± {accMargin} points.',
              wait: 'Watch where the accuracy ends, against {prev.acc} with C = {prev.clip}.',
            },
            {
              when: (f) =>
                ended(f, known(f.eps_, f.prev.eps_) ? f.eps_ === f.prev.eps_ : undefined),
              yes: 'ε is {eps}, as it was at C = {prev.clip}.',
              no: 'ε is {eps}, against {prev.eps} at C = {prev.clip}.',
            },
          ],
          ask: 'Why does C not change ε at all?',
        },
      ],
    },
    noise: {
      title: 'When noise drowns the signal',
      base: { dataset: 'adult', model: 'logistic', sigma: 8, clip: 1, lr: 2, epochs: 10, seed: 1 },
      steps: [
        {
          set: { lot_size: 32 },
          label: 'L = 32',
          charts: ['noise-chart', 'accuracy-chart'],
          controls: ['lot-size', 'sigma'],
          say: [
            'σ = {sigma} and lots of L = {lot}: in the noise chart the noise on each ' +
              "lot's sum is {noiseRatio} the clipped signal.",
            {
              // Rust's verdict with the test set's ± (RunView.learned): "no better" unless the
              // accuracy ends clearly above the line — on it, or below it (noise can do worse).
              when: (f) =>
                ended(f, known(f.acc, f.majority) ? f.learnedNothing !== false : undefined),
              // "The noise drowns it" only where Rust's verdict blames the noise: moved η, C
              // or the epochs can stop the learning as well, and then the step says what Rust's
              // status says (its cause and hint: train/verdict.rs holding_back).
              yes: (f) =>
                'The test accuracy ends at {acc}, no better than the grey majority line ' +
                '({majority}) within chance' +
                (f.noiseRatio_ === undefined || !f.holdingBack
                  ? '.' // the noise views not released: no word on why
                  : f.holdingBack.cause === 'noise'
                    ? ': the noise drowns what the model could learn.'
                    : f.noiseRatio_ <= 1
                      ? '; the noise is below the signal here, so something else holds it back: ' +
                        '{holdingBack}'
                      : '; the noise is not the first thing to move here: {holdingBack}'),
              no:
                'Even so the test accuracy ends at {acc}, above the majority line ({majority}) ' +
                'by more than chance allows.',
              wait: 'Watch the accuracy against the grey majority line ({majority}).',
            },
          ],
          ask:
            'The noise has the same size whatever L is. What changes when a lot holds more ' +
            'examples?',
        },
        {
          set: { lot_size: 1024 },
          compare: 'run',
          charts: ['noise-chart', 'accuracy-chart'],
          controls: ['lot-size', 'sigma'],
          say: [
            {
              when: (f) => ended(f, below(f.noiseRatio_, f.prev.noiseRatio_)),
              asSet: true,
              yes:
                'L = {lot}: the same noise now lands on a sum of about {lot} clipped gradients ' +
                '— it is {noiseRatio} the signal, down from {prev.noiseRatio}.',
              no:
                'L = {lot}: the noise is {noiseRatio} the signal, not below the ' +
                '{prev.noiseRatio} of L = {prev.lot}.',
            },
            {
              when: (f) => ended(f, gained(f.accGap)),
              // "Recovers" only where Rust's learned() says the run learned; at the majority
              // line (a lot of every row takes a handful of steps) a gain, no recovery; too
              // early to tell (one epoch), the gain alone.
              yes: (f) =>
                f.learnedNothing === false
                  ? 'The test accuracy recovers to {acc} (it was {prev.acc}: {accGap} ± ' +
                    '{accMargin} points).'
                  : 'The test accuracy is {acc}, above {prev.acc} ({accGap} ± {accMargin} ' +
                    'points)' +
                    (f.learnedNothing === true
                      ? ' but no better than the grey majority line ({majority}) within chance.'
                      : '.'),
              no:
                'The test accuracy is {acc}, against {prev.acc}: {accGap} ± {accMargin} ' +
                'points, no clear gain.',
            },
            {
              when: (f) => ended(f, below(f.prev.eps_, f.eps_)),
              yes: 'The price: ε = {eps}, up from {prev.eps}.',
              no: 'ε = {eps}, against {prev.eps} before.',
            },
          ],
          ask: 'σ did not change. Why does a larger lot spend more privacy?',
        },
      ],
    },
    moments: MOMENTS_LESSON,
    cost: {
      title: 'What privacy costs',
      base: {
        dataset: 'breast-cancer',
        model: 'logistic',
        sigma: 4,
        clip: 1,
        lot_size: 32,
        lr: 0.5,
        epochs: 10,
        seed: 1,
      },
      steps: [
        {
          set: {},
          charts: ['accuracy-chart', 'epsilon-chart'],
          controls: ['sigma', 'lot-size'],
          say: [
            {
              asSet: true,
              text:
                'On Adult, 32,561 people hide one person cheaply. Here there are {nTrain} ' +
                'patients to learn from.',
            },
            'DP-SGD with σ = {sigma} reaches a test accuracy of {acc} at ε = {eps}.',
          ],
          ask: 'Guess: how many points of accuracy did privacy cost here?',
        },
        {
          set: {},
          then: 'compare',
          charts: ['accuracy-chart', 'epsilon-chart'],
          controls: ['compare', 'sigma'],
          say: [
            // A seed of the run's (the step's 1): the four runs share it. None (a file of the
            // student's own, its seed hidden): each run draws one at random (Rust's train).
            {
              only: (f) => f.cfg?.seed != null,
              sheet: true, // the worksheet prints it: its premise is the step's own settings
              text: 'The same seed four times: non-private, clipping only, noise only and DP-SGD.',
            },
            {
              only: (f) => f.cfg?.seed == null,
              text:
                'Four runs, each with a random seed of its own: non-private, clipping only, ' +
                'noise only and DP-SGD.',
            },
            {
              // On {nTest} test patients one patient is most of a point: the gap is said with its
              // ±.
              when: (f) => (f.costGap ? !f.costGap.clear : undefined),
              yes:
                'Non-private and DP-SGD end {costAbs} points apart here (at ε = {eps}), within ' +
                'the ±{costMargin} points that chance allows on {nTest} held-out {examples}: no ' +
                'cost this run can show.',
              // A clear gap either way: DP-SGD can end above (noise can keep a model on a
              // small data set from overfitting, or the seed was kind), as Rust's chart says.
              no: (f) =>
                f.cost < 0
                  ? 'DP-SGD ends {costAbs} ± {costMargin} points above non-private here, at ε ' +
                    '= {eps}: beyond chance on {nTest} held-out {examples} — no cost this run ' +
                    'shows.'
                  : 'Privacy costs {cost} ± {costMargin} points of test accuracy here, at ε = ' +
                    '{eps}: beyond chance on {nTest} held-out {examples}.',
              // No cost without a non-private run alike but for the mode, nor before both
              // runs are over (Rust's RunView).
              wait: (f, live) =>
                !live
                  ? 'The four runs are training; the gap between non-private and DP-SGD ' +
                    'appears on the chart when they are done.'
                  : f.done
                    ? 'No non-private run with these settings is on the chart: press Compare ' +
                      'to train the four runs at them.'
                    : 'The gap between non-private and DP-SGD appears on the chart once this ' +
                      'run is done.',
            },
          ],
          ask: 'Which half of DP-SGD costs more here — the clipping or the noise?',
        },
      ],
    },
    audit: AUDIT_LESSON,
    'who-pays': WHO_PAYS,
    alice: ALICE_LESSON,
  }),
);

/** The lesson named `name`, or undefined (a Map: a user's string never reaches prototype keys). */
export const lessonNamed = (/** @type {string | null} */ name) =>
  name === null ? undefined : LESSONS.get(name);

/** The lesson and step a link names: {name, lesson, index} or null (none, or not a lesson). */
export function stepOf(/** @type {URLSearchParams} */ params) {
  const name = params.get('lesson');
  const lesson = lessonNamed(name);
  if (!lesson || name === null) return null;
  const n = Number(params.get('step') ?? '1');
  const index = Number.isInteger(n) ? Math.min(Math.max(n, 1), lesson.steps.length) - 1 : 0;
  return { name, lesson, index };
}

/** The settings of step `index` of `lesson` (keys of the settings table). */
export const settingsOf = (/** @type {Lesson} */ lesson, /** @type {number} */ index) => ({
  ...lesson.base,
  ...lesson.steps[index].set,
});
