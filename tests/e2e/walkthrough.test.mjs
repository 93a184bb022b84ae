// The lecturer's walk-through of docs/teaching.md, as a lecturer does it on a 1280×720
// projector: open the plain page, press Presenter view, pick a lesson from the menu, step
// through it with Next (each step's claims holding, the step before pinned on the charts),
// go Back, and show the QR code, which a phone reads as this very step's link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, openLab, setUp, tearDown } from './lab.mjs';
import { readQr } from './qr.mjs';

before(setUp);
after(tearDown);

// Waits until the step on screen has said all it will (its run done, every claim decided).
const settled = (page, step) =>
  page.waitForFunction(
    (n) => {
      const s = window.labTest.lessonState();
      return s && s.step === n && s.done && s.claims.every((c) => c !== null) && !/…/.test(s.text);
    },
    step,
    { timeout: 120_000 },
  );

test('a lecturer opens the page, picks a lesson, steps through it, shares it', async () => {
  const { page, problems } = await openLab('');
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.click('#presenter');
  assert.ok(
    await page.evaluate(() => document.body.classList.contains('presenter')),
    'presenter layout',
  );
  assert.match(page.url(), /big=1/, 'the presenter layout is in the link');
  assert.equal(await page.getAttribute('#presenter', 'aria-pressed'), 'true');

  await page.selectOption('#lesson-pick', 'clipping');
  await page.waitForFunction(() => /lesson=clipping&step=1/.test(location.hash));
  await settled(page, 1);
  assert.match(page.url(), /big=1/, 'still presenting');
  assert.equal(await page.textContent('#lesson-title'), 'What clipping does');
  assert.equal(await page.textContent('#lesson-count'), 'Step 1 of 3');
  assert.equal(await page.isDisabled('#lesson-back'), true);
  const first = await page.evaluate(() => window.labTest.lessonState());
  assert.deepEqual(first.claims, [true], first.text);

  for (const step of [2, 3]) {
    await page.click('#lesson-next');
    await settled(page, step);
    const state = await page.evaluate(() => window.labTest.lessonState());
    assert.ok(
      state.claims.every((c) => c === true),
      `step ${step}: ${state.text}`,
    );
    // The step before stays on the charts, pinned under its name (the run the class just saw).
    assert.match(await page.textContent('#pin-list'), step === 2 ? /C = 0\.1/ : /C = 1\b/);
    await page.screenshot({ path: path.join(ARTIFACTS, `walkthrough-step${step}.png`) });
  }
  assert.equal(await page.isDisabled('#lesson-next'), true, 'the last step');
  await page.click('#lesson-back');
  await settled(page, 2);
  assert.match(page.url(), /lesson=clipping&step=2/);

  await page.click('#show-qr');
  await page.waitForFunction(() => document.getElementById('qr-dialog').open);
  const qr = await readQr(page);
  assert.equal(qr.text, page.url(), 'the QR code opens this very step');
  await page.screenshot({ path: path.join(ARTIFACTS, 'walkthrough-qr.png') });
  await page.keyboard.press('Escape');
  assert.deepEqual(problems, []);
  await page.close();
});
