// End to end, "Print worksheet" (worksheet.js): for every lesson, the lesson panel's button
// fills the sheet and asks the browser to print; under print media the sheet alone is shown,
// with each step's question, the table to fill in and the lesson's QR code, which jsQR decodes
// to the printed link; Chromium's print to PDF (A4 and Letter) is one page; the
// printed link opens the lesson at step 1. Without the button, print shows the page as before
// (no sheet). A name that is not a lesson (a prototype key) fills nothing. One PDF per lesson
// and a picture of the clipping lesson's sheet go to test-artifacts/.
import { test as register, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { readQr } from './qr.mjs';
import { ARTIFACTS, openLab, registerShuffled, setUp, tearDown } from './lab.mjs';
import { LESSONS } from '../../www/lessons/lessons.js';

const cases = [];
const test = (name, fn) => cases.push([name, fn]);

// Its pages' main-thread tasks are not held to a CPU time: the sheet is filled once, on a click,
// and the file runs two at a time (scripts/test-e2e); the lab's own pages are, in page.test.mjs.
before(setUp);
after(tearDown);

// Counts window.print() calls instead of opening the print dialog.
const STUB_PRINT = () => {
  window.labPrints = 0;
  window.print = () => {
    window.labPrints += 1;
  };
};

/** The pages of a PDF from Chromium: its /Type /Page objects (not the /Pages tree). */
const pagesOf = (pdf) => pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;

const visible = (page, selector) =>
  page.locator(selector).evaluate((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
  });

for (const [name, lesson] of LESSONS) {
  test(`the ${name} lesson's worksheet prints its questions and QR code on one page`, async () => {
    const { page, problems, url } = await openLab(`#lesson=${name}&step=2`, STUB_PRINT);
    await page.emulateMedia({ media: 'print' });
    assert.equal(await visible(page, '#worksheet'), false, 'no sheet in print before the button');
    assert.equal(await visible(page, 'main'), true, 'the page prints as before without the button');
    await page.emulateMedia({ media: 'screen' });
    await page.click('#lesson-print');
    assert.equal(
      await page.evaluate(() => window.labPrints),
      1,
      'the button asks the browser to print',
    );
    assert.equal(await visible(page, '#worksheet'), false, 'the sheet is never on screen');

    await page.emulateMedia({ media: 'print' });
    assert.equal(await visible(page, '#worksheet'), true);
    for (const hidden of ['header', 'main', 'footer'])
      assert.equal(await visible(page, hidden), false, `${hidden} is not printed`);
    const text = await page.locator('#worksheet').innerText();
    assert.ok(text.includes(lesson.title), `the title: ${text}`);
    for (const step of lesson.steps)
      assert.ok(text.includes(step.ask), `the question "${step.ask}" in ${text}`);
    assert.doesNotMatch(text, /\{|\}/, 'no unfilled {name} of a sentence');
    assert.ok((await page.locator('#worksheet table td').count()) >= 3 * 3, 'a table to fill in');
    // The table asks for what the lesson's charts show: who pays, the gap between groups.
    const heads = await page.locator('#worksheet table th').allInnerTexts();
    if (lesson.steps.some((s) => s.charts.includes('groups-chart'))) {
      assert.deepEqual(heads, [
        'Settings',
        'Best − worst group (points, with its ±)',
        'Worst group',
      ]);
      assert.match(
        text,
        new RegExp(
          String.raw`mnist by class: non-private[^]*mnist by class: DP-SGD, σ = 2[^]*adult ` +
            String.raw`by race: non-private`,
        ),
      );
    } else {
      assert.deepEqual(heads.slice(0, 3), ['Settings', 'ε (at δ = ___)', 'Test accuracy']);
    }

    const link = await page.locator('#worksheet-link').textContent();
    assert.ok(link.startsWith(url), `${link} is this lab's`);
    assert.equal(new URL(link).hash, `#lesson=${name}&step=1`);
    assert.equal(await visible(page, '#worksheet-qr'), true, 'the QR code is printed');
    // Served on 127.0.0.1 here: the sheet says phones cannot open this computer's own address.
    assert.match(await page.locator('#worksheet .ws-local').textContent(), /phones cannot open/);
    const qr = await readQr(page, 'worksheet-qr');
    assert.equal(qr.text, link, 'the QR code decodes to the printed link');
    assert.ok(
      qr.cssWidth >= 100,
      `the code is large enough to scan from paper: ${qr.cssWidth} CSS px`,
    );

    if (name === 'clipping')
      await page.screenshot({ path: `${ARTIFACTS}/worksheet-${name}.png`, fullPage: true });
    for (const format of ['A4', 'Letter']) {
      // Printing ends the sheet's turn (afterprint): each print is the button's again.
      await page.emulateMedia({ media: 'screen' });
      await page.click('#lesson-print');
      await page.emulateMedia({ media: 'print' });
      const pdf = await page.pdf({ format, printBackground: true });
      assert.ok(pdf.subarray(0, 5).toString() === '%PDF-', 'a PDF');
      const pages = pagesOf(pdf);
      // One sheet: a second page held only the who-pays table, the rest of it empty (#53 §14).
      writeFileSync(`${ARTIFACTS}/worksheet-${name}-${format}.pdf`, pdf);
      assert.equal(pages, 1, `${name} on ${format}: ${pages} pages`);
      assert.equal(
        await visible(page, '#worksheet'),
        false,
        'after printing, a print is the page again',
      );
      assert.equal(await visible(page, 'main'), true);
    }
    await page.close();

    // The printed link opens the lesson at its first step.
    const opened = await openLab(new URL(link).hash);
    await opened.page.waitForFunction(() => window.labTest.lessonState() !== null);
    const state = await opened.page.evaluate(() => window.labTest.lessonState());
    assert.equal(state.lesson, name);
    assert.equal(state.step, 1);
    await opened.page.close();
    assert.deepEqual([...problems, ...opened.problems], []);
  });
}

test('a name that is not a lesson fills no worksheet', async () => {
  const { page, problems } = await openLab('', STUB_PRINT);
  const filled = await page.evaluate(async () => {
    const { fillWorksheet } = await import('./lessons/worksheet.js');
    return ['__proto__', 'constructor', 'toString', 'nope'].map((n) => fillWorksheet(n));
  });
  assert.deepEqual(filled, [false, false, false, false]);
  assert.equal(
    await page.evaluate(() => document.getElementById('worksheet').childElementCount),
    0,
  );
  assert.equal(
    await page.evaluate(() => document.body.classList.contains('print-worksheet')),
    false,
  );
  await page.close();
  assert.deepEqual(problems, []);
});

registerShuffled(register, cases);
