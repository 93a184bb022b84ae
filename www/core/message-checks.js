// @ts-check
// The messages' runtime shapes (the types are protocol.js's): each side checks what arrives
// before a handler reads it — a worker what the page or the training worker sends it
// (worker-shell.js answers a refused one with 'refused'), the page and the training worker
// what comes back, an accounting answer's `result` included (src/web/accounting.rs makes them).
// A message with an unknown type, a prototype key for a type, or a field missing or of the
// wrong kind is refused with the reason.

/** @typedef {import('./protocol.js').ToTraining} ToTraining */
/** @typedef {import('./protocol.js').FromTraining} FromTraining */
/** @typedef {import('./protocol.js').ToHelper} ToHelper */
/** @typedef {import('./protocol.js').FromHelper} FromHelper */
/** @typedef {import('./protocol.js').FromShell} FromShell */
/** @typedef {import('./protocol.js').ToAudit} ToAudit */
/** @typedef {import('./protocol.js').FromAudit} FromAudit */
/** @typedef {import('./protocol.js').ToAccounting} ToAccounting */
/** @typedef {import('./protocol.js').FromAccounting} FromAccounting */

/**
 * A message's fields, each with its check (the optional ones are its handler's to check).
 * @template {{type: string}} M
 * @typedef {{[K in M['type']]: {[F in RequiredField<Extract<M, {type: K}>>]: Check}}} Shapes
 */
/**
 * @template T
 * @typedef {Exclude<{[F in keyof T]-?: {} extends Pick<T, F> ? never : F}[keyof T],
 *   'type'>} RequiredField
 */
/** @typedef {(v: unknown) => boolean} Check */

const present = () => true;
const int = (/** @type {unknown} */ v) => Number.isInteger(v);
const num = (/** @type {unknown} */ v) => typeof v === 'number';
const str = (/** @type {unknown} */ v) => typeof v === 'string';
const obj = (/** @type {unknown} */ v) => typeof v === 'object' && v !== null;
const list = (/** @type {unknown} */ v) => Array.isArray(v);

/**
 * A check of messages with `shapes`: the message, or why it is refused.
 * @template {{type: string}} M
 * @param {Shapes<M>} shapes
 * @returns {(m: unknown) => M | string}
 */
function checker(shapes) {
  /** @type {Map<string, [string, Check][]>} */
  const byType = new Map(
    Object.entries(shapes).map(([type, fields]) => [type, Object.entries(fields)]),
  );
  return (m) => {
    if (typeof m !== 'object' || m === null) return 'not a message';
    const type = /** @type {{type?: unknown}} */ (m).type;
    const fields = typeof type === 'string' ? byType.get(type) : undefined;
    if (!fields) return `a message of unknown type '${String(type).slice(0, 30)}'`;
    const bad = fields.find(
      ([f, ok]) => !Object.prototype.hasOwnProperty.call(m, f) || !ok(/** @type {any} */ (m)[f]),
    );
    return bad ? `a message '${type}' without a valid '${bad[0]}'` : /** @type {M} */ (m);
  };
}

/**
 * `check` for the page: the message, or null.
 * @template M
 * @param {(m: unknown) => M | string} check
 * @returns {(m: unknown) => M | null}
 */
const orNull = (check) => (m) => {
  const r = check(m);
  return typeof r === 'string' ? null : r;
};

// Towards each worker (checked by worker-shell.js before a handler runs).
/** @type {Shapes<ToTraining>} */
const TO_TRAINING_SHAPES = {
  start: { generation: int, config: obj, play: present, workers: present },
  pause: { generation: int },
  resume: { generation: int },
  'own-data': {
    files: (v) => Array.isArray(v) && v.length >= 1,
    label: present,
    bounds: present,
    ranges: list,
    read_off: present,
    delta: num,
  },
  cap: { workers: present, reason: present },
  bench: { model: str, workers: present, ms: num },
  'bench-products': { model: str, n: num, ms: num },
  'test-panic': {},
  'test-hang-helper': {},
};
export const checkToTraining = checker(TO_TRAINING_SHAPES);

/** @type {Shapes<ToHelper>} */
const TO_HELPER_SHAPES = {
  rows: { x: present, y: present },
  configure: { spec: present },
  channel: { channel: present },
  sum: { id: int, params: present, part: present, bounds: present },
  'test-hang': {},
};
export const checkToHelper = checker(TO_HELPER_SHAPES);

/** @type {Shapes<ToAudit>} */
const TO_AUDIT_SHAPES = {
  'audit-plan': { config: obj, specs: list },
  'audit-run': { threat: str, index: int },
  'audit-summarize': { threat: str, runs: list },
};
export const checkToAudit = checker(TO_AUDIT_SHAPES);

/** @type {Shapes<ToAccounting>} */
const TO_ACCOUNTING_SHAPES = {
  calibrate: { id: int, config: present, facts: present, accountant: present, target: present },
  'sigma-needed': { id: int, config: present, facts: present, target: present },
  'pld-curve': { id: int, config: present, facts: present },
  'file-ledger': { id: int, preparations: present, runs: present },
  'opacus-export': { id: int, config: obj, accountant: str },
};
export const checkToAccounting = checker(TO_ACCOUNTING_SHAPES);

