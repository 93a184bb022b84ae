//! What an epoch reports, at one of two release levels (docs/privacy.md, "What ε covers"):
//!
//! - `private`: only what the guarantee covers — ε per accountant and what it was computed
//!   from, the schedule, C (with adaptive clipping moved only by noisy counts), the model's
//!   metrics on a public held-out test set, and statistics released with accounted noise
//!   (`private_test_acc`, `private_clipped_fraction`).
//! - `teaching`: the same, plus the [`Diagnostics`] computed from the training data without
//!   noise, every such field named in `not_private` (and so is the exact test accuracy when the
//!   test set is private data).
//!
//! [`COVERED`] and [`NOT_PRIVATE`] are the code's own list of fields; a test checks that every
//! field a report can carry is in exactly one of them.

use super::groups::GroupAccuracy;
use crate::config::ReleaseLevel;
use crate::privacy::accountant::{Amplification, EpsilonReport};
use serde::Serialize;

/// Report fields that ε covers (or that depend on the configuration alone). Of `groups`, each
/// group's test accuracy is covered; its sizes are [`GROUP_SIZES`].
pub const COVERED: [&str; 21] = [
    "epoch",
    "steps",
    "release",
    "epsilon",
    "delta",
    "amplification",
    "accounted_sigma",
    "sampling_rate",
    "lr",
    "clip",
    "expected_noise_norm",
    "test_acc",
    "test_loss",
    "private_test_acc",
    "private_test_acc_noise",
    "private_clipped_fraction",
    "stopped_by_budget",
    "budget_stop",
    "divergence",
    "groups",
    "notes",
];

/// The groups' training and test sizes (`groups[].n_train`, `n_test`): counted on the built-in
/// set's rows without noise — public facts of a public data set, but outside ε, so listed in
/// a report's `not_private` whenever it carries groups (what ε covers says so in words).
pub const GROUP_SIZES: [&str; 2] = ["groups.n_train", "groups.n_test"];

/// Report fields computed from the training data without noise: released at the teaching
/// level only, and named in its `not_private` list.
pub const NOT_PRIVATE: [&str; 9] = [
    "train_acc",
    "train_loss",
    "clipped_fraction",
    "median_grad_norm",
    "last_lot_norms",
    "signal_norm",
    "noise_norm",
    "lot_signal_noise",
    "mean_lot_size",
];

/// [`NOT_PRIVATE`] in words, as "What ε covers" names them: each phrase with the fields it
/// stands for (a test checks that together they name every field once).
pub const NOT_PRIVATE_IN_WORDS: [(&str, &[&str]); 6] = [
    ("train accuracy and loss", &["train_acc", "train_loss"]),
    ("the gradient-norm histogram", &["last_lot_norms"]),
    (
        "signal against noise",
        &["signal_norm", "noise_norm", "lot_signal_noise"],
    ),
    ("the clipped fraction", &["clipped_fraction"]),
    ("the median gradient norm", &["median_grad_norm"]),
    ("the mean lot size", &["mean_lot_size"]),
];

/// The test-set fields, which are outside the guarantee when the test set is private data.
pub const TEST_METRICS: [&str; 2] = ["test_acc", "test_loss"];

