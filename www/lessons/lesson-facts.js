// @ts-check
// The numbers a lesson quotes, read from the run on screen: its epoch reports (every number
// in them from Rust), its ε preview (Rust's, for the whole run), the data set's facts, the
// compared runs' gap (Rust's, from the accuracy chart's view), who pays for privacy (Rust's,
// from the groups chart's view: RunView.groups) and the last audit of these
// settings. Nothing here computes a privacy quantity: ε is only looked up and formatted.

/**
 * @typedef {{summary: {gap: number, gap_margin: number, worst: string, worst_acc: number,
 *   rarest: string,
 *   rarest_n_train: number},
 *   compared: null | {epoch: number, gap_non_private: number, gap_dp: number,
 *     gap_change_margin: number, gap_widened_clear: boolean, most_lost: string,
 *     most_lost_n_train: number, most_lost_points: number, most_lost_margin: number,
 *     most_lost_n_test: number, most_lost_clear: boolean, falls_beyond_noise: number,
 *     rarest: string, rarest_n_train: number}}} GroupFacts
 * @typedef {{realistic: number, worst: number, upper: number | undefined, runs?: number,
 *   aboveUpper?: boolean, said: {realistic?: string, worst?: string, upper?: string},
 *   region?: {verdict: string, above_at: number[] | null}}} AuditFacts
 * @typedef {{tpr: number, tprRange?: number[], allowed: number, best: number, bestFpr: number,
 *   verdict: string, runs: number, said?: Record<string, string>}} AliceFacts
 * @typedef {{
 *   done: boolean, epoch?: number, cfg: Record<string, any>,
 *   acc?: number, accNoisy?: boolean, majority?: number, nTrain?: number, nTest?: number,
 *   learnedNothing?: boolean, holdingBack?: {cause: string, say: string}, budgetStopped?: boolean,
 *   clipped?: number, clip_?: number, q?: number, noiseRatio_?: number, eps_?: number,
 *   whole: Record<string, number | undefined>, cost?: number, groups?: GroupFacts, audit?:
 * AuditFacts, alice?: AliceFacts, auditRuns?: number, earlierAudit?: {label: string, said:
 * {realistic?: string}}, accGap?: Gap, costGap?: Gap, prev: any, open?: string,
 *   addsNoise?: (s: {mode?: string, sigma?: number}) => boolean,
 * }} Facts
 * @typedef {{points: number, margin: number, clear: boolean}} Gap
 */

import { deltaText } from '../core/shown.js';

const finite = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The facts of the run on screen. `gap` is Rust's accuracy_gap (train/gap.rs): two test
 * accuracies compared on the test set's size, the ± every comparison a lesson states carries.
 * @param {{cfg: any, history: any[], done: boolean, data: any, preview: any[], pld: any[] | null,
 *   cost: number | undefined, groups?: any, audit: any[] | null, earlierAudit?: {label: string,
 * results: any[]} | null, alice?: any, auditRuns?: number, learnedNothing: boolean | undefined,
 * holdingBack?: {cause: string, say: string},
 * prev: any, gap?: (before: number, after: number, nTest: number) => Gap | undefined,
 * open?: string | null}} s
 * @returns {Facts}
 */
