//! Unit tests of the audit's statistics against closed forms.

use super::stats::*;

#[test]
fn clopper_pearson_matches_known_intervals() {
    let lf = LogFactorials::new(100);
    // k = 0 of 10: upper end 1 − 0.025^(1/10); k = 10 of 10: lower end 0.025^(1/10).
    let (lo, hi) = clopper_pearson(&lf, 0, 10, 0.025);
    assert_eq!(lo, 0.0);
    assert!((hi - (1.0 - 0.025f64.powf(0.1))).abs() < 1e-9, "{hi}");
    let (lo, hi) = clopper_pearson(&lf, 10, 10, 0.025);
    assert!((lo - 0.025f64.powf(0.1)).abs() < 1e-9 && hi == 1.0, "{lo}");
    // k = 5 of 10: the textbook interval (0.18709, 0.81291).
    let (lo, hi) = clopper_pearson(&lf, 5, 10, 0.025);
    assert!(
        (lo - 0.187086).abs() < 1e-5 && (hi - 0.812914).abs() < 1e-5,
        "{lo} {hi}"
    );
}

#[test]
fn roc_counts_handle_ties_and_end_at_the_totals() {
    let c = roc_counts(&[3.0, 2.0, 2.0], &[2.0, 1.0]);
    let pairs: Vec<(usize, usize)> = c.iter().map(|c| (c.tp, c.fp)).collect();
    assert_eq!(pairs, vec![(0, 0), (1, 0), (3, 1), (3, 2)]);
}

#[test]
fn perfect_separation_gives_the_largest_bound_the_runs_allow() {
    // 200 runs per side, evaluated on 100: TPR_lo = 0.025^(1/100), FPR_hi = 1 − that.
    let sin: Vec<f64> = (0..200).map(|i| 10.0 + i as f64).collect();
    let sout: Vec<f64> = (0..200).map(|i| -(i as f64)).collect();
    let b = epsilon_lower(&sin, &sout, 0.0);
    let p = 0.025f64.powf(0.01);
    let want = (p / (1.0 - p)).ln();
    assert!((b.epsilon - want).abs() < 1e-6, "{} vs {want}", b.epsilon);
    // Scores that do not depend on membership prove nothing (beyond chance, at 95%).
    let same: Vec<f64> = (0..200).map(|i| (i * 7919 % 200) as f64).collect();
    let b = epsilon_lower(&same, &same, 1e-5);
    assert!(b.epsilon < 0.5, "{}", b.epsilon);
}

#[test]
fn one_run_bound_with_every_guess_right_is_randomised_response() {
    // δ = 0, v = r: the p-value is p^r with p = e^ε/(1 + e^ε), so ε = logit(0.05^(1/r)).
    for r in [10, 50, 200] {
        let got = one_run_epsilon(1000, r, r, 0.0, 0.05);
        let p = 0.05f64.powf(1.0 / r as f64);
        let want = (p / (1.0 - p)).ln();
        assert!((got - want).abs() < 1e-6, "r {r}: {got} vs {want}");
    }
    // Half right is what ε = 0 gives: nothing is proved.
    assert_eq!(one_run_epsilon(1000, 100, 50, 1e-5, 0.05), 0.0);
    // δ only weakens the bound.
    assert!(one_run_epsilon(1000, 100, 95, 1e-3, 0.05) < one_run_epsilon(1000, 100, 95, 0.0, 0.05));
}