/// One epoch's report.
#[derive(Clone, Debug, Serialize)]
pub struct EpochReport {
    pub epoch: usize,
    /// Lots (noisy steps) taken since the start of the run.
    pub steps: u64,
    pub release: ReleaseLevel,
    /// ε at `delta` after `steps` steps (and everything released before and between), per
    /// accountant; ∞ is written "inf".
    pub epsilon: EpsilonReport,
    pub delta: f64,
    /// The convention of the naive and strong values.
    pub amplification: Amplification,
    /// The noise multiplier the accountants used for a training step (σ; σ/√layers for
    /// per-layer clipping; lower with a noisy clipped count; 0 without a guarantee).
    pub accounted_sigma: f64,
    /// q = L/N.
    pub sampling_rate: f64,
    /// Learning rate used during this epoch.
    pub lr: f64,
    /// The clipping norm C at the end of the epoch (moved by adaptive clipping's noisy counts).
    pub clip: f64,
    /// The noise norm to expect, sqrt(Σ_l (σ C_l)² d_l) (σC·√d with one C); 0 without noise.
    pub expected_noise_norm: f64,
    /// Accuracy and mean loss on the test set (absent when it is private and not released).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_acc: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_loss: Option<f64>,
    /// The accuracy on a private test set released from a noisy, accounted count of correct
    /// predictions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_test_acc: Option<f64>,
    /// How far `private_test_acc` can be trusted: its standard deviation from the count's
    /// noise, and whether it was clamped (from the noise and the public number of held-out
    /// rows, and the same noisy count: covered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_test_acc_noise: Option<AccuracyNoise>,
    /// The epoch's mean fraction of clipped examples from the lots' noisy, accounted counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub private_clipped_fraction: Option<f64>,
    /// True when the ε budget stopped the run during (or at the end of) this epoch.
    pub stopped_by_budget: bool,
    /// When the budget stopped the run: which budget, measured how (the report's own naive and
    /// strong figures may follow another convention). From the settings and the step count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_stop: Option<String>,
    /// Why the run stopped when a weight became infinite or NaN in this epoch (η too large):
    /// every later number would be meaningless. Read from the released weights, so covered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divergence: Option<String>,
    /// Test accuracy per group, with each group's training and test sizes (`--groups`): the
    /// accuracies on the built-in data sets' public test set, so covered; the sizes outside ε
    /// ([`GROUP_SIZES`], listed in `not_private`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<GroupAccuracy>>,
    /// Caveats a reader must see (e.g. shuffled lots are not what the accountants assume).
    pub notes: Vec<String>,
    /// The teaching diagnostics (teaching level only).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Diagnostics>,
    /// The fields of this report that ε does not cover.
    pub not_private: Vec<&'static str>,
}

/// A standard deviation of the released accuracy above this says nothing about the model: an
/// accuracy ± more than 10 points (a count's noise σ = 20 over fewer than 200 held-out rows).
pub const TOO_NOISY_SD: f64 = 0.1;

/// The noise of a test accuracy released from a noisy count of correct predictions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AccuracyNoise {
    /// The released accuracy's standard deviation: the count's noise σ over the held-out rows.
    pub sd: f64,
    /// The held-out rows, the count's denominator (public).
    pub held_out: usize,
    /// The noisy count over the held-out rows, when it fell outside [0, 1] and the released
    /// accuracy was clamped to the nearer end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clamped_from: Option<f64>,
    /// The noise is larger than what it measures: `sd` above [`TOO_NOISY_SD`].
    pub too_noisy: bool,
}

impl AccuracyNoise {
    /// The noise of an accuracy counted over `held_out` rows with noise std `sigma`, whose
    /// noisy count over the rows was `noisy` (before clamping into [0, 1]).
    pub fn of(sigma: f64, held_out: usize, noisy: f64) -> AccuracyNoise {
        let sd = sigma / held_out.max(1) as f64;
        AccuracyNoise {
            sd,
            held_out,
            clamped_from: (!(0.0..=1.0).contains(&noisy)).then_some(noisy),
            too_noisy: sd > TOO_NOISY_SD,
        }
    }

    /// The accuracy released: the noisy count clamped into [0, 1].
    pub fn clamped(noisy: f64) -> f64 {
        noisy.clamp(0.0, 1.0)
    }
}