export function factsOf(s) {
  const last = s.history.at(-1);
  // The exact test accuracy only: a noisy count (the private level on a student's own file) is
  // no number a lesson quotes or compares with a ± that leaves its noise out (lesson-claims.js).
  const acc = finite(last?.test_acc);
  // Only a noisy count of the test accuracy (the private level on a student's own file).
  const accNoisy = acc === undefined && finite(last?.private_test_acc) !== undefined;
  const nTest = s.data?.n_test;
  const compare = (a, b) =>
    s.gap && finite(a) !== undefined && finite(b) !== undefined && nTest > 0
      ? (s.gap(a, b, nTest) ?? undefined)
      : undefined;
  const cost = finite(s.cost);
  /** @type {Record<string, number | undefined>} */
  const whole = {};
  // The accountants the preview has (Rust's: every one but PLD, whose curve comes apart).
  const { epoch: _epoch, ...end } = s.preview.at(-1) ?? {};
  for (const [name, eps] of Object.entries(end)) whole[name] = finite(eps);
  whole.pld = finite(s.pld?.at(-1));
  const realistic = s.audit?.find((r) => r.threat === 'realistic');
  const threat = (t) => s.audit?.find((r) => r.threat === t)?.eps_lower;
  // Each audit's ε as its own summary words them (Rust's `Said`: ε_lower rounded down, the PLD
  // accountant's ε, the region drawn, rounded up): one audit, one set of numbers (#53 §4).
  const said = (t) => s.audit?.find((r) => r.threat === t)?.said;
  return {
    done: s.done,
    epoch: last?.epoch,
    cfg: s.cfg,
    acc,
    accNoisy,
    majority: finite(s.data?.majority_share),
    nTrain: s.data?.n_train,
    nTest,
    learnedNothing: s.learnedNothing,
    holdingBack: s.holdingBack ?? undefined, // Rust's cause and hint (train/verdict.rs)
    // Whether an ε budget stopped the run (Rust's report, its last epoch): known once it is done.
    budgetStopped: s.done ? Boolean(last?.stopped_by_budget) : undefined,
    // Why nothing of the run is private (ε = ∞), when so: Rust's Coverage.open, its words.
    open: s.open ?? undefined,
    clipped: finite(last?.clipped_fraction),
    clip_: finite(last?.clip), // C at the end of the last epoch (Rust's report)
    q: finite(last?.sampling_rate), // Rust's, from the run's mechanism
    noiseRatio_:
      last && finite(last.signal_norm) && last.signal_norm > 0
        ? finite(last.noise_norm / last.signal_norm)
        : undefined,
    eps_: last ? (last.epsilon.moments === 'inf' ? Infinity : last.epsilon.moments) : undefined,
    whole,
    cost,
    // This run's accuracy against the previous step's; the non-private run's against DP-SGD's
    // (the cost, Rust's, in points: the non-private one is this run's plus it).
    accGap: compare(s.prev?.acc, acc),
    costGap:
      cost === undefined || acc === undefined
        ? undefined
        : compare(acc, Math.min(1, Math.max(0, acc + cost / 100))),
    groups: s.groups ?? undefined,
    audit: s.audit
      ? {
          realistic: threat('realistic'),
          worst: threat('worst-case'),
          upper: finite(realistic?.eps_upper?.pld),
          // Rust's: whether the attack proved more than the PLD accountant promised.
          aboveUpper: realistic?.lower_above_pld,
          region: realistic?.region,
          runs: realistic?.runs, // a side, as the audit trained them (not the box's now)
          said: {
            realistic: said('realistic')?.eps_lower,
            worst: said('worst-case')?.eps_lower,
            upper: said('realistic')?.pld,
          },
        }
      : undefined,
    // An audit of other settings kept beside this one (audit.js earlierAuditOf), as its words.
    earlierAudit: s.earlierAudit
      ? {
          label: s.earlierAudit.label,
          said: {
            realistic: s.earlierAudit.results.find((r) => r.threat === 'realistic')?.said
              ?.eps_lower,
          },
        }
      : undefined,
    // The "Alice" view of these settings (Rust's `audit::alice`), and the audit's region check.
    alice: s.alice?.alice
      ? {
          tpr: s.alice.alice.tpr_at_005,
          tprRange: s.alice.alice.tpr_interval_005,
          allowed: s.alice.alice.allowed_tpr_at_005,
          best: s.alice.alice.best_tpr,
          bestFpr: s.alice.alice.best_fpr,
          verdict: s.alice.region?.verdict,
          runs: s.alice.runs,
          said: s.alice.alice.said, // its figures as Rust's sentence writes them
        }
      : undefined,
    auditRuns: s.auditRuns,
    prev: s.prev ?? { whole: {} },
  };
}

const pct = (v) => (v === 0 ? '0%' : `${(100 * v).toFixed(1)}%`);
const digits = (/** @type {Facts} */ f) => f.cfg?.dataset === 'mnist' && f.cfg?.groups === 'class';
const times = (v) => `${v < 10 ? v.toFixed(1) : v.toFixed(0)}×`;
const num = (v) => String(Number(v.toPrecision(3)));

