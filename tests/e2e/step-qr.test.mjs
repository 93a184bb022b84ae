// Every step of every lesson can be shared from the projector (#53 §5): its QR code at
// 1280×720 in the presenter layout decodes to the step's link at 4 CSS px a module or more,
// once the step's runs (its own and the earlier step's it compares with) are on screen — the
// lesson's own pins are not in the link (the lesson pins them again), so the code stays coarse.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, setUp, tearDown } from './lab.mjs';
import { readQr } from './qr.mjs';
import { LESSONS } from '../../www/lessons/lessons.js';

before(setUp);
after(tearDown);

for (const [name, lesson] of LESSONS) {
  test(`${lesson.title}: every step's QR code at 1280×720 decodes to its link at ≥ 4 CSS px a module`, async () => {
    for (let i = 0; i < lesson.steps.length; i += 1) {
      const { page, problems } = await openLab(`#big=1&lesson=${name}&step=${i + 1}`);
      await page.setViewportSize({ width: 1280, height: 720 });
      // The step's own run started (the earlier step's, when compared, trained and pinned first):
      // its settings written into the link, and a step's Compare runs queued.
      await page.waitForFunction(() => /[#&]v=1&/.test(location.hash) && window.labTest.lessonState()
        && !/Training ".*" to pin it/.test(document.getElementById('status').textContent), null, { timeout: 120_000 });
      await page.evaluate(() => document.getElementById('show-qr').click());
      await page.waitForFunction(() => document.getElementById('qr-dialog').open);
      await page.waitForTimeout(200);
      const qr = await readQr(page);
      const href = await page.evaluate(() => location.href);
      assert.equal(qr.text, href, `${name} step ${i + 1}: the code is the link`);
      assert.match(href, new RegExp(`lesson=${name}&step=${i + 1}`));
      const modulePx = qr.cssWidth / (qr.size + 8);
      console.log(`${name} step ${i + 1}: version ${qr.version}, ${modulePx.toFixed(2)} CSS px a module, link ${href.length} characters`);
      assert.ok(modulePx >= 4, `${name} step ${i + 1}: ${modulePx.toFixed(2)} CSS px a module (link ${href.length} characters)`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
}
