// The classroom's screens (#13): a projector at 1280×720 and 1920×1080 in the presenter
// layout, and a phone and a tablet. Checked with element boxes and each chart's layout as drawn
// (labTest.chartLayout: plot and fonts); a screenshot of each goes to test-artifacts/ to be
// looked at. And Compare on the projector: the four runs apart, the cost of privacy written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, generationOf, openLab, setRange, setUp, tearDown, waitForRun } from './lab.mjs';

let context;
before(async () => {
  ({ context } = await setUp());
});
after(tearDown);

const boxes = (page, ids) =>
  page.evaluate(
    (list) =>
      Object.fromEntries(
        list.map((id) => {
          const r = document.getElementById(id).getBoundingClientRect();
          return [
            id,
            {
              left: r.left,
              top: r.top,
              right: r.right,
              bottom: r.bottom,
              width: r.width,
              height: r.height,
            },
          ];
        }),
      ),
    ids,
  );

// Inside the first screen, without scrolling.
const onScreen = (b, w, h) =>
  b.width > 0 && b.left >= 0 && b.top >= 0 && b.right <= w + 0.5 && b.bottom <= h + 0.5;

// Each chart's layout as drawn, in CSS px: {id: {plot: {x, y, w, h}, fonts: {title, tick,
// legend}}}, for the charts drawn on screen.
const layouts = (page, ids) =>
  page.evaluate(
    (list) =>
      Object.fromEntries(
        list.map((id) => {
          const c = document.getElementById(id);
          const l = window.labTest.chartLayout(id);
          if (!l || !c.clientWidth) return [id, null];
          const k = c.width / c.clientWidth;
          const css = (o) => Object.fromEntries(Object.entries(o).map(([key, v]) => [key, v / k]));
          return [id, { plot: l.plot && css(l.plot), fonts: css(l.fonts) }];
        }),
      ),
    ids,
  );

const CHARTS = ['accuracy-chart', 'epsilon-chart', 'noise-chart', 'clipping-chart', 'sigma-chart'];

async function openAt(width, height, hash) {
  const { page, problems } = await openLab(hash);
  await page.setViewportSize({ width, height });
  await page.evaluate(() => window.dispatchEvent(new Event('resize')));
  return { page, problems };
}

