// Hostile and careless links (#13): a link's bad pins and prototype keys, values beyond the
// sliders, weights that overflow, and a fuzz of 400 random and adversarial URL hashes (the
// workers that die and the files too large: hostile.test.mjs, which runs alone). Each test opens
// a page of its own; the page must never show NaN or undefined, never let a wasm panic or an
// uncaught error through, and must still train afterwards.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  downloadCsv,
  generationOf,
  linkedPinLabels,
  mulberry32,
  openLab,
  setRange,
  setUp,
  tearDown,
  waitForRun,
} from './lab.mjs';
import { junkInPage, junkOnPage, message, waitForMessage } from './hostile-kit.mjs';

before(setUp);
after(tearDown);

test(
  "each bad pin of a link is dropped by name; the good pins and the link's own run train, each " +
    "with Rust's caveats",
  async () => {
    // Written out: a JS object literal's __proto__ would set the prototype, not a key.
    const pins = `[${[
      // A pin carries what differs from the link's own settings (link.js): its convention.
      '{"label":"good","cfg":{"dataset":"blobs","model":"logistic","epochs":1,' +
        '"amplification":"rigorous"}}',
      '{"label":"huge","cfg":{"epochs":1e9}}',
      '{}',
      '{"label":"proto","cfg":{"__proto__":{"sigma":1},"pca":1e308}}',
    ].join(',')}]`;
    const { page, problems } = await openLab(
      `#v=1&epochs=2&dataset=blobs&model=logistic&amp=paper&pins=${encodeURIComponent(pins)}`,
    );
    await page.waitForFunction(() => document.querySelectorAll('#pin-list li').length === 1, null, {
      timeout: 30_000,
    });
    await waitForRun(page, 0, 2, { done: true });
    const text = await message(page);
    for (const part of [
      'pinned run "huge" was skipped (epochs: epochs = 1000000000 must be between 1 and 10000)',
      '"pin 3" has no settings',
      'pinned run "proto" was skipped (config: unknown setting \'__proto__\')',
    ]) {
      assert.ok(text.includes(part), `${part} in: ${text}`);
    }
    assert.equal(await page.locator('#pin-list li').textContent(), 'good');
    // The link's own run uses the paper's convention for naive and strong: said under the status.
    assert.deepEqual(await page.locator('#run-notes li').allTextContents(), [
      "Note: naive and strong use the paper's convention, not a bound.",
    ]);
    // …in the run log, its columns starred as on the ε chart and its caption saying why, and in
    // the ε chart's words for a screen reader.
    const heads = await page.locator('#run-log thead th').allTextContents();
    for (const name of ['ε naive*', 'ε strong*', 'ε moments'])
      assert.ok(heads.includes(name), `${name} in ${heads.join(' | ')}`);
    const starred = /Starred \(\*\): the paper's convention, not a bound\./;
    assert.match(await page.locator('#run-log caption').textContent(), starred);
    await page.waitForFunction(() =>
      /naive\* /.test(document.getElementById('epsilon-chart').getAttribute('aria-label') ?? ''),
    );
    assert.match(await page.locator('#epsilon-chart').getAttribute('aria-label'), starred);
    // …and in the run log's CSV, on every epoch's row.
    const rows = (await downloadCsv(page)).trim().split('\n');
    assert.ok(rows[0].split(',').includes('notes'), rows[0]);
    assert.equal(rows.length, 3);
    for (const row of rows.slice(1))
      assert.ok(row.includes(',"naive and strong use the paper\'s convention, not a bound",'), row);

    // A pin with L > N trains with L = N and leaves the main slider where the link put it.
    const before = await page.locator('#lot-size-value').textContent();
    // A shuffled pin's ε is not what the accountants assume: its mark and note say so (a link
    // can ask for what the controls do not offer).
    const bigLot = JSON.stringify([
      { label: 'big L', cfg: { dataset: 'blobs', model: 'logistic', epochs: 1, lot_size: 99999 } },
      {
        label: 'shuffled',
        cfg: { dataset: 'blobs', model: 'logistic', epochs: 1, sampling: 'shuffle' },
      },
      // A name that says DP-SGD on a run without noise (σ = 0): its note says there is none.
      { label: 'DP-SGD σ=8', cfg: { dataset: 'blobs', model: 'logistic', epochs: 1, sigma: 0 } },
      // Written by hand: a link's author choosing the seed of a run on the student's file.
      { label: 'mine', cfg: { dataset: 'own', seed: 7 } },
    ]);
    const g = await generationOf(page);
    await page.evaluate(
      (h) => {
        location.hash = h;
      },
      `#v=1&epochs=2&dataset=blobs&model=logistic&pins=${encodeURIComponent(bigLot)}`,
    );
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('#pin-list li')].some((li) => li.textContent === '* big L'),
      null,
      { timeout: 30_000 },
    );
    await waitForRun(page, g, 2, { done: true });
    assert.equal(await page.locator('#lot-size-value').textContent(), before);
    // All marked: each run's numbers come with a note (q = 1; shuffled lots; no noise).
    assert.deepEqual(await page.locator('#pin-list li').allTextContents(), [
      '* big L',
      '* shuffled',
      '* DP-SGD σ=8',
    ]);
    assert.ok(
      (await message(page)).includes(
        'pinned run "mine" was skipped (a link cannot train on your own file)',
      ),
      await message(page),
    );
    // The big pin's lot was changed aloud: to N, every row in every step, which its run says too.
    const said = await message(page);
    const n = Number(
      said.match(
        new RegExp(
          String.raw`Pinned run "big L": lot size L = \d+ is larger than the N = (\d+) ` +
            String.raw`training rows of this data set: it trains with L = N = \1; the settings ` +
            String.raw`stay\. Every step uses every row \(q = 1\), which spends privacy fast: ` +
            String.raw`ε = [\d.]+ at δ = 1e-5 for 1 epoch\.`,
        ),
      )?.[1],
    );
    assert.ok(n > 0, said);
    assert.deepEqual(await page.locator('#run-notes li').allTextContents(), [
      `Note: pinned run "* big L": the lot is every training row (L = ${n} ≥ N = ${n}: q = 1), ` +
        `so sampling hides no one and ε grows fast.`,
      'Note: pinned run "* shuffled": fixed-size shuffled lots: the accountants assume Poisson ' +
        'sampling, so ε is indicative only.',
      'Note: pinned run "* DP-SGD σ=8": without both clipping and noise there is no privacy ' +
        'guarantee (ε = ∞).',
    ]);

    // Messages a worker should never send are ignored with a message, never an uncaught error.
    for (const data of [
      null,
      7,
      'report',
      { type: 'report' },
      { type: 'data', generation: 1 },
      { type: '__proto__' },
      { type: 'constructor', generation: 0 },
    ]) {
      await page.evaluate((d) => window.labTest.fakeWorkerMessage(d), data);
    }
    await waitForMessage(
      page,
      /training worker sent a message the page does not understand; it was ignored/,
    );
    assert.equal(await junkOnPage(page), null);
    assert.deepEqual(problems, []);
    await page.close();
  },
);

