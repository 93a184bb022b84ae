//! What an epoch reports: accuracy, loss and privacy so far, and what clipping and noise did.
//! Serialised as the JSON the CLI prints and the worker posts.

use crate::privacy::accountant::EpsilonReport;
use serde::{Serialize, Serializer};

/// One epoch's report.
#[derive(Clone, Debug, Serialize)]
pub struct EpochReport {
    pub epoch: usize,
    /// Lots (noisy steps) taken since the start of the run.
    pub steps: u64,
    pub train_acc: f64,
    pub train_loss: f64,
    pub test_acc: f64,
    pub test_loss: f64,
    /// ε at the run's δ after `steps` steps, per accountant (paper amplification for naive
    /// and strong), for the noise multiplier in `accounted_sigma`; ∞ is written "inf".
    #[serde(serialize_with = "serialize_epsilons")]
    pub epsilon: EpsilonReport,
    /// The noise multiplier the accountants used (σ, σ/√layers for per-layer clipping, 0 for
    /// the teaching modes without a guarantee).
    pub accounted_sigma: f64,
    /// Learning rate used during this epoch.
    pub lr: f64,
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
    /// The noise norm to expect, sqrt(Σ_l (σ C_l)² d_l) (σC·√d with one C); 0 without noise.
    pub expected_noise_norm: f64,
    pub mean_lot_size: f64,
    /// True when the ε budget stopped the run during (or at the end of) this epoch.
    pub stopped_by_budget: bool,
    /// Caveats a reader must see (e.g. shuffled lots are not what the accountants assume).
    pub notes: Vec<String>,
}

fn finite_or_inf<S: Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(v)
    } else {
        s.serialize_str("inf")
    }
}

fn serialize_epsilons<S: Serializer>(e: &EpsilonReport, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    struct Eps(f64);
    impl Serialize for Eps {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            finite_or_inf(self.0, s)
        }
    }
    let mut m = s.serialize_map(Some(4))?;
    for (k, v) in [
        ("naive", e.naive),
        ("strong", e.strong),
        ("moments", e.moments),
        ("rdp", e.rdp),
    ] {
        m.serialize_entry(k, &Eps(v))?;
    }
    m.end()
}