/// The memory estimate the page caps its audit workers by: above both measurements (one worker
/// with a one-run audit of 1,000 canaries: at most 0.47 GB on Fashion-MNIST, 0.12 GB on the
/// MNIST subset) and not far above them; a one-run audit adds its canaries and a run's members
/// among them, never a copy of the training rows.
#[test]
fn an_audit_workers_memory_estimate_covers_the_measurements() {
    use super::worker_bytes;
    use crate::data::DataFacts;
    let facts = |n_train, n_test| DataFacts {
        n_train,
        n_test,
        n_features: 784,
        n_classes: 10,
        private: false,
        releases: Vec::new(),
        majority_share: None,
    };
    for (f, measured) in [
        (facts(60_000, 10_000), 0.47e9),
        (facts(8_000, 2_000), 0.12e9),
    ] {
        let estimate = worker_bytes(&f, 1000, false);
        assert!(
            (measured..1.2 * measured).contains(&estimate),
            "{estimate} for {measured}"
        );
        let canaries = 2.0 * 4.0 * (500 * f.n_features) as f64;
        assert!((worker_bytes(&f, 500, false) - worker_bytes(&f, 0, false) - canaries).abs() < 1.0);
        let training_rows = 4.0 * (f.n_train * f.n_features) as f64;
        // D′, the rows without Alice, is a copy of the training rows.
        let without_alice = worker_bytes(&f, 0, true) - worker_bytes(&f, 0, false);
        assert!(
            (without_alice - training_rows).abs() < 1.0,
            "{without_alice}"
        );
        assert!(
            canaries < training_rows / 4.0,
            "no copy of the training rows"
        );
    }
}

/// The region check decides by the band it draws: a ROC under the edge is inside; one above it
/// by less than the band's half-widths is within chance; one whose 95% box lies wholly above
/// the edge is outside.
#[test]
fn the_region_check_decides_by_the_band_it_draws() {
    use super::region::{check, dkw_width, Verdict};
    use super::tradeoff::TradeOff;
    use crate::privacy::accountant::SampledGaussian;
    // One Gaussian release, μ = 1: TPR(0.1) ≈ 0.389.
    let region = TradeOff::of(&[SampledGaussian {
        q: 1.0,
        sigma: 1.0,
        steps: 1,
    }]);
    let n = 400;
    let e = dkw_width(n, 0.025);
    assert!((e - (80f64.ln() / 800.0).sqrt()).abs() < 1e-12);
    let edge = region.tpr(0.1);
    assert!((0.38..0.40).contains(&edge), "{edge}");
    let roc = |tpr_at_01: f64| {
        vec![
            Counts { tp: 0, fp: 0 },
            Counts {
                tp: (tpr_at_01 * n as f64) as usize,
                fp: n / 10,
            },
            Counts { tp: n, fp: n },
        ]
    };
    let none = LowerBound {
        epsilon: 0.0,
        tp: 0,
        fp: 100,
        n_in: 200,
        n_out: 200,
        complement: false,
        threshold: 0.0,
    };
    let verdict = |tpr: f64| {
        let c = roc(tpr);
        check(&region, &c, &c, n, n, &none)
    };
    assert_eq!(verdict(edge - 0.05).verdict, Verdict::Inside);
    let near = verdict(edge + 0.03);
    assert_eq!(near.verdict, Verdict::WithinChance);
    assert_eq!(near.above_at, Some([0.1, 0.1]));
    // Its lower-right corner (0.1 + e, TPR − e) above the edge there: outside.
    let far = verdict(region.tpr(0.1 + e) + e + 0.02);
    assert_eq!(far.verdict, Verdict::Outside);
    assert_eq!(far.outside_at, Some([0.1 + e, 0.1 + e]));
    // The ε_lower threshold's box alone, wholly above the edge, is outside too.
    let strong = LowerBound {
        tp: 200,
        fp: 0,
        ..none
    };
    let c = roc(edge - 0.05);
    assert_eq!(
        check(&region, &c, &c, n, n, &strong).verdict,
        Verdict::Outside
    );
}

/// Clopper–Pearson written out again, for [`what_runs_can_show`]'s test: P[Bin(n, p) ≤ k] by
/// direct summation, and each 97.5% one-sided end by bisection (the lower end at k of n solves
/// P[Bin ≥ k] = 0.025, the upper one P[Bin ≤ k] = 0.025).
fn binomial_cdf(n: usize, k: usize, p: f64) -> f64 {
    let ln_choose = |j: usize| {
        (1..=j)
            .map(|i| ((n - j + i) as f64 / i as f64).ln())
            .sum::<f64>()
    };
    (0..=k.min(n))
        .map(|j| (ln_choose(j) + j as f64 * p.ln() + (n - j) as f64 * (1.0 - p).ln()).exp())
        .sum()
}

