// @ts-check
// The shell of the lab's four workers (worker.js, accounting-worker.js, audit-worker.js,
// gradient-worker.js): what every one of them does the same way (messages: protocol.js).
// - Start-up: it instantiates the lab's wasm from the module the page compiled and posts first
//   ({type: 'wasm', module}, wasm-module.js), instead of downloading and compiling it again;
//   messages that come before it wait. The module stays available to hand on (the training
//   worker gives it to its data-parallel helpers). When it cannot load, the worker posts
//   'init-error', and again for every message sent to it after.
// - The watchdog's 'ping' is answered with 'pong' at once, before the wasm has loaded too.
// - Every other message is checked (its type known, its fields there: protocol.js) and handed to
//   its type's handler, from a Map; a message that fails the check is answered with 'refused'
//   and never handled. With `serial`, one handler runs at a time, in the order the messages came.
// - A wasm trap (a Rust panic, or an allocation the browser refused) leaves the instance unusable:
//   the worker posts 'crashed' and closes, and the page decides what follows (a new worker, or a
//   sentence). Any other error a handler throws goes to the worker's own `failed`.

import { forTests } from '../core/module-worker.js';

/** @typedef {import('../core/protocol.js').FromShell} FromShell */
/**
 * A handler for each message type of `M`, given the message of that type.
 * @template {{type: string}} M
 * @typedef {{[K in M['type']]: (m: Extract<M, {type: K}>) => unknown}} Handlers
 */

/**
 * The tests' messages (protocol.js): obeyed only in a worker a test asked hooks for
 * (module-worker.js forTests); a production page's workers refuse them as messages of no known
 * type, their handlers left out of the table (#54 §1).
 */
const TEST_MESSAGES = ['test-panic', 'test-hang-helper', 'test-hang'];

/** @type {WebAssembly.Module | null} */
let module = null;
let dead = false; // a trap ended this worker: nothing more is posted

// The page's compiled module, once it came (null before).
export const sharedModule = () => module;

/**
 * Posts `m` to the page (or the worker that started this one), unless a trap ended this worker.
 * Each worker wraps it in a `send` typed by its messages.
 * @param {{type: string}} m
 * @param {Transferable[]} [transfer]
 */
export function post(m, transfer = []) {
  if (!dead) postMessage(m, transfer);
}

/** @param {FromShell} m */
const postShell = (m) => post(m);

/**
 * Whether `e` is a wasm trap; if so, the page hears 'crashed' and this worker ends.
 * @param {unknown} e
 */
export function trapped(e) {
  if (!(e instanceof WebAssembly.RuntimeError)) return false;
  if (!dead) {
    postShell({ type: 'crashed', message: e.message || String(e) });
    dead = true;
    close();
  }
  return true;
}

/**
 * Starts the worker: `init` is the wasm-bindgen glue's; `check` (protocol.js) gives a message or
 * why it is refused; `handlers` has one handler per message type; `failed(e, m)` reports an
 * error of `m`'s handler other than a trap; `arrive(m)` runs as a checked message arrives, before
 * it waits for the wasm or its turn; `ready()` runs once the wasm has loaded, before any handler.
 * @template {{type: string}} M
 * @param {{
 *   init: (options: {module_or_path: WebAssembly.Module}) => Promise<unknown>,
 *   check: (m: unknown) => M | string,
 *   handlers: Handlers<M>,
 *   failed: (e: unknown, m: M) => void,
 *   serial?: boolean,
 *   arrive?: (m: M) => void,
 *   ready?: () => void,
 * }} options
 */
export function startWorker({
  init,
  check,
  handlers,
  failed,
  serial = false,
  arrive,
  ready: onReady,
}) {
  /** @type {Map<string, (m: M) => unknown>} */
  const table = new Map(
    Object.entries(handlers).filter(([type]) => forTests() || !TEST_MESSAGES.includes(type)),
  );
  let broken = ''; // why the wasm could not load, once it could not
  /** @type {(loaded: boolean) => void} */
  let settle = () => {};
  /** @type {Promise<boolean>} */
  const loaded = new Promise((resolve) => {
    settle = resolve;
  });
  let queue = Promise.resolve();

  /** @param {string} why */
  const initFailed = (why) => {
    broken = `Loading the lab's WebAssembly failed: ${why}`;
    postShell({ type: 'init-error', message: broken });
    settle(false);
  };

  /** @param {{module?: unknown, error?: unknown}} m */
  const start = (m) => {
    if (m.module instanceof WebAssembly.Module) {
      module = m.module;
      init({ module_or_path: m.module }).then(
        () => {
          onReady?.();
          settle(true);
        },
        (e) => initFailed(String(e?.message || e)),
      );
    } else initFailed(`the page could not load it: ${String(m.error).slice(0, 200)}`);
  };

  /** @param {M} m */
  const run = async (m) => {
    try {
      if (await loaded) await table.get(m.type)?.(m);
      else postShell({ type: 'init-error', message: broken });
    } catch (e) {
      if (!trapped(e)) failed(e, m);
    }
  };

  let started = false;
  onmessage = (ev) => {
    const data = ev.data;
    const type = typeof data === 'object' && data !== null ? data.type : undefined;
    if (type === 'ping') {
      postShell({ type: 'pong' });
      return;
    }
    if (type === 'wasm' && !started) {
      started = true;
      start(data);
      return;
    }
    const m = check(data);
    if (typeof m === 'string' || !table.has(m.type)) {
      const id =
        typeof data === 'object' && data !== null && Number.isInteger(data.id) ? data.id : null;
      postShell({
        type: 'refused',
        message: typeof m === 'string' ? m : `no handler for '${m.type}'`,
        id,
      });
      return;
    }
    arrive?.(m);
    if (!serial) {
      run(m);
      return;
    }
    // The queue goes on after every message, whatever its handler did.
    queue = queue.then(() => run(m)).catch((e) => console.error('worker-shell:', e));
  };
}
