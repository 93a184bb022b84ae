// @ts-check
// The page's start-up, watched (index.html loads this first). Seen under load in the
// end-to-end tests, about once in 150 loads of a page its service worker controls: Chromium
// stopped loading main.js's module graph part of the way down — main.js's own imports loaded,
// theirs were never asked for, nothing pending, no error, the service worker answering — and
// the page said "Loading the lab…" for ever. So: once no file of the page has finished loading
// for QUIET_MS and main.js has not started (its first mark, 'dpsgd:page-started'), the page
// reloads itself, once per tab; if it does not start then either, the status line says so.
// Progress, not time, decides: a slow first download keeps finishing files and is never
// interrupted. A classic script loaded `async` (the Content-Security-Policy allows no inline
// script): it runs whether or not the module graph loads.
(() => {
  const STARTED = 'dpsgd:page-started';
  const KEY = 'dpsgd-lab-reloaded-after-stall';
  // No file finished loading for this long, main.js not started: stalled (a test shortens it).
  const QUIET_MS = /** @type {any} */ (self).labTestStallMs ?? 20_000;
  let last = performance.now();
  new PerformanceObserver(() => {
    last = performance.now();
  }).observe({ type: 'resource', buffered: true });
  /** @param {(s: Storage) => any} f */
  const stored = (f) => {
    try {
      return f(sessionStorage);
    } catch {
      return undefined; // no storage (a private mode): never reload, say so instead
    }
  };
  const check = () => {
    if (performance.getEntriesByName(STARTED).length) {
      stored((s) => s.removeItem(KEY)); // started: a later stall in this tab may reload again
      return;
    }
    if (performance.now() - last < QUIET_MS) {
      setTimeout(check, 1000);
      return;
    }
    if (stored((s) => s.getItem(KEY)) === null) {
      stored((s) => s.setItem(KEY, '1'));
      location.reload();
      return;
    }
    const status = document.getElementById('status');
    if (status)
      status.textContent =
        "The lab's scripts did not start, after a reload too: reload the page again, or try " +
        'another browser.';
  };
  setTimeout(check, 1000);
})();
