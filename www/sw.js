// Offline support: the first visit stores the page, the wasm and the default and small data
// sets (installed, not left to the HTTP cache); a data set fetched later (MNIST) is stored when
// first used; Fashion-MNIST (31 MB) is not stored. Everything is served from the cache and refreshed in the background when the
// network is there (stale-while-revalidate). Only this origin's GET requests are handled.
//
// The page and the worker scripts it serves carry the COOP/COEP headers of `make serve`:
// on a static host that cannot send them, the page is cross-origin isolated from its second
// visit (the first is not yet controlled), and the data-parallel helpers use shared memory
// instead of messages (shared-channel.js). The lab loads nothing from another origin, so
// `require-corp` blocks nothing; the page never reloads itself to get there.
importScripts('wasm-choice.js'); // self.labWasmFile: the build this browser runs

const CACHE = 'dpsgd-lab-v27';
const SHELL = ['./', 'index.html', 'style.css', 'main.js', 'settings.js', 'protocol.js', 'runlog.js', 'coverage.js', 'file-ledger.js', 'messages.js', 'pins.js', 'export.js', 'accounting.js', 'drawing.js', 'own-data.js', 'lot-size.js', 'teacher.js', 'lessons.js', 'lesson-facts.js', 'lesson-player.js', 'previews.js', 'worker.js', 'accounting-worker.js', 'audit.js', 'audit-worker.js', 'data-loader.js', 'kept-worker.js', 'calibrate.js', 'status-text.js', 'test-hooks.js', 'link.js', 'share.js', 'charts.js', 'wasm-module.js', 'worker-shell.js', 'audit-workers.js', 'cores.js', 'core-probe.js', 'core-probe-worker.js', 'module-worker.js', 'gradient-pool.js', 'gradient-worker.js', 'shared-channel.js', 'wasm-choice.js', 'pkg/dpsgd_lab.js', self.labWasmFile,
  'data/adult.bin', 'data/breast_cancer.csv'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.includes('/data/fashion-mnist-')) return; // 31 MB: not stored for offline use
  event.respondWith(caches.open(CACHE).then(async (cache) => {
    const key = url.pathname === '/' ? './' : event.request;
    const cached = await cache.match(key, { ignoreSearch: true });
    const fresh = fetch(event.request)
      .then((res) => {
        if (res.ok) cache.put(key, res.clone());
        return res;
      })
      .catch(() => cached);
    const res = cached || await fresh;
    // Documents and workers carry the isolation; scripts, wasm and data need no header, and
    // are left as the cache gave them (a rebuilt response loses the browser's code cache).
    const isolates = event.request.mode === 'navigate' || event.request.destination === 'worker';
    return isolates ? isolated(res) : res;
  }));
});

const ISOLATION = [['Cross-Origin-Opener-Policy', 'same-origin'], ['Cross-Origin-Embedder-Policy', 'require-corp']];

// `res` with the isolation headers (a copy: a fetched or cached response's headers are
// immutable). Only this origin's ordinary responses without them; anything else (none,
// opaque, already sent with COEP as by `make serve`) as it is.
function isolated(res) {
  if (!res || res.type !== 'basic' || res.headers.has('Cross-Origin-Embedder-Policy')) return res;
  const headers = new Headers(res.headers);
  for (const [name, value] of ISOLATION) headers.set(name, value);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
