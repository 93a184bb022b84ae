// The shapes of www/core/message-checks.js (protocol.js's messages), without a browser: what
// each side accepts and what it refuses (a worker answers a refused message with 'refused',
// worker-shell.js; the page ignores it, or answers the request with why).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TO_AUDIT, TO_WORKER } from '../../www/core/protocol.js';
import {
  checkFromAccounting,
  checkFromAuditWorker,
  checkFromHelper,
  checkFromWorker,
  checkToAccounting,
  checkToAudit,
  checkToHelper,
  checkToTraining,
} from '../../www/core/message-checks.js';

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
    [checkToTraining, { type: 'bench-products', model: 'mlp 60-1000-10', n: 300, ms: 100 }],
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

test("a helper's part is taken with the arrays Rust reads, else refused with why", () => {
  const part = {
    type: 'part',
    id: 3,
    grad: new Float32Array(5),
    norms: new Float32Array(2),
    counts: new Uint32Array(4),
    ms: 1.5,
  };
  assert.equal(checkFromHelper(part), part);
  for (const m of [{ type: 'part-error', id: 3, message: 'x' }, { type: 'pong' }])
    assert.equal(checkFromHelper(m), m);
  for (const m of JUNK) assert.equal(typeof checkFromHelper(m), 'string', JSON.stringify(m));
  const bad = [
    [{ ...part, counts: new Uint32Array(3) }, 'counts'],
    [{ ...part, grad: [0, 0, 0, 0, 0] }, 'grad'],
    [{ ...part, norms: new Float64Array(2) }, 'norms'],
    [{ ...part, ms: '1.5' }, 'ms'],
    [{ ...part, id: undefined }, 'id'],
  ];
  for (const [m, field] of bad)
    assert.equal(checkFromHelper(m), `a message 'part' without a valid '${field}'`);
});

// An answer of each type as src/web/accounting.rs makes it (the e2e tests take the real ones).
const ANSWERS = {
  calibrate: { sigma: 1.2345, epsilon: 0.99, accountant: 'moments' },
  'sigma-needed': [
    { epoch: 1, naive: 3.1, strong: null, moments: 0.9, pld: null },
    { epoch: 400, naive: null, strong: null, moments: 2.2, pld: null },
  ],
  'pld-curve': [0.5, 0.8, 'inf'],
  'file-ledger': {
    runs: 2,
    steps: 300,
    preparations: 1,
    delta: 1e-5,
    moments: 'inf',
    rdp: 4.2,
    unbounded: 'a run with a fixed seed',
    caveats: ['Runs with a fixed seed are not private'],
  },
  'opacus-export': { name: 'run.py', bytes: new Uint8Array(3) },
};

test("an accounting answer is taken with its type's result as Rust gives it, or an error", () => {
  for (const [type, result] of Object.entries(ANSWERS)) {
    const m = { id: 7, type, result };
    assert.equal(checkFromAccounting(m), m, type);
    const failed = { id: 7, type, error: 'no σ up to 1e6 is enough' };
    assert.equal(checkFromAccounting(failed), failed, type);
  }
});

test('an accounting answer without its shape is refused with why', () => {
  for (const m of JUNK) assert.equal(typeof checkFromAccounting(m), 'string', JSON.stringify(m));
  const wrong = {
    calibrate: { sigma: '1.2', epsilon: 0.99, accountant: 'moments' },
    'sigma-needed': [{ epoch: 1.5, naive: 3 }],
    'pld-curve': [0.5, 'Infinity'],
    'file-ledger': { ...ANSWERS['file-ledger'], caveats: 'none' },
    'opacus-export': { name: 'run.py', bytes: [1, 2, 3] },
  };
  for (const [type, result] of Object.entries(wrong))
    assert.equal(
      checkFromAccounting({ id: 1, type, result }),
      `an answer '${type}' without a valid 'result'`,
    );
  assert.equal(
    checkFromAccounting({ id: 1, type: 'calibrate' }),
    "an answer 'calibrate' without a valid 'result'",
  );
  assert.equal(
    checkFromAccounting({ id: '1', type: 'calibrate', result: ANSWERS.calibrate }),
    "an answer 'calibrate' without a valid 'id'",
  );
  assert.equal(
    checkFromAccounting({ id: 1, type: 'pld-curve', error: { message: 'x' } }),
    "an answer 'pld-curve' whose 'error' is not a sentence",
  );
  assert.equal(
    checkFromAccounting({ id: 1, type: 'toString', result: [] }),
    "an answer of unknown type 'toString'",
  );
});