fn interval_ends(k: usize, n: usize) -> (f64, f64) {
    let bisect = |rises: &dyn Fn(f64) -> bool| {
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if rises(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let lower = if k == 0 {
        0.0
    } else {
        bisect(&|p| 1.0 - binomial_cdf(n, k - 1, p) >= 0.025)
    };
    let upper = if k >= n {
        1.0
    } else {
        bisect(&|p| binomial_cdf(n, k, p) <= 0.025)
    };
    (lower, upper)
}

/// #40, item 1.4. When ε_lower is 0 the audit says what its R runs a side could prove at most
/// and how many a real attack would need. The most: every run of the evaluation half (n = R/2
/// a side) told apart, TPR_lo = 0.025^(1/n) and FPR_hi = 1 − 0.025^(1/n), so ε =
/// max(0, ln((TPR_lo − δ)/FPR_hi)): 0 at R = 8, 0.5347 at R = 16, 1.5968 at R = 40. The runs
/// needed: doubling from R, the first whose test on the region's edge (at FPR 0.5·(i/12)², the
/// edge's TPR, counts rounded against the attack) proves ε > 0 by the same bound or its
/// complement form.
#[test]
fn what_runs_can_show_is_every_run_told_apart_and_the_runs_an_edge_test_needs() {
    use super::region::what_runs_can_show;
    use super::tradeoff::TradeOff;
    use crate::privacy::accountant::SampledGaussian;
    let delta = 1e-5;
    let gaussian = |sigma: f64| {
        TradeOff::of(&[SampledGaussian {
            q: 1.0,
            sigma,
            steps: 1,
        }])
    };
    let region = gaussian(0.5);
    for (runs, by_hand) in [(8, 0.0), (16, 0.5347), (40, 1.5968)] {
        let shown = what_runs_can_show(&region, runs, delta);
        let n = (runs / 2) as f64;
        let p = 0.025f64.powf(1.0 / n);
        let most = ((p - delta) / (1.0 - p)).ln().max(0.0);
        assert!(
            (shown.most_provable - most).abs() < 1e-9,
            "R = {runs}: {} vs {most}",
            shown.most_provable
        );
        assert!((most - by_hand).abs() < 1e-4, "R = {runs}: {most}");
    }
    let edge_bound = |runs: u64| {
        let n = (runs / 2) as usize;
        (1..13)
            .map(|i| 0.5 * (i as f64 / 12.0).powi(2))
            .map(|f| {
                let tp = ((region.tpr(f) * n as f64).floor() as usize).min(n);
                let fp = (f * n as f64).ceil() as usize;
                let (tpr_lo, _) = interval_ends(tp, n);
                let (_, fpr_hi) = interval_ends(fp, n);
                let direct = ((tpr_lo - delta) / fpr_hi).ln();
                let complement = ((1.0 - fpr_hi - delta) / (1.0 - tpr_lo)).ln();
                direct.max(complement).max(0.0)
            })
            .fold(0.0, f64::max)
    };
    let runs = 8;
    let mut needed = runs as u64;
    while edge_bound(needed) == 0.0 {
        needed *= 2;
    }
    // μ = 2 (σ = 0.5): 32 runs a side, 16 evaluated, are the first to prove ε > 0 at the edge.
    assert_eq!(
        needed, 32,
        "a case where more runs than the audit's are needed"
    );
    assert_eq!(
        what_runs_can_show(&region, runs, delta).runs_needed,
        Some(needed)
    );
    // σ = 100 (μ = 0.01): TPR − FPR ≤ 2Φ(μ/2) − 1 ≈ 0.004 on the edge, under the 95% intervals'
    // widths at every R tried (about 2/√(R/2) a side): no 100,000 runs tell it apart.
    assert_eq!(
        what_runs_can_show(&gaussian(100.0), 16, delta).runs_needed,
        None
    );
}
