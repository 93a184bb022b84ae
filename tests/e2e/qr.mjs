// Reads the page's QR code back (share.js draws it on #qr-canvas) with jsQR, as a phone would.
import assert from 'node:assert/strict';
import jsQR from 'jsqr';

// The QR canvas as the page drew it, read back and decoded by jsQR: { text (null if jsQR found
// no code), size (modules on a side), version, cssWidth, box (the canvas's rectangle) }.
// `id`: the canvas (the share dialog's by default; lessons/worksheet.js draws #worksheet-qr).
export async function readQr(page, id = 'qr-canvas') {
  const drawn = await page.evaluate((canvasId) => {
    const c = document.getElementById(canvasId);
    const bytes = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    const r = c.getBoundingClientRect();
    return {
      width: c.width,
      height: c.height,
      pixels: btoa(binary),
      size: Number(c.dataset.size),
      version: Number(c.dataset.version),
      cssWidth: r.width,
      cssHeight: r.height,
      box: { top: r.top, bottom: r.bottom, left: r.left, right: r.right },
    };
  }, id);
  const data = new Uint8ClampedArray(Buffer.from(drawn.pixels, 'base64'));
  assert.equal(data.length, drawn.width * drawn.height * 4);
  assert.equal(drawn.cssWidth, drawn.cssHeight, 'a square on screen');
  assert.equal(drawn.width, drawn.height);
  const code = jsQR(data, drawn.width, drawn.height);
  return { ...drawn, text: code ? code.data : null };
}
