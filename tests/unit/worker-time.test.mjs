// The training worker's yield (www/workers/worker-time.js): a message to itself or a timeout,
// whichever comes first. Its channel is a stand-in here whose messages arrive when the test
// says: promptly (Chromium, Firefox) or held up (WebKit, whose worker channels pass through
// the page's busy main thread). Each yield ends once, in order, and a late message ends no
// other yield.
import { test } from 'node:test';
import assert from 'node:assert/strict';

/** A MessageChannel whose port2 → port1 messages wait in `held` until `deliver()`. */
class HeldChannel {
  static held = [];
  constructor() {
    this.port1 = { onmessage: null };
    this.port2 = {
      postMessage: (data) => HeldChannel.held.push(() => this.port1.onmessage?.({ data })),
    };
  }
  static deliver() {
    for (const d of HeldChannel.held.splice(0)) d();
  }
}
const RealChannel = globalThis.MessageChannel;
globalThis.MessageChannel = HeldChannel;
const { chunkMs, yieldToEvents } = await import('../../www/workers/worker-time.js');

test('a yield whose message is held up ends by its timeout, once', { timeout: 5000 }, async () => {
  const ended = [];
  await Promise.all([1, 2, 3].map((i) => yieldToEvents().then(() => ended.push(i))));
  assert.deepEqual(ended, [1, 2, 3], 'each ended by its timer, in order');
  assert.equal(HeldChannel.held.length, 3, 'their messages still held');
  // The late messages arrive while a new yield waits: they must not end it early.
  let fourth = false;
  const next = yieldToEvents().then(() => (fourth = true));
  HeldChannel.deliver(); // the three late ones, and the fourth's own
  await next;
  assert.ok(fourth);
  HeldChannel.deliver();
});

test(
  'a yield whose message comes first ends by it, and its timer is cleared',
  { timeout: 5000 },
  async () => {
    const ended = [];
    const yields = [1, 2].map((i) => yieldToEvents().then(() => ended.push(i)));
    HeldChannel.deliver(); // before any timer's turn
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(ended, [1, 2], 'ended by their messages, before the timers');
    await Promise.all(yields);
    await new Promise((r) => setTimeout(r, 10)); // the timers' turn: nothing ends twice
    assert.deepEqual(ended, [1, 2]);
  },
);

test(
  'a message queued before a held-up yield runs before the yield ends',
  { timeout: 5000 },
  async () => {
    // The page's message (a real port: node delivers it after its due timers) is queued, then
    // the worker yields with its own message held up: the yield's timer must not be due before
    // the page's message has run, or the page would wait behind every chunk of lots.
    const page = new RealChannel();
    let heard = false;
    page.port1.onmessage = () => (heard = true);
    page.port2.postMessage('pause');
    await yieldToEvents();
    assert.ok(heard, 'the queued message ran first');
    page.port1.close();
    HeldChannel.deliver();
  },
);

test(
  'the work between yields lengthens while yields are held up, up to 50 ms, and comes back',
  { timeout: 5000 },
  async () => {
    // The yields' durations are the test's, on a clock it moves (never the machine's speed).
    const realNow = performance.now;
    let now = 0;
    performance.now = () => now;
    const prompt = async (n) => {
      for (let i = 0; i < n; i += 1) {
        const y = yieldToEvents();
        HeldChannel.deliver();
        await y;
      }
    };
    const held = async (n, ms) => {
      for (let i = 0; i < n; i += 1) {
        const y = yieldToEvents();
        now += ms; // its message held up this long; its timeout ends it
        await y;
      }
      HeldChannel.deliver(); // the late messages end nothing
    };
    try {
      // Prompt yields (Chromium's): 25 ms of lots between two.
      await prompt(30);
      assert.equal(chunkMs(), 25);
      // Held 5 ms each (WebKit's while the page draws): the running mean nears 5 ms, and the
      // chunk nine times that, so that yields stay a tenth of the time.
      await held(12, 5);
      const chunk = chunkMs();
      assert.ok(chunk > 40 && chunk < 45, `${chunk} ms between yields`);
      // A yield held 200 ms (the page busy): never more than 50 ms of lots between two.
      await held(1, 200);
      assert.equal(chunkMs(), 50);
      await prompt(30);
      assert.equal(chunkMs(), 25, 'back once the yields are prompt again');
    } finally {
      performance.now = realNow;
    }
  },
);
