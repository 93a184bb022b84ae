//! The per-example half of a step of Algorithm 1 over one part of a lot: each example's
//! gradient ("Compute gradient"), its norm, the clip ("Clip gradient") and the sum of the
//! clipped gradients. Noise is never added here: that is the coordinator's alone (`step.rs`).
//!
//! Data-parallel training splits a lot into k contiguous parts, one per worker; each computes
//! its [`PartSum`] with [`PartWork::sum_part`] on the same parameters, and the coordinator adds
//! the parts in order. Only the order of float additions depends on k (Σ over parts of Σ over
//! batches instead of one running Σ), so the step does not depend on k beyond rounding.

pub use super::part_work::{PartPhase, PartWork};
use crate::config::Mode;
use crate::Real;

/// What one part of a lot contributes to the step, before noise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartSum {
    /// Σ_i ḡ(x_i) over the part (clipped as the mode says; unclipped without clipping).
    pub grad: Vec<Real>,
    /// Each example's whole-gradient norm ||g(x_i)||, in lot order (empty when not private:
    /// plain SGD computes no per-example norms).
    pub norms: Vec<Real>,
    pub examples: usize,
    /// Examples whose gradient was clipped (in any layer), and those left as they were
    /// (adaptive clipping's count); both 0 without clipping.
    pub clipped: usize,
    pub unclipped: usize,
    /// [`part_digest`] of the row indices summed: binds the sum to the part it claims to be.
    pub digest: u32,
}

impl PartSum {
    /// Zero, for a model with `n_params` parameters.
    pub fn reset(&mut self, n_params: usize) {
        self.grad.clear();
        self.grad.resize(n_params, 0.0);
        self.norms.clear();
        self.examples = 0;
        self.clipped = 0;
        self.unclipped = 0;
        self.digest = 0;
    }

    /// Whether this sum, computed elsewhere (a helper worker), is part `expected` of the open
    /// lot in `mode`: its examples, their norms and counts, and the digest of the rows summed.
    /// A sum of another part, or of a past lot, would add examples the step's noise was not
    /// scaled for; the coordinator refuses it (and sums that part itself).
    pub fn check(&self, expected: &[usize], mode: Mode) -> Result<(), PartError> {
        let norms = if mode == Mode::NonPrivate {
            0
        } else {
            self.examples
        };
        let counted = if mode.clips() { self.examples } else { 0 };
        if self.examples != expected.len()
            || self.norms.len() != norms
            || self.clipped + self.unclipped != counted
            || self.digest != part_digest(expected)
        {
            return Err(PartError::new(
                PartErrorKind::NotThatPart,
                None,
                format!(
                    "a helper's sum is not of the part it was sent ({} examples for {}, or other \
                     rows)",
                    self.examples,
                    expected.len()
                ),
            ));
        }
        Ok(())
    }
}

