// @ts-check
// Every module worker of the lab (the training and accounting workers, the audit workers, the
// data-parallel helpers) starts through here: one at a time where WebKit needs it (takeTurns),
// and again, once and silently, if its scripts fail to load.
//
// Why: WebKit (WebKitGTK 2.50) fails a module worker whose imports another module worker is
// fetching at the same moment, in a page that a service worker controls and cross-origin
// isolates (a static host's second visit: sw.js). The second worker gets a bare `error` event
// (an Event with no message: what a module worker's failed load fires) and never runs. The
// lab's training and accounting workers start together and import the same files
// (worker-shell.js, protocol.js, the wasm glue), so the accounting worker failed on every such
// visit, and the page said it had stopped. Started one after the other, or a moment later, they
// load. (Chromium and Firefox load them either way; isolated without a service worker, or
// controlled without isolation, WebKit does too.)
//
// So, per page or worker where that can happen: a worker is created once the one started before
// it has loaded (it answered the shell's 'ping', worker-shell.js) or failed. Everywhere, messages
// posted to a worker wait until it has loaded, and a worker whose scripts fail to load all the
// same (another page or worker started one at that moment) is started again after LOAD_RETRY_MS
// with the messages it was given, once, without a word; only a second failure reaches `onerror`.

import { ofThisBuild } from './build.js';

/**
 * The name of every worker of a page a test asked hooks for (window.labTestWanted, set by
 * tests/e2e/browser.mjs), and of the workers those start: only a worker of that name obeys the
 * tests' messages ('test-panic', 'test-hang-helper', 'test-hang'); a production page's workers
 * refuse them as messages of no known type (#54 §1).
 */
export const TEST_WORKER_NAME = 'lab-test';

/** Whether this page, or this worker, runs for a test that asked for hooks. */
export function forTests() {
  const global = /** @type {any} */ (self);
  return global.document === undefined
    ? global.name === TEST_WORKER_NAME
    : global.labTestWanted === true;
}

/** The pause before a worker whose scripts failed to load is started again. */
export const LOAD_RETRY_MS = 150;
/** A worker that has neither loaded nor failed after this long no longer holds up the next. */
const TURN_MS = 3000;

/** @type {Promise<void>} */
let turn = Promise.resolve(); // settles when the worker started last has loaded or failed

// Whether workers take turns here: only where WebKit's failure can happen, a cross-origin
// isolated page that a service worker controls (in a worker, which cannot tell, whenever it is
// isolated). Elsewhere, and so on every first visit, they start at once: taking turns made the
// first visit's three workers load one after the other, 0.4 s before the first lot.
const takeTurns = () => {
  const global = /** @type {any} */ (self);
  return (
    global.crossOriginIsolated === true &&
    (global.document === undefined || Boolean(global.navigator.serviceWorker?.controller))
  );
};

export class ModuleWorker {
  /**
   * @param {URL} url the worker's script, `new URL('../workers/x.js', import.meta.url)`
   * @param {{onmessage?: (ev: MessageEvent) => void, onerror?: (e: Event, why: string) => void}}
   *   [handlers]
   */
  constructor(url, { onmessage, onerror } = {}) {
    this.url = ofThisBuild(url); // the page's own build (build.js)
    this.onmessage = onmessage || (() => {});
    /** `why`: the event's message, or what a bare error means here. */
    this.onerror = onerror || (() => {});
    /** @type {Worker | null} */
    this.worker = null;
    this.loaded = false;
    this.retried = false;
    this.ended = false;
    /** @type {[unknown, Transferable[]][]} */
    this.waiting = []; // messages posted before it loaded, in order
    this.release = () => {}; // gives up its turn: once it has loaded, failed or been ended
    this.queue(0);
  }

  // Takes the next turn (after `delay`) to create the worker.
  queue(delay) {
    if (!takeTurns()) {
      setTimeout(() => {
        if (!this.ended) this.spawn();
      }, delay);
      return;
    }
    /** @type {(value?: void) => void} */
    let done = () => {};
    /** @type {Promise<void>} */
    const mine = new Promise((resolve) => {
      done = resolve;
    });
    const before = turn;
    turn = mine;
    before
      .then(() => new Promise((r) => setTimeout(r, delay)))
      .then(() => {
        if (this.ended) {
          done();
          return;
        }
        const timer = setTimeout(done, TURN_MS);
        this.release = () => {
          clearTimeout(timer);
          done();
        };
        this.spawn();
      });
  }

  spawn() {
    const w = new Worker(
      this.url,
      forTests() ? { type: 'module', name: TEST_WORKER_NAME } : { type: 'module' },
    );
    this.worker = w;
    w.onmessage = (ev) => {
      if (!this.loaded) {
        this.loaded = true; // its first message is the pong to the ping below
        this.release();
        for (const [m, transfer] of this.waiting.splice(0)) w.postMessage(m, transfer);
        if (ev.data?.type === 'pong') return;
      }
      this.onmessage(ev);
    };
    w.onerror = (e) => {
      e.preventDefault();
      if (!this.loaded) this.release();
      if (!this.loaded && !this.retried) {
        this.retried = true;
        w.terminate();
        this.queue(LOAD_RETRY_MS);
        return;
      }
      const message = e instanceof ErrorEvent ? e.message : '';
      this.onerror(
        e,
        message || (this.loaded ? 'an error without a message' : 'its scripts could not be loaded'),
      );
    };
    w.postMessage({ type: 'ping' });
  }

  /**
   * Posts `m` (with `transfer`) now if the worker has loaded, else once it has.
   * @param {unknown} m
   * @param {Transferable[]} [transfer]
   */
  postMessage(m, transfer = []) {
    if (this.ended) return;
    if (this.loaded && this.worker) this.worker.postMessage(m, transfer);
    else this.waiting.push([m, transfer]);
  }

  terminate() {
    this.ended = true;
    this.release();
    this.waiting = [];
    this.worker?.terminate();
  }

  // For the tests: a message as if the worker had sent it.
  /** @param {Event} ev */
  dispatchEvent(ev) {
    return this.worker ? this.worker.dispatchEvent(ev) : false;
  }
}
