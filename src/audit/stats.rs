//! The audit's statistics: binomial tails, Clopper–Pearson intervals, the ROC of a score, the
//! multi-run lower bound on ε (Jagielski, Ullman, Oprea 2020, Section 4; Nasr et al. 2021) and
//! the one-run bound of Steinke, Nasr & Jagielski 2023 ("Privacy Auditing with One (1)
//! Training Run", Theorem 3.1 and its Algorithm 2).

use serde::Serialize;

/// Whether `drawn` members taken of `members` independent chances is a count the rate q could
/// give: within 5 standard deviations of q·members (a sound sampler fails this about once in
/// 1.7 million audits; a lot size fixed by a shuffle gives q·members to the rounding).
pub fn rate_consistent(drawn: u64, members: u64, q: f64) -> bool {
    let (k, n) = (drawn as f64, members as f64);
    let sd = (n * q * (1.0 - q)).max(0.0).sqrt();
    (k - q * n).abs() <= 5.0 * sd + 0.5 + 1e-9 * n
}

/// ln k! for k = 0..=n (one table per sample size, reused by every tail sum).
pub struct LogFactorials(Vec<f64>);

impl LogFactorials {
    pub fn new(n: usize) -> LogFactorials {
        let mut t = Vec::with_capacity(n + 1);
        t.push(0.0);
        for k in 1..=n {
            t.push(t[k - 1] + (k as f64).ln());
        }
        LogFactorials(t)
    }

    /// P[Bin(n, p) = k].
    pub fn pmf(&self, n: usize, k: usize, p: f64) -> f64 {
        if p <= 0.0 {
            return (k == 0) as u8 as f64;
        }
        if p >= 1.0 {
            return (k == n) as u8 as f64;
        }
        let t = &self.0;
        (t[n] - t[k] - t[n - k] + k as f64 * p.ln() + (n - k) as f64 * (-p).ln_1p()).exp()
    }

    /// P[Bin(n, p) ≥ k]: summed from the tail's far side of the mean, stopping once the
    /// terms (which only fall from there) no longer change the sum.
    pub fn upper_tail(&self, n: usize, k: usize, p: f64) -> f64 {
        if k == 0 {
            1.0
        } else if k > n {
            0.0
        } else if k as f64 >= n as f64 * p {
            self.sum_falling((k..=n).map(|j| self.pmf(n, j, p)))
        } else {
            1.0 - self.lower_tail(n, k - 1, p)
        }
    }

    /// P[Bin(n, p) ≤ k].
    pub fn lower_tail(&self, n: usize, k: usize, p: f64) -> f64 {
        if k >= n {
            1.0
        } else if k as f64 <= n as f64 * p {
            self.sum_falling((0..=k).rev().map(|j| self.pmf(n, j, p)))
        } else {
            1.0 - self.upper_tail(n, k + 1, p)
        }
    }

    /// Σ of terms that only decrease, stopped when a term is below 1e-17 of the sum so far.
    fn sum_falling(&self, terms: impl Iterator<Item = f64>) -> f64 {
        let mut sum = 0.0;
        for t in terms {
            sum += t;
            if t <= 1e-17 * sum {
                break;
            }
        }
        sum.min(1.0)
    }
}

/// Bisection for the p in [0, 1] where an increasing `f(p)` crosses `target`.
fn solve_increasing(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The Clopper–Pearson interval for k successes in n trials, each end a one-sided bound at
/// level 1 − `tail` (tail 0.025 gives the two-sided 95% interval).
pub fn clopper_pearson(lf: &LogFactorials, k: usize, n: usize, tail: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    // Lower: the p with P[Bin(n, p) ≥ k] = tail; upper: the p with P[Bin(n, p) ≤ k] = tail.
    let lo = if k == 0 {
        0.0
    } else {
        solve_increasing(|p| lf.upper_tail(n, k, p), tail)
    };
    let hi = if k >= n {
        1.0
    } else {
        solve_increasing(|p| 1.0 - lf.lower_tail(n, k, p), 1.0 - tail)
    };
    (lo, hi)
}

/// Counts at one threshold: how many runs with (tp) and without (fp) the canary scored ≥ it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub tp: usize,
    pub fp: usize,
}

/// The ROC of a score: for every distinct threshold t (high to low) the counts of "score ≥ t",
/// from (0, 0) to (n_in, n_out).
pub fn roc_counts(scores_in: &[f64], scores_out: &[f64]) -> Vec<Counts> {
    let mut all: Vec<(f64, bool)> = scores_in
        .iter()
        .map(|&s| (s, true))
        .chain(scores_out.iter().map(|&s| (s, false)))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = vec![Counts { tp: 0, fp: 0 }];
    let mut c = Counts { tp: 0, fp: 0 };
    for (i, &(s, member)) in all.iter().enumerate() {
        if member {
            c.tp += 1;
        } else {
            c.fp += 1;
        }
        let last_of_tie = all.get(i + 1).is_none_or(|next| next.0 != s);
        if last_of_tie {
            out.push(c);
        }
    }
    out
}

