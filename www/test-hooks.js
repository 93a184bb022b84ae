// Hooks for the end-to-end tests (window.labTest): a worker dying as a crash or a Rust panic
// would end it, a message the page must refuse, a worker that goes silent, an audit's cap on the
// training workers, the run's reports and a fixed audit seed. `training()` is the current training worker (a KeptWorker).
export function installTestHooks({ training, accounting, reports, fixAuditSeed }) {
  window.labTest = Object.freeze({
    killTrainingWorker: () => training().kill(),
    panicTrainingWorker: () => training().post({ type: 'test-panic' }),
    capTraining: (workers) => training().post({ type: 'cap', workers, reason: 'a test' }),
    killAccountingWorker: () => accounting.worker.kill(),
    fakeWorkerMessage: (data) => training().worker?.dispatchEvent(new MessageEvent('message', { data })),
    setSilence: (ms) => { training().silenceMs = ms; accounting.worker.silenceMs = ms; },
    reports: () => JSON.parse(JSON.stringify(reports())),
    fixAuditSeed,
  });
}
