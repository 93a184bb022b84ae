// Charts at every Text size (#53 §6), read from the drawing (Rust's chart_layout), not from
// CSS: in the presenter layout at 1280×720 and 1920×1080, each chart a busy lesson step points
// at has tick labels of at least 20 / 26 CSS px (#53 §6) that grow with the Text menu and a title
// no smaller than its labels; at Text: large and largest a plot of at least 40% of its canvas (a
// chart reflows — its x title onto the tick row, its legend beside the plot — and the presenter
// gives it the height its layout asks for), at Text: normal at least 90 px (lessons.test.mjs's
// bar, with the lesson's controls on the first screen). Lesson text: at least 24 / 32 px times
// the Text size — or, for a step too long for the screen, set smaller down to Text: normal's
// size, and every chart it points at whole on the screen, legend and all, each of its texts
// whole (none drawn cut with "…": lab.mjs's cut). Screenshots at
// Text: largest go to test-artifacts/ to be looked at.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, openLab, setUp, tearDown } from './lab.mjs';
import { LESSONS } from '../../www/lessons/lessons.js';

before(setUp);
after(tearDown);

const SCREENS = [
  [1280, 720, { tick: 20, lesson: 24 }],
  [1920, 1080, { tick: 26, lesson: 32 }],
];
const SIZES = ['1', '1.25', '1.5'];
// The page's run done (a busy machine may take a minute).
const runDone = (page) =>
  page.waitForFunction(() => /^Done/.test(document.getElementById('status').textContent), null, {
    timeout: 120_000,
  });
// An audit of 16 runs a side once the step's run is done: its charts drawn.
async function audited(page) {
  await runDone(page);
  await page.fill('#audit-runs', '16');
  await page.click('#audit-start');
  const summaries = () => document.querySelectorAll('#audit-summary li').length === 2;
  await page.waitForFunction(summaries, null, { timeout: 120_000 });
}
// Alice's runs with and without her, once the step's run is done: the lesson's claims known.
async function trainedWithAndWithout(page) {
  await runDone(page);
  await page.click('#alice-start');
}
// The steps with the most on their charts: a compared run and four legend entries, a wrapped
// histogram title, the moments lesson's two low charts, ten rows of groups, Adult's long race
// names beside four runs' legend (cut to "Amer-I… (311)" until the labels took the room the
// plot could spare, then shorter wordings), the audit's five
// bars (their names stood on one another at 1920 × 1080, Text: largest) under its controls, and
// Alice's histograms (six count labels on a 100 px plot at 1280 × 720, Text: largest).
const STEPS = [
  ['clipping', 2],
  ['noise', 2],
  ['moments', 2],
  ['who-pays', 1],
  ['who-pays', 3],
  ['audit', 2, audited],
  ['alice', 1, trainedWithAndWithout],
];

// Each chart's drawing in CSS px: its canvas height, plot height and fonts.
const drawn = (page, ids) =>
  page.evaluate(
    (list) =>
      list.map((id) => {
        const c = document.getElementById(id);
        const l = window.labTest.chartLayout(id);
        const k = c.width / c.clientWidth;
        return {
          id,
          canvas: c.clientHeight,
          plot: l?.plot ? l.plot.h / k : null,
          tick: l && l.fonts.tick / k,
          least: l?.least ? l.least / k : 0, // the height its layout asks for (a row chart's rows)
          title: l && l.fonts.title / k,
          cut: window.cut(id), // texts drawn cut with "…" (lab.mjs)
        };
      }),
    ids,
  );