/// FNV-1a over a part's row indices (as u32, little-endian): a helper returns it with its sum,
/// and the coordinator compares it with the part's own. Not a secret nor a MAC: it catches a
/// sum of the wrong rows (a bug, or a stale answer), which the lengths alone would not.
pub fn part_digest(part: &[usize]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &i in part {
        for b in (i as u32).to_le_bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// How the coordinator's helpers get their parts and send their sums back (the browser's
/// choice: `www/workers/gradient-pool.js`), for [`coordinator_extra_examples`]' cost model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PartChannel {
    /// `postMessage` with transferred arrays (the default: the only channel in a page that is
    /// not cross-origin isolated); costed at 0.1 ms a lot.
    #[default]
    Messages,
    /// Shared memory (`www/workers/shared-channel.js`), where the workers spin between jobs; costed at
    /// nil, whatever the machine (docs/performance.md has the measurements).
    SharedMemory,
}

/// The coordinator's work per lot beside its part that overlaps its helpers' (the lot's noise,
/// one normal per parameter), less the helpers' own (the `channel` that carries their parts
/// out and back), in examples of the model with layer widths `sizes`: part 0 is smaller than a
/// helper's by that many examples (larger when negative), so that all finish together. A cost
/// model, not a measurement taken as the run goes, so the split (and the run, to the last bit)
/// depends on the seed, the model, k and the channel, never on timing; the channel and k move
/// only the order of float additions (a test: `tests/training.rs`).
///
/// Its constants (a normal's cost, an example's per flop and per input feature, each
/// channel's) are timings of the training worker's lot loop in Chromium on this project's
/// 2-core machine; docs/performance.md ("The training worker's part is smaller by its extra
/// work") gives the measurements and the sweeps they were fitted to. Bounded by
/// ±[`MAX_EXTRA_EXAMPLES`]: beyond the models it was fitted on it extrapolates.
pub fn coordinator_extra_examples(sizes: &[usize], channel: PartChannel) -> isize {
    const NORMAL_NS: f64 = 5.7;
    let channel_ns = match channel {
        PartChannel::Messages => 100_000.0,
        PartChannel::SharedMemory => 0.0,
    };
    const FLOP_NS: f64 = 0.035;
    const FEATURE_NS: f64 = 1.3;
    let layer_weights: Vec<f64> = sizes.windows(2).map(|w| (w[0] * w[1]) as f64).collect();
    let weights: f64 = layer_weights.iter().sum();
    let params = weights + sizes.iter().skip(1).sum::<usize>() as f64;
    // Forward (2 per weight), δ back through every layer above the first, the gradient (2).
    let flops = 4.0 * weights + 2.0 * (weights - layer_weights.first().unwrap_or(&0.0));
    let example = flops * FLOP_NS + sizes.first().copied().unwrap_or(0) as f64 * FEATURE_NS;
    if example <= 0.0 {
        return 0;
    }
    let extra = ((params * NORMAL_NS - channel_ns) / example).round();
    extra.clamp(-MAX_EXTRA_EXAMPLES, MAX_EXTRA_EXAMPLES) as isize
}

/// The most [`coordinator_extra_examples`] moves a part, either way.
pub const MAX_EXTRA_EXAMPLES: f64 = 128.0;

/// The `i`-th of `k` contiguous parts of a lot, in lot order: part 0 (the coordinator's) is
/// `extra` ([`coordinator_extra_examples`]) × (k − 1) / k smaller than an even share (larger
/// when `extra` is negative; within the lot), parts 1…k−1 share the rest as evenly as they can
/// (sizes differing by at most one). Part i of k is the same slice whoever computes it.
pub fn lot_part(lot: &[usize], i: usize, k: usize, extra: isize) -> &[usize] {
    let k = k.max(1);
    let n = lot.len();
    // At most n: the share is clamped to [0, k·n] before it is divided by k.
    let own = (n as isize - (k as isize - 1) * extra).clamp(0, (k * n) as isize) as usize / k;
    let bound = |j: usize| match j {
        0 => 0,
        j if j >= k => n,
        j => own + (j - 1) * (n - own) / (k - 1),
    };
    &lot[bound(i)..bound(i + 1)]
}

/// A trainer's data-parallel state: how many parts a lot is split into (summed by the trainer
/// one after another unless the page's helpers sum them), how the helpers get theirs (it
/// moves the split, [`coordinator_extra_examples`]), the buffers the trainer sums its own
/// parts in, and the parts' sums as they come in.
pub(super) struct DataParallel {
    pub per_lot: usize,
    pub channel: PartChannel,
    pub work: PartWork,
    pub sums: Vec<PartSum>,
}

impl DataParallel {
    /// One part a lot, by messages, summed in batches of at most `batch` of `d` features.
    pub fn new(batch: usize, d: usize) -> DataParallel {
        DataParallel {
            per_lot: 1,
            channel: PartChannel::Messages,
            work: PartWork::new(batch, d),
            sums: Vec::new(),
        }
    }
}

/// The open lot of a step split over messages (the browser's coordinator): which of its
/// parts are in. Algorithm 1's step sums the parts of *one* lot, each example's gradient at
/// most once, with noise scaled to that; a part of another lot, or one counted twice, would
/// give the step a sensitivity the accountants never assumed. So a lot is opened once
/// ([`LotParts::open`]), each part is in once ([`LotParts::part`]), and it is finished only
/// with all `k` parts in ([`LotParts::finish`]): anything else is refused with a reason.
#[derive(Debug, Default)]
pub struct LotParts {
    open: bool,
    /// Bit i: part i is in.
    parts_in: u64,
}

/// Why a lot's part was refused (#54 §3): its kind, the index of the part when one is at
/// fault, and the sentence (what `Display` prints).
#[derive(Clone, Debug, PartialEq)]
pub struct PartError {
    pub kind: PartErrorKind,
    /// The part at fault, if one is.
    pub part: Option<usize>,
    pub message: String,
}

/// What a [`PartError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartErrorKind {
    /// A sum that is not of the part it claims (its examples, norms, counts, rows or size).
    NotThatPart,
    /// A lot drawn while the last one is still open.
    LotOpen,
    /// A part with no lot open.
    NoLot,
    /// A part index outside the lot's k parts.
    NoSuchPart,
    /// A part that came in twice.
    Twice,
    /// A step taken without every part in.
    Unfinished,
}

