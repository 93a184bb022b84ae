//! What a run releases, as data — in the spirit of dp_accounting's `DpEvent`: every release is
//! a Gaussian query with L2 sensitivity 1 (after scaling) and noise multiplier σ on a Poisson
//! sample of rate q (q = 1: the whole data set), repeated some number of times. The run is
//! the composition of
//! - the releases made once, before training (DP-PCA's projection, paper Section 4; a private
//!   estimate of an uploaded file's column ranges),
//! - one training step per lot (Algorithm 1: the noisy clipped gradient sum, and with adaptive
//!   clipping the noisy clipped count, accounted together as one Gaussian), and
//! - the releases made after every epoch (the noisy test accuracy of a private test set).
//!
//! [`crate::config::RunConfig::mechanism`] is the one place that derives it; the trainer, the
//! budget stop, calibration, the page's previews and the audit all read it from there.
//!
//! The contract, as dp_accounting's `dp_event.py` has one: these types say what was released and
//! nothing of how it was computed; an accountant reads a run only through them, and they import
//! nothing above the accountants (`tests/layers.rs`). So they live in the accountants' room, a
//! leaf the accountants compose, and a new kind of release is a variant here and a case in each
//! accountant, never a type of the trainer's.

use super::SampledGaussian;
use serde::{Deserialize, Serialize};

/// What a release is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseKind {
    /// DP-PCA's noisy AᵀA (paper Section 4).
    DpPca,
    /// The noisy histograms that estimate an uploaded file's column ranges.
    Bounds,
    /// Column ranges the student read off their own file and stated: released without noise
    /// (σ = 0), so nothing after it is private.
    ReadOff,
    /// One step of Algorithm 1 (with adaptive clipping, the noisy clipped count too).
    Training,
    /// The noisy count of correct predictions on a private test set.
    Evaluation,
}

/// One kind of release of a run and its noise.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Release {
    pub what: ReleaseKind,
    /// Poisson sampling rate (1: every example).
    pub q: f64,
    /// Noise std over L2 sensitivity (0: no noise, no privacy).
    pub sigma: f64,
}

impl Release {
    /// This release made `count` times.
    pub fn times(&self, count: u64) -> SampledGaussian {
        SampledGaussian {
            q: self.q,
            sigma: self.sigma,
            steps: count,
        }
    }
}

/// The whole run as releases: `before` once each, `step` after every lot, `per_epoch` after
/// every epoch (also after a last, shortened one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mechanism {
    pub before: Vec<Release>,
    pub step: Release,
    pub per_epoch: Vec<Release>,
    pub steps_per_epoch: u64,
    pub epochs: u64,
}

impl Mechanism {
    /// Training steps of the whole run.
    pub fn total_steps(&self) -> u64 {
        self.steps_per_epoch.saturating_mul(self.epochs)
    }

    /// The releases after `steps` training steps: everything before training, the steps, and
    /// one per-epoch release for every epoch begun (each epoch, a cut-short one included,
    /// ends with its report).
    pub fn after_steps(&self, steps: u64) -> Vec<SampledGaussian> {
        let epochs = steps.div_ceil(self.steps_per_epoch.max(1));
        let mut parts: Vec<SampledGaussian> = self.before.iter().map(|r| r.times(1)).collect();
        parts.push(self.step.times(steps));
        parts.extend(self.per_epoch.iter().map(|r| r.times(epochs)));
        parts
    }

    /// The releases after `epochs` whole epochs.
    pub fn after_epochs(&self, epochs: u64) -> Vec<SampledGaussian> {
        self.after_steps(epochs.saturating_mul(self.steps_per_epoch))
    }

    /// The releases one epoch adds.
    pub fn one_epoch(&self) -> Vec<SampledGaussian> {
        let mut parts = vec![self.step.times(self.steps_per_epoch)];
        parts.extend(self.per_epoch.iter().map(|r| r.times(1)));
        parts
    }

    /// The releases made before training.
    pub fn before_training(&self) -> Vec<SampledGaussian> {
        self.before.iter().map(|r| r.times(1)).collect()
    }

    /// Whether any release has no noise (so ε = ∞).
    pub fn is_open(&self) -> bool {
        self.after_epochs(self.epochs.max(1))
            .iter()
            .any(|p| p.trivial_epsilon() == Some(f64::INFINITY))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> Mechanism {
        Mechanism {
            before: vec![Release {
                what: ReleaseKind::DpPca,
                q: 1.0,
                sigma: 7.0,
            }],
            step: Release {
                what: ReleaseKind::Training,
                q: 0.01,
                sigma: 4.0,
            },
            per_epoch: vec![Release {
                what: ReleaseKind::Evaluation,
                q: 1.0,
                sigma: 20.0,
            }],
            steps_per_epoch: 100,
            epochs: 3,
        }
    }

    #[test]
    fn releases_after_some_steps() {
        let m = run();
        assert_eq!(m.total_steps(), 300);
        let counts =
            |parts: Vec<SampledGaussian>| parts.iter().map(|p| p.steps).collect::<Vec<_>>();
        assert_eq!(counts(m.after_steps(0)), [1, 0, 0]);
        assert_eq!(
            counts(m.after_steps(1)),
            [1, 1, 1],
            "an epoch begun ends with a report"
        );
        assert_eq!(counts(m.after_steps(100)), [1, 100, 1]);
        assert_eq!(counts(m.after_steps(101)), [1, 101, 2]);
        assert_eq!(counts(m.after_epochs(3)), [1, 300, 3]);
        assert_eq!(counts(m.one_epoch()), [100, 1]);
        assert!(!m.is_open());
        let open = Mechanism {
            step: Release {
                sigma: 0.0,
                ..m.step
            },
            ..m
        };
        assert!(open.is_open());
    }
}
