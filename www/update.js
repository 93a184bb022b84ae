// The offline copy (sw.js) and its updates, as the page sees them. It registers the service
// worker, which the browser checks for a new version of the lab at each visit (version.js, the
// lab's files and their hashes, checked past the HTTP cache: updateViaCache 'none'). A new
// version is installed whole in the background while this page, and every worker it starts,
// keep the version they began with; it is taken at the next visit once the lab's tabs are
// closed, or at once with the notice this module shows: "A new version of the lab is ready",
// and a button that reloads onto it (refused while other tabs of the lab are open: they would
// run on with files not theirs).
const $ = (id) => document.getElementById(id);

// Registers the service worker and offers its new versions; the lab works without it too.
export function setUpUpdates() {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('./sw.js', { updateViaCache: 'none' }).then(watch, () => {});
}

// Offers a version installed beside this page's: one waiting already, one installing (the
// browser checks at each visit, perhaps before this runs), or one found later. A first visit is
// not controlled (it came from the network): it has nothing to be behind.
function watch(registration) {
  if (!navigator.serviceWorker.controller) return;
  const follow = (worker) => worker?.addEventListener('statechange', () => {
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
    navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
    waiting.postMessage({ type: 'take-over' });
  };
}

// The waiting version's answer when other tabs of the lab are open.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.addEventListener('message', (ev) => {
    if (ev.data?.type !== 'other-tabs') return;
    const others = Math.max(1, (Number(ev.data.tabs) || 2) - 1);
    const tabs = others === 1 ? "the lab's other tab first (it runs" : `the lab's ${others} other tabs first (they run`;
    $('update-text').textContent = `A new version of the lab is ready: close ${tabs} this version), then press the button again.`;
  });
}
