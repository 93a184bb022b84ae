// Accessibility (the classroom issue): axe-core 4 finds no violation of WCAG 2.1 A and AA nor of
// its best practices on the page as a student's laptop shows it (1366×768), as a projector shows
// the presenter layout (1280×720, with and without a lesson) and as a phone shows it (390×844),
// each once the first run has drawn its first epoch (the run log's headers and their "not
// private" badges are there), and with its warnings shown (run notes, an error message). A
// screenshot of each goes to test-artifacts/a11y-*.png. Then two things axe does not see: a
// checkbox apart from its words, a control's name run into its value.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ARTIFACTS, generationOf, openLab, setUp, tearDown, waitForRun } from './lab.mjs';

const AXE_SOURCE = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

before(setUp);
after(tearDown);

// axe into the page. Not with page.addScriptTag({ content }): that is an inline <script>, which
// the page's CSP (script-src 'self') refuses ("Executing inline script violates the following
// Content Security Policy directive"). Not with the context's bypassCSP either: that would
// switch the CSP off for the whole suite's context (launch() in browser.mjs), hiding what this
// test means to check, the page as it is served. page.evaluate runs the source through the
// DevTools protocol (Runtime.evaluate), which the CSP does not govern, in this page alone.
async function axeViolations(page) {
  await page.evaluate(await AXE_SOURCE);
  return page.evaluate(
    (tags) =>
      window.axe.run(document, { runOnly: { type: 'tag', values: tags } }).then((r) =>
        r.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary })),
        })),
      ),
    TAGS,
  );
}

const describe = (violations) =>
  violations
    .map((v) =>
      v.nodes
        .map((n) => `${v.id} (${v.impact}) at ${n.target}: ${n.summary.replace(/\s+/g, ' ')}`)
        .join('\n'),
    )
    .join('\n');

for (const [name, width, height, hash] of [
  ['laptop', 1366, 768, '#epochs=3'],
  ['presenter-clipping', 1280, 720, '#big=1&lesson=clipping&epochs=3'],
  ['presenter', 1280, 720, '#big=1&epochs=3'],
  ['presenter-predict', 1280, 720, '#big=1&predict=1&lesson=clipping&epochs=3'],
  ['phone', 390, 844, '#epochs=3'],
]) {
  test(`${name} ${width}×${height} (${hash}): no axe violation`, async () => {
    const { page, problems } = await openLab(hash);
    await page.setViewportSize({ width, height });
    await page.evaluate(() => window.dispatchEvent(new Event('resize')));
    await waitForRun(page, 0, 1);
    await page.waitForTimeout(300); // the resize's redraw
    await page.screenshot({ path: path.join(ARTIFACTS, `a11y-${name}.png`), fullPage: true });
    await assertNoViolation(page, `${name} ${width}×${height}`);
    if (width < 500) {
      // the run log is wider than a phone: the keyboard scrolls it sideways
      await page.locator('.table-scroll').focus();
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.querySelector('.table-scroll').scrollLeft > 0);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
}

// The reading page the header links to (how-it-works.html) as a phone, a projector and a large
// projector show it: no violation, nothing wider than the screen, type that grows with it (read
// from the back row); and the own-data panel, whose markup arrives when it is first opened.
test('the reading page at three sizes, the own-data panel open: no axe violation', async () => {
  const { page, problems, url } = await openLab('#epochs=1');
  await page.locator('#own-data summary').click();
  await page.locator('#data-file').waitFor({ state: 'attached' });
  await assertNoViolation(page, 'the own-data panel opened');
  await page.goto(`${url}how-it-works.html`);
  for (const [name, width, height] of [
    ['reading-phone', 390, 844],
    ['reading-projector', 1280, 720],
    ['reading-projector-large', 1920, 1080],
  ]) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: path.join(ARTIFACTS, `a11y-${name}.png`), fullPage: true });
    await assertNoViolation(page, `${name} ${width}×${height}`);
    const [scrollWidth, px] = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      parseFloat(getComputedStyle(document.body).fontSize),
    ]);
    assert.ok(scrollWidth <= width, `${name}: ${scrollWidth} px wide on a ${width} px screen`);
    assert.ok(
      px >= Math.max(16, 0.015 * width - 0.5),
      `${name}: ${px} px type on a ${width} px screen`,
    );
  }
  assert.deepEqual(problems, []);
  await page.close();
});

async function assertNoViolation(page, where) {
  const violations = await axeViolations(page);
  assert.deepEqual(
    violations.map((v) => v.id),
    [],
    `axe on ${where}:\n${describe(violations)}`,
  );
}

test('warnings in their colour: run notes, an error and its close, a confirmation', async () => {
  // The paper's amplification convention: the run's notes say it is not a valid bound.
  const { page } = await openLab('#amp=paper&epochs=3');
  await waitForRun(page, 0, 1);
  // A Rust panic: the message box says the training worker stopped, and a new one runs again.
  const g = await generationOf(page);
  await page.evaluate(() => window.labTest.panicTrainingWorker());
  await page.locator('#message').waitFor();
  await waitForRun(page, g, 1);
  await page.locator('#run-notes li').first().waitFor();
  // The look pins.js gives Compare when it asks to confirm (with a file of one's own loaded).
  await page.evaluate(() => document.getElementById('compare').classList.add('confirm'));
  // (axe skips the close button's lone "×", a symbol; it has the notes' colour, --warn-text.)
  await page.locator('main').screenshot({ path: path.join(ARTIFACTS, 'a11y-warnings.png') });
  await assertNoViolation(page, 'the warnings');
  await page.close();
});

test('the adaptive-clipping box by its first words; "Workers" apart from its value', async () => {
  const { page } = await openLab('#epochs=3');
  // Two workers asked (the default is what this machine runs at once: core-probe.js).
  await page.evaluate(() => {
    document.getElementById('workers').value = '2';
    document.getElementById('workers').dispatchEvent(new Event('change'));
  });
  // "(1 in use: …)"
  await page.waitForFunction(() => document.getElementById('workers-used').textContent.length > 12);
  for (const [width, height] of [
    [320, 640],
    [390, 844],
    [768, 1024],
    [1000, 800],
    [1366, 768],
  ]) {
    await page.setViewportSize({ width, height });
    const [box, words, name, value] = await page.evaluate(() => {
      // Where the first `n` characters of text node `node` (after its leading spaces) are.
      const first = (node, n) => {
        const range = document.createRange();
        const start = node.textContent.search(/\S/);
        range.setStart(node, start);
        range.setEnd(node, start + n);
        return range.getBoundingClientRect().toJSON();
      };
      const check = document.getElementById('adapt-on');
      const name = document.querySelector('label[for=workers]').firstChild;
      return [
        check.getBoundingClientRect().toJSON(),
        first(check.nextSibling, 5),
        first(name, 7),
        document.getElementById('workers-used').getBoundingClientRect().toJSON(),
      ];
    });
    assert.ok(
      words.left > box.right && words.top < box.bottom && words.bottom > box.top,
      `${width} px: "Adapt" at ${JSON.stringify(words)}, its checkbox at ${JSON.stringify(box)}`,
    );
    assert.ok(
      value.top >= name.bottom || value.left - name.right >= 4,
      `${width} px: "Workers" ends at ${name.right}, its value ` +
        `"${await page.locator('#workers-used').textContent()}" starts at ${value.left}`,
    );
  }
  await page.close();
});
