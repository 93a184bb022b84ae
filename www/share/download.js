// @ts-check
// A file for the student to keep: the page's exports (export.js, export-opacus.js) hand the
// browser a link to `href` named `name` and click it.

/**
 * Downloads `href` (a data: or blob: URL) as `name`.
 * @param {string} name
 * @param {string} href
 */
export function download(name, href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/**
 * Downloads `bytes` as `name`, of MIME `type`; the blob's URL is let go a second later.
 * @param {string} name
 * @param {BlobPart} bytes
 * @param {string} type
 */
export function downloadBytes(name, bytes, type) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  download(name, url);
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
