// The page's charts, drawn from Rust one per task (drawing.js's queue) from what `view` gives
// when they draw. The accuracy, groups, ε and noise charts draw a RunView: the run's config and
// reports held in wasm, each report given to it once as it arrives, its preview and the pins
// when they change. The others read the ε preview and PLD curve, the last lot's
// gradient norms and the σ panel. The teaching views say why they are blank at the private
// level instead of drawing.
import {
  RunView,
  draw_accuracy_chart,
  draw_clipping_histogram,
  draw_epsilon_chart,
  draw_groups_chart,
  draw_noise_chart,
  draw_sigma_chart,
} from '../pkg/dpsgd_lab.js';
import { showGroupsFigure } from './groups.js';
import { ChartQueue, drawCanvasMessage, sizeCanvas } from './drawing.js';
import { showMessage } from '../core/messages.js';
import { settings } from '../lab/settings.js';

const $ = (id) => document.getElementById(id);

export function setUpCharts(view) {
  // The RunView of the run being drawn (`view.run()`; before the first run, the settings'),
  // brought up to date: new reports pushed, the preview and the pins set when they changed.
  let shown = null;
  const runView = () => {
    const run = view.run();
    if (!shown || shown.run !== run) {
      shown?.view.free();
      shown = {
        run,
        view: new RunView(view.config()),
        reports: 0,
        preview: null,
        pld: null,
        pins: -1,
      };
    }
    const history = view.history();
    for (; shown.reports < history.length; shown.reports += 1)
      shown.view.push(history[shown.reports]);
    const [preview, pld] = [view.preview(), view.pldCurve()];
    if (preview !== shown.preview || pld !== shown.pld) {
      shown.view.setPreview(preview, pld ?? null);
      Object.assign(shown, { preview, pld });
    }
    if (view.pinsVersion() !== shown.pins) {
      shown.view.setPinned(view.pinned());
      shown.pins = view.pinsVersion();
    }
    return shown.view;
  };

  // The clipping histogram's line is the C of the settings now (it moves with the slider).
  // A teaching view draws only at the teaching level; at the private level it says why not.
  // A teaching view draws at the teaching level; else it says why it is blank, and its caption's
  // sentences describing what it would draw (`described`: their ids) step aside.
  const drawTeachingView = (id, draw, described) => {
    const teaching = view.teaching();
    for (const d of described) $(d).hidden = !teaching;
    if (teaching) draw();
    else drawCanvasMessage($(id), 'Not released: measured on the training data without noise');
  };

  const drawHistogram = () => {
    if (!view.ready()) return;
    // The slider's C, which the line follows at once; with adaptive clipping the run's own C
    // (the last report's, Rust's), which has moved from the slider's since the run began.
    const last = view.history().at(-1);
    const adapted = view.config().clip_quantile != null && typeof last?.clip === 'number';
    drawTeachingView(
      'clipping-chart',
      () =>
        draw_clipping_histogram(
          'clipping-chart',
          view.norms(),
          adapted ? last.clip : settings.get('clip'),
          adapted,
          sizeCanvas($('clipping-chart')),
        ),
      ['clipping-caption-bars'],
    );
  };

  const drawSigmaChart = () => {
    if (!view.ready()) return;
    const canvas = $('sigma-chart');
    const curve = view.sigmaPanel.curve;
    if (!curve) {
      drawCanvasMessage(canvas, view.sigmaPanel.message);
      $('sigma-caption-dot').hidden = true;
      return;
    }
    const cfg = view.config();
    const run = { epochs: cfg.epochs, sigma: cfg.sigma, mode: cfg.mode };
    // Rust draws the run's dot only where it has a place (noise added): the caption names it.
    $('sigma-caption-dot').hidden = !draw_sigma_chart(
      'sigma-chart',
      { points: curve.points, target: curve.target, delta: curve.delta, run },
      sizeCanvas(canvas),
    );
  };

  // Under the ε chart: why two of its accountants disagree by more than 2× (Rust's
  // privacy::why, from the run's mechanism), and which is a valid bound; nothing when they agree.
  // For the ε the chart names (a run stopped early: what it spent, in the steps it trained).
  const sayWhy = () => {
    const facts = view.testSet();
    let said = [];
    try {
      said = facts && view.preview()?.length ? runView().epsilonWhy(facts) : [];
    } catch {
      said = []; // settings the accountants refuse: the status line says why
    }
    $('epsilon-why').textContent = said.join(' ');
    $('epsilon-why').hidden = !said.length;
  };

  // What the ε chart said instead of curves (Rust's ε = ∞ sentence), for the tests; while it
  // says it, the caption describing its curves and the log-log choice are hidden.
  const showEpsilonSaid = (said) => {
    if (said) $('epsilon-chart').dataset.message = said;
    else delete $('epsilon-chart').dataset.message;
    $('epsilon-caption').hidden = !!said;
    $('log-log-choice').hidden = !!said;
  };

  const charts = new ChartQueue(
    [
      () =>
        draw_accuracy_chart(
          'accuracy-chart',
          runView(),
          view.testSet()?.majority_share ?? null,
          view.testSet()?.n_test ?? undefined,
          sizeCanvas($('accuracy-chart')),
        ),
      () =>
        showGroupsFigure(view.config()) &&
        draw_groups_chart('groups-chart', runView(), sizeCanvas($('groups-chart'))),
      () =>
        view.run()?.failed && !view.history().length
          ? // A run that stopped before its first epoch (its data did not load): neither
            // "computing" for ever nor the curve of a run that did not happen.
            drawCanvasMessage(
              $('epsilon-chart'),
              'ε: not computed — the run stopped before it began (see the message)',
            )
          : (showEpsilonSaid(
              draw_epsilon_chart(
                'epsilon-chart',
                runView(),
                $('log-log').checked,
                sizeCanvas($('epsilon-chart')),
              ),
            ),
            sayWhy()),
      () =>
        drawTeachingView(
          'noise-chart',
          () => {
            // Rust's sentence when the run added no noise: the caption's noise steps aside.
            const said = draw_noise_chart('noise-chart', runView(), sizeCanvas($('noise-chart')));
            $('noise-caption-noise').hidden = !!said;
          },
          ['noise-caption-noise', 'noise-caption-clipped'],
        ),
      drawHistogram,
      drawSigmaChart,
    ],
    (e) => showMessage(`Could not draw the charts: ${e.message || e}`),
    () => {
      if (!document.body.dataset.ready && view.run()) {
        // Loaded, its first run started (the link written: main.js) and drawn once: from here on
        // the page is interactive (tests wait for this).
        window.labReadyAt = performance.now();
        document.body.dataset.ready = '1';
      }
      view.drawn(); // what a lesson says follows what the charts now show
    },
  );

  const drawCharts = () => {
    if (view.ready()) charts.drawAll();
  };
  // Rust's verdict on whether the run on screen learned anything (`majority`: its data's
  // majority share, `nTest`: its test set's size): a sentence, or undefined.
  const verdict = (majority, nTest) =>
    view.ready() && view.run()
      ? runView().verdict(majority ?? undefined, nTest ?? undefined)
      : undefined;
  // Rust's word on whether the run's test accuracy shows it learned: true, false, or undefined
  // (too early, within chance of the majority share, no exact test accuracy).
  const learned = (majority, nTest) =>
    view.ready() && view.run()
      ? runView().learned(majority ?? undefined, nTest ?? undefined)
      : undefined;
  // What holds the run back and what to move (Rust's {cause, say}: the hint its verdict says),
  // from its last epoch; undefined before one.
  const holdingBack = () => (view.ready() && view.run() ? runView().holdingBack() : undefined);
  // The cost of privacy the accuracy chart writes (percentage points; undefined unless a
  // non-private and a DP-SGD run are on it), for text that quotes it.
  const privacyCostPoints = () => (view.ready() ? runView().privacyCostPoints() : undefined);
  // Who pays for privacy in Rust's numbers (RunView.groups: the groups chart writes the same),
  // or undefined while the run has no groups.
  const groupsNow = () => (view.ready() && view.run() ? runView().groups() : undefined);
  return {
    drawCharts,
    drawHistogram,
    drawSigmaChart,
    verdict,
    learned,
    holdingBack,
    privacyCostPoints,
    groupsNow,
  };
}
