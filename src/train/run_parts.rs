//! The parts of a [`super::Trainer`] (#54 §6), each a concern of its own: the buffers a lot
//! reuses (Algorithm 1's lot, its clipped gradients' norms and sum, its noise), the clipping in
//! force (C and the bounds it gives each layer), where the run stands (steps, epochs, the
//! budget's limit), and an audit run's Dirac canaries.

use super::canary::{DiracCanaries, Draws};
use super::stats::EpochStats;
use crate::Real;
use std::ops::Range;

/// Buffers reused lot after lot.
#[derive(Default)]
pub(super) struct LotBuffers {
    /// The lot's rows (Algorithm 1, line 3: Poisson-sampled with q = L/N, or a shuffled slice).
    pub lot: Vec<usize>,
    /// A shuffled epoch's order of rows, and how far its lots have taken it.
    pub perm: Vec<usize>,
    pub perm_pos: usize,
    /// The lot's per-example gradient norms before clipping (line 5's ‖g(x_i)‖₂).
    pub norms: Vec<Real>,
    /// The lot's sum of clipped gradients (line 6), then its noisy sum (line 7).
    pub grad: Vec<Real>,
    /// The current lot's noise when drawn ahead ([`super::Trainer::draw_noise`]), and its L2
    /// norm; taken (once) when the lot is applied.
    pub noise_ahead: Vec<Real>,
    pub noise_ahead_norm: Option<f64>,
}

/// The clipping in force: the flat C (moved by adaptive clipping) and the bound it gives each
/// layer's slice of the parameters (line 6, per layer when clipping is per layer).
pub(super) struct ClipInForce {
    pub c: f64,
    pub bounds: Vec<f64>,
    pub layers: Vec<Range<usize>>,
}

/// Where the run stands.
#[derive(Default)]
pub(super) struct Progress {
    pub steps: u64,
    /// Examples processed since the start (the sum of the lot sizes).
    pub examples_seen: u64,
    pub epoch: usize,
    pub stats: EpochStats,
    /// Budget mode: the number of steps after which ε would exceed the budget (an audit's
    /// runs: the steps of the run audited).
    pub step_limit: Option<u64>,
    /// The epoch at whose end a weight was found infinite or NaN: the run stops there.
    pub diverged_in: Option<usize>,
}

/// An audit run's Dirac canaries, those in the current lot, and the members the lots could
/// have taken and took (the audit's check of the rate): `canary.rs`.
#[derive(Default)]
pub(super) struct AuditCanaries {
    pub dirac: Option<DiracCanaries>,
    pub in_lot: Vec<usize>,
    pub draws: Draws,
}
