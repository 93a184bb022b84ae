// The PLD curve the page shows and the lessons quote ({whole.pld}), and the σ panel's curves,
// are always those of the settings on screen: none while they have no preview (their data set
// loads, Rust refused them), and an answer for settings left since is dropped
// (www/lab/accounting.js PldPreview, SigmaPanel).
import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.self = globalThis; // wasm-choice.js, imported on the way, names the worker's global
const { PldPreview, SigmaPanel } = await import('../../www/lab/accounting.js');

// An accounting worker whose answers come when the test says.
function heldAccounting() {
  const asked = [];
  return { asked, ask: (type, request, then) => asked.push({ request, then }), cancel: () => {} };
}

test('a PLD curve is never one of the settings before', () => {
  const accounting = heldAccounting();
  const pld = new PldPreview(accounting);
  let drawn = 0;
  const redraw = () => (drawn += 1);
  pld.request({ sigma: 1 }, {}, 'mechanism σ = 1', redraw, assert.fail);
  accounting.asked[0].then({ result: [0.5, 0.9] });
  assert.deepEqual(pld.curve, [0.5, 0.9]);
  // σ moved; then the new settings lose their preview (another data set loads) before the
  // answer comes: no curve, and the late answer is not taken.
  pld.request({ sigma: 2 }, {}, 'mechanism σ = 2', redraw, assert.fail);
  assert.equal(pld.curve, null);
  pld.forget();
  accounting.asked[1].then({ result: [0.3, 0.6] });
  assert.equal(pld.curve, null);
  assert.equal(drawn, 1);
  // The same settings asked again are computed again, not skipped as already asked.
  pld.request({ sigma: 2 }, {}, 'mechanism σ = 2', redraw, assert.fail);
  assert.equal(accounting.asked.length, 3);
  accounting.asked[2].then({ result: [0.3, 0.6] });
  assert.deepEqual(pld.curve, [0.3, 0.6]);
});

test('a σ panel is never one of the settings before', () => {
  const accounting = heldAccounting();
  const panel = new SigmaPanel(accounting);
  const redraw = () => {};
  panel.request({ delta: 1e-5 }, {}, 2, 'mechanism adult', redraw, assert.fail);
  accounting.asked[0].then({ result: [{ epoch: 1 }] });
  assert.ok(panel.curve);
  // Another data set, not loaded yet: asked, then forgotten before the answer comes.
  panel.request({ delta: 1e-5 }, {}, 2, 'mechanism mnist', redraw, assert.fail);
  panel.forget();
  accounting.asked[1].then({ result: [{ epoch: 2 }] });
  assert.equal(panel.curve, null);
  assert.match(panel.message, /No σ panel/);
});
