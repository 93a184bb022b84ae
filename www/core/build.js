// @ts-check
// One build for a page's whole life (#52 §4). scripts/version.py writes each version of the lab
// with a snapshot of its worker-side files, v/ID/ (every script, the glue, both wasm builds),
// and the page reads its version's ID from version.js, loaded with the page. Every worker the
// page starts is started from that snapshot (`ofThisBuild`), so its scripts and its glue are the
// page's own even when the lab is rebuilt or redeployed under an open page — a first visit,
// which no service worker holds yet, included. (Before, a worker started after a redeploy
// fetched the new glue and got the page's old compiled module: "function import requires a
// callable".) A worker inside a snapshot starts its own workers beside it, and reads the data
// sets from the lab's folder (`labRoot`). Without a version.js (a folder served as it is, never
// built) workers start from the lab's folder as before.

const SNAPSHOT = /\/v\/[0-9a-f]{16}\/$/;
// The folder of the lab's scripts (this file is in its core/): the lab's folder, or a snapshot.
const HERE = new URL('../', import.meta.url);

/** The lab's folder: where index.html and data/ are, outside any snapshot. */
export const labRoot = SNAPSHOT.test(HERE.pathname) ? new URL('../../', HERE) : HERE;

/**
 * The URL of the worker script `url` of this page's build: its address in the version's snapshot.
 * A caller names its worker by `new URL('../workers/x.js', import.meta.url)`.
 * @param {URL} url
 */
export function ofThisBuild(url) {
  const resolved = new URL(url);
  const id = /** @type {any} */ (globalThis).labVersion?.id;
  if (SNAPSHOT.test(HERE.pathname) || typeof id !== 'string' || !/^[0-9a-f]{16}$/.test(id))
    return resolved;
  if (!resolved.href.startsWith(labRoot.href)) return resolved;
  return new URL(`v/${id}/${resolved.href.slice(labRoot.href.length)}`, labRoot);
}
