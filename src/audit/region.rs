//! Whether an attack's ROC stays in the privacy region, decided by the test the picture draws.
//!
//! The ROC's uncertainty is joint: at every threshold both the TPR and the FPR are estimates.
//! By the Dvoretzky–Kiefer–Wolfowitz inequality with Massart's constant, an empirical CDF of n
//! draws is within e = √(ln(2/α)/(2n)) of the true one at every point at once with
//! probability ≥ 1 − α. The TPR and FPR of all thresholds are two such CDFs (of the scores with
//! and without the canary), so with α = 2.5% each, with 95% confidence the true ROC point of
//! every threshold lies in the box [FPR ± e_out] × [TPR ± e_in] around the measured one: the
//! band drawn is the union of these boxes. A correct run's true ROC is in the region, so the
//! band must reach into it at every threshold: "outside" means the box's lower-right corner
//! (FPR + e_out, TPR − e_in) lies above the region's edge somewhere.
//!
//! The split-half threshold that gives ε_lower (`stats::epsilon_lower`) is a second 95% test;
//! its box (Clopper–Pearson on the evaluation half) is drawn too, and its corner above the edge
//! also counts as "outside" — so the sentence never says "inside" over a box drawn outside.

use super::stats::{clopper_pearson, epsilon_lower_at, Counts, LogFactorials, LowerBound};
use super::tradeoff::TradeOff;
use serde::Serialize;

/// Each CDF's share of the 5% the band may miss.
const DKW_ALPHA: f64 = 0.025;
/// Points a curve may be above the edge by and still count as on it (the edge is drawn from
/// a grid of a few thousand ε; the counts are exact).
const ON_EDGE: f64 = 1e-9;
/// How far above the edge the measured ROC must be, up and to the left, for the sentence to say
/// it rises above: half a percent, about a line's width on the chart (at FPR 0 the edge is δ,
/// and a true positive before the first false one would otherwise "rise above" it unseen).
const VISIBLY: f64 = 0.005;

/// The most runs a side [`what_runs_can_show`] tries (doubling) before saying "more than".
pub const MOST_RUNS_TRIED: u64 = 100_000;

/// The DKW half-width for n draws at level α.
pub fn dkw_width(n: usize, alpha: f64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    ((2.0 / alpha).ln() / (2.0 * n as f64)).sqrt()
}

/// What the picture shows about the region, in the terms the sentence uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The measured ROC is on or under the edge everywhere.
    Inside,
    /// The measured ROC rises above the edge somewhere, but its 95% band still reaches into the
    /// region there: as much as chance allows with this many runs.
    WithinChance,
    /// A 95% box lies wholly above the edge: the attack beat the bound.
    Outside,
}

/// The ROC against the region: the simultaneous band, the ε_lower threshold's box, and where
/// (which FPRs) the measured ROC or the band is above the edge.
#[derive(Clone, Debug, Serialize)]
pub struct RegionCheck {
    pub verdict: Verdict,
    /// The band's half-widths: TPR (runs with the canary) and FPR (runs without).
    pub tpr_width: f64,
    pub fpr_width: f64,
    /// The band's edges as [fpr, tpr]: the upper-left corners and the lower-right ones.
    pub band_upper: Vec<[f64; 2]>,
    pub band_lower: Vec<[f64; 2]>,
    /// The ε_lower threshold's 95% box on the evaluation half: [fpr_lo, fpr_hi, tpr_lo, tpr_hi].
    pub evidence: [f64; 4],
    /// The FPRs over which the measured ROC is above the edge, and over which a box is.
    pub above_at: Option<[f64; 2]>,
    pub outside_at: Option<[f64; 2]>,
}

/// The widest stretch of consecutive points (in ROC order) where `above` holds, as the FPRs it
/// spans.
fn span(points: impl Iterator<Item = (f64, bool)>) -> Option<[f64; 2]> {
    let (mut best, mut run): (Option<[f64; 2]>, Option<[f64; 2]>) = (None, None);
    for (f, above) in points {
        run = match (above, run) {
            (false, _) => None,
            (true, None) => Some([f, f]),
            (true, Some([a, b])) => Some([a.min(f), b.max(f)]),
        };
        if let Some([a, b]) = run {
            if best.is_none_or(|[c, d]| b - a > d - c) {
                best = run;
            }
        }
    }
    best
}

