// The offline copy (sw.js) and its updates, as the page sees them. It registers the service
// worker, which the browser checks for a new version of the lab at each visit (version.js, the
// lab's files and their hashes, checked past the HTTP cache: updateViaCache 'none'). A new
// version is installed whole in the background while this page, and every worker it starts,
// keep the version they began with; it is taken at the next visit once the lab's tabs are
// closed, or at once with the notice this module shows: "A new version of the lab is ready",
// and a button that reloads onto it (refused while other tabs of the lab are open: they would
// run on with files not theirs).
const $ = (id) => document.getElementById(id);

// The latest the service worker is registered after the page's load event, when no run has
// shown an epoch by then (a lesson's link waits for Play; the wasm failed).
const LATEST_MS = 4000;

let register = () => {};
/** @type {Promise<void>} */
let storing = Promise.resolve();

// Registers the service worker and offers its new versions; the lab works without it too. Not
// at once: on a first visit, installing it (every file of the lab fetched again and hashed)
// took one of two cores for most of the load and put the first epoch 0.3 s later
// (docs/performance.md, "The first visit"). It is registered once the first epoch is on
// screen (firstEpochShown) or LATEST_MS after the load, whichever comes first. A controlled
// visit's update check does not wait for it: the browser makes it at navigation.
export function setUpUpdates() {
  if (!('serviceWorker' in navigator)) return;
  let done = false;
  register = () => {
    if (done) return;
    done = true;
    storing = navigator.serviceWorker.register('./sw.js', { updateViaCache: 'none' }).then(
      (registration) => {
        watch(registration);
        return installed(registration);
      },
      () => {},
    );
  };
  const later = () => setTimeout(register, LATEST_MS);
  if (document.readyState === 'complete') later();
  else window.addEventListener('load', later, { once: true });
}

/** A run's epoch is on screen: the offline copy may install now. */
export const firstEpochShown = () => register();

/** Settles once no version of the offline copy is being installed (stored, or failed). */
export const offlineCopyStored = () => storing;

// Settles once `registration` has no worker installing (its files fetched and hashed: a core's
// work for most of a second on a first visit).
function installed(registration) {
  const worker = registration.installing;
  if (!worker) return undefined;
  return new Promise((resolve) => {
    worker.addEventListener('statechange', () => {
      if (worker.state !== 'installing') resolve(undefined);
    });
  });
}

// Offers a version installed beside this page's: one waiting already, one installing (the
// browser checks at each visit, perhaps before this runs), or one found later. A first visit is
// not controlled (it came from the network): it has nothing to be behind.
function watch(registration) {
  if (!navigator.serviceWorker.controller) return;
  const follow = (worker) =>
    worker?.addEventListener('statechange', () => {
      if (worker.state === 'installed') offer(registration);
    });
  if (registration.waiting) offer(registration);
  follow(registration.installing);
  registration.addEventListener('updatefound', () => follow(registration.installing));
}

// Shows the notice; its button asks the waiting version to take over, and the page reloads
// onto it when it has.
function offer(registration) {
  $('update').hidden = false;
  $('update-reload').onclick = () => {
    const waiting = registration.waiting;
    if (!waiting) {
      location.reload(); // taken already (the lab's other tabs closed)
      return;
    }
    navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), {
      once: true,
    });
    waiting.postMessage({ type: 'take-over' });
  };
}

// The waiting version's answer when other tabs of the lab are open.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.addEventListener('message', (ev) => {
    if (ev.data?.type !== 'other-tabs') return;
    const others = Math.max(1, (Number(ev.data.tabs) || 2) - 1);
    const tabs =
      others === 1
        ? "the lab's other tab first (it runs"
        : `the lab's ${others} other tabs first (they run`;
    $('update-text').textContent =
      `A new version of the lab is ready: close ${tabs} this version), then press the button ` +
      `again.`;
  });
}