/// What clipping and noise did, measured on the training data without noise: for a lesson,
/// never covered by ε.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Diagnostics {
    /// Accuracy and mean loss on the whole training set.
    pub train_acc: f64,
    pub train_loss: f64,
    /// Fraction of the epoch's examples whose gradient was clipped.
    pub clipped_fraction: f64,
    /// Median per-example gradient norm (before clipping) over the epoch (0 when the mode
    /// computes no per-example norms).
    pub median_grad_norm: f64,
    /// Per-example gradient norms of the epoch's last lot, before clipping (at most 512).
    pub last_lot_norms: Vec<crate::Real>,
    /// Mean ||Σ clipped g_i|| and mean ||noise|| per lot, before dividing by L.
    pub signal_norm: f64,
    pub noise_norm: f64,
    /// (position in the epoch, ||Σ clipped g_i||, ||noise||) of up to 64 evenly spaced lots,
    /// in order; lot j's (from 0) position is (j + 1) / steps per epoch, so an epoch the
    /// budget cut short ends below 1.
    pub lot_signal_noise: Vec<[f32; 3]>,
    pub mean_lot_size: f64,
}

impl EpochReport {
    /// The teaching diagnostics; panics at the private level (for tests and benchmarks).
    pub fn diag(&self) -> &Diagnostics {
        self.diagnostics
            .as_ref()
            .expect("diagnostics are released at the teaching level only")
    }

    /// Fills `not_private` from what the report carries: the diagnostics, and the exact test
    /// metrics when `test_is_private`.
    pub(super) fn list_not_private(&mut self, test_is_private: bool) {
        self.not_private.clear();
        if self.diagnostics.is_some() {
            self.not_private.extend(NOT_PRIVATE);
        }
        if test_is_private && self.test_acc.is_some() {
            self.not_private.extend(TEST_METRICS);
        }
        if self.groups.is_some() {
            self.not_private.extend(GROUP_SIZES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_diagnostic_is_listed_and_no_field_is_both() {
        let keys = |v: serde_json::Value| -> Vec<String> {
            v.as_object().unwrap().keys().cloned().collect()
        };
        let d = keys(serde_json::to_value(Diagnostics::default()).unwrap());
        let mut listed: Vec<String> = NOT_PRIVATE.iter().map(|s| s.to_string()).collect();
        let mut d_sorted = d.clone();
        d_sorted.sort();
        listed.sort();
        assert_eq!(
            d_sorted, listed,
            "Diagnostics and NOT_PRIVATE must name the same fields"
        );
        assert!(NOT_PRIVATE.iter().all(|k| !COVERED.contains(k)));
        let mut worded: Vec<String> = NOT_PRIVATE_IN_WORDS
            .iter()
            .flat_map(|(_, fields)| fields.iter().map(|f| f.to_string()))
            .collect();
        worded.sort();
        assert_eq!(worded, listed, "every diagnostic is named in words, once");
        assert!(TEST_METRICS.iter().all(|k| COVERED.contains(k)));
        for size in GROUP_SIZES {
            let (field, sub) = size.split_once('.').unwrap();
            assert!(COVERED.contains(&field) && !NOT_PRIVATE.contains(&size));
            let group = serde_json::to_value(super::super::groups::GroupAccuracy {
                name: "a".into(),
                n_train: 1,
                n_test: 1,
                test_acc: None,
            })
            .unwrap();
            assert!(group.get(sub).is_some(), "{size} names a field of a group");
        }
    }

    #[test]
    fn a_noisy_accuracy_says_its_sd_and_when_it_was_clamped() {
        // σ = 20 over 31 held-out rows: ± 65 points, and a count that fell below zero.
        let n = AccuracyNoise::of(20.0, 31, -0.12);
        assert!((n.sd - 20.0 / 31.0).abs() < 1e-15 && n.too_noisy);
        assert_eq!((n.held_out, n.clamped_from), (31, Some(-0.12)));
        assert_eq!(AccuracyNoise::clamped(-0.12), 0.0);
        assert_eq!(AccuracyNoise::clamped(1.3), 1.0);
        // σ = 20 over 400 rows: ± 5 points, inside [0, 1]: a measurement.
        let n = AccuracyNoise::of(20.0, 400, 0.84);
        assert_eq!((n.sd, n.clamped_from, n.too_noisy), (0.05, None, false));
        assert!(
            AccuracyNoise::of(20.0, 200, 0.5).sd <= TOO_NOISY_SD,
            "200 rows: not too noisy"
        );
    }
}
