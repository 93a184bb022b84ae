//! Every knob of a run, validated in one place with errors a person can read.

use crate::privacy::accountant::{Accountant, Amplification};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which model to train.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Softmax (multinomial) logistic regression; binary with two classes.
    Logistic,
    /// Input → `hidden` ReLU layers → softmax.
    Mlp,
}

/// How per-example gradients are clipped (paper Section 3.1, "Norm clipping").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clipping {
    /// One bound C on the norm of the whole gradient; noise σC on every parameter.
    Flat,
    /// A bound C_l per layer (`layer_clips`, or C/√layers each); noise σC_l on layer l.
    PerLayer,
}

/// What the sanitizer does — full DP-SGD, or one half of it for teaching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Clip and add noise: differentially private.
    Dp,
    /// Plain SGD: no clipping, no noise (ε = ∞).
    NonPrivate,
    /// Clipping without noise (ε = ∞).
    ClipOnly,
    /// Noise σC without clipping: nothing bounds one example's influence (ε = ∞).
    NoiseOnly,
}

/// How lots are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sampling {
    /// Each example joins each lot independently with probability q = L/N (what the
    /// accountants assume).
    Poisson,
    /// Fixed-size lots of L from a fresh shuffle each epoch (common in practice; the
    /// accountants' ε is then only indicative).
    Shuffle,
}

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
    pub model: ModelKind,
    /// Hidden layer widths of the MLP (1 or 2 layers, each 8 to 1,000).
    pub hidden: Vec<usize>,
    pub clipping: Clipping,
    /// Per-layer clipping bounds (one per layer, output layer last); default C/√layers each.
    pub layer_clips: Option<Vec<f64>>,
    pub mode: Mode,
    pub sampling: Sampling,
    /// Learning-rate schedule: linear decay from `lr` to `lr_end` over `lr_decay_epochs`
    /// epochs, then constant (the paper: 0.1 → 0.052 over 10 epochs). No decay when unset.
    pub lr_end: Option<f64>,
    pub lr_decay_epochs: usize,
    /// The data set: a built-in name (see `data::builtin`), or "own" on the page for a file of
    /// one's own (the worker keeps it; the CLI takes `--csv` instead).
    pub dataset: String,
    /// Coordinate noise of the generated 2-D sets (0 to 1).
    pub data_noise: f64,
    /// DP-PCA to this many dimensions before training (paper Section 4: 60); none when unset.
    pub pca: Option<usize>,
    /// DP-PCA's noise std σ_p on the unit-norm rows' AᵀA (paper: 7 with σ = 4).
    pub pca_sigma: f64,
    /// DP-PCA's Poisson sampling rate of training examples.
    pub pca_sample: f64,
    /// Budget mode (the paper's DPTrain): stop before the step that would take ε above this.
    pub budget_epsilon: Option<f64>,
    /// The accountant the budget is measured with: naive, strong, moments, rdp or pld.
    pub budget_accountant: String,
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
            model: ModelKind::Logistic,
            hidden: vec![128],
            clipping: Clipping::Flat,
            layer_clips: None,
            mode: Mode::Dp,
            sampling: Sampling::Poisson,
            lr_end: None,
            lr_decay_epochs: 0,
            dataset: "adult".into(),
            data_noise: 0.1,
            pca: None,
            pca_sigma: 7.0,
            pca_sample: 1.0,
            budget_epsilon: None,
            budget_accountant: "moments".into(),
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
        if self.model == ModelKind::Mlp {
            if !(1..=2).contains(&self.hidden.len()) {
                return Err(err(
                    "hidden",
                    format!(
                        "the MLP has 1 or 2 hidden layers, not {}",
                        self.hidden.len()
                    ),
                ));
            }
            if let Some(w) = self.hidden.iter().find(|w| !(8..=1000).contains(*w)) {
                return Err(err(
                    "hidden",
                    format!("hidden width {w} must be between 8 and 1000"),
                ));
            }
        }
        if let Some(clips) = &self.layer_clips {
            let layers = self.n_layers();
            if clips.len() != layers {
                return Err(err(
                    "layer_clips",
                    format!(
                        "{} per-layer bounds given for a model with {layers} layers",
                        clips.len()
                    ),
                ));
            }
            if let Some(c) = clips.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
                return Err(err(
                    "layer_clips",
                    format!("per-layer bound {c} must be a positive number"),
                ));
            }
        }
        if !(self.data_noise.is_finite() && (0.0..=1.0).contains(&self.data_noise)) {
            return Err(err(
                "data_noise",
                format!("noise level {} must be between 0 and 1", self.data_noise),
            ));
        }
        if self.pca == Some(0) {
            return Err(err("pca", "PCA needs at least 1 dimension".into()));
        }
        if !(self.pca_sigma.is_finite() && (0.0..=MAX_SIGMA).contains(&self.pca_sigma)) {
            return Err(err(
                "pca_sigma",
                format!(
                    "PCA noise σ_p = {} must be between 0 and {MAX_SIGMA}",
                    self.pca_sigma
                ),
            ));
        }
        if !(self.pca_sample > 0.0 && self.pca_sample <= 1.0) {
            return Err(err(
                "pca_sample",
                format!("PCA sampling rate {} must be in (0, 1]", self.pca_sample),
            ));
        }
        if let Some(b) = self.budget_epsilon {
            if !(b.is_finite() && b > 0.0) {
                return Err(err(
                    "budget_epsilon",
                    format!("the ε budget {b} must be a positive number"),
                ));
            }
        }
        if let Err(e) = Accountant::parse(&self.budget_accountant, Amplification::Paper) {
            return Err(err("budget_accountant", e.0));
        }
        if let Some(end) = self.lr_end {
            if !(end.is_finite() && end > 0.0 && end <= 100.0) {
                return Err(err(
                    "lr_end",
                    format!("final learning rate {end} must be in (0, 100]"),
                ));
            }
        }
        Ok(())
    }

    /// Number of dense layers of the model (the groups of per-layer clipping).
    pub fn n_layers(&self) -> usize {
        match self.model {
            ModelKind::Logistic => 1,
            ModelKind::Mlp => self.hidden.len() + 1,
        }
    }

    /// The clipping bound of each layer: C for the single group of flat clipping, else the
    /// given bounds or C/√layers each (so the whole gradient still has norm at most C).
    pub fn clip_bounds(&self) -> Vec<f64> {
        match self.clipping {
            Clipping::Flat => vec![self.clip],
            Clipping::PerLayer => self.layer_clips.clone().unwrap_or_else(|| {
                let layers = self.n_layers();
                vec![self.clip / (layers as f64).sqrt(); layers]
            }),
        }
    }

    /// The noise multiplier the accountants must use. Flat clipping: σ. Per-layer clipping
    /// with noise σC_l on each of k layers is k Gaussian mechanisms on the same lot, i.e. one
    /// with multiplier σ/√k. Modes without clipping or noise have no guarantee: 0 (ε = ∞).
    pub fn accounted_sigma(&self) -> f64 {
        match (self.mode, self.clipping) {
            (Mode::Dp, Clipping::Flat) => self.sigma,
            (Mode::Dp, Clipping::PerLayer) => self.sigma / (self.n_layers() as f64).sqrt(),
            _ => 0.0,
        }
    }

    /// DP-PCA's noise std for this mode: σ_p where noise is added (DP, noise-only), 0 (exact
    /// PCA) where it is not.
    pub fn pca_noise(&self) -> f64 {
        match self.mode {
            Mode::Dp | Mode::NoiseOnly => self.pca_sigma,
            Mode::NonPrivate | Mode::ClipOnly => 0.0,
        }
    }

    /// Learning rate during epoch `epoch` (0-based): linear decay to `lr_end` over
    /// `lr_decay_epochs`, then constant.
    pub fn lr_at(&self, epoch: usize) -> f64 {
        match self.lr_end {
            Some(end) if self.lr_decay_epochs > 0 => {
                let t = (epoch as f64 / self.lr_decay_epochs as f64).min(1.0);
                self.lr + (end - self.lr) * t
            }
            Some(end) if epoch > 0 => end,
            _ => self.lr,
        }
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
    fn schedule_layers_and_accounting() {
        let c = RunConfig {
            lr: 0.1,
            lr_end: Some(0.052),
            lr_decay_epochs: 10,
            ..RunConfig::default()
        };
        assert_eq!(c.lr_at(0), 0.1);
        assert!((c.lr_at(5) - 0.076).abs() < 1e-12);
        assert!((c.lr_at(10) - 0.052).abs() < 1e-12 && (c.lr_at(50) - 0.052).abs() < 1e-12);
        let mlp = RunConfig {
            model: ModelKind::Mlp,
            hidden: vec![100, 50],
            clipping: Clipping::PerLayer,
            clip: 3.0,
            sigma: 4.0,
            ..RunConfig::default()
        };
        assert_eq!(mlp.n_layers(), 3);
        assert!(mlp.validate(1000).is_ok());
        assert!((mlp.clip_bounds().iter().map(|c| c * c).sum::<f64>().sqrt() - 3.0).abs() < 1e-12);
        assert!((mlp.accounted_sigma() - 4.0 / 3f64.sqrt()).abs() < 1e-12);
        assert_eq!(
            RunConfig {
                mode: Mode::ClipOnly,
                ..mlp.clone()
            }
            .accounted_sigma(),
            0.0
        );
        assert_eq!(
            RunConfig {
                hidden: vec![4],
                ..mlp.clone()
            }
            .validate(1000)
            .unwrap_err()
            .field,
            "hidden"
        );
        assert_eq!(
            RunConfig {
                layer_clips: Some(vec![1.0]),
                ..mlp
            }
            .validate(1000)
            .unwrap_err()
            .field,
            "layer_clips"
        );
        let j = RunConfig::from_json(r#"{"model": "mlp", "clipping": "per-layer", "mode": "clip-only", "sampling": "shuffle"}"#).unwrap();
        assert_eq!(
            (j.model, j.clipping, j.mode, j.sampling),
            (
                ModelKind::Mlp,
                Clipping::PerLayer,
                Mode::ClipOnly,
                Sampling::Shuffle
            )
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
