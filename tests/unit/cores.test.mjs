// The Workers control's logic without a browser (#40, section 2): the default worker count from
// a timed speed-up rather than the browser's own count (core-probe.js), what the tooltip says
// of it, and what it says when the helpers get their parts by message: the thing the browser
// really lacks (shared-channel.js), not always Atomics.waitAsync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultReason, median, speedupOf, workersShown } from '../../www/core/core-probe.js';
import { sharedBufferType, sharedMemoryMissing } from '../../www/workers/shared-channel.js';
import { channelText, whenQuiet } from '../../www/views/cores.js';

test('the default is no more workers than the timed speed-up shows, whatever is reported', () => {
  // WebKitGTK reported 4 on a 2-core machine: four loops in one window each ran at half speed.
  assert.equal(speedupOf(100, [50, 50, 50, 50]), 2);
  assert.equal(workersShown(speedupOf(100, [50, 50, 50, 50]), 4), 2);
  assert.equal(
    workersShown(speedupOf(100, [60, 55, 50, 55]), 4),
    2,
    'loops started a little apart: 2.2 on two cores',
  );
  assert.equal(workersShown(2.5, 4), 2, "WebKit's four loops on two cores, once in make test");
  assert.equal(workersShown(2.6, 4), 3);
  assert.equal(workersShown(speedupOf(100, [98, 97, 99, 96]), 4), 4);
  // Four loops on two cores while WebKit loaded the page (steps per ms): the best alone rate
  // over the rounds, the median round.
  const alone = Math.max(136489, 53897, 115846, 156753, 99333);
  const rounds = [
    [98361, 93625, 77326, 15263],
    [117333, 49545, 45680, 77449],
    [156671, 51772, 12921, 46085],
    [121656, 85351, 92000, 44514],
    [246338, 136875, 103862, 133142],
  ];
  assert.equal(workersShown(median(rounds.map((r) => speedupOf(alone, r))), 4), 2);
  assert.equal(median([2, 1, NaN, 4]), 2);
  assert.ok(Number.isNaN(median([])));
  assert.equal(
    workersShown(1.6, 4),
    2,
    'a loaded machine makes it err low: 60 % of a second core counts',
  );
  assert.equal(workersShown(1.4, 2), 1, 'less than half a second core is not one');
  assert.equal(workersShown(0.4, 4), 1, 'never fewer than one');
  assert.equal(workersShown(9, 4), 4, 'never more than were tried');
  for (const bad of [
    speedupOf(0, [1]),
    speedupOf(10, []),
    speedupOf(10, [5, -1]),
    speedupOf(NaN, [3]),
  ]) {
    assert.equal(workersShown(bad, 4), null);
  }
});

test('the Workers tooltip says where the default comes from', () => {
  const fewer = defaultReason({ reported: 4, measured: 2, speedup: 1.93, why: '' }, 2);
  assert.equal(
    fewer,
    'By default 2: this browser reports 4 cores, but a short timing ran 2 at full speed at ' +
      'once (speed-up 1.9 ×).',
  );
  const same = defaultReason({ reported: 2, measured: 2, speedup: 1.97, why: '' }, 2);
  assert.match(
    same,
    /^By default 2: this browser reports 2 cores, and a short timing ran 2 at full speed/,
  );
  const untimed = defaultReason(
    { reported: 4, measured: null, speedup: null, why: 'it took too long' },
    2,
  );
  assert.equal(
    untimed,
    'By default 2: this browser reports 4 cores, which could not be timed (it took too long).',
  );
  // Before the timing, which waits until a run has ended (timed while the page loads, it read
  // one core of two).
  const before = defaultReason(null, 2, 4);
  assert.equal(
    before,
    'By default 2 until a run has ended: then a short timing shows how many this device runs ' +
      'at full speed at once (this browser reports 4 cores).',
  );
});

test('by message, the tooltip names what the browser lacks', () => {
  assert.equal(channelText('shared memory', ''), 'through shared memory.');
  assert.match(channelText('messages', 'isolation'), /not cross-origin isolated/);
  const noBuffer = channelText('messages', 'SharedArrayBuffer');
  assert.match(noBuffer, /no SharedArrayBuffer/);
  assert.doesNotMatch(
    noBuffer,
    /waitAsync/,
    'WebKitGTK has Atomics.waitAsync: it lacks a buffer it can share',
  );
  assert.match(channelText('messages', 'Atomics.waitAsync'), /no Atomics\.waitAsync/);
  assert.equal(channelText(null, ''), '');
});

test('what shared memory lacks: a buffer the page cannot make or post is none (WebKitGTK)', (t) => {
  const saved = {
    isolated: globalThis.crossOriginIsolated,
    SAB: globalThis.SharedArrayBuffer,
    Memory: WebAssembly.Memory,
    Channel: globalThis.MessageChannel,
  };
  t.after(() => {
    globalThis.crossOriginIsolated = saved.isolated;
    globalThis.SharedArrayBuffer = saved.SAB;
    WebAssembly.Memory = saved.Memory;
    globalThis.MessageChannel = saved.Channel;
  });
  globalThis.crossOriginIsolated = false;
  assert.equal(sharedMemoryMissing(), 'isolation');
  globalThis.crossOriginIsolated = true;
  assert.equal(
    sharedMemoryMissing(),
    typeof Atomics.waitAsync === 'function' ? '' : 'Atomics.waitAsync',
  );
  // The global hidden: a shared wasm memory's buffer gives the constructor.
  delete globalThis.SharedArrayBuffer;
  assert.equal(sharedBufferType(), saved.SAB, "the constructor of a shared wasm memory's buffer");
  // …but WebKitGTK refuses to post what it makes: no shared memory, and the reason is the buffer.
  globalThis.MessageChannel = class {
    constructor() {
      this.port1 = {
        postMessage: () => {
          throw new DOMException('The object can not be cloned.', 'DataCloneError');
        },
        close() {},
      };
      this.port2 = { close() {} };
    }
  };
  assert.equal(sharedBufferType(), null);
  assert.equal(sharedMemoryMissing(), 'SharedArrayBuffer');
  globalThis.MessageChannel = saved.Channel;
  WebAssembly.Memory = function NoSharedMemory() {
    throw new TypeError('shared memory is not supported');
  };
  assert.equal(sharedBufferType(), null);
  assert.equal(sharedMemoryMissing(), 'SharedArrayBuffer');
});

test('the cores are timed once the page is quiet, again when a timing is cut short', async () => {
  const options = { poll: 1, pause: 0 };
  // Busy for a while (a run, an accounting request), then quiet: no timing before.
  let busyFor = 5;
  let timings = 0;
  const answer = await whenQuiet(
    () => busyFor-- <= 0,
    async () => {
      timings += 1;
      return 'timed';
    },
    options,
  );
  assert.equal(answer, 'timed');
  assert.equal(timings, 1, 'timed only once quiet');
  // Interrupted twice (the probe answers null): it waits for quiet again, then times.
  const answers = [null, null, 'third'];
  const looks = [];
  const got = await whenQuiet(
    () => {
      looks.push(answers.length);
      return true;
    },
    async () => answers.shift(),
    options,
  );
  assert.equal(got, 'third');
  assert.deepEqual(looks, [3, 2, 1], 'quiet looked at before each timing');
  // Busy far longer than the old ten seconds' worth of looks (20): still timed at the end.
  let looked = 0;
  assert.equal(
    await whenQuiet(
      () => ++looked > 50,
      async () => looked,
      options,
    ),
    51,
  );
});
