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

// The target's upper end is Rust's (the config's budget range): a link's budget = 500 trains,
// and its σ panel is asked for, not refused by a page-side (0, 100]. No number: nothing asked.
test('a σ panel asks for any target above 0, and for no empty box', () => {
  const accounting = heldAccounting();
  const panel = new SigmaPanel(accounting);
  panel.request({ delta: 1e-5 }, {}, 500, 'mechanism adult', () => {}, assert.fail);
  assert.deepEqual(
    accounting.asked.map((a) => a.request.target),
    [500],
  );
  const said = [];
  panel.request(
    { delta: 1e-5 },
    {},
    '',
    'mechanism adult',
    () => {},
    (m) => said.push(m),
  );
  assert.equal(accounting.asked.length, 1);
  assert.deepEqual(said, ["Target ε must be a number above 0; got ''."]);
  assert.match(panel.message, /Set a target ε above 0/);
});

// While a run starts, the previews' questions wait (www/lab/start-hold.js): the captions say
// "Computing…" at once, only the last question of each kind goes out when the hold ends, a
// preview forgotten meanwhile asks nothing, and the hold ends by itself.
test('a starting run holds the previews’ questions, and lets the last of each out', async () => {
  const { StartHold } = await import('../../www/lab/start-hold.js');
  const hold = new StartHold(60_000);
  const accounting = heldAccounting();
  const pld = new PldPreview(accounting, hold);
  const panel = new SigmaPanel(accounting, hold);
  hold.start();
  pld.request({ sigma: 1 }, {}, 'mechanism σ = 1', () => {}, assert.fail);
  pld.request({ sigma: 2 }, {}, 'mechanism σ = 2', () => {}, assert.fail);
  panel.request({ sigma: 2, delta: 1e-5 }, {}, 3, 'panel σ = 2', () => {}, assert.fail);
  assert.equal(accounting.asked.length, 0);
  assert.equal(pld.curve, null);
  assert.equal(panel.message, 'Computing the σ each accountant needs…');
  panel.forget(); // its settings lost their preview while held: nothing asked for them
  hold.end();
  assert.deepEqual(
    accounting.asked.map((a) => a.request.config.sigma),
    [2],
  );
  accounting.asked[0].then({ result: [0.4] });
  assert.deepEqual(pld.curve, [0.4]);
  // Not held: asked at once.
  pld.request({ sigma: 3 }, {}, 'mechanism σ = 3', () => {}, assert.fail);
  assert.equal(accounting.asked.length, 2);
  // A hold ends by itself after its longest wait.
  const brief = new StartHold(20);
  let asked = 0;
  brief.start();
  brief.run('pld-curve', () => (asked += 1));
  assert.equal(asked, 0);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(asked, 1);
  brief.run('pld-curve', () => (asked += 1));
  assert.equal(asked, 2);
});
