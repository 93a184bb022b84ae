// End to end, a step's QR code with pinned runs: "a student scans the QR of a step with a pinned
// run". Compare's four pins on a lesson step at the lecturer's settings made a link of 3,300
// characters, past any QR code; each pin now carries what it changes from the link's own run
// (link.js), and the code decodes to a page that pins the same four runs. Not with share.test.mjs,
// whose pages' main-thread tasks are timed: Compare's charts of four pins are not what it holds
// to a time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readQr } from './qr.mjs';
import {
  generationOf,
  linkedPinLabels,
  openLab,
  setRange,
  setUp,
  tearDown,
  waitForRun,
} from './lab.mjs';

before(setUp);
after(tearDown);

test("Compare's four pins fit the step's QR code, and its page pins the same runs", async () => {
  const hash = '#v=1&lesson=clipping&big=1&epochs=2&dataset=blobs&model=logistic&sigma=3&clip=0.5';
  const { page, problems } = await openLab(hash);
  await waitForRun(page, 0, 2, { done: true });
  await page.click('#compare');
  const fourPins = () => document.querySelectorAll('#pin-list li').length >= 4;
  await page.waitForFunction(fourPins, null, { timeout: 120_000 });
  await page.waitForFunction(() => /pins=/.test(location.hash));
  await page.click('#show-qr');
  await page.waitForFunction(() => document.getElementById('qr-dialog').open);
  const qr = await readQr(page);
  assert.equal(qr.text, page.url(), 'the code is the address, exactly');
  console.log(`Compare's pins: version ${qr.version}, link ${qr.text.length} characters`);
  const pinned = await page.evaluate(() => window.labTest.pinnedConfigs());
  const other = await openLab(new URL(qr.text).hash);
  await other.page.waitForFunction(fourPins, null, { timeout: 120_000 });
  const reopened = await other.page.evaluate(() => window.labTest.pinnedConfigs());
  assert.deepEqual(reopened.slice(-4), pinned.slice(-4));
  assert.deepEqual(other.problems, []);
  await other.page.close();
  assert.deepEqual(problems, []);
  await page.close();
});

// Two pins alike in σ, C and L but not in what their ε is of had one name ("σ=1 C=1 L=256"
// twice) and two ε curves: a pin's name now says what sets it apart (Rust's pin_label), and a
// link carries the name.
test('a pin is named by what sets it apart from the pins beside it', async () => {
  const { page, problems } = await openLab('#v=1&epochs=2&dataset=blobs&model=logistic');
  await waitForRun(page, 0, 2, { done: true });
  await page.click('#pin');
  const g = await generationOf(page);
  await setRange(page, '#epochs', '4');
  await setRange(page, '#delta', '-7');
  await waitForRun(page, g, 4, { done: true });
  await page.click('#pin');
  const names = ['σ=1 C=1 L=256', 'σ=1 C=1 L=256, epochs=4, δ=1e-7'];
  assert.deepEqual(await page.locator('#pin-list li').allTextContents(), names);
  await page.waitForFunction(() => /pins=/.test(location.hash));
  assert.deepEqual(linkedPinLabels(page), names);
  assert.deepEqual(problems, []);
  await page.close();
});
