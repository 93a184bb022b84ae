// Predict, then reveal (#53 §9): with the presenter's Predict first on, a lesson step opens with
// its numbers and charts hidden — not drawn, not in the page's text, not in its accessibility
// tree — until Reveal or the clicker's next key, which shows what the runs computed meanwhile;
// the next press goes on, and the next step is hidden again. The link shared from that screen
// leaves `predict` out, and the toggle turns it off in place.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, setUp, tearDown } from './lab.mjs';

before(setUp);
after(tearDown);

const stepSaid = (page) =>
  page.waitForFunction(
    () => {
      const s = window.labTest.lessonState();
      return s && s.done && s.claims.every((c) => c !== null) && !/…/.test(s.text);
    },
    null,
    { timeout: 300_000 },
  );

// The step's own results in what it will say: its figures with a decimal point.
const figuresOf = (text) => [...new Set(text.match(/\d+\.\d+/g) ?? [])];

// What of the page a student could read: its text, its accessibility tree, its drawn charts.
const readable = (page) =>
  page.evaluate(() => ({
    text: document.body.innerText,
    charts: [...document.querySelectorAll('main canvas')]
      .filter((c) => c.getClientRects().length && getComputedStyle(c).visibility !== 'hidden')
      .map((c) => c.id),
  }));

test(
  "Predict first: a step's numbers and charts wait for Reveal; the clicker reveals, then goes " +
    'on',
  async () => {
    const { page, problems } = await openLab('#big=1&predict=1&lesson=noise&step=1');
    await page.setViewportSize({ width: 1280, height: 720 });
    await stepSaid(page);
    let state = await page.evaluate(() => window.labTest.lessonState());
    assert.equal(state.concealed, true);
    const figures = figuresOf(state.text);
    assert.ok(figures.length >= 2, `the step says its results: ${state.text}`);
    let seen = await readable(page);
    assert.deepEqual(
      figures.filter((f) => seen.text.includes(f)),
      [],
      "none of the step's figures in the page's text before Reveal",
    );
    assert.deepEqual(seen.charts, [], 'no chart drawn before Reveal');
    const tree = await page.locator('body').ariaSnapshot();
    assert.deepEqual(
      figures.filter((f) => tree.includes(f)),
      [],
      'none in the accessibility tree',
    );
    assert.match(await page.locator('#lesson-say').innerText(), /^Predict first/);
    assert.ok(await page.locator('#lesson-reveal').isVisible());
    assert.ok(await page.locator('#lesson-ask').isVisible(), 'the question is asked');

    // The clicker's next key reveals (the step stays), and the numbers are the run's.
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.labTest.lessonState()?.concealed === false);
    state = await page.evaluate(() => window.labTest.lessonState());
    assert.equal(state.step, 1);
    seen = await readable(page);
    for (const f of figuresOf(state.text))
      assert.ok(seen.text.includes(f), `${f} shown after Reveal`);
    const step = (await import('../../www/lessons/lessons.js')).LESSONS.get('noise').steps[0];
    for (const id of step.charts) assert.ok(seen.charts.includes(id), `#${id} drawn after Reveal`);
    assert.ok(!(await page.locator('#lesson-reveal').isVisible()));

    // A link shared from this screen leaves predict-then-reveal out.
    await page.click('#show-qr');
    const shared = await page.locator('#qr-url').textContent();
    assert.match(shared, /lesson=noise&step=1/);
    assert.doesNotMatch(shared, /predict/);
    assert.match(page.url(), /predict=1/, "the room's own address keeps it");
    await page.click('#qr-close');

    // The next press goes on: step 2 opens hidden again.
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.labTest.lessonState()?.step === 2);
    await stepSaid(page);
    state = await page.evaluate(() => window.labTest.lessonState());
    assert.equal(state.concealed, true);
    seen = await readable(page);
    assert.deepEqual(seen.charts, []);
    assert.deepEqual(
      figuresOf(state.text).filter((f) => seen.text.includes(f)),
      [],
    );

    // The toggle turns it off in place: everything is shown, and the address drops the key.
    await page.click('#predict');
    await page.waitForFunction(() => window.labTest.lessonState()?.concealed === false);
    assert.equal(await page.locator('#predict').getAttribute('aria-pressed'), 'false');
    assert.doesNotMatch(page.url(), /predict/);
    seen = await readable(page);
    state = await page.evaluate(() => window.labTest.lessonState());
    for (const f of figuresOf(state.text))
      assert.ok(seen.text.includes(f), `${f} shown once the toggle is off`);
    assert.deepEqual(problems, []);
    await page.close();
  },
);

test("outside the presenter layout a predict link hides nothing (a student's screen)", async () => {
  const { page, problems } = await openLab('#predict=1&lesson=noise&step=1');
  await page.setViewportSize({ width: 1366, height: 768 });
  await stepSaid(page);
  const state = await page.evaluate(() => window.labTest.lessonState());
  assert.equal(state.concealed, false);
  const seen = await readable(page);
  for (const f of figuresOf(state.text)) assert.ok(seen.text.includes(f), `${f} shown`);
  assert.ok(!(await page.locator('#predict').isVisible()), "the toggle is the presenter's");
  assert.deepEqual(problems, []);
  await page.close();
});
