// The lot size L never changes without the page saying so. When L is at least the data's N
// training rows, every step would use every row (q = 1) — sampling then hides no one and ε
// grows fast. What that spends, and what a smaller lot would, is Rust's (lot_at_least_n: the
// run's mechanism, moments accountant); this module only chooses the new L and says it:
// - a student's file just loaded with L ≥ N: L becomes Rust's suggestion (a tenth of N);
// - a run whose L is above N (a link, another data set): a student's file takes the
//   suggestion; a built-in set all of its rows, L = N (a link's larger lot means all of it);
//   a pinned run trains with L = N and the settings stay.
import { lot_at_least_n } from '../pkg/dpsgd_lab.js';
import { deltaText } from '../core/shown.js';
import { settings } from './settings.js';

// Rust's figures for `cfg` on data with `facts`, or null (L < N, or no figures).
function check(cfg, facts) {
  try {
    return lot_at_least_n(cfg, facts);
  } catch {
    return null;
  }
}

const rate = (q) => String(+q.toPrecision(2));
const epochs = (at) => `${at.epochs} epoch${at.epochs === 1 ? '' : 's'}`;

// "Lot size L = 256 is at least the N = 160 training rows of your file: …" for Rust's `at`.
function atLeastN(at, own, fmtEps) {
  const of = own ? 'your file' : 'this data set';
  return (
    `Lot size L = ${at.lot} is at least the N = ${at.n_train} training rows of ${of}: every ` +
    `step uses every row (q = 1), ` +
    (`which spends privacy fast — ε = ${fmtEps(at.epsilon)} for ${epochs(at)} (moments ` +
      `accountant, δ = ${deltaText(at.delta)}).`)
  );
}

// The smaller lot ("16 (q = 0.099)") and what it spends ("ε = 3.2 at δ = 1e-5 for the same
// epochs").
const lotAndQ = (at) => `${at.suggested_lot} (q = ${rate(at.suggested_q)})`;
const spends = (at, fmtEps) =>
  `ε = ${fmtEps(at.suggested_epsilon)} at δ = ${deltaText(at.delta)} for the same epochs`;

// A student's file was loaded with the settings' `cfg`: when its L is at least the file's N,
// L becomes a tenth of N; returns what to say ('' when L stays).
export function fitOwnLot(cfg, facts, fmtEps) {
  const at = check(cfg, facts);
  if (!at) return '';
  settings.setLotRange(facts.n_train, at.suggested_lot);
  return (
    `${atLeastN(at, true, fmtEps)} So the lot size was changed from L = ${at.lot} to L ` +
    `= ${lotAndQ(at)}, ` +
    `which spends ${spends(at, fmtEps)}; move the Lot size slider to choose another.`
  );
}

// The worker found the lot of run `cfg` (pinned: `pin`) larger than its data's N (`facts`):
// the lot to train with instead, and why, naming the old and the new L.
export function resized(cfg, facts, pin, fmtEps) {
  const n = facts.n_train;
  const own = cfg.dataset === 'own';
  const at = check({ ...cfg, lot_size: Math.min(cfg.lot_size, n) }, facts);
  const lot = own && !pin && at ? at.suggested_lot : n;
  const q1 = at
    ? ` Every step uses every row (q = 1), which spends privacy fast: ε ` +
      `= ${fmtEps(at.epsilon)} at δ = ${deltaText(at.delta)} for ${epochs(at)}.`
    : '';
  const head =
    `Lot size L = ${cfg.lot_size} is larger than the N = ${n} training rows ` +
    `of ${own ? 'your file' : 'this data set'}`;
  if (pin)
    return {
      lot,
      said:
        `Pinned run "${pin.label}": ${head[0].toLowerCase()}${head.slice(1)}: it trains with L ` +
        `= N = ${n}; the settings stay.${q1}`,
    };
  if (lot !== n) {
    return {
      lot,
      said:
        `${head}: the lot size was changed from L = ${cfg.lot_size} to L = ${lotAndQ(at)}, ` +
        `which spends ${spends(at, fmtEps)}; move the Lot size slider to choose another.`,
    };
  }
  const instead = at ? ` A lot of ${lotAndQ(at)} would spend ${spends(at, fmtEps)}.` : '';
  return {
    lot,
    said:
      `${head}: the lot size was changed from L = ${cfg.lot_size} to L = N = ${n}, all of ` +
      `it.${q1}${instead}`,
  };
}
