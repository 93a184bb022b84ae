// A lesson as a room uses it, off its rehearsed path (#53): the lecturer's clicker steps through
// it (PageDown, →, Space on; PageUp, ← back; two quick presses two steps; a focused slider keeps
// its arrows); a step's link, copied and opened elsewhere, shows the step's compared run once —
// the lesson pins it again, so the link does not carry it, and an older link that does carry it
// is not pinned twice; and in every lesson, σ dragged to 0 and C dragged to its end are said as
// such, on the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  generationOf,
  linkedPinLabels,
  openLab,
  setRange,
  setUp,
  tearDown,
  waitForRun,
} from './lab.mjs';
import { LESSONS } from '../../www/lessons/lessons.js';

before(setUp);
after(tearDown);

const stepOf = (page) => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('step');
// What the page saw of the keys and links (the clicker test's init script): each key as it came
// (the first listener) and whether a handler took it (the last), each link the page opened.
const WATCH_KEYS = () => {
  const seen = [];
  window.keysSeen = seen;
  const name = (t) => (t?.tagName ? `${t.tagName.toLowerCase()}${t.id ? `#${t.id}` : ''}` : '?');
  document.addEventListener('keydown', (e) => seen.push({ key: e.key, on: name(e.target) }), true);
  window.addEventListener('keydown', (e) => seen.push({ key: e.key, taken: e.defaultPrevented }));
  window.addEventListener('hashchange', (e) =>
    seen.push({ link: new URL(e.newURL).hash.slice(0, 60) }),
  );
};
// The page has taken step `n` into its link and shows it (a busy machine may take seconds): else
// says where it is, what it saw of the keys and what went wrong in it.
const atStep = (page, n, problems = []) =>
  page
    .waitForFunction(
      (want) =>
        new URLSearchParams(location.hash.slice(1)).get('step') === String(want) &&
        /** @type {any} */ (window).labTest?.lessonState()?.step === want,
      n,
      { timeout: 30_000, polling: 100 },
    )
    .catch(async (e) => {
      const where = await page.evaluate(() => ({
        hash: location.hash,
        keys: /** @type {any} */ (window).keysSeen ?? [],
        focus: document.activeElement?.tagName,
        lesson: /** @type {any} */ (window).labTest?.lessonState()?.lesson ?? null,
      }));
      throw new Error(
        `step ${n} never in the link: ${JSON.stringify({ ...where, problems })}: ${e.message}`,
      );
    });
// How many of `key`'s presses the page has received.
const received = (page, key) =>
  page.evaluate(
    (k) => /** @type {any} */ (window).keysSeen.filter((s) => s.key === k && 'on' in s).length,
    key,
  );

// The clicker's `key` pressed, and the page at step `n` after it. Once in CI under load the page
// stayed at step 1 after the first press, and said nothing more: now a press the page never
// received (none in its log) is said and made again, and one it received and did not act on
// fails the test with what the page saw.
async function click(page, key, n, problems) {
  const before = await received(page, key);
  await page.keyboard.press(key);
  try {
    await atStep(page, n, problems);
  } catch (e) {
    if ((await received(page, key)) > before) throw e;
    console.log(`the page never received ${JSON.stringify(key)}: pressed again (${e.message})`);
    await page.keyboard.press(key);
    await atStep(page, n, problems);
  }
}

test('a clicker steps through a lesson; a slider with the focus keeps its arrow keys', async () => {
  const { page, problems } = await openLab('#big=1&lesson=clipping&step=1', WATCH_KEYS);
  // the page has the focus, no control
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await click(page, 'PageDown', 2, problems);
  await click(page, 'ArrowLeft', 1, problems);
  await click(page, ' ', 2, problems);
  await click(page, 'ArrowRight', 3, problems);
  await page.keyboard.press('PageDown'); // the last step: nowhere to go
  await click(page, 'PageUp', 2, problems);
  await click(page, 'ArrowLeft', 1, problems);
  // On and back before the page has opened the first press's link: back where it was (once ←
  // was lost there, the Back button still disabled at the step on screen, step 1).
  await page.evaluate(() => {
    for (const key of ['PageDown', 'ArrowLeft'])
      document.body.dispatchEvent(
        new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }),
      );
  });
  await atStep(page, 1, problems);
  // Two presses before the page has opened the first one's link (in one task here; a busy page
  // takes both before the link's event): two steps on, as a clicker's user means — once the
  // page went one step only.
  await page.evaluate(() => {
    for (let i = 0; i < 2; i += 1)
      document.body.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'PageDown', bubbles: true, cancelable: true }),
      );
  });
  await atStep(page, 3, problems);
  await click(page, 'PageUp', 2, problems);
  // The clipping slider focused: → moves C, not the lesson.
  await page.locator('#clip').focus();
  const before = await page.locator('#clip').inputValue();
  await page.keyboard.press('ArrowRight');
  assert.equal(stepOf(page), '2');
  assert.notEqual(await page.locator('#clip').inputValue(), before, 'the slider moved');
  assert.match(await page.locator('#lesson-next').getAttribute('title'), /PageDown/);
  assert.deepEqual(problems, []);
  await page.close();
});

