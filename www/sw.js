// The offline copy, one version of the lab at a time. version.js (scripts/version.py, written
// with the wasm and by `make dist`; `make serve` makes it on each request) lists every file of
// the lab with its SHA-256, and names the version. Any change of any file changes version.js,
// which the browser's byte-for-byte check of this worker and what it imports sees: the new
// version is installed whole, in the background, into a cache of its own, each file checked
// against its hash (one the HTTP cache kept from before is fetched again; a server caught
// between two versions fails the install, which a later visit tries again). It is taken only when
// no page of the old version is open (the next visit once the lab's tabs are closed), or when the
// page's notice is pressed in the lab's only tab (update.js): never skipWaiting or claim under a
// running page. So a page and every worker it starts run one version's files for the page's whole
// life: never an old compiled module with a new glue, never files refreshed one by one.
//
// Stored at install: the page, its scripts, this browser's wasm build and the default and small
// data sets. A data set fetched later (MNIST) is stored when first used, and kept into the next
// version while its bytes are the same; Fashion-MNIST (31 MB) is not stored (not in version.js).
// Only this origin's GET requests for the files of version.js are answered here.
//
// The page and the worker scripts it serves carry the COOP/COEP headers of `make serve`:
// on a static host that cannot send them, the page is cross-origin isolated from its second
// visit (the first is not yet controlled), and the data-parallel helpers use shared memory
// instead of messages (shared-channel.js). The lab loads nothing from another origin, so
// `require-corp` blocks nothing; the page never reloads itself to get there.
importScripts('core/wasm-choice.js', 'version.js'); // self.labWasmFile; self.labVersion {id, files}

const CACHE = `dpsgd-lab-${self.labVersion.id}`;
/** @type {Map<string, string>} the lab's path of each file → its SHA-256 in hex */
const FILES = new Map(Object.entries(self.labVersion.files));
const ROOT = new URL('./', self.location.href); // the lab's folder: every path is relative to it
// the default and the small one
const DATA_AT_INSTALL = ['data/adult.bin', 'data/breast_cancer.csv'];

// Whether the file at `path` is stored at install (else when first used, if ever).
function atInstall(path) {
  if (path === 'sw.js') return false; // the browser keeps this worker's own scripts
  if (path.startsWith('data/')) return DATA_AT_INSTALL.includes(path);
  return !path.endsWith('.wasm') || path === self.labWasmFile; // not the other wasm build
}

const urlOf = (path) => new URL(path, ROOT).href;

// Whether the bytes of `res` have the SHA-256 `hash` (hex).
async function holds(res, hash) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await res.arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') === hash;
}

// The file at `path` with the SHA-256 `hash`: as the HTTP cache has it (a first visit has just
// downloaded it), else fetched past that cache (a copy from an earlier version).
async function fetchChecked(path, hash) {
  for (const cache of ['default', 'reload']) {
    const res = await fetch(urlOf(path), { cache });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    if (await holds(res.clone(), hash)) return res;
  }
  throw new Error(`${path} is not the file version.js lists (the server is between two versions)`);
}

// The whole version into its own cache: every file stored at install, each checked against its
// hash; the data sets an earlier version stored when first used, if unchanged.
async function install() {
  const cache = await caches.open(CACHE);
  const earlier = (await caches.keys()).filter((k) => k !== CACHE && k.startsWith('dpsgd-lab-'));
  try {
    await Promise.all(
      [...FILES].map(async ([path, hash]) => {
        if (path === 'sw.js') return;
        const url = urlOf(path);
        if (atInstall(path)) {
          await cache.put(url, await fetchChecked(path, hash));
          return;
        }
        for (const name of earlier) {
          const kept = await (await caches.open(name)).match(url);
          if (kept && (await holds(kept.clone(), hash))) {
            await cache.put(url, kept);
            return;
          }
        }
      }),
    );
  } catch (e) {
    await caches.delete(CACHE); // no half version: a later visit installs it again
    throw e;
  }
}

self.addEventListener('install', (event) => event.waitUntil(install()));

// Taken over: the other versions' caches go (no page of theirs is open any more).
self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)))),
  );
});

// The page's notice, pressed (update.js): this waiting version is taken at once when the
// page that asks is the lab's only tab, which then reloads; with other tabs of the lab open it
// is not (they would run on with a version not theirs), and the page is told how many.
self.addEventListener('message', (event) => {
  if (event.data?.type !== 'take-over') return;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((all) => {
      const tabs = all.filter((c) => c.url.startsWith(ROOT.href)).length;
      if (tabs > 1) event.source?.postMessage({ type: 'other-tabs', tabs });
      else return self.skipWaiting();
      return undefined;
    }),
  );
});

// This version's snapshot (scripts/version.py, build.js): the page starts its workers from
// v/ID/, whose files are this version's own.
const SNAPSHOT = `v/${self.labVersion.id}/`;

// The lab's path of `url` ('index.html' for its folder; a file of this version's snapshot is
// that file), or null when it is not a file of this version (another origin, Fashion-MNIST,
// another version's snapshot, anything else: left to the network).
function pathOf(url) {
  const u = new URL(url);
  if (u.origin !== ROOT.origin || !u.pathname.startsWith(ROOT.pathname)) return null;
  let path;
  try {
    path = decodeURIComponent(u.pathname.slice(ROOT.pathname.length)) || 'index.html';
  } catch {
    return null;
  }
  if (path.startsWith(SNAPSHOT)) path = path.slice(SNAPSHOT.length);
  return FILES.has(path) && path !== 'sw.js' ? path : null;
}

self.addEventListener('fetch', (event) => {
  if (event.request.method !== 'GET') return;
  if (event.request.url === urlOf(VERSION_JS)) {
    event.respondWith(ownVersion());
    return;
  }
  const path = pathOf(event.request.url);
  if (path !== null) event.respondWith(answer(event, path));
});

// The page's version.js (build.js reads its ID) is this version's, the one this worker
// imported: never a newer one from the server, whose snapshot would not match this version's
// page and compiled module.
const VERSION_JS = 'version.js';
function ownVersion() {
  const body = `self.labVersion = ${JSON.stringify(self.labVersion)};\n`;
  return new Response(body, { headers: { 'Content-Type': 'text/javascript' } });
}

// The file at `path` from this version's cache; one not stored yet (a data set's first use)
// from the network, stored once its bytes are checked (else passed on, not stored).
async function answer(event, path) {
  const cache = await caches.open(CACHE);
  const url = urlOf(path);
  let res = await cache.match(url);
  if (!res) {
    res = await fetch(url);
    const copy = res.clone();
    if (res.ok)
      event.waitUntil(
        holds(copy.clone(), FILES.get(path)).then((same) =>
          same ? cache.put(url, copy) : undefined,
        ),
      );
  }
  // Documents and workers carry the isolation; scripts, wasm and data need no header, and
  // are left as the cache gave them (a rebuilt response loses the browser's code cache).
  const isolates = event.request.mode === 'navigate' || event.request.destination === 'worker';
  return isolates ? isolated(res) : res;
}

const ISOLATION = [
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Embedder-Policy', 'require-corp'],
];

// `res` with the isolation headers (a copy: a fetched or cached response's headers are
// immutable). Only this origin's ordinary responses without them; anything else (none,
// opaque, already sent with COEP as by `make serve`) as it is.
function isolated(res) {
  if (!res || res.type !== 'basic' || res.headers.has('Cross-Origin-Embedder-Policy')) return res;
  const headers = new Headers(res.headers);
  for (const [name, value] of ISOLATION) headers.set(name, value);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