/**
 * What `{name}` in a lesson's sentence stands for: a formatter of the facts, or undefined
 * while the number is not known. `fmtEps` is Rust's ε formatter, `accountants` the names of
 * Rust's accountants() (none before the wasm has loaded).
 * @param {(v: number) => string} fmtEps
 * @param {string[]} accountants
 * @returns {Map<string, (f: Facts) => string | undefined>}
 */
export function fillers(fmtEps, accountants) {
  const when = (v, f) => (v === undefined || v === null ? undefined : f(v));
  const eps = (v) => (v === Infinity ? '∞' : when(finite(v), fmtEps));
  return new Map(
    Object.entries({
      acc: (f) => when(f.acc, pct),
      majority: (f) => when(f.majority, pct),
      clipped: (f) => when(f.clipped, pct),
      noiseRatio: (f) => when(f.noiseRatio_, times),
      holdingBack: (f) => f.holdingBack?.say, // Rust's hint, as the status line says it
      eps: (f) => eps(f.eps_),
      cost: (f) => when(f.cost, (v) => v.toFixed(1)), // Rust's, in points already
      // A comparison's difference (signed) and its ± (two standard errors), in points.
      accGap: (f) =>
        when(f.accGap?.points, (v) => `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(1)}`),
      accMargin: (f) => when(f.accGap?.margin, (v) => v.toFixed(1)),
      costMargin: (f) => when(f.costGap?.margin, (v) => v.toFixed(1)),
      costAbs: (f) => when(f.cost, (v) => Math.abs(v).toFixed(1)),
      // The C the run is at: the last report's (adaptive clipping moves it), else the setting.
      clip: (f) => when(f.clip_ ?? f.cfg.clip, num),
      sigma: (f) => when(f.cfg.sigma, num),
      delta: (f) => when(f.cfg.delta, deltaText), // as the charts write it (Rust's rule)
      lot: (f) => when(f.cfg.lot_size, String),
      epochs: (f) => when(f.cfg.epochs, String),
      q: (f) => when(f.q, (v) => v.toFixed(3)),
      nTrain: (f) => when(f.nTrain, (v) => v.toLocaleString('en')),
      nTest: (f) => when(f.nTest, String),
      auditRuns: (f) => when(f.auditRuns, String),
      // The whole run's ε by each accountant Rust lists: {whole.NAME}; before the wasm has
      // loaded (no names yet) any {whole.…} waits as "…" rather than showing as typed.
      ...Object.fromEntries(
        accountants.map((name) => [`whole.${name}`, (f) => eps(f.whole[name])]),
      ),
      ...(accountants.length ? {} : { 'whole.*': () => undefined }),
      strongOverMoments: (f) =>
        when(
          f.whole.strong !== undefined && f.whole.moments
            ? f.whole.strong / f.whole.moments
            : undefined,
          times,
        ),
      // Who pays for privacy (Rust's numbers; gaps and falls already in points).
      'groups.gap': (f) => when(f.groups?.summary.gap, (v) => v.toFixed(1)),
      'groups.gapMargin': (f) => when(f.groups?.summary.gap_margin, (v) => v.toFixed(1)),
      'groups.worst': (f) => f.groups?.summary.worst,
      'groups.worstAcc': (f) => when(f.groups?.summary.worst_acc, pct),
      'groups.rarest': (f) => f.groups?.summary.rarest,
      // What a group is: a digit on MNIST by class (who-pays' own), else a group (a link or
      // a student may open the step on Adult, whose class ">50K" is no digit).
      'groups.one': (f) => (digits(f) ? 'digit' : 'group'),
      'groups.One': (f) => (digits(f) ? 'Digit' : 'Group'),
      'groups.many': (f) => (digits(f) ? 'digits' : 'groups'),
      'groups.items': (f) => (digits(f) ? 'images' : 'examples'),
      // What a test row is on the data set on screen (the cost lesson's breast cancer: patients).
      examples: (f) =>
        ({ 'breast-cancer': 'patients', adult: 'people' })[f.cfg?.dataset ?? ''] ?? 'examples',
      'groups.rarestN': (f) => when(f.groups?.summary.rarest_n_train, String),
      'groups.gapNonPrivate': (f) => when(f.groups?.compared?.gap_non_private, (v) => v.toFixed(1)),
      'groups.gapDp': (f) => when(f.groups?.compared?.gap_dp, (v) => v.toFixed(1)),
      'groups.gapChangeMargin': (f) =>
        when(f.groups?.compared?.gap_change_margin, (v) => v.toFixed(1)),
      'groups.mostLost': (f) => f.groups?.compared?.most_lost,
      'groups.mostLostPoints': (f) =>
        when(f.groups?.compared?.most_lost_points, (v) => v.toFixed(1)),
      // Its ± (two standard errors from the group's test rows, Rust's) and those rows.
      'groups.mostLostMargin': (f) =>
        when(f.groups?.compared?.most_lost_margin, (v) => v.toFixed(1)),
      'groups.mostLostNTest': (f) => when(f.groups?.compared?.most_lost_n_test, String),
      // Rust's count of the falls beyond their ±, in words ("1 group falls … its", "3 … their").
      'groups.fallsBeyondNoise': (f) =>
        when(f.groups?.compared?.falls_beyond_noise, (n) =>
          n === 1
            ? '1 group falls beyond the noise of its test rows'
            : `${n} groups fall beyond the noise of their test rows`,
        ),
      'groups.mostLostN': (f) => when(f.groups?.compared?.most_lost_n_train, String),
      // The next largest fall (Rust's), beside a largest one no more than chance ahead of it.
      'groups.nextLost': (f) => f.groups?.compared?.next_lost ?? undefined,
      'groups.nextLostPoints': (f) =>
        when(f.groups?.compared?.next_lost_points, (v) => v.toFixed(1)),
      // Alice's figures as Rust's sentence writes them (audit::alice AliceSaid: the interval
      // rounded outward, what ε allows up).
      'alice.tpr': (f) => f.alice?.said?.tpr,
      'alice.allowed': (f) => f.alice?.said?.allowed,
      'alice.range': (f) => f.alice?.said?.range, // its 95% interval, "7–29%"
      'alice.best': (f) => f.alice?.said?.best,
      'alice.bestFpr': (f) => f.alice?.said?.best_fpr,
      'alice.runs': (f) => when(f.alice?.runs, String),
      'audit.realistic': (f) => f.audit?.said.realistic,
      'audit.runs': (f) => when(f.audit?.runs, String),
      'audit.worst': (f) => f.audit?.said.worst,
      'audit.upper': (f) => f.audit?.said.upper, // the PLD accountant's ε, the region's
      'earlierAudit.label': (f) => f.earlierAudit?.label,
      'earlierAudit.realistic': (f) => f.earlierAudit?.said.realistic,
      // What the realistic attack's ROC does against the region, by Rust's region check (the
      // test that draws the shaded band): where it rises above, as false-positive rates.
      'audit.region': (f) => {
        const r = f.audit?.region;
        if (!r || r.verdict === 'outside') return undefined;
        if (r.verdict === 'inside' || !r.above_at)
          return 'Its ROC (blue) stays in the grey region.';
        const [a, b] = r.above_at;
        const at = b - a < 0.005 ? a.toFixed(2) : `${a.toFixed(2)}–${b.toFixed(2)}`;
        return (
          `Its ROC (blue) pokes above the grey region at FPR ${at}, within its shaded 95% ` +
          `band: chance.`
        );
      },
    }),
  );
}

/**
 * `text` with each `{name}` filled from `facts` (and `{prev.name}` from the previous step's),
 * "…" for a number not known yet. An unknown name is a lesson's typo: shown as it is.
 * @param {string} text
 * @param {Facts} facts
 * @param {Map<string, (f: Facts) => string | undefined>} fill
 */
export function fillIn(text, facts, fill) {
  return text.replace(/\{(prev\.)?([a-zA-Z.]+)\}/g, (whole, prev, name) => {
    const f = fill.get(name) ?? (name.startsWith('whole.') ? fill.get('whole.*') : undefined);
    if (!f) return whole;
    const from = prev ? facts.prev : facts;
    return (from && from.cfg ? f(from) : undefined) ?? '…';
  });
}