impl PartError {
    pub fn new(kind: PartErrorKind, part: Option<usize>, message: impl Into<String>) -> Self {
        PartError {
            kind,
            part,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for PartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PartError {}

/// The most parts a lot is split into: one bit each in [`LotParts`].
pub const MAX_PARTS: usize = 64;

impl LotParts {
    /// A lot is drawn: refused while the last one is still open.
    pub fn open(&mut self) -> Result<(), PartError> {
        if self.open {
            return Err(PartError::new(
                PartErrorKind::LotOpen,
                None,
                "a lot was drawn while the last one was still being summed: the lab would mix \
                 two lots in one step, so the run stops",
            ));
        }
        *self = LotParts {
            open: true,
            parts_in: 0,
        };
        Ok(())
    }

    /// Whether a lot is open (drawn, and its step not taken yet).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Part `i` of `k` is summed or received: refused without an open lot, out of range, or
    /// twice ([`LotParts::check_part`]).
    pub fn part(&mut self, i: usize, k: usize) -> Result<(), PartError> {
        self.check_part(i, k)?;
        self.parts_in |= 1 << i;
        Ok(())
    }

    /// Whether part `i` of `k` may come in now: a lot is open, the part exists and is not in.
    pub fn check_part(&self, i: usize, k: usize) -> Result<(), PartError> {
        let refused = |kind, message: String| Err(PartError::new(kind, Some(i), message));
        if !self.open {
            return refused(
                PartErrorKind::NoLot,
                format!("part {i} came with no lot open"),
            );
        }
        if i >= k || k > MAX_PARTS {
            return refused(
                PartErrorKind::NoSuchPart,
                format!("part {i} of {k} does not exist"),
            );
        }
        if self.parts_in & (1 << i) != 0 {
            return refused(
                PartErrorKind::Twice,
                format!("part {i} of the lot came twice"),
            );
        }
        Ok(())
    }

    /// The lot's step is taken: only with its `k` parts in, each once.
    pub fn finish(&mut self, k: usize) -> Result<(), PartError> {
        let all = if k >= MAX_PARTS {
            u64::MAX
        } else {
            (1u64 << k) - 1
        };
        if !self.open || k == 0 || k > MAX_PARTS || self.parts_in != all {
            return Err(PartError::new(
                PartErrorKind::Unfinished,
                None,
                format!(
                    "the lot was finished with parts {:#b} of {k} in",
                    self.parts_in
                ),
            ));
        }
        *self = LotParts::default();
        Ok(())
    }
}

#[cfg(test)]
#[path = "part_tests.rs"]
mod tests;
