//! The per-example half of a step of Algorithm 1 over one part of a lot: each example's
//! gradient ("Compute gradient"), its norm, the clip ("Clip gradient") and the sum of the
//! clipped gradients. Noise is never added here: that is the coordinator's alone (`step.rs`).
//!
//! Data-parallel training splits a lot into k contiguous parts, one per worker; each computes
//! its [`PartSum`] with [`PartWork::sum_part`] on the same parameters, and the coordinator adds
//! the parts in order. Only the order of float additions depends on k (Σ over parts of Σ over
//! batches instead of one running Σ), so the step does not depend on k beyond rounding.

use crate::config::Mode;
use crate::data::Split;
use crate::model::{Mlp, Model};
use crate::privacy::sanitizer::clip_weights;
use crate::Real;
use ndarray::{s, Array2};

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
    }
}

/// How many examples' worth of work the coordinator does per lot beyond its part: drawing
/// the lot and its noise (one normal per parameter), adding the parts and stepping. Its part
/// (part 0) is smaller by that much per helper, so that it finishes when they do. Measured in
/// Chromium on the paper's MLP (60→1000→10, lot 600, two workers): the coordinator spent about
/// 1.7 ms per lot on that work and a helper 0.4 ms on its messages, while an example costs 14 µs
/// (relaxed SIMD) to 28 µs (simd128); shares of 300/300, 276/324, 252/348 and 228/372 gave
/// 82k, 82k, 85k and 83k examples/s on the relaxed build and 51k, 48k, 56k and 55k on simd128
/// (the same order twice, `scripts/bench-parallel.mjs`). Checked again once the parameters
/// went out in reused arrays, on the relaxed build, twice each: 96, 64 and 40 gave 151k/137k,
/// 142k/145k, 145k/130k examples/s on that MLP, 133k/126k, 124k/119k, 119k/105k on 784→128→10
/// and 546k/565k, 485k/447k, 511k/484k on logistic 784→10; the coordinator's wait for its
/// helper stayed 0.1–0.5 ms per lot whatever the split (the messages' latency). A constant,
/// not a measurement taken as the run goes, so the split — and the run, to the last bit —
/// does not depend on timing.
pub const COORDINATOR_EXTRA_EXAMPLES: usize = 96;

/// The `i`-th of `k` contiguous parts of a lot, in lot order: part 0 (the coordinator's) is
/// [`COORDINATOR_EXTRA_EXAMPLES`] × (k − 1) / k smaller than an even share (empty when the
/// lot is that small), parts 1…k−1 share the rest as evenly as they can (sizes differing by at
/// most one). Part i of k is the same slice whoever computes it.
pub fn lot_part(lot: &[usize], i: usize, k: usize) -> &[usize] {
    let k = k.max(1);
    let n = lot.len();
    let own = n.saturating_sub((k - 1) * COORDINATOR_EXTRA_EXAMPLES) / k;
    let bound = |j: usize| match j {
        0 => 0,
        j if j >= k => n,
        j => own + (j - 1) * (n - own) / (k - 1),
    };
    &lot[bound(i)..bound(i + 1)]
}

/// Buffers for summing a part in batches of at most `batch` examples (reused across lots).
pub struct PartWork {
    batch_x: Array2<Real>,
    batch_y: Vec<usize>,
    norms: Array2<Real>,
    weights: Array2<Real>,
    total_norms: Vec<Real>,
}

impl PartWork {
    pub fn new(batch: usize, features: usize) -> PartWork {
        PartWork {
            batch_x: Array2::zeros((batch.max(1), features)),
            batch_y: Vec::new(),
            norms: Array2::zeros((0, 0)),
            weights: Array2::zeros((0, 0)),
            total_norms: Vec::new(),
        }
    }

    /// Adds the part `part` (indices into `train`) to `out` (which the caller has reset):
    /// per-example gradients of `model` at its current parameters, clipped to `bounds` (one
    /// bound: flat; one per layer: per-layer) when the mode clips.
    pub fn sum_part(
        &mut self,
        model: &mut Mlp,
        train: &Split,
        part: &[usize],
        mode: Mode,
        bounds: &[f64],
        out: &mut PartSum,
    ) {
        for chunk in part.chunks(self.batch_x.nrows()) {
            self.batch_y.clear();
            for (r, &i) in chunk.iter().enumerate() {
                self.batch_x.row_mut(r).assign(&train.x.row(i));
                self.batch_y.push(train.y[i]);
            }
            let xb = self.batch_x.slice(s![..chunk.len(), ..]);
            out.examples += chunk.len();
            if mode == Mode::NonPrivate {
                model.forward_backward(xb, &self.batch_y, None);
                model.add_grad_sum(xb, None, &mut out.grad);
                continue;
            }
            model.forward_backward(xb, &self.batch_y, Some(&mut self.norms));
            self.total_norms.clear();
            self.total_norms
                .extend(self.norms.rows().into_iter().map(|r| r.dot(&r).sqrt()));
            if mode.clips() {
                let clipped = clip_weights(
                    self.norms.view(),
                    &self.total_norms,
                    bounds,
                    &mut self.weights,
                );
                out.clipped += clipped;
                out.unclipped += chunk.len() - clipped;
                model.add_grad_sum(xb, Some(self.weights.view()), &mut out.grad);
            } else {
                model.add_grad_sum(xb, None, &mut out.grad);
            }
            out.norms.extend_from_slice(&self.total_norms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_tile_the_lot_and_the_coordinators_is_smaller_by_its_extra_work() {
        let extra = COORDINATOR_EXTRA_EXAMPLES;
        for n in [0, 1, 37, extra, 2 * extra + 5, 600, 601] {
            let lot: Vec<usize> = (100..100 + n).collect();
            assert_eq!(lot_part(&lot, 0, 1), &lot[..], "k = 1: the whole lot");
            for k in 2..=8 {
                let parts: Vec<&[usize]> = (0..k).map(|i| lot_part(&lot, i, k)).collect();
                assert_eq!(
                    parts.concat(),
                    lot,
                    "n = {n}, k = {k}: in order, nothing lost or repeated"
                );
                let sizes: Vec<usize> = parts.iter().map(|p| p.len()).collect();
                let helpers = &sizes[1..];
                let (lo, hi) = (helpers.iter().min().unwrap(), helpers.iter().max().unwrap());
                assert!(hi - lo <= 1, "n = {n}, k = {k}: helpers' sizes {sizes:?}");
                // The coordinator's part plus its extra work matches a helper's, to rounding,
                // unless the lot is too small for it to take any part.
                let own = sizes[0];
                if own > 0 {
                    assert!(
                        (own + extra).abs_diff(*lo) <= 1,
                        "n = {n}, k = {k}: {sizes:?}"
                    );
                } else {
                    assert!(n <= (k - 1) * extra + k, "n = {n}, k = {k}: {sizes:?}");
                }
            }
        }
        assert_eq!(lot_part(&(0..600).collect::<Vec<_>>(), 0, 2).len(), 252);
        assert!(lot_part(&[], 0, 4).is_empty());
    }
}