// The presenter layout without a lesson (the lessons' steps: lessons.test.mjs).
for (const [width, height] of [
  [1280, 720],
  [1920, 1080],
]) {
  test(`projector ${width}×${height}: both charts side by side, four sliders in view`, async () => {
    const charts = ['accuracy-chart', 'epsilon-chart'];
    const { page, problems } = await openAt(width, height, '#teacher=1&big=1&epochs=3');
    await waitForRun(page, 0, 2);
    await page.waitForTimeout(300); // the resize's redraw
    const ids = [...charts, 'sigma', 'clip', 'lot-size', 'lr', 'play', 'status'];
    const b = await boxes(page, ids);
    for (const id of ids)
      assert.ok(onScreen(b[id], width, height), `#${id} at ${JSON.stringify(b[id])}`);
    const [left, right] = charts.map((id) => b[id]);
    assert.ok(
      right.left >= left.right && Math.abs(right.top - left.top) < 2,
      `side by side: ${JSON.stringify([left, right])}`,
    );
    assert.ok(left.height >= 0.3 * height, `charts tall enough to read: ${left.height}`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
    // The canvas's pixels follow its size on screen (sharp on any screen).
    const px = await page.evaluate(() => {
      const c = document.getElementById('accuracy-chart');
      return [
        c.width,
        c.height,
        Math.round(c.clientWidth * devicePixelRatio),
        Math.round(c.clientHeight * devicePixelRatio),
      ];
    });
    assert.deepEqual(px.slice(0, 2), px.slice(2), `canvas pixels ${px}`);
    await page.screenshot({
      path: path.join(ARTIFACTS, `projector-${width}x${height}-default.png`),
    });
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('laptop 1366×768: the four sliders and both main charts on the first screen', async () => {
  const { page, problems } = await openAt(1366, 768, '#v=1&epochs=3');
  await waitForRun(page, 0, 2);
  const ids = ['sigma', 'clip', 'lot-size', 'lr', 'accuracy-chart', 'epsilon-chart'];
  const b = await boxes(page, ids);
  for (const id of ids) assert.ok(onScreen(b[id], 1366, 768), `#${id} at ${JSON.stringify(b[id])}`);
  await page.screenshot({ path: path.join(ARTIFACTS, 'laptop-1366x768.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

// Which chart each main slider changes first (every move restarts the run, so the accuracy
// chart redraws too). On a phone one square chart fits above the slider strip: the accuracy
// chart, which every slider changes; a tablet has the accuracy and ε charts side by side.
const WATCHED = [
  ['sigma', 'epsilon-chart', '4'],
  ['clip', 'accuracy-chart', '-0.5'],
  ['lot-size', 'epsilon-chart', '3'],
  ['lr', 'accuracy-chart', '-1'],
];
const watched = (width) =>
  width < 480 ? WATCHED.map(([slider, , value]) => [slider, 'accuracy-chart', value]) : WATCHED;

// How many times canvas `id` has been painted since it was first asked (its 2-D context's
// fillRect calls: plotters fills each chart's background first).
function paints(page, id) {
  return page.evaluate((id) => {
    window.paints ??= {};
    const ctx = document.getElementById(id).getContext('2d');
    if (!(id in window.paints)) {
      window.paints[id] = 0;
      const fill = ctx.fillRect;
      ctx.fillRect = function counted(...args) {
        window.paints[id] += 1;
        return fill.apply(this, args);
      };
    }
    return window.paints[id];
  }, id);
}

for (const [width, height] of [
  [390, 844],
  [768, 1024],
]) {
  test(`${width}×${height}: each main slider moves while its chart, in view, redraws`, async () => {
    const { page, problems } = await openAt(width, height, '#v=1&epochs=3');
    await waitForRun(page, 0, 2);
    await page.waitForTimeout(300);
    assert.ok(
      await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth),
      `scrollWidth ${await page.evaluate(() => document.documentElement.scrollWidth)} > ${width}`,
    );
    const b = await boxes(page, ['accuracy-chart', 'epsilon-chart', 'sigma', 'status']);
    assert.ok(
      b['accuracy-chart'].top < height * 0.6,
      `the accuracy chart starts in the first screen: ${b['accuracy-chart'].top}`,
    );
    assert.ok(b['accuracy-chart'].right <= width && b['epsilon-chart'].right <= width);
    // Every chart keeps a plot at least 140 CSS px tall (the noise chart's once collapsed to 15).
    const drawn = await layouts(page, CHARTS);
    for (const id of CHARTS) {
      assert.ok(
        drawn[id]?.plot?.h >= 140 && drawn[id].fonts.tick >= 12,
        `${id}: ${JSON.stringify(drawn[id])}`,
      );
    }
    await page.screenshot({
      path: path.join(ARTIFACTS, `narrow-${width}x${height}.png`),
      fullPage: false,
    });
    const strip = await page.locator('.main-sliders').boundingBox();
    for (const [slider, chart, value] of watched(width)) {
      const b = await boxes(page, [slider, chart]);
      assert.ok(
        onScreen(b[slider], width, height),
        `#${slider} in view: ${JSON.stringify(b[slider])}`,
      );
      assert.ok(
        onScreen(b[chart], width, height) && b[chart].bottom <= strip.y + 1,
        `#${chart} in view above the slider strip: ${JSON.stringify(b[chart])}, strip ` +
          `at ${strip.y}`,
      );
      const g = await generationOf(page);
      const before = await paints(page, chart);
      await setRange(page, `#${slider}`, value);
      // Painted again once the slider moved and the new run reported: counted by the canvas's
      // own calls, not by its pixels — two runs' first epochs can ink the very same pixels (the
      // phone and tablet tests timed out so under load).
      await waitForRun(page, g, 1);
      await page.waitForFunction(([id, n]) => window.paints[id] > n, [chart, before], {
        timeout: 20_000,
      });
      assert.equal(await page.evaluate(() => window.scrollY), 0, 'nothing scrolled');
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('Compare on the projector: four runs apart on a fitted axis, the cost written', async () => {
  const { page, problems } = await openAt(
    1280,
    720,
    '#big=1&dataset=breast-cancer&model=logistic&sigma=4&lot_size=32&lr=0.5&epochs=10',
  );
  await waitForRun(page, 0, 10, { done: true, timeout: 120_000 });
  const g = await generationOf(page);
  await page.click('#compare');
  await page.waitForFunction(
    () =>
      document.querySelectorAll('#pin-list li').length === 4 &&
      /^Done/.test(document.getElementById('status').textContent),
    null,
    { timeout: 240_000 },
  );
  await page.waitForTimeout(500); // the last redraw
  // Four runs trained, not five: the last, DP-SGD, has the controls' settings and stays as the
  // run (its reports are the run's, its link the settings'), and Play is offered again.
  assert.equal(await generationOf(page), g + 4);
  const dp = (await page.evaluate(() => window.labTest.pinnedEnds())).find(
    (p) => p.label === 'DP-SGD',
  );
  const last = await page.evaluate(() => window.labTest.reports().at(-1));
  assert.deepEqual(
    [last.epoch, last.test_acc, last.epsilon],
    [dp.last.epoch, dp.last.test_acc, dp.last.epsilon],
  );
  assert.match(page.url(), /sigma=4&.*lot_size=32/);
  assert.equal(await page.locator('#play').textContent(), 'Play');
  // The gap between the non-private and the DP-SGD run's final test accuracies, from Rust.
  const cost = await page.evaluate(() => window.labTest.privacyCostPoints());
  assert.ok(Number.isFinite(cost) && Math.abs(cost) < 50, `privacy cost ${cost}`);
  const { 'accuracy-chart': acc } = await layouts(page, ['accuracy-chart']);
  assert.ok(acc.plot.h >= 140 && acc.fonts.tick >= 16, JSON.stringify(acc));
  // The four runs spread over the plot: no pale pin (the non-private run is black at full
  // strength, the clip-only green, the noise-only purple).
  for (const rgb of [
    [0, 0, 0],
    [0, 158, 115],
    [204, 121, 167],
  ]) {
    assert.ok(
      (await page.evaluate((c) => window.near('accuracy-chart', c, [13, 13, 13]), rgb)) > 100,
      `a line in ${rgb}`,
    );
  }
  await page
    .locator('#accuracy-chart')
    .screenshot({ path: path.join(ARTIFACTS, 'compare-accuracy-1280x720.png') });
  await page.screenshot({ path: path.join(ARTIFACTS, 'compare-1280x720.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
