// Drawing helpers of the page: canvas sizing, a message in place of a chart, and the queue
// that draws the charts one per task so the main thread is never held for long.
import { presenting } from '../core/presenting.js';

// Fits a canvas's pixels to its displayed size (its shape is the stylesheet's: 25:16, square
// in a narrow figure, lower in the presenter layout) and returns the charts' scale (their tick
// labels are 13 px × scale, in canvas pixels). In the presenter layout the stylesheet gives the
// tick labels' size as the canvas's font-size — the room's type, grown with the Text menu,
// whatever the chart's height. Elsewhere: the device pixel ratio times the growth beyond the
// 640 × 410 px the charts are designed for, so text and lines grow with the chart.
export function sizeCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const cssW = canvas.clientWidth || 560;
  const cssH = canvas.clientHeight || Math.round(cssW * 0.64);
  const w = Math.round(cssW * dpr);
  const h = Math.round(cssH * dpr);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  const tick = presenting() ? parseFloat(getComputedStyle(canvas).fontSize) : NaN;
  return (
    dpr *
    (Number.isFinite(tick) && tick > 0 ? tick / 13 : Math.max(1, Math.min(cssW / 640, cssH / 410)))
  );
}

// A message on a chart's canvas in place of the chart (while computing, or why there is none).
export function drawCanvasMessage(canvas, text) {
  canvas.dataset.message = text; // what it says, for the tests (a chart drawn after clears it)
  const scale = sizeCanvas(canvas);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = '#555';
  const size = Math.round(16 * scale);
  ctx.font = `${size}px sans-serif`;
  ctx.textAlign = 'center';
  // Its words wrapped to the canvas's width: on a presenter's narrow chart or at a larger text
  // size a sentence never runs past the edges.
  const room = canvas.width - 2 * Math.round(12 * scale);
  const lines = [];
  for (const word of text.split(' ')) {
    const longer = lines.length ? `${lines.at(-1)} ${word}` : word;
    if (lines.length && ctx.measureText(longer).width <= room) lines[lines.length - 1] = longer;
    else lines.push(word);
  }
  const step = Math.round(size * 1.3);
  const first = canvas.height / 2 - ((lines.length - 1) * step) / 2;
  lines.forEach((line, i) => ctx.fillText(line, canvas.width / 2, first + i * step));
}

// Draws `draws` (functions, one per chart) each in a task of its own (a few milliseconds each).
// A redraw asked for while one is under way marks every chart again and carries on round robin
// from where it was, so fast reports can neither stack work up nor starve the later charts.
// `onIdle` runs whenever every chart is up to date.
export class ChartQueue {
  constructor(draws, onError, onIdle) {
    this.draws = draws;
    this.onError = onError;
    this.onIdle = onIdle;
    this.dirty = new Set();
    this.next = 0;
    this.busy = false;
  }

  drawAll() {
    this.draws.forEach((_, i) => this.dirty.add(i));
    if (!this.busy) {
      this.busy = true;
      setTimeout(() => this.drawNext(), 0);
    }
  }

  drawNext() {
    let i = this.next;
    while (!this.dirty.has(i)) i = (i + 1) % this.draws.length;
    this.dirty.delete(i);
    this.next = (i + 1) % this.draws.length;
    try {
      this.draws[i]();
    } catch (e) {
      this.onError(e);
    }
    if (this.dirty.size) {
      setTimeout(() => this.drawNext(), 0);
    } else {
      this.busy = false;
      this.onIdle();
    }
  }
}
