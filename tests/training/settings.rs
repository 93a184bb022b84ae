//! The run's settings do what they say: the MLP with per-layer clipping (noise per layer, one
//! accounted σ), the teaching modes (non-private, clip only, noise only), shuffled lots, the
//! learning-rate schedule, and the batch size as a memory bound only.

use crate::common;
use dpsgd_lab::config::{Clipping, Mode, ModelKind, RunConfig, Sampling};
use dpsgd_lab::model::Model;
use dpsgd_lab::train::Trainer;

fn epochs(cfg: RunConfig) -> Vec<dpsgd_lab::train::EpochReport> {
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    std::iter::from_fn(|| t.run_epoch()).collect()
}

#[test]
fn mlp_trains_privately_with_per_layer_clipping() {
    let cfg = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![64],
        clipping: Clipping::PerLayer,
        sigma: 1.0,
        clip: 1.0,
        lot_size: 512,
        lr: 2.0,
        epochs: 2,
        seed: Some(3),
        ..RunConfig::default()
    };
    let r = epochs(cfg.clone());
    assert!(
        r[1].test_acc.unwrap() > 0.8,
        "MLP test accuracy {}",
        r[1].test_acc.unwrap()
    );
    // Noise per layer σC_l over d_l coordinates: E||noise||² = σ² Σ_l C_l² d_l.
    let t = Trainer::new(cfg.clone(), common::adult()).unwrap();
    let bounds = cfg.clip_bounds();
    let expected: f64 = t
        .model()
        .layer_ranges()
        .iter()
        .zip(&bounds)
        .map(|(r, c)| c * c * r.len() as f64)
        .sum::<f64>()
        .sqrt();
    assert!(
        (r[0].diag().noise_norm / expected - 1.0).abs() < 0.05,
        "noise {} vs {expected}",
        r[0].diag().noise_norm
    );
    // The report states that expectation, and samples individual lots for the noise view:
    // each lot's noise norm has relative std 1/sqrt(2d) < 1%, so 10% is over 10 of those.
    assert!((r[0].expected_noise_norm / expected - 1.0).abs() < 1e-9);
    let lots = &r[0].diag().lot_signal_noise;
    assert!(
        !lots.is_empty() && lots.len() <= 64,
        "{} lots sampled",
        lots.len()
    );
    for w in lots.windows(2) {
        assert!(w[0][0] < w[1][0] && w[1][0] <= 1.0, "lot positions {w:?}");
    }
    for &[_, signal, noise] in lots {
        assert!(
            signal > 0.0 && (noise as f64 / expected - 1.0).abs() < 0.1,
            "lot noise {noise}"
        );
    }
    // Two layers with noise σC_l each are accounted as one mechanism with σ/√2.
    assert!((r[0].accounted_sigma - 1.0 / 2f64.sqrt()).abs() < 1e-12);
}

#[test]
fn teaching_modes_do_what_they_say() {
    let base = RunConfig {
        epochs: 1,
        seed: Some(4),
        clip: 0.01,
        sigma: 2.0,
        ..RunConfig::default()
    };
    let non = &epochs(RunConfig {
        mode: Mode::NonPrivate,
        ..base.clone()
    })[0];
    assert_eq!(
        (non.diag().clipped_fraction, non.diag().noise_norm),
        (0.0, 0.0)
    );
    assert_eq!(non.expected_noise_norm, 0.0);
    assert!(non.epsilon.rdp.is_infinite() && !non.notes.is_empty());
    let clip = &epochs(RunConfig {
        mode: Mode::ClipOnly,
        ..base.clone()
    })[0];
    assert!(
        clip.diag().clipped_fraction > 0.5
            && clip.diag().noise_norm == 0.0
            && clip.epsilon.moments.is_infinite()
    );
    assert_eq!(clip.expected_noise_norm, 0.0);
    let noise = &epochs(RunConfig {
        mode: Mode::NoiseOnly,
        ..base.clone()
    })[0];
    assert!(
        noise.diag().clipped_fraction == 0.0
            && noise.diag().noise_norm > 0.0
            && noise.epsilon.moments.is_infinite()
    );
    let dp = &epochs(base)[0];
    assert!(
        dp.diag().clipped_fraction > 0.5
            && dp.diag().noise_norm > 0.0
            && dp.epsilon.moments.is_finite()
    );
    assert!(dp.notes.is_empty());
}

#[test]
fn shuffled_lots_have_exactly_l_examples_and_say_so() {
    let r = epochs(RunConfig {
        sampling: Sampling::Shuffle,
        lot_size: 1000,
        epochs: 1,
        seed: Some(2),
        ..RunConfig::default()
    });
    assert_eq!(r[0].diag().mean_lot_size, 1000.0);
    assert!(r[0].notes.iter().any(|n| n.contains("Poisson")));
}

#[test]
fn learning_rate_decays_linearly_then_stays() {
    let r = epochs(RunConfig {
        lr: 0.1,
        lr_end: Some(0.052),
        lr_decay_epochs: 2,
        epochs: 4,
        lot_size: 4096,
        seed: Some(1),
        ..RunConfig::default()
    });
    let lrs: Vec<f64> = r.iter().map(|e| e.lr).collect();
    assert!((lrs[0] - 0.1).abs() < 1e-12 && (lrs[1] - 0.076).abs() < 1e-12);
    assert!((lrs[2] - 0.052).abs() < 1e-12 && (lrs[3] - 0.052).abs() < 1e-12);
}

#[test]
fn batch_size_is_only_a_memory_bound() {
    let run = |batch_size| {
        let cfg = RunConfig {
            model: ModelKind::Mlp,
            hidden: vec![16],
            batch_size,
            lot_size: 700,
            epochs: 1,
            seed: Some(8),
            ..RunConfig::default()
        };
        let mut t = Trainer::new(cfg, common::adult()).unwrap();
        t.run_epoch().unwrap();
        t.model().params().to_vec()
    };
    let (small, large) = (run(37), run(4096));
    let scale = large.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    for (a, b) in small.iter().zip(&large) {
        assert!((a - b).abs() <= 1e-4 * scale, "{a} vs {b}");
    }
}
