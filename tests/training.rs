//! DP-SGD training on the shipped Adult data: the private step against an independent
//! computation, the non-private accuracy bar, reproducibility, and the golden run that the
//! browser test (tests/web.rs) must reproduce in wasm.

mod common;

use dpsgd_lab::config::RunConfig;
use dpsgd_lab::model::Model;
use dpsgd_lab::train::Trainer;

/// The run whose epochs are frozen in tests/fixtures/golden_run.json.
pub fn golden_config() -> RunConfig {
    RunConfig {
        sigma: 1.0,
        clip: 0.5,
        lot_size: 512,
        lr: 2.0,
        epochs: 3,
        seed: Some(42),
        ..RunConfig::default()
    }
}

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
    assert!(last.test_acc >= 0.82, "test accuracy {}", last.test_acc);
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
        reports[2].test_acc > 0.8,
        "private test accuracy {}",
        reports[2].test_acc
    );
    let eps: Vec<f64> = reports.iter().map(|r| r.epsilon.moments).collect();
    assert!(
        eps.windows(2).all(|w| w[0] < w[1]) && eps[2].is_finite(),
        "ε grows: {eps:?}"
    );
    let r = &reports[0];
    assert!(r.clipped_fraction > 0.0 && r.clipped_fraction < 1.0);
    // Noise per lot is σC·sqrt(d) in expectation (d = #parameters).
    let expected = 1.0 * 1.0 * (t.model().n_params() as f64).sqrt();
    assert!(
        (r.noise_norm / expected - 1.0).abs() < 0.05,
        "noise {} vs {expected}",
        r.noise_norm
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

#[test]
fn golden_run_is_reproduced() {
    let mut t = Trainer::new(golden_config(), common::adult()).unwrap();
    let reports: Vec<serde_json::Value> = std::iter::from_fn(|| t.run_epoch())
        .map(|r| serde_json::to_value(r).unwrap())
        .collect();
    let path = common::repo_path("tests/fixtures/golden_run.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let text = serde_json::to_string_pretty(&serde_json::json!({
            "config": golden_config(), "reports": reports,
        }))
        .unwrap();
        std::fs::write(&path, text + "\n").unwrap();
    }
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        golden["config"],
        serde_json::to_value(golden_config()).unwrap(),
        "config changed: UPDATE_GOLDEN=1"
    );
    let want = golden["reports"].as_array().unwrap();
    assert_eq!(want.len(), reports.len());
    for (w, r) in want.iter().zip(&reports) {
        for key in [
            "train_acc",
            "test_acc",
            "train_loss",
            "test_loss",
            "clipped_fraction",
            "noise_norm",
        ] {
            let (a, b) = (w[key].as_f64().unwrap(), r[key].as_f64().unwrap());
            assert!((a - b).abs() <= 1e-6 * a.abs().max(1e-3), "{key}: golden {a} vs now {b}; if the change is intended, rerun with UPDATE_GOLDEN=1");
        }
        for acc in ["naive", "strong", "moments", "rdp"] {
            let (a, b) = (
                w["epsilon"][acc].as_f64().unwrap(),
                r["epsilon"][acc].as_f64().unwrap(),
            );
            assert!((a - b).abs() <= 1e-12 * a, "ε {acc}: golden {a} vs now {b}");
        }
    }
}
