//! The golden runs: short DP-SGD runs on Adult whose epoch reports are frozen in
//! tests/fixtures/golden_run.json. The native test (tests/training.rs) checks that the native
//! build still produces them, and writes them with UPDATE_GOLDEN=1; the browser test
//! (tests/web.rs) checks that the wasm build produces the same numbers.
#![allow(dead_code)]

use dpsgd_lab::config::{Clipping, ModelKind, RunConfig};
use dpsgd_lab::data::Dataset;
use dpsgd_lab::train::part::PartChannel;
use dpsgd_lab::train::Trainer;
use std::sync::Arc;

/// The configurations frozen in the fixture: logistic regression with flat clipping, and a
/// small MLP with per-layer clipping and a decaying learning rate.
pub fn golden_configs() -> Vec<RunConfig> {
    vec![
        RunConfig {
            sigma: 1.0,
            clip: 0.5,
            lot_size: 512,
            lr: 2.0,
            epochs: 3,
            seed: Some(42),
            ..RunConfig::default()
        },
        RunConfig {
            model: ModelKind::Mlp,
            hidden: vec![32],
            clipping: Clipping::PerLayer,
            sigma: 2.0,
            clip: 1.0,
            lot_size: 1024,
            lr: 0.5,
            lr_end: Some(0.2),
            lr_decay_epochs: 2,
            epochs: 2,
            seed: Some(7),
            ..RunConfig::default()
        },
    ]
}

/// Every epoch report of a run, as JSON values.
pub fn run(cfg: RunConfig, data: Arc<Dataset>) -> Vec<serde_json::Value> {
    run_in_parts(cfg, data, 1, PartChannel::Messages)
}

/// The same with each lot split into `k` parts summed separately and then added (what k
/// data-parallel workers do), cut as for helpers on `channel`.
pub fn run_in_parts(
    cfg: RunConfig,
    data: Arc<Dataset>,
    k: usize,
    channel: PartChannel,
) -> Vec<serde_json::Value> {
    let mut t = Trainer::new(cfg, data).unwrap();
    t.set_parts_per_lot(k);
    t.set_part_channel(channel);
    std::iter::from_fn(|| t.run_epoch())
        .map(|r| serde_json::to_value(r).unwrap())
        .collect()
}

/// Checks `got` against the golden `want`: model figures to `tol` relative, ε to 1e-9.
pub fn compare(
    want: &[serde_json::Value],
    got: &[serde_json::Value],
    tol: f64,
) -> Result<(), String> {
    if want.len() != got.len() {
        return Err(format!("{} epochs instead of {}", got.len(), want.len()));
    }
    let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * a.abs().max(1e-3);
    for (w, g) in want.iter().zip(got) {
        let epoch = &w["epoch"];
        for key in [
            "train_acc",
            "test_acc",
            "train_loss",
            "test_loss",
            "clipped_fraction",
            "median_grad_norm",
            "noise_norm",
            "signal_norm",
            "lr",
        ] {
            let (a, b) = (w[key].as_f64().unwrap(), g[key].as_f64().unwrap());
            if !close(a, b, tol) {
                return Err(format!("epoch {epoch}: {key} golden {a} vs {b}"));
            }
        }
        // The analytic accountants to 1e-9; PLD to 1e-6 (its FFTs round differently natively
        // and in wasm).
        for (acc, tol) in [
            ("naive", 1e-9),
            ("strong", 1e-9),
            ("moments", 1e-9),
            ("rdp", 1e-9),
            ("pld", 1e-6),
        ] {
            let (a, b) = (
                w["epsilon"][acc].as_f64().unwrap(),
                g["epsilon"][acc].as_f64().unwrap(),
            );
            if !close(a, b, tol) {
                return Err(format!("epoch {epoch}: ε {acc} golden {a} vs {b}"));
            }
        }
    }
    Ok(())
}