/// Checks the ROC of `counts` (every threshold's: n_in runs with the canary, n_out without)
/// and the ε_lower threshold's box against `region`; the band is drawn through `drawn` (a
/// thinned subset of the thresholds, ends included).
pub fn check(
    region: &TradeOff,
    counts: &[Counts],
    drawn: &[Counts],
    n_in: usize,
    n_out: usize,
    lower: &LowerBound,
) -> RegionCheck {
    let (e_in, e_out) = (dkw_width(n_in, DKW_ALPHA), dkw_width(n_out, DKW_ALPHA));
    let point = |c: &Counts| (c.fp as f64 / n_out as f64, c.tp as f64 / n_in as f64);
    let band_upper = drawn
        .iter()
        .map(|c| {
            let (f, t) = point(c);
            [(f - e_out).max(0.0), (t + e_in).min(1.0)]
        })
        .collect();
    let corner = |c: &Counts| {
        let (f, t) = point(c);
        [(f + e_out).min(1.0), (t - e_in).max(0.0)]
    };
    let band_lower = drawn.iter().map(corner).collect();
    let lf = LogFactorials::new(lower.n_in.max(lower.n_out));
    let (tpr_lo, tpr_hi) = clopper_pearson(&lf, lower.tp, lower.n_in, DKW_ALPHA);
    let (fpr_lo, fpr_hi) = clopper_pearson(&lf, lower.fp, lower.n_out, DKW_ALPHA);
    let evidence = [fpr_lo, fpr_hi, tpr_lo, tpr_hi];
    let above = span(counts.iter().map(|c| {
        let (f, t) = point(c);
        (f, t - VISIBLY > region.tpr((f + VISIBLY).min(1.0)))
    }));
    let mut outside = span(counts.iter().map(|c| {
        let [f, t] = corner(c);
        (f, t > region.tpr(f) + ON_EDGE)
    }));
    if tpr_lo > region.tpr(fpr_hi) + ON_EDGE {
        let [a, b] = outside.unwrap_or([fpr_hi, fpr_hi]);
        outside = Some([a.min(fpr_hi), b.max(fpr_hi)]);
    }
    let verdict = match (outside, above) {
        (Some(_), _) => Verdict::Outside,
        (None, Some(_)) => Verdict::WithinChance,
        (None, None) => Verdict::Inside,
    };
    RegionCheck {
        verdict,
        tpr_width: e_in,
        fpr_width: e_out,
        band_upper,
        band_lower,
        evidence,
        above_at: above,
        outside_at: outside,
    }
}

/// When ε_lower is 0: the most `runs` a side could prove (every run told apart), and about how
/// many runs a side an attack as strong as the region allows would need to prove ε > 0 (None:
/// more than [`MOST_RUNS_TRIED`], or no test beats chance).
#[derive(Clone, Debug, Serialize)]
pub struct WhatRunsCanShow {
    pub most_provable: f64,
    pub runs_needed: Option<u64>,
}

/// The split-half bound (half the runs evaluate) from the expected counts of a test on the
/// region's edge at each FPR of a grid, for `runs` a side.
fn best_bound_on_edge(region: &TradeOff, runs: u64, delta: f64) -> f64 {
    let n = (runs / 2).max(1) as usize;
    let lf = LogFactorials::new(n);
    (1..13)
        .map(|i| 0.5 * (i as f64 / 12.0).powi(2))
        .map(|f| {
            let c = Counts {
                tp: ((region.tpr(f) * n as f64).floor() as usize).min(n),
                fp: (f * n as f64).ceil() as usize,
            };
            epsilon_lower_at(&lf, c, n, n, delta, DKW_ALPHA).0
        })
        .fold(0.0, f64::max)
}

/// What `runs` runs a side can show, and what it would take (doubling from `runs`).
pub fn what_runs_can_show(region: &TradeOff, runs: usize, delta: f64) -> WhatRunsCanShow {
    let n = (runs / 2).max(1);
    let lf = LogFactorials::new(n);
    let all = Counts { tp: n, fp: 0 };
    let most_provable = epsilon_lower_at(&lf, all, n, n, delta, DKW_ALPHA).0;
    let mut r = (runs as u64).max(2);
    let runs_needed = loop {
        if best_bound_on_edge(region, r, delta) > 0.0 {
            break Some(r);
        }
        if r > MOST_RUNS_TRIED {
            break None;
        }
        r *= 2;
    };
    WhatRunsCanShow {
        most_provable,
        runs_needed,
    }
}
