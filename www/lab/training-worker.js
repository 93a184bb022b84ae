// @ts-check
// The training worker (worker.js), kept alive (kept-worker.js): replaced when it crashes or stops
// answering, and the new one re-runs the last settings once its wasm has loaded
// (page/session.js's startWhenReady). A long single call (a data set's decoding, DP-PCA) must
// fit in the silence allowed.
import { KeptWorker } from './kept-worker.js';
import { setStatus, showMessage } from '../core/messages.js';

/**
 * `onMessage`: the worker's messages; `lost()`: called when it stopped (the page no longer
 * counts it ready); `resend()`: gives the new worker the student's file again before the run
 * (it handles messages in order; preparing the file again draws a new split and range estimate,
 * a new release) and says so in a few words, or ''; `cap()`: the cores an audit under way leaves.
 * @param {{onMessage: (ev: MessageEvent) => void, lost: () => void, resend: () => string,
 *   cap: () => any}} host
 */
export function startTrainingWorker({ onMessage, lost, resend, cap }) {
  const stopped = (why) => {
    lost();
    return `The training worker stopped (${why}).`;
  };
  const worker = new KeptWorker(new URL('../workers/worker.js', import.meta.url), {
    silenceMs: 20_000,
    onMessage,
    onRestart: (why) => {
      const own = resend();
      worker.post(cap());
      showMessage(`${stopped(why)} A new one was started with the last settings${own}.`);
      setStatus('Restarting the training worker…');
    },
    onGiveUp: (why) => {
      showMessage(`${stopped(why)} It failed more than three times: reload the page to try again.`);
      setStatus('Stopped.');
    },
  });
  return worker;
}
