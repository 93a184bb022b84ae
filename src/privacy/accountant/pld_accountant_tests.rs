//! Tests of the PLD accountant as a running composition: epoch by epoch equals composing at
//! once (and outgrowing the planned grid re-plans), heterogeneous parts compose in any order,
//! and the edge cases of nothing noisy and no noise.

use super::*;

#[test]
fn epoch_by_epoch_matches_composing_at_once_and_outgrowing_the_plan_replans() {
    let (q, sigma, spe, delta) = (0.02, 1.5, 50u64, 1e-5);
    let one = SampledGaussian::new(q, sigma, spe).unwrap();
    let mut running = PldAccountant::with_interval(
        1e-3,
        &[SampledGaussian {
            steps: 6 * spe,
            ..one
        }],
    );
    let mut unplanned = PldAccountant::with_interval(1e-3, &[]);
    for e in 1..=6u64 {
        running.compose(&one);
        unplanned.compose(&one);
        let whole = SampledGaussian {
            steps: e * spe,
            ..one
        };
        let mut direct = PldAccountant::with_interval(1e-3, &[whole]);
        direct.compose(&whole);
        let (a, b, c) = (
            running.epsilon(delta),
            direct.epsilon(delta),
            unplanned.epsilon(delta),
        );
        assert!(
            (a - b).abs() < 1e-6 * b,
            "epoch {e}: running {a} vs direct {b}"
        );
        assert!(
            (c - b).abs() < 1e-6 * b,
            "epoch {e}: replanned {c} vs direct {b}"
        );
    }
}

#[test]
fn heterogeneous_parts_compose_in_any_order() {
    let pca = SampledGaussian::new(1.0, 7.0, 1).unwrap();
    let train = SampledGaussian::new(0.01, 2.0, 500).unwrap();
    let eval = SampledGaussian::new(1.0, 30.0, 5).unwrap();
    let parts = [pca, train, eval];
    let mut forward = PldAccountant::new(&parts);
    let mut backward = PldAccountant::new(&parts);
    for p in &parts {
        forward.compose(p);
    }
    for p in parts.iter().rev() {
        backward.compose(p);
    }
    let (a, b) = (forward.epsilon(1e-5), backward.epsilon(1e-5));
    assert!((a - b).abs() < 1e-9 * a, "{a} vs {b}");
    let mut alone = PldAccountant::new(&[train]);
    alone.compose(&train);
    assert!(a > alone.epsilon(1e-5), "the extra releases cost privacy");
    // δ(ε) inverts ε(δ).
    let d = forward.delta(a).unwrap();
    assert!(d <= 1e-5 * (1.0 + 1e-6) && d > 0.5e-5, "δ(ε(1e-5)) = {d}");
}

#[test]
fn nothing_noisy_and_no_noise() {
    let mut acc = PldAccountant::new(&[]);
    assert_eq!(acc.epsilon(1e-5), 0.0);
    acc.compose(&SampledGaussian::new(0.0, 1.0, 100).unwrap());
    assert_eq!(acc.epsilon(1e-5), 0.0);
    acc.compose(&SampledGaussian::new(0.1, 0.0, 1).unwrap());
    assert_eq!(acc.epsilon(1e-5), f64::INFINITY);
}
