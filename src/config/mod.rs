//! Every knob of a run, and what follows from them: the privacy mechanism the run is
//! (derived here and nowhere else), the noise multiplier the accountants use, the schedule.
//! Validation is table-driven, in [`validate`]; the named choices are in [`kinds`].

mod kinds;
mod label;
mod lot;
mod validate;

pub use crate::privacy::accountant::AccountantName;
pub use crate::text::fmt_num;
pub use kinds::{name_of, names_of, Clipping, GroupBy, Mode, ModelKind, ReleaseLevel, Sampling};
pub use label::pin_label;
pub use lot::LotAtLeastN;
pub use validate::{
    range_of, ConfigError, Ends, Range, HIDDEN_LAYERS, MAX_EPOCHS, MAX_SIGMA, RANGES,
};

use crate::data::DataFacts;
use crate::privacy::accountant::mechanism::{Mechanism, Release, ReleaseKind};
use crate::privacy::accountant::{Accountant, Amplification};
use serde::{Deserialize, Serialize};

/// The lab's suggested target quantile for adaptive clipping: C follows the 90th percentile of
/// the gradient norms. (Andrew et al. use the median; on Adult most examples are soon fitted
/// and their gradients vanish, so the median drives C to 1e-4 and learning stalls at 76%,
/// where 0.8–0.95 all reach the best fixed C's accuracy.)
pub const DEFAULT_CLIP_QUANTILE: f64 = 0.9;

/// DP-PCA's dimensions in the paper's MNIST runs (Section 4: "project onto 60 dimensions").
pub const PAPER_PCA_DIMENSIONS: usize = 60;

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
    /// The accountant the budget is measured with (any of [`AccountantName::ALL`])
    /// (naive and strong always with the rigorous convention: a budget decides something).
    pub budget_accountant: AccountantName,
    /// How naive and strong composition bound a step in the reports: `rigorous` (exact ε0,
    /// a valid bound), `classical` or `paper` (the paper's optimistic convention, for Fig. 2).
    pub amplification: Amplification,
    /// What the reports release: `private` (only what ε covers) or `teaching`.
    pub report: ReleaseLevel,
    /// Adaptive clipping (Andrew et al. 2021): the fraction of a lot's examples that should be
    /// unclipped; C follows it geometrically, steered by the noisy unclipped count.
    pub clip_quantile: Option<f64>,
    /// Adaptive clipping's learning rate η_C: C ← C·exp(−η_C (b̃ − γ)).
    pub clip_lr: f64,
    /// Noise std σ_b on each lot's centred unclipped count Σ(1[‖g_i‖ ≤ C] − ½); released and
    /// accounted every step. Adaptive clipping defaults it to L/20 (Andrew et al.); without
    /// adaptive clipping, setting it releases a private clipped fraction.
    pub count_noise: Option<f64>,
    /// Noise std on the count of correct test predictions when the test set is private (own
    /// data at the private release level), released once per epoch and accounted; 0: the
    /// test accuracy is not released at all.
    pub eval_noise: f64,
    /// Test accuracy per group in each report (who pays for privacy): Adult's sex or race, or
    /// the class; built-in data sets only (`train::groups`). Left out while none, so the
    /// page's links (and their QR codes) do not grow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<GroupBy>,
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
            budget_accountant: AccountantName::Moments,
            amplification: Amplification::Rigorous,
            report: ReleaseLevel::Teaching,
            clip_quantile: None,
            clip_lr: 0.2,
            count_noise: None,
            eval_noise: 20.0,
            groups: None,
        }
    }
}

impl RunConfig {
    /// What each optional setting is when someone switches it on without choosing a value
    /// (the page's boxes beside its switches): DP-PCA to the paper's 60 dimensions and adaptive
    /// clipping's [`DEFAULT_CLIP_QUANTILE`]. Every other field is the default.
    pub fn suggested() -> RunConfig {
        RunConfig {
            pca: Some(PAPER_PCA_DIMENSIONS),
            clip_quantile: Some(DEFAULT_CLIP_QUANTILE),
            ..RunConfig::default()
        }
    }
}

