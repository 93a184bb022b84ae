// The shapes of www/core/protocol.js, without a browser: what each side accepts and what it refuses
// (a worker answers a refused message with 'refused', worker-shell.js; the page ignores it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TO_AUDIT,
  TO_WORKER,
  checkFromAuditWorker,
  checkFromWorker,
  checkToAccounting,
  checkToAudit,
  checkToHelper,
  checkToTraining,
} from '../../www/core/protocol.js';

const JUNK = [
  null,
  undefined,
  7,
  'start',
  [],
  {},
  { type: 7 },
  { type: '__proto__' },
  { type: 'constructor', generation: 0 },
  { type: 'toString' },
  { type: 'hasOwnProperty' },
  JSON.parse('{"type": "start", "__proto__": {"generation": 1, "config": {}}}'),
];

test('each worker refuses junk, prototype keys and messages lacking fields, saying why', () => {
  for (const check of [checkToTraining, checkToHelper, checkToAudit, checkToAccounting]) {
    for (const m of JUNK) assert.equal(typeof check(m), 'string', JSON.stringify(m));
  }
  assert.equal(
    checkToTraining({ type: 'start', generation: 1.5, config: {}, play: true, workers: 1 }),
    "a message 'start' without a valid 'generation'",
  );
  assert.equal(
    checkToTraining({ type: 'start', generation: 1, config: null, play: true, workers: 1 }),
    "a message 'start' without a valid 'config'",
  );
  assert.equal(
    checkToTraining({
      type: 'own-data',
      files: [],
      label: '',
      bounds: '',
      ranges: [],
      read_off: false,
      delta: 1e-5,
    }),
    "a message 'own-data' without a valid 'files'",
  );
  assert.equal(
    checkToAudit({ type: 'audit-run', threat: 'realistic', index: '3' }),
    "a message 'audit-run' without a valid 'index'",
  );
  assert.equal(
    checkToAccounting({ type: 'pld-curve', config: {}, facts: {} }),
    "a message 'pld-curve' without a valid 'id'",
  );
  assert.equal(checkToTraining({ type: 'reboot' }), "a message of unknown type 'reboot'");
});

test('each worker accepts what the page and the training worker send', () => {
  const sent = [
    [checkToTraining, TO_WORKER.start(3, { sigma: 1 }, true, 2, 2)],
    [checkToTraining, TO_WORKER.pause(3)],
    [checkToTraining, TO_WORKER.resume(3)],
    [checkToTraining, TO_WORKER.cap(null, '')],
    [checkToTraining, TO_WORKER.ownData([{}], 'label', '', [['a,b', 0, 1]], false, 1e-5)],
    [checkToTraining, { type: 'test-panic' }],
    [checkToTraining, { type: 'bench', model: 'logistic', workers: 2, ms: 100, alone: false }],
    [checkToAudit, TO_AUDIT.plan({}, [])],
    [checkToAudit, TO_AUDIT.run('worst-case', 0)],
    [checkToAudit, TO_AUDIT.summarize('worst-case', [])],
    [checkToAccounting, { id: 1, type: 'file-ledger', preparations: [], runs: [] }],
    [checkToHelper, { type: 'rows', x: new Float32Array(2), y: new Uint32Array(1), setup: 1 }],
    [
      checkToHelper,
      {
        type: 'sum',
        id: 4,
        params: new Float32Array(2),
        part: new Uint32Array(1),
        bounds: new Float64Array(1),
      },
    ],
  ];
  for (const [check, m] of sent) assert.equal(check(m), m, JSON.stringify(m));
});

test("the page takes the workers' messages with their fields only", () => {
  for (const m of JUNK) {
    assert.equal(checkFromWorker(m), null, JSON.stringify(m));
    assert.equal(checkFromAuditWorker(m), null, JSON.stringify(m));
  }
  assert.equal(checkFromWorker({ type: 'done', generation: 1 }), null);
  const done = { type: 'done', generation: 1, parts: { helpers: 0, here: 0 } };
  assert.equal(checkFromWorker(done), done);
  const crashed = { type: 'crashed', message: 'unreachable' };
  assert.equal(checkFromAuditWorker(crashed), crashed);
});
