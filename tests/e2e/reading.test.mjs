// The page's markup in three files (#38: every file under www/ at most 400 lines): the reading
// page the header links to (how-it-works.html: what trains, Algorithm 1 in formulas, the data
// sets' sources) and the own-data panel (own-data.html), which own-data.js puts into its
// <details> the first time a student opens it — once, and again after a failed load. The
// reading page's accessibility and screens are in a11y.test.mjs; its formula in every engine in
// engines.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openLab, setUp, tearDown, waitForRun } from './lab.mjs';

before(setUp);
after(tearDown);

test(
  '"How it works" opens the reading page in a tab of its own: Algorithm 1 and every data ' +
    "set's source",
  async () => {
    const { page, problems, url } = await openLab('#epochs=1');
    const link = page.locator('header a.how');
    assert.equal(await link.textContent(), 'How it works');
    assert.equal(
      await link.getAttribute('target'),
      '_blank',
      'a run, an audit or a lesson in progress stays',
    );
    const href = await link.evaluate((a) => a.href);
    assert.equal(href, `${url}how-it-works.html`);
    // The data sets the lab offers, by the words its Data set menu gives them.
    const offered = await page.$$eval('#dataset option:not([hidden])', (os) =>
      os.map((o) => o.textContent),
    );
    assert.ok(offered.length >= 8, offered.join(', '));

    await page.goto(href);
    assert.equal(await page.title(), 'How it works — DP-SGD Lab');
    const steps = await page.$$eval('#how-dp-sgd-works > ol > li', (lis) =>
      lis.map((li) => [li.textContent.trim().split(':')[0], li.querySelectorAll('math').length]),
    );
    assert.deepEqual(
      steps.map(([s]) => s),
      ['Take a lot', "Clip each example's gradient", 'Add noise and average', 'Account'],
    );
    for (const [s, n] of steps) assert.ok(n >= 1, `"${s}" has its formula`);
    const credits = (await page.locator('#data').textContent()).replace(/\s+/g, ' ').toLowerCase();
    for (const option of offered) {
      // "2-D: two spirals" by its shape; "MNIST handwritten digits (8,000)" by its first word.
      const name = option.startsWith('2-D: ') ? option.slice(5) : option.split(' ')[0];
      assert.ok(
        credits.includes(name.toLowerCase()),
        `the reading page says where "${option}" comes from`,
      );
    }
    // Back to the lab: its root, which opens the default lab.
    assert.equal(await page.locator('header a').evaluate((a) => a.href), url);
    assert.deepEqual(problems, []);
    await page.close();
  },
);

test('the own-data panel arrives when opened, says so if it cannot, is wired once', async () => {
  // The panel's first fetch fails (a server gone for a moment); the next one is served.
  const failOnce = () => {
    const fetchOf = window.fetch.bind(window);
    let failed = false;
    window.fetch = (resource, options) => {
      if (!failed && String(resource).endsWith('/own-data.html')) {
        failed = true;
        return Promise.reject(new TypeError('Failed to fetch'));
      }
      return fetchOf(resource, options);
    };
  };
  const { page, problems } = await openLab('#epochs=1', failOnce);
  await waitForRun(page, 0, 1);
  assert.equal(await page.locator('#data-file').count(), 0, 'not in the page until opened');
  const summary = page.locator('#own-data summary');
  await summary.click();
  const error = page.locator('#own-data .panel-error');
  await error.waitFor();
  assert.equal(await error.getAttribute('role'), 'alert');
  assert.match(
    await error.textContent(),
    new RegExp(
      String.raw`^This panel could not be loaded \(Failed to fetch\): close it and open it ` +
        String.raw`again, or reload the page\.$`,
    ),
  );
  assert.equal(await page.locator('#data-file').count(), 0);
  await summary.click(); // closed
  await summary.click(); // opened again: served this time
  await page.locator('#data-file').waitFor({ state: 'attached' });
  assert.equal(await error.count(), 0, "the failure's words go with it");
  // Closed and opened once more: still one panel, its controls wired once (one list of columns).
  await summary.click();
  await summary.click();
  await page.waitForTimeout(200); // a second fetch, if one were made, would have landed
  assert.equal(await page.locator('#own-data input[type=file]').count(), 1);
  await page.setInputFiles('#data-file', {
    name: 'mine.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('age,income,label\n30,1,a\n40,2,b\n'),
  });
  await page.waitForFunction(
    () => document.getElementById('label-column').value === 'label',
    null,
    { timeout: 5_000 },
  );
  assert.deepEqual(await page.$$eval('#label-column option', (os) => os.map((o) => o.value)), [
    'age',
    'income',
    'label',
  ]);
  assert.equal(await page.locator('#load-data').isDisabled(), false);
  assert.deepEqual(problems, []);
  await page.close();
});