impl RunConfig {
    /// Parses a JSON object; missing fields take their defaults, unknown fields are rejected.
    pub fn from_json(text: &str) -> Result<RunConfig, ConfigError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ConfigError::from_json(&e))?;
        match &value {
            serde_json::Value::Object(map) => {
                serde_json::from_value(value.clone()).map_err(|_| ConfigError::locate(map))
            }
            _ => Err(ConfigError {
                field: "config",
                message: "a configuration is a JSON object of settings".into(),
            }),
        }
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

    /// Whether C adapts to a target quantile (only where clipping happens).
    pub fn adaptive_clipping(&self) -> bool {
        self.clip_quantile.is_some() && self.mode.clips()
    }

    /// The noise std σ_b of the released unclipped count, when one is released: the given one,
    /// or L/20 for adaptive clipping (Andrew et al. 2021, Section 4). Only where clipping
    /// happens.
    pub fn count_noise_std(&self) -> Option<f64> {
        if !self.mode.clips() {
            return None;
        }
        match (self.count_noise, self.clip_quantile) {
            (Some(s), _) => Some(s),
            (None, Some(_)) => Some(self.lot_size as f64 / 20.0),
            (None, None) => None,
        }
    }

    /// The noise multiplier of one training step as the accountants see it. Flat clipping: σ.
    /// Per-layer clipping with noise σC_l on each of k layers is k Gaussian mechanisms on the
    /// same lot, i.e. one with multiplier σ/√k. The noisy unclipped count (std σ_b on a sum of
    /// terms in {−½, ½}: sensitivity ½) joins them: 1/σ_eff² = k/σ² + 1/(2σ_b)² (Andrew et
    /// al. 2021, Theorem 1). Modes without clipping or noise have no guarantee: 0 (ε = ∞).
    pub fn accounted_sigma(&self) -> f64 {
        let grad = match (self.mode, self.clipping) {
            (Mode::Dp, Clipping::Flat) => self.sigma,
            (Mode::Dp, Clipping::PerLayer) => self.sigma / (self.n_layers() as f64).sqrt(),
            _ => return 0.0,
        };
        match self.count_noise_std() {
            _ if grad == 0.0 => 0.0,
            Some(sb) => (grad.powi(-2) + (2.0 * sb).powi(-2)).powf(-0.5),
            None => grad,
        }
    }

    /// Whether the run's training steps add noise: a mode with noise (DP, noise-only) at σ > 0.
    /// The lessons ask it of the run on screen and of a step's settings (what they may say of
    /// the noise), through the page's `adds_noise`.
    pub fn adds_noise(&self) -> bool {
        self.mode.adds_noise() && self.sigma > 0.0
    }

    /// DP-PCA's noise std for this mode: σ_p where noise is added (DP, noise-only), 0 (exact
    /// PCA) where it is not.
    pub fn pca_noise(&self) -> f64 {
        if self.mode.adds_noise() {
            self.pca_sigma
        } else {
            0.0
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
        self.lot_size as f64 / n_train.max(1) as f64
    }

    /// Lots per epoch: N/L rounded, at least one (the accountants' steps = epochs / q).
    pub fn steps_per_epoch(&self, n_train: usize) -> u64 {
        ((n_train as f64 / self.lot_size.max(1) as f64).round() as u64).max(1)
    }

    /// Whether the test accuracy is released with accounted noise: a private test set (own
    /// data) at the private release level, with noise.
    pub fn noisy_evaluation(&self, data: &DataFacts) -> bool {
        data.private && self.report == ReleaseLevel::Private && self.eval_noise > 0.0
    }

    /// The run as the releases it makes — the one place q, the steps, σ_eff, DP-PCA's step and
    /// the private evaluations are derived. Every ε of the lab is computed from it.
    pub fn mechanism(&self, data: &DataFacts) -> Mechanism {
        let mut before = data.releases.clone();
        if self.pca.is_some() {
            before.push(Release {
                what: ReleaseKind::DpPca,
                q: self.pca_sample,
                sigma: self.pca_noise(),
            });
        }
        let per_epoch = if self.noisy_evaluation(data) {
            vec![Release {
                what: ReleaseKind::Evaluation,
                q: 1.0,
                sigma: self.eval_noise,
            }]
        } else {
            Vec::new()
        };
        Mechanism {
            before,
            step: Release {
                what: ReleaseKind::Training,
                q: self.sampling_rate(data.n_train),
                sigma: self.accounted_sigma(),
            },
            per_epoch,
            steps_per_epoch: self.steps_per_epoch(data.n_train),
            epochs: self.epochs as u64,
        }
    }

    /// The accountant a budget is measured with; naive and strong with the rigorous convention
    /// (a budget decides something).
    pub fn budget_accountant(&self) -> Accountant {
        Accountant::of(self.budget_accountant, Amplification::Rigorous)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