/// A lower bound on ε from one threshold's counts, valid with probability ≥ 1 − 2·tail:
/// ε ≥ ln((TPR_lo − δ)/FPR_hi) and, on the complements, ε ≥ ln((TNR_lo − δ)/FNR_hi)
/// (an (ε, δ)-DP mechanism has TPR ≤ e^ε FPR + δ and TNR ≤ e^ε FNR + δ for every test).
/// Returns (bound, whether the complement form gave it).
pub fn epsilon_lower_at(
    lf: &LogFactorials,
    c: Counts,
    n_in: usize,
    n_out: usize,
    delta: f64,
    tail: f64,
) -> (f64, bool) {
    let tpr_lo = clopper_pearson(lf, c.tp, n_in, tail).0;
    let fpr_hi = clopper_pearson(lf, c.fp, n_out, tail).1;
    let bound = |num: f64, den: f64| {
        if num <= 0.0 {
            0.0
        } else {
            (num / den).ln().max(0.0)
        }
    };
    let direct = bound(tpr_lo - delta, fpr_hi);
    let complement = bound(1.0 - fpr_hi - delta, 1.0 - tpr_lo);
    if complement > direct {
        (complement, true)
    } else {
        (direct, false)
    }
}

/// The multi-run lower bound, with the threshold chosen on one half of the runs and the bound
/// computed on the other (jax_privacy's "split" strategy), so that choosing the best threshold
/// does not spend the confidence: 95% overall.
#[derive(Clone, Debug, Serialize)]
pub struct LowerBound {
    pub epsilon: f64,
    /// The threshold's counts on the evaluation half.
    pub tp: usize,
    pub fp: usize,
    pub n_in: usize,
    pub n_out: usize,
    pub complement: bool,
    pub threshold: f64,
}

/// ε_lower at 95% from the scores of runs with and without the canary (split strategy).
pub fn epsilon_lower(scores_in: &[f64], scores_out: &[f64], delta: f64) -> LowerBound {
    let halves = |s: &[f64], parity: usize| -> Vec<f64> {
        s.iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == parity)
            .map(|(_, &v)| v)
            .collect()
    };
    let (sel_in, sel_out) = (halves(scores_in, 0), halves(scores_out, 0));
    let (ev_in, ev_out) = (halves(scores_in, 1), halves(scores_out, 1));
    let lf = LogFactorials::new(scores_in.len().max(scores_out.len()));
    const TAIL: f64 = 0.025;
    // Candidate thresholds: midway between consecutive distinct selection scores (so a gap
    // between the two worlds is split in the middle, not at its edge), and the lowest score.
    let mut distinct: Vec<f64> = sel_in.iter().chain(&sel_out).copied().collect();
    distinct.sort_by(|a, b| b.total_cmp(a));
    distinct.dedup();
    let mut thresholds: Vec<f64> = distinct.windows(2).map(|w| 0.5 * (w[0] + w[1])).collect();
    thresholds.extend(distinct.last());
    let count = |s: &[f64], t: f64| s.iter().filter(|&&v| v >= t).count();
    let mut best = (f64::INFINITY, f64::NEG_INFINITY);
    let mut seen = std::collections::HashSet::new();
    for &t in &thresholds {
        let c = Counts {
            tp: count(&sel_in, t),
            fp: count(&sel_out, t),
        };
        if !seen.insert((c.tp, c.fp)) {
            continue; // the same counts give the same bound
        }
        let (e, _) = epsilon_lower_at(&lf, c, sel_in.len(), sel_out.len(), delta, TAIL);
        if e > best.1 {
            best = (t, e);
        }
    }
    let t = best.0;
    let c = Counts {
        tp: count(&ev_in, t),
        fp: count(&ev_out, t),
    };
    let (epsilon, complement) = epsilon_lower_at(&lf, c, ev_in.len(), ev_out.len(), delta, TAIL);
    LowerBound {
        epsilon,
        tp: c.tp,
        fp: c.fp,
        n_in: ev_in.len(),
        n_out: ev_out.len(),
        complement,
        threshold: t,
    }
}

/// Steinke, Nasr & Jagielski 2023, Theorem 3.1: with m canaries each included independently
/// with probability ½, r guesses and v of them right, the probability under (ε, δ)-DP of v or
/// more right guesses is at most β + α·2m·δ, β = P[Bin(r, p) ≥ v] with p = e^ε/(1 + e^ε)
/// (the accuracy of ε-randomised response) and α = max_i P[v − i ≤ Bin(r, p) < v]/i.
pub fn one_run_p_value(
    lf: &LogFactorials,
    m: usize,
    r: usize,
    v: usize,
    eps: f64,
    delta: f64,
) -> f64 {
    let p = 1.0 / (1.0 + (-eps).exp());
    let beta = lf.upper_tail(r, v, p);
    let (mut alpha, mut sum) = (0.0f64, 0.0f64);
    for i in 1..=v {
        sum += lf.pmf(r, v - i, p);
        alpha = alpha.max(sum / i as f64);
    }
    (beta + alpha * 2.0 * m as f64 * delta).min(1.0)
}

/// The largest ε the one-run audit rejects at significance `level` (0 if none).
pub fn one_run_epsilon(m: usize, r: usize, v: usize, delta: f64, level: f64) -> f64 {
    let lf = LogFactorials::new(r.max(1));
    if one_run_p_value(&lf, m, r, v, 0.0, delta) >= level {
        return 0.0;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while one_run_p_value(&lf, m, r, v, hi, delta) < level && hi < 64.0 {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if one_run_p_value(&lf, m, r, v, mid, delta) < level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}