test('a run whose weights overflow stops in that epoch and says the model diverged', async () => {
  // Non-private (no clipping), the MLP on Breast Cancer at η = 10: the weights overflow within
  // a few epochs; before, the run went on with its accuracy frozen at a constant.
  const pins = JSON.stringify([
    {
      label: 'too fast',
      cfg: {
        dataset: 'breast-cancer',
        model: 'mlp',
        mode: 'non-private',
        lr: 10,
        epochs: 30,
        seed: 1,
      },
    },
  ]);
  const { page, problems } = await openLab(
    `#v=1&epochs=2&dataset=blobs&model=logistic&pins=${encodeURIComponent(pins)}`,
  );
  await waitForMessage(
    page,
    new RegExp(
      String.raw`Pinned run "too fast": the model diverged in epoch \d+: its weights grew ` +
        String.raw`until they overflowed.*η = 10 is too large`,
    ),
  );
  assert.equal(await junkOnPage(page), null);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the L slider reaches N; values beyond a slider are named, not moved to its end', async () => {
  const { page, problems } = await openLab('#v=1&epochs=1&lot_size=99999999&sigma=1e308');
  await waitForRun(page, 0, 1);
  assert.equal(await page.locator('#lot-size-value').textContent(), '32561');
  // both said: the link's part it cannot use, and the lot cut to N as the run started
  assert.match(await message(page), /sigma = 1\.00e\+308 is out of range \(0\.00 to 16\.00\)/);
  assert.match(await message(page), /L = 99999999 is larger than the N = 32561 .* L = N = 32561/);
  assert.match(await page.locator('#sigma-value').textContent(), /^1\.00$/);
  assert.deepEqual(problems, []);
  await page.close();
});