// Towards the page: a training worker's message (the shell's pong, crashed and refused are
// kept-worker.js's) or an audit worker's, if it has a known type and its fields, else null.
/** @type {Shapes<FromTraining>} */
const FROM_TRAINING_SHAPES = {
  ready: {},
  'init-error': { message: present },
  progress: { generation: present, stage: present },
  data: { generation: present, facts: present },
  resize: { generation: present, n_train: present },
  started: { generation: present, coverage: present, plane: present, workers: present },
  workers: { generation: present, workers: present },
  'helper-lost': { generation: present, message: present },
  report: { generation: present, report: present },
  done: { generation: present, parts: present },
  error: { generation: present, message: present },
  'own-data-loaded': { facts: present, file: present },
  'own-data-rejected': { message: present, file: present, spent: present, ranges: present },
  bench: {
    model: present,
    workers: present,
    helpers: present,
    channel: present,
    examples_per_sec: present,
    phases: present,
    ceiling: present,
  },
  'bench-products': { model: present, gflops: present },
};
export const checkFromWorker = orNull(checker(FROM_TRAINING_SHAPES));

/** @type {Shapes<FromAudit>} */
const FROM_AUDIT_SHAPES = {
  'audit-planned': { totals: obj },
  'audit-run': { threat: present, run: present },
  'audit-result': { threat: present, result: present },
  'audit-error': { message: present },
  crashed: { message: present },
  'init-error': { message: present },
  refused: { message: present, id: present },
};
export const checkFromAuditWorker = orNull(checker(FROM_AUDIT_SHAPES));

// Towards the training worker from a helper (gradient-pool.js): a part with its arrays of the
// kinds Rust reads (Session.receivePart; `counts`: examples, clipped, unclipped, the rows'
// digest), or why it failed; and the shell's own messages.
const f32 = (/** @type {unknown} */ v) => v instanceof Float32Array;
/** @type {Shapes<FromHelper | FromShell>} */
const FROM_HELPER_SHAPES = {
  part: {
    id: int,
    grad: f32,
    norms: f32,
    counts: (v) => v instanceof Uint32Array && v.length === 4,
    ms: num,
  },
  'part-error': { message: present },
  pong: {},
  crashed: { message: present },
  'init-error': { message: present },
  refused: { message: present, id: present },
};
export const checkFromHelper = checker(FROM_HELPER_SHAPES);

// Towards the page from the accounting worker: {id, type, result} or {id, type, error}, and
// each type's `result` as Rust gives it (src/web/accounting.rs; ε a number or "inf"; a
// σ-needed point an epoch and, per accountant, a σ or null).
const epsilon = (/** @type {unknown} */ v) => typeof v === 'number' || v === 'inf';
const each = (/** @type {Check} */ ok) => (/** @type {unknown} */ v) =>
  Array.isArray(v) && v.every(ok);
/** @type {{[K in ToAccounting['type']]: (r: any) => boolean}} */
const ACCOUNTING_RESULTS = {
  calibrate: (r) => obj(r) && num(r.sigma) && epsilon(r.epsilon) && str(r.accountant),
  'sigma-needed': each(
    (p) =>
      obj(p) &&
      int(/** @type {any} */ (p).epoch) &&
      Object.values(/** @type {object} */ (p)).every((s) => s === null || num(s)),
  ),
  'pld-curve': each(epsilon),
  'file-ledger': (r) =>
    obj(r) &&
    int(r.runs) &&
    num(r.steps) &&
    num(r.delta) &&
    epsilon(r.moments) &&
    epsilon(r.rdp) &&
    each(str)(r.caveats),
  'opacus-export': (r) => obj(r) && str(r.name) && r.bytes instanceof Uint8Array,
};
const RESULT_OF = new Map(Object.entries(ACCOUNTING_RESULTS));

/**
 * An accounting answer, or why it is refused.
 * @param {unknown} m
 * @returns {FromAccounting | string}
 */
export function checkFromAccounting(m) {
  if (typeof m !== 'object' || m === null) return 'not a message';
  const { type, id } = /** @type {{type?: unknown, id?: unknown}} */ (m);
  const result = typeof type === 'string' ? RESULT_OF.get(type) : undefined;
  if (!result) return `an answer of unknown type '${String(type).slice(0, 30)}'`;
  if (!int(id)) return `an answer '${type}' without a valid 'id'`;
  const own = (/** @type {string} */ f) => Object.prototype.hasOwnProperty.call(m, f);
  if (own('error'))
    return str(/** @type {any} */ (m).error)
      ? /** @type {FromAccounting} */ (m)
      : `an answer '${type}' whose 'error' is not a sentence`;
  return own('result') && result(/** @type {any} */ (m).result)
    ? /** @type {FromAccounting} */ (m)
    : `an answer '${type}' without a valid 'result'`;
}
