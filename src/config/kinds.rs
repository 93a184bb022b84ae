//! The named choices of a run's configuration (each a JSON string in kebab case).

use serde::{Deserialize, Serialize};

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

impl Mode {
    /// Whether per-example gradients are clipped.
    pub fn clips(self) -> bool {
        matches!(self, Mode::Dp | Mode::ClipOnly)
    }

    /// Whether noise is added.
    pub fn adds_noise(self) -> bool {
        matches!(self, Mode::Dp | Mode::NoiseOnly)
    }
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

/// What an epoch report releases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseLevel {
    /// Only what ε covers: the model's metrics on a public held-out test set, ε, and the
    /// statistics released with accounted noise.
    Private,
    /// Everything a lesson uses, each field outside the guarantee named in `not_private`.
    #[default]
    Teaching,
}
