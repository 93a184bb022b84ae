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
