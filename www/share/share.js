// @ts-check
// "Share with the class": the header's Copy link and QR code buttons. The page keeps its
// address up to date with the lesson and every setting (link.js), so sharing the address shares
// the lab as it is on the lecturer's screen. The QR code's modules come from Rust (qr_modules:
// level M, at most version 25, or a message saying why not); this file draws them, black on
// white with the standard's quiet zone, as large as the window allows: on a 1280 × 720
// projector, a code of version 25 still gets over 4 px a module.
import { qr_modules } from '../pkg/dpsgd_lab.js';
import { LINK_CHANGED } from '../lab/link.js';

const QUIET = 4; // light modules around the code (the QR standard's quiet zone)
const AROUND = 16; // CSS px kept free between the dialog and the window's edges
// This computer's own names: a code of such an address opens nothing on a phone.
export const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/;

const $ = (/** @type {string} */ id) => /** @type {any} */ (document.getElementById(id));

/** What the dialog shows now (its link and its room), so a repeated event does not redraw. */
let shown = '';

/** Wires the header's share buttons; the QR dialog redraws while open as the link changes. */
export function setUpShare() {
  $('copy-link').addEventListener('click', copyLink);
  $('show-qr').addEventListener('click', () => {
    shown = '';
    $('qr-dialog').showModal();
    drawQr();
  });
  // The fallback's box goes once it has been used (a click on Copy link brings it back).
  $('share-url').addEventListener('blur', () => {
    $('share-url').hidden = true;
  });
  $('qr-close').addEventListener('click', () => $('qr-dialog').close());
  // A click on the backdrop (outside the dialog's box) closes it too; Escape does natively.
  $('qr-dialog').addEventListener('click', (/** @type {MouseEvent} */ e) => {
    const box = $('qr-dialog').getBoundingClientRect();
    const inside =
      e.clientX >= box.left &&
      e.clientX <= box.right &&
      e.clientY >= box.top &&
      e.clientY <= box.bottom;
    if (e.target === $('qr-dialog') && !inside) $('qr-dialog').close();
  });
  for (const event of [LINK_CHANGED, 'hashchange', 'resize']) {
    window.addEventListener(event, () => {
      if ($('qr-dialog').open) drawQr();
    });
  }
}

/** The link to share: the address without predict-then-reveal, the room's screen's (#53 §9). */
function sharedUrl() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has('predict')) return location.href;
  params.delete('predict');
  return new URL(`#${params}`, location.href).href;
}

/** Copies the link; where the clipboard is refused, shows it selected in a read-only box. */
async function copyLink() {
  const url = sharedUrl();
  const box = $('share-url');
  try {
    await navigator.clipboard.writeText(url); // absent on a plain-http address other than localhost
    box.hidden = true;
    say('Link copied');
  } catch {
    box.value = url;
    box.hidden = false;
    box.focus();
    box.select();
    // The older command still copies a selection where the clipboard API is not offered.
    let copied = false;
    try {
      copied = document.execCommand('copy');
    } catch {
      /* not supported: select only */
    }
    say(
      copied
        ? 'Link copied'
        : 'The browser refused the clipboard: press Ctrl+C (⌘C on a Mac) to copy the selected link',
    );
  }
}

let quiet = 0;

/** Puts `text` in the share status line for a few seconds (again if it was there already). */
function say(/** @type {string} */ text) {
  clearTimeout(quiet);
  $('share-status').textContent = text;
  quiet = window.setTimeout(() => {
    $('share-status').textContent = '';
  }, 6000);
}

/** Draws the QR code of the link to share, or says why there is none. */
function drawQr() {
  const url = sharedUrl();
  const key = `${url} ${window.innerWidth}x${window.innerHeight} ${window.devicePixelRatio}`;
  if (key === shown) return;
  shown = key;
  $('qr-url').textContent = url;
  $('qr-local').hidden = !LOOPBACK.test(location.hostname);
  const canvas = $('qr-canvas');
  let qr;
  try {
    qr = qrOf(url);
  } catch (e) {
    const loading = e instanceof TypeError; // the wasm is not there yet
    if (loading) shown = ''; // draw once it is, at the next change
    canvas.hidden = true;
    $('qr-error').hidden = false;
    $('qr-error').textContent = loading
      ? 'The lab is still loading: try again in a moment.'
      : `No QR code: ${e.message}. Clear the pinned runs to shorten the link, or use Copy link.`;
    $('qr-dialog').style.width = '';
    return;
  }
  $('qr-error').hidden = true;
  canvas.hidden = false;
  const n = qr.size + 2 * QUIET;
  const side = roomFor(n);
  // Whole device pixels a module: crisp edges, no blur for a phone's camera to fight.
  const dpr = window.devicePixelRatio || 1;
  const px = Math.max(1, Math.floor((side * dpr) / n));
  paintQr(canvas, qr, px);
  canvas.style.width = canvas.style.height = `${(px * n) / dpr}px`;
}

/**
 * The QR code of `text` from Rust (qr_modules): {size (modules on a side), modules (row by row,
 * 1: dark), version}. Throws Rust's message when the text is too long for a code, and a
 * TypeError while the wasm is not loaded yet.
 * @param {string} text
 * @returns {{size: number, modules: Uint8Array, version: number}}
 */
export function qrOf(text) {
  const qr = qr_modules(text);
  const found = { size: qr.size, modules: qr.modules, version: qr.version };
  qr.free();
  return found;
}

/**
 * Paints `qr` (qrOf's answer) on `canvas`, black on white with the standard's quiet zone,
 * `px` canvas pixels a module; the canvas's CSS size is the caller's.
 * @param {HTMLCanvasElement} canvas
 * @param {{size: number, modules: Uint8Array, version: number}} qr
 * @param {number} px
 */
export function paintQr(canvas, qr, px) {
  const { size, modules } = qr;
  const n = size + 2 * QUIET;
  canvas.width = canvas.height = px * n;
  canvas.dataset.size = String(size);
  canvas.dataset.version = String(qr.version);
  const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#000';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      if (modules[y * size + x]) ctx.fillRect((x + QUIET) * px, (y + QUIET) * px, px, px);
    }
  }
}

/**
 * The side, in CSS px, of the largest square that fits the window with the dialog's heading,
 * the link's text and any note under it; the dialog is made that wide (at least wide enough
 * for its heading), so the text wraps under the code. Text that wraps onto more lines in a
 * narrower dialog leaves less room, so this measures again until the square fits.
 * @param {number} n modules on a side, the quiet zone included
 */
function roomFor(n) {
  const dialog = $('qr-dialog');
  const canvas = $('qr-canvas');
  const pad =
    dialog.offsetWidth - dialog.clientWidth + parseFloat(getComputedStyle(dialog).paddingLeft) * 2;
  const wide = window.innerWidth - 2 * AROUND - pad;
  const layout = (/** @type {number} */ side) => {
    dialog.style.width = `${Math.max(side, Math.min(wide, 280)) + pad}px`;
    canvas.style.width = canvas.style.height = `${side}px`;
  };
  let side = Math.max(n, wide);
  for (let i = 0; i < 5; i++) {
    layout(side);
    // The content's height (scrollHeight): the dialog's own is capped at the window's (style.css).
    const high = window.innerHeight - 2 * AROUND - (dialog.scrollHeight - side);
    const next = Math.max(n, Math.floor(Math.min(wide, high)));
    if (next >= side) break;
    side = next;
  }
  layout(side);
  return side;
}