for (const [name, number, prepare] of STEPS) {
  const step = LESSONS.get(name).steps[number - 1];
  test(`${name} step ${number}: charts readable at each Text size, both projectors`, async () => {
    const { page, problems } = await openLab(`#big=1&lesson=${name}&step=${number}`);
    await page.setViewportSize({ width: 1280, height: 720 });
    await prepare?.(page);
    await page.waitForFunction(
      () => {
        const s = window.labTest.lessonState();
        return s && s.done && s.claims.every((c) => c !== null);
      },
      null,
      { timeout: 300_000 },
    );
    const bad = [];
    for (const [width, height, least] of SCREENS) {
      await page.setViewportSize({ width, height });
      let smaller = null;
      for (const size of SIZES) {
        await page.selectOption('#text-size', size);
        // Refitted and redrawn at this size: every chart's ticks at the canvas's font-size,
        // drawn at the height it is shown at and, at a larger Text, given the height its
        // layout asks for (teacher.js minChart). (A chart drawn at a larger Text asks for more
        // height; the refit that gives it and the redraw come a few frames later: on a busy
        // machine, later than a fixed pause.)
        const settled = await page
          .waitForFunction(
            ([ids, larger]) =>
              ids.every((id) => {
                const c = document.getElementById(id);
                const l = window.labTest.chartLayout(id);
                const k = c.width / c.clientWidth;
                return (
                  l &&
                  l.plot &&
                  Math.abs(l.fonts.tick / k - parseFloat(getComputedStyle(c).fontSize)) < 0.1 &&
                  Math.abs(c.height / k - c.clientHeight) < 1.5 &&
                  !(larger && l.least / k > c.clientHeight + 1)
                );
              }),
            [step.charts, size !== '1'],
            { timeout: 20_000 },
          )
          .then(
            () => true,
            () => false,
          );
        const at = `${width}×${height} Text ${size}`;
        if (!settled) {
          // Say what the page showed instead of a bare timeout (CI once timed out here).
          const seen = await page.evaluate(
            (ids) =>
              ids.map((id) => {
                const c = document.getElementById(id);
                const l = window.labTest.chartLayout(id);
                const fit = document.body.style;
                return {
                  id,
                  canvas: [c.width, c.height, c.clientWidth, c.clientHeight],
                  font: getComputedStyle(c).fontSize,
                  tick: l?.fonts?.tick,
                  plot: l?.plot?.h,
                  least: l?.least,
                  max: fit.getPropertyValue('--chart-max-height'),
                  min: fit.getPropertyValue('--chart-min-height'),
                };
              }),
            step.charts,
          );
          bad.push(`${at}: the charts never settled: ${JSON.stringify(seen)}`);
          break;
        }
        await page.waitForTimeout(400); // a late refit (the lesson's fit) settles too
        // A step too long for the screen at a larger Text is set smaller (teacher.js), never
        // below Text: normal's size, so that its charts stay whole on the screen.
        const fit = await page.evaluate(() =>
          Number(document.body.style.getPropertyValue('--lesson-fit') || 1),
        );
        for (const part of ['#lesson-say', '.lesson-ask']) {
          // the question included
          const lesson = await page
            .locator(part)
            .evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
          const want = least.lesson * Math.max(1, Number(size) * fit);
          if (lesson < want - 0.5) bad.push(`${at}: ${part} ${lesson} px (fit ${fit})`);
        }
        // A checkbox the step uses grows with its words (the browser's own box stays 13 px:
        // the audit's "one-run audit too" was a speck beside 21 px words at 1280 × 720).
        const boxes = await page.evaluate(() =>
          [...document.querySelectorAll('.lesson-control input[type=checkbox]')]
            .filter((c) => c.getClientRects().length > 0)
            .map((c) => ({
              id: c.id,
              box: c.getBoundingClientRect().height,
              words: parseFloat(getComputedStyle(c.parentElement).fontSize),
            })),
        );
        for (const b of boxes)
          if (b.box < 0.75 * b.words)
            bad.push(`${at}: #${b.id} ${b.box} px by ${b.words} px words`);
        // Whole on the screen, legend and all (the noise chart's legend rows ran below a
        // 1280 × 720 screen at Text: largest until it took its short words there).
        const off = await page.evaluate(
          (ids) =>
            ids.filter(
              (id) => document.getElementById(id).getBoundingClientRect().bottom > innerHeight + 1,
            ),
          step.charts,
        );
        for (const id of off) bad.push(`${at}: #${id} runs off the screen (lesson fit ${fit})`);
        for (const c of await drawn(page, step.charts)) {
          if (c.tick < least.tick - 0.05)
            bad.push(`${at}: #${c.id} tick labels ${c.tick.toFixed(1)} px`);
          if (c.title < c.tick - 0.05)
            bad.push(`${at}: #${c.id} title ${c.title.toFixed(1)} px under its labels`);
          // At a larger Text the presenter gives a chart the height its layout asks for.
          if (size !== '1' && c.canvas < c.least - 1)
            bad.push(`${at}: #${c.id} ${c.canvas} px, its layout asks ${c.least.toFixed(0)}`);
          const plot = size === '1' ? 90 : 0.4 * c.canvas - 1;
          if (!(c.plot >= plot))
            bad.push(`${at}: #${c.id} plot ${c.plot?.toFixed(0)} of ${c.canvas} px`);
          // Every word whole: a label cut mid-word ("Amer-I… (311)", "train (outsi…") is
          // a word the room cannot read.
          if (c.cut.length) bad.push(`${at}: #${c.id} cut ${JSON.stringify(c.cut)}`);
          const before = smaller?.find((s) => s.id === c.id);
          // They grow with the Text, or, on a step set smaller to fit the screen (who-pays 3
          // at 1280 × 720: Text large and largest both 22 px), at least do not shrink.
          const held = fit < 1 && c.tick >= before?.tick - 0.05;
          if (before && !(c.tick > before.tick || held))
            bad.push(`${at}: #${c.id} labels did not grow (${before.tick} → ${c.tick})`);
        }
        smaller = await drawn(page, step.charts);
        if (size === '1.5')
          await page.screenshot({
            path: path.join(
              ARTIFACTS,
              `chart-text-${name}-${number}-${width}x${height}-largest.png`,
            ),
          });
      }
      await page.selectOption('#text-size', '1');
    }
    assert.deepEqual(bad, []);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

// A chart that says why it is blank (here: the teaching views at the private release level)
// wraps its sentence to the canvas: on a presenter's narrow chart at Text: largest it once ran
// past both edges ("ot released: … without nois").
test('a blank chart’s sentence stays inside its canvas at Text: largest', async () => {
  const { page, problems } = await openLab('#big=1&size=1.5&report=private&epochs=1');
  await page.setViewportSize({ width: 1280, height: 720 });
  await runDone(page);
  for (const id of ['noise-chart', 'clipping-chart']) {
    const { message, left, right, width } = await page.evaluate((cid) => {
      const c = document.getElementById(cid);
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let [lo, hi] = [c.width, -1];
      for (let i = 0; i < d.length; i += 4)
        if (d[i] < 200)
          [lo, hi] = [Math.min(lo, (i / 4) % c.width), Math.max(hi, (i / 4) % c.width)];
      return { message: c.dataset.message, left: lo, right: hi, width: c.width };
    }, id);
    assert.match(message ?? '', /^Not released/, id);
    assert.ok(
      left >= 4 && right <= width - 5 && right > left,
      `${id}: ink ${left}–${right} of ${width}`,
    );
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// Off the step at Text: largest: L dragged to N on the noise lesson's step 1 puts the most
// above its charts — the step's words at their least (its "Off the step" sentence), the run's
// verdict in the status (its hint in the step's words too) and a note on the lot (q = 1).
// Before, the charts' plots ended below a 1280 × 720 screen and the charts 125 px below a
// 1920 × 1080 one (the run's notes and the status kept their full size). Now the notes shrink
// with the step's words and, past their least, the charts' labels come down toward Text:
// normal's size (never below it). At 1280 × 720 the charts' legends may still reach below the
// screen there, their plots never (#53: the controls go below the first screen, not the plot).
test('off the step at Text: largest: the charts stay on the screen', async () => {
  const bad = [];
  for (const [width, height, least] of SCREENS) {
    const { page, problems } = await openLab('#big=1&size=1.5&lesson=noise&step=1');
    await page.setViewportSize({ width, height });
    await runDone(page);
    await page.evaluate(() => {
      const lot = document.getElementById('lot-size');
      lot.value = lot.max;
      lot.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await page.waitForFunction(
      () => {
        // The moved run done and the step's words about it (not the step's own run's Done).
        const s = window.labTest.lessonState();
        return (
          s?.done &&
          /^Off the step: L = \d+/.test(s.text) &&
          /q = 1/.test(document.getElementById('run-notes').textContent) &&
          /^Done/.test(document.getElementById('status').textContent)
        );
      },
      null,
      { timeout: 120_000 },
    );
    await page.waitForTimeout(1000); // the refits after the words and the notes changed
    const seen = await page.evaluate(() =>
      ['accuracy-chart', 'noise-chart'].map((id) => {
        const c = document.getElementById(id);
        const r = c.getBoundingClientRect();
        const l = window.labTest.chartLayout(id);
        const k = c.width / c.clientWidth;
        return {
          id,
          tick: l.fonts.tick / k,
          bottom: r.bottom,
          plot: r.top + (l.plot.y + l.plot.h) / k,
          inner: innerHeight,
          cut: window.cut(id),
        };
      }),
    );
    for (const s of seen) {
      const at = `${width}×${height}: #${s.id}`;
      if (s.plot > s.inner) bad.push(`${at} plot ends at ${s.plot.toFixed(0)} px`);
      if (s.tick < least.tick - 0.05) bad.push(`${at} tick labels ${s.tick.toFixed(1)} px`);
      if (width === 1920 && s.bottom > s.inner + 1)
        bad.push(`${at} ends at ${s.bottom.toFixed(0)} px, below the screen`);
      if (s.cut.length) bad.push(`${at} cut ${JSON.stringify(s.cut)}`);
    }
    await page.screenshot({
      path: path.join(ARTIFACTS, `chart-text-off-step-${width}x${height}-largest.png`),
    });
    assert.deepEqual(problems, []);
    await page.close();
  }
  assert.deepEqual(bad, []);
});

// Off the cost step at Text: normal, the charts as low as the presenter makes them (its words
// long, "Off the step: …"): Compare's four runs and this run's, the train curve and the
// majority line, seven names beside the accuracy chart, ran up over its title, and on the ε
// chart this run's names, its curves ending at epoch 1 of the pins' 10, were "…" beside the
// folded "10 epoch". Every name whole (the screenshots show where they stand).
test('off the cost step at Text: normal: every curve named whole, below the title', async () => {
  const bad = [];
  for (const [width, height] of SCREENS) {
    const { page, problems } = await openLab('#big=1&lesson=cost&step=2');
    await page.setViewportSize({ width, height });
    await runDone(page);
    for (const [id, end] of [
      ['#lot-size', 'max'],
      ['#epochs', 'min'],
      ['#sigma', 'max'],
    ])
      await page.evaluate(
        ([sel, e]) => {
          const el = document.querySelector(sel);
          el.value = el[e];
          el.dispatchEvent(new Event('input', { bubbles: true }));
        },
        [id, end],
      );
    await page.waitForFunction(
      () =>
        /^Off the step/.test(window.labTest.lessonState()?.text ?? '') &&
        /^Done: 1 epoch/.test(document.getElementById('status').textContent),
      null,
      { timeout: 120_000 },
    );
    await page.waitForTimeout(1000); // the refits after the words changed
    for (const id of ['accuracy-chart', 'epsilon-chart']) {
      const cut = await page.evaluate((c) => window.cut(c), id);
      if (cut.length) bad.push(`${width}×${height}: #${id} cut ${JSON.stringify(cut)}`);
    }
    await page.screenshot({
      path: path.join(ARTIFACTS, `chart-text-cost-off-step-${width}x${height}.png`),
    });
    assert.deepEqual(problems, []);
    await page.close();
  }
  assert.deepEqual(bad, []);
});
