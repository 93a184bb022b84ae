// A tiny static file server for the end-to-end tests: serves www/ on 127.0.0.1 at a free
// port, with the MIME types the page needs (module scripts, wasm) and, like `make serve`
// (scripts/serve.py), the COOP/COEP headers that make the page cross-origin isolated; with
// `{ isolated: false }` without them, like a static host that cannot send headers; with
// `{ serviceWorker: false }` its sw.js is an empty one (the lab's adds the headers to what it
// serves, so pages after the first would be isolated: a page meant to use messages must not
// be; a missing sw.js would be a console error on every page). Its version.js (the lab's
// files and their hashes, which sw.js imports) is made afresh by scripts/version.py on each
// request, as `make serve` does, so a file edited since the last build is a new version rather
// than one that fails its hash; the snapshot v/ID/ (www/core/build.js) of the version.js served
// last is its files as they are now (an older one, the snapshot scripts/version.py wrote). With
// `{ revalidate: true }` every file is sent with `Cache-Control: max-age=0, must-revalidate`, as
// some hosts do. Records every request, and the bytes each response carried (`served`, for the
// load benchmark).
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROOT = path.join(REPO, 'www');
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.bin': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// The version of www/ as it is now (scripts/version.py): {id, text}.
function currentVersion() {
  const text = execFileSync('python3', [path.join(REPO, 'scripts/version.py'), '--print', ROOT]);
  return { id: /"id": "([0-9a-f]{16})"/.exec(String(text))[1], text };
}
let servedId = null; // the version of the version.js served last (a page's, and its workers')

export async function serveWww({ isolated = true, serviceWorker = true, revalidate = false } = {}) {
  const requests = [];
  const served = [];
  const server = http.createServer(async (req, res) => {
    requests.push(req.url);
    const url = new URL(req.url, 'http://localhost');
    let pathname = decodeURIComponent(url.pathname);
    const snapshot = /^\/v\/([0-9a-f]{16})\/(.+)$/.exec(pathname);
    if (snapshot && snapshot[1] === servedId) pathname = `/${snapshot[2]}`;
    let file = path.normalize(path.join(ROOT, pathname));
    if (!file.startsWith(ROOT)) {
      res.writeHead(403).end();
      return;
    }
    if (!serviceWorker && url.pathname === '/sw.js') {
      res
        .writeHead(200, { 'Content-Type': 'text/javascript' })
        .end('// no service worker on this host (serve.mjs)\n');
      return;
    }
    if (url.pathname === '/version.js') {
      const { id, text: body } = currentVersion();
      servedId = id;
      res
        .writeHead(200, {
          'Content-Type': 'text/javascript',
          'Content-Length': body.length,
          'Cache-Control': 'no-cache',
        })
        .end(body);
      return;
    }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    try {
      const body = await readFile(file);
      const type = TYPES[path.extname(file)] || 'application/octet-stream';
      const cache = revalidate ? { 'Cache-Control': 'max-age=0, must-revalidate' } : {};
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': body.length,
        ...cache,
        ...(isolated ? ISOLATION : {}),
      });
      served.push({ path: url.pathname, bytes: body.length });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  // Closing drops open keep-alive connections too: a browser left open by a failed test must
  // not keep the suite from ending.
  const close = () =>
    new Promise((r) => {
      server.close(r);
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${port}/`, requests, served, close };
}

// Python's plain http.server on a free port, serving the folder `dir` as a static host would
// (no COOP/COEP headers, no help from this file): resolves with { url, close } once it listens.
// Its log of every request (stderr) goes nowhere: piped and never read, it filled the pipe after
// a few hundred requests, and from then on every request hung in the server's logging — the
// page's workers started late in update.test never loaded (a test that failed one run in two).
export function servePlain(dir) {
  const python = spawn(
    'python3',
    ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', dir],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const close = async () => {
    python.kill();
  };
  return new Promise((resolve, reject) => {
    python.on('error', reject);
    python.stdout.on('data', (chunk) => {
      const m = /port (\d+)/.exec(String(chunk));
      if (m) resolve({ url: `http://127.0.0.1:${m[1]}/`, close });
    });
  });
}

// The folder `dir` served as it is stored (no version.js made, no snapshot mapped), each file
// with `headers` — `{'Cache-Control': 'max-age=0, must-revalidate'}`, as some hosts send: the
// browser asks again for every file it has cached, and gets the folder's newest.
export async function serveDir(dir, headers = {}) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let file = path.normalize(path.join(dir, decodeURIComponent(url.pathname)));
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
    try {
      const body = await readFile(file);
      res.writeHead(200, {
        'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream',
        'Content-Length': body.length,
        ...headers,
      });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise((r) => {
      server.close(r);
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${server.address().port}/`, close };
}