// A link opened after a smaller data set's run: its lot is read against the page's own end,
// not the last data set's N (a lot of 1,024 on Adult after breast cancer's 455 was cut to 455).
test("a link's lot is not cut to the data set shown before it", async () => {
  const { page, problems } = await openLab('#v=1&epochs=1&dataset=breast-cancer&lot_size=64');
  await waitForRun(page, 0, 1, { done: true });
  const g = await generationOf(page);
  await page.evaluate(() => {
    location.hash = 'v=1&epochs=1&dataset=adult&lot_size=1024';
  });
  await waitForRun(page, g, 1, { done: true, timeout: 60_000 });
  assert.equal(await page.locator('#lot-size-value').textContent(), '1024');
  assert.match(page.url(), /lot_size=1024/);
  // Back to breast cancer, loaded already: the slider ends at its N again, and L = 1,024 is all.
  const g2 = await generationOf(page);
  await page.evaluate(() => {
    location.hash = 'v=1&epochs=1&dataset=breast-cancer&lot_size=1024';
  });
  await waitForRun(page, g2, 1, { done: true, timeout: 60_000 });
  const end = await page.locator('#lot-size').getAttribute('max');
  assert.ok(Math.abs(10 ** Number(end) - 455) < 1, `the slider ends at ${10 ** Number(end)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

// A link's lot past Adult's N on a larger data set is its own: read against the page's end
// (Adult's 32,561) before the images' N is known, 60,000 images trained at L = 32,561 (q ≈ 0.54
// for the sharer's q = 1, another ε) and nothing said.
test("a link's lot past Adult's N is kept for a larger data set", async () => {
  const { page, problems } = await openLab('#v=1&epochs=1&dataset=fashion-mnist&lot_size=45000');
  await waitForRun(page, 0, 1, { done: true, timeout: 120_000 });
  assert.equal(await page.locator('#lot-size-value').textContent(), '45000');
  assert.match(page.url(), /lot_size=45000/);
  const end = await page.locator('#lot-size').getAttribute('max');
  assert.ok(Math.abs(10 ** Number(end) - 60_000) < 1, `the slider ends at ${10 ** Number(end)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

// A student moves a slider while a scanned link's pins still train: Compare's queued runs are
// of the settings then and go, but a link's pins are the sharer's, each with its own settings.
test("a control moved while a link's pins train keeps them, then the move is trained", async () => {
  const pins = ['a', 'b', 'c'].map((label, i) => ({ label, cfg: { sigma: 2 + i } }));
  const hash = `#v=1&epochs=6&pins=${encodeURIComponent(JSON.stringify(pins))}`;
  // What the page said, in order, with σ and the pins (said when the test fails).
  const record = () =>
    document.addEventListener('DOMContentLoaded', () => {
      const status = document.getElementById('status');
      const sigma = document.getElementById('sigma-value');
      window.said = [];
      new MutationObserver(() =>
        window.said.push(
          `${status.textContent.slice(0, 50)} | σ ${sigma.textContent}` +
            ` | pins ${document.querySelectorAll('#pin-list li').length}`,
        ),
      ).observe(status, { childList: true, subtree: true, characterData: true });
    });
  const { page, problems } = await openLab(hash, record);
  await page.waitForFunction(() =>
    /^Training "[ab]"/.test(document.getElementById('status').textContent),
  );
  await setRange(page, '#sigma', '7');
  await page.evaluate(() => window.said.push('(σ moved to 7)'));
  // The three pins, then the moved run done (a pin's run ends in 'Done' too).
  await page
    .waitForFunction(
      () =>
        document.querySelectorAll('#pin-list li').length === 3 &&
        /^Done/.test(document.getElementById('status').textContent) &&
        /[#&]sigma=7&/.test(location.hash),
      null,
      { timeout: 120_000 },
    )
    .catch(async (e) => {
      const had = await page.evaluate(() => [location.hash.slice(0, 60), ...window.said]);
      assert.fail(`${e.message}; the page had ${JSON.stringify(had, null, 1)}`);
    });
  const listed = await page.locator('#pin-list li').allTextContents();
  assert.deepEqual(listed, ['a', 'b', 'c']);
  assert.match(await page.locator('#status').textContent(), /^Done: 6 epochs/);
  assert.deepEqual(linkedPinLabels(page), ['a', 'b', 'c']);
  assert.deepEqual(problems, []);
  await page.close();
});

// The fuzz: keys the page reads, prototype keys and junk; values that are huge, tiny, empty,
// not numbers, markup, very long; pins malformed every way. Seeded, so a failure repeats.
const KEYS = [
  'v',
  'sigma',
  'clip',
  'lot_size',
  'lr',
  'epochs',
  'delta',
  'seed',
  'dataset',
  'model',
  'report',
  'amp',
  'pca',
  'pca_sigma',
  'adapt',
  'budget',
  'budget_acc',
  'pins',
  'lesson',
  'step',
  'size',
  'teacher',
  'big',
  'hide',
  'lock',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'prototype',
  '',
  'x',
];
const VALUES = [
  '1',
  '0',
  '-1',
  '2.5',
  '1e308',
  '-1e308',
  '1e-308',
  '5e-324',
  'Infinity',
  '-Infinity',
  'NaN',
  'nan',
  '',
  ' ',
  '0x10',
  '1_000',
  '٣',
  '1e',
  '.',
  '+',
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'adult',
  'mnist',
  'blobs',
  'own',
  'spiral',
  'mlp',
  'logistic',
  'private',
  'teaching',
  'paper',
  'clipping',
  'moments',
  'audit',
  'noise',
  'cost',
  '1.25',
  '<img src=x onerror="window.pwned=1">',
  '"><script>window.pwned=1</script>',
  'sigma,clip,dataset,play,run-log',
  '%',
  '%00',
  '\u202e',
  '🙂',
  'x'.repeat(5000),
  '9'.repeat(400),
  '[]',
  '{}',
  'null',
  'true',
  '[{}]',
  '[1,2]',
  '[{"label":"a","cfg":{"sigma":"x"}}]',
  '[{"label":{},"cfg":[]}]',
  '[{"label":"a","cfg":{"epochs":100000}}]',
  '[{"label":"a","cfg":{"lot_size":1e12,"dataset":"blobs"}}]',
  '[{"label":"a","cfg":{"dataset":"own"}}]',
  '[{"label":"a","cfg":{"__proto__":{"x":1}}}]',
  '{"__proto__":[]}',
  '[' + '['.repeat(3000),
  'null'.repeat(100),
];

function hashes(seed, n) {
  const rand = mulberry32(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = rand();
    if (r < 0.08) {
      // Raw junk: random bytes as a hash, percent signs, separators.
      const length = 1 + Math.floor(rand() * 40);
      const chars = Array.from({ length }, () => String.fromCharCode(32 + Math.floor(rand() * 95)));
      out.push(`#${chars.join('')}`);
      continue;
    }
    const params = new URLSearchParams();
    const count = 1 + Math.floor(rand() * 6);
    for (let k = 0; k < count; k++) params.append(pick(KEYS), pick(VALUES));
    out.push(`#${params}`);
  }
  return out;
}

// 400 hashes (FUZZ_COUNT for more): at this seed each key above comes up 23 to 53 times, each
// value 10 or more. 1,000 took 80 s of the suite (idle), the page restarting its run for most of
// them.
// A careless link says what it could not use: a key that is no setting (a typo), a lesson
// that is none, a step past the lesson's last; the rest is opened.
test('a typo, an unknown lesson and a step past the last are each said', async () => {
  const { page, problems } = await openLab('#v=1&epochs=1&dataset=blobs&Sigma=3&lesson=clippng');
  await waitForRun(page, 0, 1);
  const text = await message(page);
  assert.ok(text.includes("no setting of this lab, skipped: 'Sigma'"), text);
  assert.ok(text.includes("lesson = 'clippng' is not one of the lessons: none is opened"), text);
  await page.evaluate(() => {
    location.hash = 'v=1&epochs=1&dataset=blobs&lesson=noise&step=9';
  });
  await waitForMessage(page, /step = '9' is not a step of/);
  assert.equal(await page.locator('#lesson-count').textContent(), 'Step 2 of 2');
  assert.deepEqual(problems, []);
  await page.close();
});

test('fuzz: 400 random and adversarial URL hashes never break the page; it trains', async () => {
  const seed = Number(process.env.FUZZ_SEED) || 20261123;
  const count = Number(process.env.FUZZ_COUNT) || 400;
  const list = hashes(seed, count);
  const { page, problems } = await openLab('#v=1&epochs=1&dataset=blobs');
  await waitForRun(page, 0, 1);
  // A link opened in place (hashchange): in batches, in the page, each hash handled before the
  // next; the visible text checked after each.
  const failures = [];
  for (let i = 0; i < list.length; i += 100) {
    // Each hash set, then the text scanned before the next (one evaluation per batch).
    const run = async (batch, junk) => {
      const bad = [];
      for (const h of batch) {
        location.hash = h;
        await new Promise((r) => setTimeout(r, 0));
        const hit = junk(40);
        if (hit || window.pwned) bad.push(`${h.slice(0, 120)} → ${hit || 'script ran'}`);
      }
      return bad;
    };
    const found = await page.evaluate(
      `(${run})(${JSON.stringify(list.slice(i, i + 100))}, ${junkInPage})`,
    );
    failures.push(...found);
  }
  assert.deepEqual(failures, [], `FUZZ_SEED=${seed} FUZZ_COUNT=${count}`);
  assert.deepEqual(problems, [], `FUZZ_SEED=${seed} FUZZ_COUNT=${count}`);
  // The page still trains: a sane link, opened in place.
  const g = await generationOf(page);
  await page.evaluate(() => {
    location.hash = '#v=1&epochs=2&dataset=blobs&model=logistic';
  });
  await waitForRun(page, g, 2, { done: true });
  await page.close();

  // And as fresh loads (the start-up path), a sample of them.
  for (const h of list.filter((_, i) => i % 40 === 7)) {
    const fresh = await openLab(h);
    await fresh.page.waitForTimeout(300);
    assert.equal(await junkOnPage(fresh.page), null, h);
    assert.equal(await fresh.page.evaluate(() => window.pwned), undefined, h);
    assert.deepEqual(fresh.problems, [], h);
    await fresh.page.close();
  }
});
