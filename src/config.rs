//! Every knob of a run, validated in one place with errors a person can read.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The configuration of one DP-SGD run (paper Algorithm 1's inputs: noise scale σ, gradient
/// norm bound C, lot size L, learning rate η, number of epochs, and the target δ).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Noise multiplier σ: the Gaussian noise added to the clipped sum has std σ·C.
    pub sigma: f64,
    /// Clipping norm C: every per-example gradient is scaled to L2 norm at most C.
    pub clip: f64,
    /// Expected lot size L; lots are Poisson-sampled with q = L/N.
    pub lot_size: usize,
    /// Learning rate η.
    pub lr: f64,
    /// Number of epochs; an epoch is N/L lots.
    pub epochs: usize,
    /// The δ at which ε is reported.
    pub delta: f64,
    /// Seed of the run's random numbers (sampling, noise, initialisation); `None`: random.
    pub seed: Option<u64>,
    /// Largest number of examples processed at once inside a lot (a memory bound only).
    pub batch_size: usize,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            sigma: 1.0,
            clip: 1.0,
            lot_size: 256,
            lr: 2.0,
            epochs: 20,
            delta: 1e-5,
            seed: None,
            batch_size: 256,
        }
    }
}

/// A configuration value a run cannot use, with the field and its valid range.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

fn err(field: &'static str, message: String) -> ConfigError {
    ConfigError { field, message }
}

/// Largest σ the lab accepts; beyond it the noise swamps any gradient.
pub const MAX_SIGMA: f64 = 100.0;
/// Largest number of epochs of one run.
pub const MAX_EPOCHS: usize = 10_000;

impl RunConfig {
    /// Parses a JSON object; missing fields take their defaults, unknown fields are rejected.
    pub fn from_json(text: &str) -> Result<RunConfig, ConfigError> {
        serde_json::from_str(text)
            .map_err(|e| err("config", format!("not a valid configuration: {e}")))
    }

    /// Checks every field against its valid range for a training set of `n_train` examples.
    pub fn validate(&self, n_train: usize) -> Result<(), ConfigError> {
        if !(self.sigma.is_finite() && (0.0..=MAX_SIGMA).contains(&self.sigma)) {
            return Err(err(
                "sigma",
                format!(
                    "noise multiplier σ = {} must be between 0 and {MAX_SIGMA}",
                    self.sigma
                ),
            ));
        }
        if !(self.clip.is_finite() && self.clip > 0.0) {
            return Err(err(
                "clip",
                format!("clipping norm C = {} must be a positive number", self.clip),
            ));
        }
        if n_train == 0 {
            return Err(err("dataset", "the training set is empty".into()));
        }
        if self.lot_size == 0 || self.lot_size > n_train {
            return Err(err(
                "lot_size",
                format!(
                    "lot size L = {} must be between 1 and the number of training examples N = {n_train}",
                    self.lot_size
                ),
            ));
        }
        if !(self.lr.is_finite() && self.lr > 0.0 && self.lr <= 100.0) {
            return Err(err(
                "lr",
                format!("learning rate η = {} must be in (0, 100]", self.lr),
            ));
        }
        if self.epochs == 0 || self.epochs > MAX_EPOCHS {
            return Err(err(
                "epochs",
                format!(
                    "epochs = {} must be between 1 and {MAX_EPOCHS}",
                    self.epochs
                ),
            ));
        }
        if !(self.delta > 0.0 && self.delta < 1.0) {
            return Err(err(
                "delta",
                format!("δ = {} must be strictly between 0 and 1", self.delta),
            ));
        }
        if self.batch_size == 0 {
            return Err(err("batch_size", "batch size must be at least 1".into()));
        }
        Ok(())
    }

    /// Sampling rate q = L/N of the Poisson-sampled lots.
    pub fn sampling_rate(&self, n_train: usize) -> f64 {
        self.lot_size as f64 / n_train as f64
    }

    /// Lots per epoch: N/L rounded, at least one (the accountants' steps = epochs / q).
    pub fn steps_per_epoch(&self, n_train: usize) -> u64 {
        ((n_train as f64 / self.lot_size as f64).round() as u64).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_name_their_field() {
        let c = RunConfig::default();
        assert!(c.validate(1000).is_ok());
        let bad = RunConfig {
            lot_size: 2000,
            ..c.clone()
        };
        let e = bad.validate(1000).unwrap_err();
        assert_eq!(e.field, "lot_size");
        assert!(e.message.contains("N = 1000"), "{e}");
        assert_eq!(
            RunConfig {
                sigma: -1.0,
                ..c.clone()
            }
            .validate(1000)
            .unwrap_err()
            .field,
            "sigma"
        );
        assert_eq!(
            RunConfig {
                sigma: f64::NAN,
                ..c.clone()
            }
            .validate(1000)
            .unwrap_err()
            .field,
            "sigma"
        );
        assert_eq!(
            RunConfig {
                clip: 0.0,
                ..c.clone()
            }
            .validate(1000)
            .unwrap_err()
            .field,
            "clip"
        );
        assert_eq!(
            RunConfig {
                delta: 1.0,
                ..c.clone()
            }
            .validate(1000)
            .unwrap_err()
            .field,
            "delta"
        );
        assert_eq!(
            RunConfig {
                epochs: 0,
                ..c.clone()
            }
            .validate(1000)
            .unwrap_err()
            .field,
            "epochs"
        );
        assert!(
            RunConfig { sigma: 0.0, ..c }.validate(1000).is_ok(),
            "σ = 0 is allowed (ε = ∞)"
        );
    }

    #[test]
    fn json_fills_defaults_and_rejects_unknown_fields() {
        let c = RunConfig::from_json(r#"{"sigma": 2.5, "seed": 7}"#).unwrap();
        assert_eq!(c.sigma, 2.5);
        assert_eq!(c.seed, Some(7));
        assert_eq!(c.clip, RunConfig::default().clip);
        assert!(RunConfig::from_json(r#"{"sigmaa": 1}"#).is_err());
        assert!(RunConfig::from_json("not json").is_err());
    }
}
