// The Workers control's logic without a browser (#40, section 2): the default worker count from
// a timed speed-up rather than the browser's own count (core-probe.js), what the tooltip says
// of it, and what it says when the helpers get their parts by message: the thing the browser
// really lacks (shared-channel.js), not always Atomics.waitAsync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultReason, speedupOf, workersShown } from '../../www/core-probe.js';
import { sharedBufferType, sharedMemoryMissing } from '../../www/shared-channel.js';
import { channelText } from '../../www/cores.js';

test('the default is no more workers than the timed speed-up shows, whatever the browser reports', () => {
  // WebKitGTK reported 4 on a 2-core machine: four loops of 20 ms took 40 ms together.
  assert.equal(speedupOf(20, 40, 4), 2);
  assert.equal(workersShown(speedupOf(20, 40, 4), 4), 2);
  assert.equal(workersShown(speedupOf(20, 28, 4), 4), 3, 'a loop that started late lowers the count');
  assert.equal(workersShown(speedupOf(20, 20.5, 4), 4), 4);
  assert.equal(workersShown(1.6, 4), 2, 'the figure errs low: 60 % of a second core counts');
  assert.equal(workersShown(1.4, 2), 1, 'less than half a second core is not one');
  assert.equal(workersShown(0.4, 4), 1, 'never fewer than one');
  assert.equal(workersShown(9, 4), 4, 'never more than were tried');
  for (const bad of [speedupOf(0, 1, 2), speedupOf(10, 0, 2), speedupOf(10, 20, 0), speedupOf(NaN, 3, 2)]) {
    assert.equal(workersShown(bad, 4), null);
  }
});

test('the Workers tooltip says where the default comes from', () => {
  const fewer = defaultReason({ reported: 4, measured: 2, speedup: 1.93, why: '' }, 2);
  assert.equal(fewer, 'By default 2: this browser reports 4 cores, but a short timing ran 2 at full speed at once (speed-up 1.9 ×).');
  const same = defaultReason({ reported: 2, measured: 2, speedup: 1.97, why: '' }, 2);
  assert.match(same, /^By default 2: this browser reports 2 cores, and a short timing ran 2 at full speed/);
  const untimed = defaultReason({ reported: 4, measured: null, speedup: null, why: 'it took too long' }, 4);
  assert.equal(untimed, 'By default 4: the 4 cores this browser reports (they could not be timed: it took too long).');
});

test('by message, the tooltip names what the browser lacks', () => {
  assert.equal(channelText('shared memory', ''), 'through shared memory.');
  assert.match(channelText('messages', 'isolation'), /not cross-origin isolated/);
  const noBuffer = channelText('messages', 'SharedArrayBuffer');
  assert.match(noBuffer, /no SharedArrayBuffer/);
  assert.doesNotMatch(noBuffer, /waitAsync/, 'WebKitGTK has Atomics.waitAsync: it lacks a buffer it can share');
  assert.match(channelText('messages', 'Atomics.waitAsync'), /no Atomics\.waitAsync/);
  assert.equal(channelText(null, ''), '');
});

test('what shared memory lacks: a buffer this page cannot make, or cannot post, is none (WebKitGTK)', (t) => {
  const saved = { isolated: globalThis.crossOriginIsolated, SAB: globalThis.SharedArrayBuffer, Memory: WebAssembly.Memory, Channel: globalThis.MessageChannel };
  t.after(() => {
    globalThis.crossOriginIsolated = saved.isolated;
    globalThis.SharedArrayBuffer = saved.SAB;
    WebAssembly.Memory = saved.Memory;
    globalThis.MessageChannel = saved.Channel;
  });
  globalThis.crossOriginIsolated = false;
  assert.equal(sharedMemoryMissing(), 'isolation');
  globalThis.crossOriginIsolated = true;
  assert.equal(sharedMemoryMissing(), typeof Atomics.waitAsync === 'function' ? '' : 'Atomics.waitAsync');
  // The global hidden: a shared wasm memory's buffer gives the constructor.
  delete globalThis.SharedArrayBuffer;
  assert.equal(sharedBufferType(), saved.SAB, 'the constructor of a shared wasm memory\'s buffer');
  // …but WebKitGTK refuses to post what it makes: no shared memory, and the reason is the buffer.
  globalThis.MessageChannel = class {
    constructor() {
      this.port1 = { postMessage: () => { throw new DOMException('The object can not be cloned.', 'DataCloneError'); }, close() {} };
      this.port2 = { close() {} };
    }
  };
  assert.equal(sharedBufferType(), null);
  assert.equal(sharedMemoryMissing(), 'SharedArrayBuffer');
  globalThis.MessageChannel = saved.Channel;
  WebAssembly.Memory = function NoSharedMemory() { throw new TypeError('shared memory is not supported'); };
  assert.equal(sharedBufferType(), null);
  assert.equal(sharedMemoryMissing(), 'SharedArrayBuffer');
});
