// End to end (#40, 1.4): the audit's picture and its sentences say the same thing. The shaded
// band is the 95% simultaneous band (every threshold at once, FPR and TPR both uncertain) and
// the box the threshold ε_lower was measured at; "inside", "above but within chance" and "beat
// the bound" are decided by that same test in Rust. Checked here against the picture's own
// points, as drawn (labTest.lastAudit), for the audit lesson's steps and the panel's default
// audit, over several audit seeds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ARTIFACTS, openLab, setUp, tearDown } from './lab.mjs';

before(setUp);
after(tearDown);

// The drawn edge of the region at `x` (linear between its points: a little under the true,
// concave edge, so points are compared with a margin).
function edgeAt(curve, x) {
  for (let i = 1; i < curve.length; i += 1) {
    const [x0, y0] = curve[i - 1];
    const [x1, y1] = curve[i];
    if (x <= x1) return x1 === x0 ? Math.max(y0, y1) : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return 1;
}
// Points above the edge by more than `m` up and to the left (m < 0: near it or above), as a
// reader sees it: where the edge rises steeply (near FPR 0) "above" is also "left of".
const MARGIN = 0.02;
const aboveBy = (curve, pts, m) =>
  pts.filter(([f, t]) => t - m > edgeAt(curve, Math.min(1, Math.max(0, f + m))));

// What one result's picture shows and what its sentence says must agree.
function assertAgrees(r, where) {
  const said = r.summary;
  const [, fprHi, tprLo] = r.region.evidence;
  const corners = [...r.region.band_lower, [fprHi, tprLo]];
  const rocAbove = aboveBy(r.theory, r.roc, MARGIN);
  const boxAbove = aboveBy(r.theory, corners, MARGIN);
  if (!Number.isFinite(r.eps_upper.pld ?? Infinity) || r.theory.every(([, t]) => t >= 0.999))
    return; // ε = ∞: the whole square
  const verdicts = [
    /stays inside the privacy region/,
    /rises above the privacy region/,
    /beat the bound/,
  ].filter((re) => re.test(said));
  assert.equal(verdicts.length, 1, `${where}: one verdict in "${said}"`);
  if (/stays inside/.test(said)) {
    assert.deepEqual(rocAbove, [], `${where}: said inside, the ROC is drawn above the edge`);
    assert.deepEqual(boxAbove, [], `${where}: said inside, a box is drawn above the edge`);
  } else if (/rises above/.test(said)) {
    assert.ok(
      aboveBy(r.theory, r.roc, -MARGIN).length > 0,
      `${where}: said above, no ROC point is near or above the edge`,
    );
    assert.deepEqual(
      boxAbove,
      [],
      `${where}: said within chance, a box is drawn wholly above the edge`,
    );
  } else {
    assert.ok(
      aboveBy(r.theory, corners, -MARGIN).length > 0,
      `${where}: said beaten, no box reaches the edge`,
    );
  }
  assert.equal(r.planned.q, r.trained.q, `${where}: q trained as planned`);
  assert.equal(r.planned.steps, r.trained.steps, `${where}: steps trained as planned`);
}

async function auditWith(page, seed) {
  await page.waitForFunction(
    () => /^(Done|Stopped)/.test(document.getElementById('status').textContent),
    null,
    { timeout: 120_000 },
  );
  await page.evaluate((s) => window.labTest.fixAuditSeed(s), seed);
  await page.click('#audit-start');
  await page.waitForFunction(
    () => document.querySelectorAll('#audit-summary li').length === 2,
    null,
    { timeout: 240_000 },
  );
  return page.evaluate(() => window.labTest.lastAudit());
}

test('the audit lesson at σ = 2: picture, sentences and lesson agree at 5 seeds', async () => {
  const { page, problems } = await openLab('#v=1&lesson=audit&step=2');
  for (const seed of [1, 2, 3]) {
    const results = await auditWith(page, seed);
    for (const r of results) assertAgrees(r, `σ = 2, seed ${seed}, ${r.threat}`);
    const realistic = results.find((r) => r.threat === 'realistic');
    await page.waitForFunction(
      () => window.labTest.lessonState()?.claims.every((c) => c !== null),
      null,
      { timeout: 30_000 },
    );
    const lesson = await page.evaluate(() => window.labTest.lessonState().text);
    const expected = {
      inside: /stays in the grey region/,
      'within-chance':
        /pokes above the grey region at FPR [\d.–]+, within its shaded 95% band: chance/,
      outside: /leaves the grey region beyond its 95% band/,
    };
    assert.match(
      lesson,
      expected[realistic.region.verdict],
      `seed ${seed}: the lesson says what the picture shows (${realistic.region.verdict})`,
    );
    if (seed === 1)
      await page
        .locator('#audit')
        .screenshot({ path: path.join(ARTIFACTS, 'audit-region-sigma2.png') });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// Audit step 2 beside step 1 (#53 §4): the σ = 0 audit is kept on the region chart (long
// dashes, labelled) when step 2 audits σ = 2, and the lesson quotes it as its summary did.
test("the audit lesson keeps step 1's audit beside step 2's, drawn and in words", async () => {
  const { page, problems } = await openLab('#v=1&big=1&lesson=audit&step=1');
  await page.setViewportSize({ width: 1280, height: 720 });
  const first = await auditWith(page, 1);
  const said = first.find((r) => r.threat === 'realistic').said.eps_lower;
  await page.click('#lesson-next');
  await page.waitForFunction(
    () => window.labTest.lessonState()?.step === 2 && window.labTest.lessonState().done,
    null,
    { timeout: 120_000 },
  );
  await auditWith(page, 1);
  await page.waitForFunction(
    () => /long dashes/.test(window.labTest.lessonState()?.text ?? ''),
    null,
    { timeout: 30_000 },
  );
  const lesson = await page.evaluate(() => window.labTest.lessonState().text);
  assert.ok(lesson.includes(`At σ = 0 (long dashes) it proved ε ≥ ${said}.`), lesson);
  await page.waitForTimeout(300); // the last redraw
  await page.screenshot({ path: path.join(ARTIFACTS, 'audit-step2-beside-step1-1280x720.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test(
  "the panel's default audit (16 runs a side) on blobs: picture and sentences agree for " +
    'several seeds',
  async () => {
    const { page, problems } = await openLab('#v=1&dataset=blobs');
    for (const seed of [4, 5, 6]) {
      const results = await auditWith(page, seed);
      for (const r of results) {
        assertAgrees(r, `default, seed ${seed}, ${r.threat}`);
        if (r.eps_lower === 0)
          assert.match(
            r.summary,
            /ε ≥ 0 proves nothing: 16 runs a side could prove at most ε ≈ [\d.]+/,
            r.summary,
          );
      }
    }
    assert.deepEqual(problems, []);
    await page.close();
  },
);

// The page as it opens (Adult, the default run and audit): where the issue saw the realistic
// ROC rise above the region while the sentence said "stays inside". One seed (about half a
// minute of audit runs); blobs above take several.
test('the default audit of the default run (Adult): picture and sentences agree', async () => {
  const { page, problems } = await openLab('');
  const results = await auditWith(page, 7);
  for (const r of results) assertAgrees(r, `Adult default, seed 7, ${r.threat}`);
  assert.deepEqual(problems, []);
  await page.close();
});
