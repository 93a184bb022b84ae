//! The DP-SGD step and a run end to end: the private step with no noise and no clipping is
//! exactly the plain SGD step computed from the definition, non-private logistic regression
//! reaches 82% on Adult, a private run learns and reports finite privacy with the expected
//! noise, and a seed gives the same run however it is advanced.

use crate::common;
use dpsgd_lab::config::RunConfig;
use dpsgd_lab::model::Model;
use dpsgd_lab::train::Trainer;

#[test]
fn zero_noise_and_huge_clip_is_exactly_the_non_private_step() {
    let data = common::adult();
    let cfg = RunConfig {
        sigma: 0.0,
        clip: 1e9,
        lot_size: 300,
        lr: 0.5,
        seed: Some(3),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, data.clone()).unwrap();
    for _ in 0..5 {
        t.step(); // move away from the zero start
    }
    let before: Vec<f64> = t.model().params().iter().map(|&p| p as f64).collect();
    let lot: Vec<usize> = (0..data.train.len()).step_by(97).collect();
    t.step_on_lot(&lot);

    // The plain SGD step θ − η/L Σ_i ∇ℓ_i, computed here in f64 from the definition.
    let (d, k) = (data.n_features(), data.n_classes());
    let mut grad = vec![0.0f64; d * k + k];
    for &i in &lot {
        let x = data.train.x.row(i);
        let logits: Vec<f64> = (0..k)
            .map(|c| {
                before[d * k + c] + (0..d).map(|j| x[j] as f64 * before[j * k + c]).sum::<f64>()
            })
            .collect();
        let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logits.iter().map(|l| (l - m).exp()).sum();
        for c in 0..k {
            let r = (logits[c] - m).exp() / z - (data.train.y[i] == c) as u8 as f64;
            for j in 0..d {
                grad[j * k + c] += x[j] as f64 * r;
            }
            grad[d * k + c] += r;
        }
    }
    let after = t.model().params();
    for (j, g) in grad.iter().enumerate() {
        let want = before[j] - 0.5 / 300.0 * g;
        assert!(
            (after[j] as f64 - want).abs() < 1e-5 * (1.0 + want.abs()),
            "param {j}: {} vs {want}",
            after[j]
        );
    }
}

#[test]
fn non_private_logistic_regression_reaches_82_percent_on_adult() {
    let cfg = RunConfig {
        sigma: 0.0,
        clip: 1e9,
        lot_size: 256,
        lr: 2.0,
        epochs: 3,
        seed: Some(1),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    let last = std::iter::from_fn(|| t.run_epoch()).last().unwrap();
    assert!(
        last.test_acc.unwrap() >= 0.82,
        "test accuracy {}",
        last.test_acc.unwrap()
    );
    assert!(
        last.epsilon.moments.is_infinite(),
        "σ = 0 spends infinite privacy"
    );
}

#[test]
fn private_run_learns_and_reports_finite_privacy() {
    let cfg = RunConfig {
        epochs: 3,
        seed: Some(5),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    let reports: Vec<_> = std::iter::from_fn(|| t.run_epoch()).collect();
    assert_eq!(reports.len(), 3);
    assert!(
        reports[2].test_acc.unwrap() > 0.8,
        "private test accuracy {}",
        reports[2].test_acc.unwrap()
    );
    let eps: Vec<f64> = reports.iter().map(|r| r.epsilon.moments).collect();
    assert!(
        eps.windows(2).all(|w| w[0] < w[1]) && eps[2].is_finite(),
        "ε grows: {eps:?}"
    );
    let r = &reports[0];
    assert!(r.diag().clipped_fraction > 0.0 && r.diag().clipped_fraction < 1.0);
    // Noise per lot is σC·sqrt(d) in expectation (d = #parameters).
    let expected = 1.0 * 1.0 * (t.model().n_params() as f64).sqrt();
    assert!(
        (r.diag().noise_norm / expected - 1.0).abs() < 0.05,
        "noise {} vs {expected}",
        r.diag().noise_norm
    );
}

#[test]
fn same_seed_same_run_and_advance_matches_run_epoch() {
    let data = common::adult();
    let cfg = RunConfig {
        epochs: 2,
        seed: Some(9),
        ..RunConfig::default()
    };
    let mut a = Trainer::new(cfg.clone(), data.clone()).unwrap();
    let mut b = Trainer::new(cfg, data).unwrap();
    let ra = a.run_epoch().unwrap();
    let rb = loop {
        if let Some(r) = b.advance(7) {
            break r;
        }
    };
    assert_eq!(
        serde_json::to_string(&ra).unwrap(),
        serde_json::to_string(&rb).unwrap()
    );
    assert_eq!(a.model().params(), b.model().params());
}