// A link opened in place is taken even when the page rewrites its address before the event's
// turn (writeLink as a compared run comes in): the lab once kept its old lesson, and a student
// who followed a link from the room's page stayed where they were.
test('a link opened while the page rewrites its address is the one the page opens', async () => {
  const { page, problems } = await openLab('#lesson=clipping&step=2');
  await page.evaluate(() => {
    const old = location.hash;
    location.hash = 'lesson=noise&step=1';
    window.history.replaceState(null, '', old); // the page's own rewrite, before hashchange
  });
  await page.waitForFunction(() => window.labTest.lessonState()?.lesson === 'noise', null, {
    timeout: 30_000,
  });
  await atStep(page, 1);
  assert.match(page.url(), /lesson=noise/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a step's link has no pin of its own lesson; an older link's is pinned once", async () => {
  const { page, problems } = await openLab('#lesson=clipping&step=2');
  // The earlier step's run (C = 0.1) is trained and pinned, then the step's own.
  await page.waitForFunction(() => document.querySelectorAll('#pin-list li').length === 1, null, {
    timeout: 120_000,
  });
  await waitForRun(page, 0, 10, { done: true, timeout: 120_000 });
  assert.deepEqual(await page.locator('#pin-list li').allTextContents(), ['C = 0.1']);
  const link = new URL(page.url());
  assert.ok(!new URLSearchParams(link.hash.slice(1)).has('pins'), `no pins in ${link.hash}`);
  // A link copied before the fix: the step's pin in it too.
  const params = new URLSearchParams(link.hash.slice(1));
  const pinned = await page.evaluate(() => window.labTest.pinnedConfigs());
  params.set('pins', JSON.stringify(pinned));
  const old = await openLab(`#${params}`);
  await old.page.waitForFunction(
    () => document.querySelectorAll('#pin-list li').length >= 1,
    null,
    { timeout: 120_000 },
  );
  await waitForRun(old.page, 0, 10, { done: true, timeout: 120_000 });
  assert.deepEqual(
    await old.page.locator('#pin-list li').allTextContents(),
    ['C = 0.1'],
    'pinned once',
  );
  assert.deepEqual([...problems, ...old.problems], []);
  await old.page.close();
  await page.close();
});

// The text the lesson says once the run on screen is done.
async function saidWhenDone(page, after) {
  await waitForRun(page, after, 1, { done: true, timeout: 120_000 });
  await page.waitForFunction(() => window.labTest.lessonState()?.done, null, { timeout: 10_000 });
  await page.waitForTimeout(300); // the lesson filled from the run's last report
  return page.evaluate(() => window.labTest.lessonState().text);
}

for (const [name, lesson] of LESSONS) {
  const index = lesson.steps.findIndex(
    (_, i) => ({ ...lesson.base, ...lesson.steps[i].set }).sigma > 0,
  );
  test(`${lesson.title}: σ dragged to 0, then C to its end, are said on the page`, async () => {
    const { page, problems } = await openLab(`#lesson=${name}&step=${index + 1}`);
    await waitForRun(page, 0, 1, { done: true, timeout: 120_000 });
    let g = await generationOf(page);
    await setRange(page, '#sigma', '0');
    const quiet = await saidWhenDone(page, g);
    assert.match(quiet, /^No noise in this run \(σ = 0\): its ε = ∞, no guarantee/, quiet);
    assert.ok(!/noise (is|drowns|now lands)|σC grew/.test(quiet), quiet);
    assert.match(
      await page.locator('#lesson-ask').textContent(),
      /What does DP-SGD need the noise for/,
    );
    g = await generationOf(page);
    // σ back and C to its end in one task: moved one after the other, the run σ's move started
    // could finish before C moved (breast cancer's ten epochs, under load), and was read instead.
    const sigma = String({ ...lesson.base, ...lesson.steps[index].set }.sigma);
    await page.evaluate((s) => {
      for (const [id, v] of [
        ['sigma', s],
        ['clip', document.getElementById('clip').getAttribute('max')],
      ]) {
        const el = /** @type {HTMLInputElement} */ (document.getElementById(id));
        el.value = v;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }
    }, sigma);
    const moved = await saidWhenDone(page, g);
    assert.match(
      moved,
      new RegExp(
        String.raw`^Off the step: C = 20 here \(the step sets C = [\d.]+\); what follows is ` +
          String.raw`the run on screen\.`,
      ),
      moved,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('presenter layout: an audit of other settings said on screen, its charts faded', async () => {
  const { page, problems } = await openLab('#big=1&lesson=audit&step=2');
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.evaluate(() => window.dispatchEvent(new Event('resize')));
  await waitForRun(page, 0, 1, { done: true, timeout: 120_000 });
  await page.fill('#audit-runs', '4');
  await page.click('#audit-start');
  await page.waitForFunction(
    () => document.querySelectorAll('#audit-summary li').length === 2,
    null,
    { timeout: 180_000 },
  );
  assert.equal(await page.locator('#audit-stale').isVisible(), false);
  const g = await generationOf(page);
  await setRange(page, '#sigma', '8');
  await page.waitForFunction(() => !document.getElementById('audit-stale').hidden);
  const box = await page.locator('#audit-stale').boundingBox();
  assert.ok(
    box && box.y >= 0 && box.y + box.height <= 720,
    `on the first screen: ${JSON.stringify(box)}`,
  );
  assert.ok(
    await page
      .locator('#audit-region')
      .evaluate((c) => Number(getComputedStyle(c.closest('figure')).opacity) < 0.5),
    'faded as drawn',
  );
  const said = await saidWhenDone(page, g);
  assert.match(said, /^Off the step: σ = 8 here \(the step sets σ = 2\)/, said);
  await page.screenshot({ path: 'test-artifacts/audit-stale-1280x720.png' });
  assert.deepEqual(problems, []);
  await page.close();
});

// A laptop without the presenter layout and a phone (#53 §8): every step of every lesson,
// opened by its link, brings its button (Audit this run, Alice's, Compare) or, without one, its
// first chart into the viewport — once the page has handled the step (however busy the
// machine), and still 700 ms later, when the lesson's text has filled on an idle machine. The
// phone opens the lecturer's link (the projector's QR code: presenter layout, large text),
// which a phone shows in its own narrow layout, its Print worksheet button too.
for (const [width, height, lecturers] of [
  [1366, 768, ''],
  [390, 844, '&big=1&size=1.5'],
]) {
  test(`${width}×${height}: each step opens with what it is about in view`, async () => {
    const { page, problems } = await openLab('#epochs=2');
    await page.setViewportSize({ width, height });
    const missed = [];
    for (const [name, lesson] of LESSONS) {
      for (let i = 0; i < lesson.steps.length; i++) {
        const { controls, charts } = lesson.steps[i];
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.evaluate(
          ([n, k, extra]) => {
            location.hash = `lesson=${n}&step=${k}${extra}`;
          },
          [name, i + 1, lecturers],
        );
        await atStep(page, i + 1);
        // The page entered the step itself (not only the test's link): else nothing scrolls.
        const entered = await page
          .waitForFunction(
            ([n, count]) =>
              document.getElementById('lesson-pick').value === n &&
              document.getElementById('lesson-count').textContent === count,
            [name, `Step ${i + 1} of ${lesson.steps.length}`],
            { timeout: 15_000 },
          )
          .then(
            () => true,
            () => false,
          );
        if (!entered) {
          missed.push(`${name} ${i + 1}: never entered by the page`);
          continue;
        }
        await page
          .waitForFunction(missedIn, { controls, charts, waiting: true }, { timeout: 15_000 })
          .catch(() => {});
        await page.waitForTimeout(700);
        const seen = await page.evaluate(missedIn, { controls, charts, waiting: false });
        if (seen) missed.push(`${name} ${i + 1}: ${seen}`);
      }
    }
    assert.deepEqual(missed, [], `the page's problems: ${JSON.stringify(problems)}`);
    if (lecturers) assert.ok(await page.locator('#lesson-print').isVisible(), 'Print worksheet');
    assert.deepEqual(problems, []);
    await page.close();
  });
}

// In the page: null when the step's button (or, without one, its first chart) is in view —
// whole when scrolled to, at least 2/3 of it once the page's text may have grown since (a
// status line, the run's notes) — else where it is. `waiting` (for waitForFunction, which
// waits for a truthy answer): true once it is in view instead.
function missedIn({ controls, charts, waiting }) {
  const button = controls
    .map((id) => document.getElementById(id))
    .find((el) => el?.tagName === 'BUTTON' && el.getClientRects().length);
  const target = button ?? document.getElementById(charts[0])?.closest('figure');
  if (!target || !target.getClientRects().length) return `nothing to show (${controls}, ${charts})`;
  const r = target.getBoundingClientRect();
  const seenPx = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
  const missed =
    seenPx >= (2 / 3) * r.height
      ? null
      : `${target.id || target.tagName} at ${Math.round(r.top)}–${Math.round(r.bottom)} ` +
        `of ${innerHeight}`;
  return waiting ? !missed : missed;
}

// σ moved inside a step that compares with the step before: the earlier step's run is trained
// again with it (one pin, in place of the old), so the comparison stays C = 0.1 against C = 1
// at the same σ — also when the move cancelled that run before it ended.
test("a setting moved in a comparing step trains the earlier step's run again", async () => {
  const { page, problems } = await openLab('#lesson=clipping&step=2');
  // Once (run 81 here, under load) no such pin came in 120 s: on a timeout, what the page had
  // (its pins, status, queue, the step's words, any message) is said with the failure.
  const pinnedAt = (sigma) =>
    page
      .waitForFunction(
        (s) => {
          const pins = window.labTest.pinnedConfigs();
          return pins.length === 1 && pins[0].label === 'C = 0.1' && pins[0].cfg.sigma === s;
        },
        sigma,
        { timeout: 120_000 },
      )
      .catch(async (e) => {
        const seen = await page.evaluate(() => ({
          pins: window.labTest.pinnedConfigs().map((p) => [p.label, p.cfg.sigma, p.cfg.clip]),
          status: document.getElementById('status').textContent,
          generation: document.getElementById('run-log').dataset.generation,
          said: window.labTest.lessonState()?.text,
          message: document.getElementById('message').hidden
            ? ''
            : document.getElementById('message-text').textContent,
        }));
        throw new Error(`no pin C = 0.1 at σ = ${sigma}: ${JSON.stringify(seen)}; ${e.message}`);
      });
  // While the earlier step's run trains, the step says so and quotes none of its numbers.
  await page.waitForFunction(
    () => /^First the earlier step's run \(C = 0\.1\)/.test(window.labTest.lessonState()?.text),
    null,
    { timeout: 60_000 },
  );
  for (const sigma of [2, 3]) {
    const g = await generationOf(page);
    await setRange(page, '#sigma', String(sigma));
    await pinnedAt(sigma);
    await waitForRun(page, g, 10, { done: true, timeout: 120_000 });
    await page.waitForFunction(
      (s) => {
        const st = window.labTest.lessonState();
        return st?.done && st.claims.every((c) => c !== null) && /^Off the step: σ = /.test(st.text)
          ? st.text.includes(`σ = ${s} here`)
          : false;
      },
      sigma,
      { timeout: 20_000 },
    );
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// The runs a step's Compare queues are the lesson's too, but none is the earlier step's run
// (breast cancer trains in a blink: every text the step shows is recorded as it changes).
test("a step's Compare runs are not called the earlier step's run", async () => {
  const record = () =>
    document.addEventListener('DOMContentLoaded', () => {
      const box = document.getElementById('lesson-say');
      window.saidAll = [];
      new MutationObserver(() => window.saidAll.push(box.textContent)).observe(box, {
        childList: true,
        subtree: true,
        characterData: true,
      });
    });
  const { page, problems } = await openLab('#lesson=cost&step=2', record);
  await page.waitForFunction(
    () => window.saidAll.some((t) => /The four runs are training/.test(t)),
    null,
    { timeout: 60_000 },
  );
  const said = await page.evaluate(() => window.saidAll);
  assert.ok(!said.some((t) => /earlier step/.test(t)), said.join('\n'));
  assert.deepEqual(problems, []);
  await page.close();
});

// A lecturer's pin on a step that presses Compare: the lecturer pinned it after the step's four
// runs (the oldest, non-private, gave way); the link opened on a phone trained it, then the step's
// Compare cleared it — four Compare pins there, another set on the projector.
test("a link's pin stays on a step that presses Compare, after its runs", async () => {
  const pins = encodeURIComponent(JSON.stringify([{ label: 'mine', cfg: { sigma: 8 } }]));
  const { page, problems } = await openLab(`#lesson=cost&step=2&pins=${pins}`);
  const want = '* clip only|* noise only|DP-SGD|mine';
  await page
    .waitForFunction(
      (w) =>
        [...document.querySelectorAll('#pin-list li')].map((li) => li.textContent).join('|') === w,
      want,
      { timeout: 120_000 },
    )
    .catch(async (e) =>
      assert.fail(`${e.message}: ${await page.locator('#pin-list').innerText()}`),
    );
  await page.waitForFunction(() => /^Done/.test(document.getElementById('status').textContent));
  assert.deepEqual(linkedPinLabels(page), ['mine']);
  assert.deepEqual(problems, []);
  await page.close();
});

// A link opened in place is a fresh load (main.js hashchange): the audit lesson's 300 runs a
// side do not stay for the next lesson's audits, or for free play.
test('leaving the audit lesson by a link gives the audit its own runs a side again', async () => {
  const { page, problems } = await openLab('#lesson=audit&step=1&epochs=1');
  await page.waitForFunction(() => document.getElementById('audit-runs').value === '300');
  await page.evaluate(() => {
    location.hash = 'v=1&epochs=1&dataset=blobs';
  });
  await page.waitForFunction(() => document.getElementById('audit-runs').value === '16', null, {
    timeout: 10_000,
  });
  assert.deepEqual(problems, []);
  await page.close();
});

// A lecturer who lowers the runs a side shares them: the step's link carries the count, and
// the class's audits run as many ("from N runs a side" on their screens is the lecturer's N).
test("the lecturer's runs a side travel in the step's link", async () => {
  const { page, problems } = await openLab('#lesson=audit&step=1&epochs=1');
  await page.waitForFunction(() => document.getElementById('audit-runs').value === '300');
  await page.fill('#audit-runs', '40');
  await page.locator('#audit-runs').dispatchEvent('change');
  await page.waitForFunction(() => /[#&]audit_runs=40(&|$)/.test(location.hash));
  const hash = await page.evaluate(() => location.hash);
  await page.close();
  const opened = await openLab(hash);
  await opened.page.waitForFunction(() => document.getElementById('audit-runs').value === '40');
  assert.deepEqual([...problems, ...opened.problems], []);
  await opened.page.close();
});
