// @ts-check
// A worker the page keeps alive. A worker can die without a word: the browser may kill it
// (out of memory), a wasm trap leaves its instance unusable, and a terminated worker sends no
// error event. So besides error events, the page pings it every PING_MS and counts it dead when
// a ping has gone unanswered for `silenceMs` (a worker answers between chunks of work, so the
// limit must exceed its longest single computation). A dead worker is replaced by a new one
// and `onRestart(why)` runs (the page re-sends its last request); after `maxRestarts` the page
// gives up with `onGiveUp(why)` rather than loop on a fault that repeats.
//
// Protocol (see protocol.js; the worker's side is worker-shell.js): page → worker {type: 'ping'};
// worker → page {type: 'pong'}, {type: 'crashed', message} when a wasm trap made its instance
// unusable (it then closes), and {type: 'refused', message} for a message of the page's it would
// not obey: a bug of the page's, passed to `onRefused` (by default, the console's error).
import { sendWasm } from '../core/wasm-module.js';
import { ModuleWorker } from '../core/module-worker.js';

/**
 * @typedef {import('../core/protocol.js').ToTraining | import('../core/protocol.js').ToAccounting}
 *   ToKept
 */
/** @typedef {import('../core/protocol.js').FromShell} FromShell */

const PING_MS = 2000;

export class KeptWorker {
  /**
   * @param {URL} url the worker's script, `new URL('../workers/x.js', import.meta.url)`
   * @param {{onMessage: (ev: MessageEvent) => void, onRestart: (why: string) => void,
   *   onGiveUp: (why: string) => void, onRefused?: (m: import('../core/protocol.js').Refused) =>
   * void, silenceMs: number, maxRestarts?: number}} options
   */
  constructor(url, { onMessage, onRestart, onGiveUp, onRefused, silenceMs, maxRestarts = 3 }) {
    this.url = url;
    this.onMessage = onMessage;
    this.onRestart = onRestart;
    this.onGiveUp = onGiveUp;
    this.onRefused = onRefused || ((m) => console.error(`${url} refused a message: ${m.message}`));
    this.silenceMs = silenceMs;
    this.maxRestarts = maxRestarts;
    this.restarts = 0;
    this.pingSent = null; // when the unanswered ping was sent, or null
    this.spawn();
    this.timer = setInterval(() => this.check(), PING_MS / 2);
  }

  // A new worker (module-worker.js: started in turn, and again, silently, if its scripts fail
  // to load once).
  spawn() {
    this.worker = new ModuleWorker(this.url, {
      onmessage: (ev) => this.heard(ev),
      onerror: (e, why) => this.replace(why),
    });
    sendWasm(this.worker);
    this.pingSent = null;
  }

  // A message of the worker's: the shell's are handled here, the rest go to onMessage.
  /** @param {MessageEvent} ev */
  heard(ev) {
    this.pingSent = null; // any message shows it is alive
    /** @type {FromShell | {type: 'other'}} */
    const m = ev.data && typeof ev.data === 'object' ? ev.data : { type: 'other' };
    if (m.type === 'pong') return;
    if (m.type === 'crashed') {
      this.replace(`its WebAssembly stopped with an error: ${String(m.message).slice(0, 120)}`);
      return;
    }
    if (m.type === 'refused') {
      this.onRefused(m);
      return;
    }
    this.onMessage(ev);
  }

  /**
   * @param {ToKept} message
   * @param {Transferable[]} [transfer]
   */
  post(message, transfer) {
    if (this.worker) this.worker.postMessage(message, transfer || []); // none after giving up
  }

  check() {
    if (!this.worker) return;
    const now = performance.now();
    if (this.pingSent === null) {
      this.pingSent = now;
      /** @type {import('../core/protocol.js').ToShell} */
      const ping = { type: 'ping' };
      this.worker.postMessage(ping);
    } else if (now - this.pingSent > this.silenceMs) {
      this.replace(`it did not answer for ${Math.round(this.silenceMs / 1000)} s`);
    }
  }

  replace(why) {
    this.worker.terminate();
    if (this.restarts >= this.maxRestarts) {
      this.worker = null;
      clearInterval(this.timer);
      this.onGiveUp(why);
      return;
    }
    this.restarts += 1;
    this.spawn();
    this.onRestart(why);
  }

  // For the tests: ends the worker as a crash would, without telling the page.
  kill() {
    this.worker?.terminate();
  }
}
