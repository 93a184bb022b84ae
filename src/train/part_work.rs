//! The buffers a part of a lot is summed in, and the sum itself ([`PartWork::sum_part`]):
//! Algorithm 1's "Compute gradient" (each example's, by the forward and backward sweeps, with
//! its norm by Goodfellow's identity), "Clip gradient" and their sum — timed phase by phase for
//! `make bench` ([`PartPhase`]).

use super::part::{part_digest, PartSum};
use super::Rows;
use crate::config::Mode;
use crate::model::{Mlp, Model};
use crate::privacy::sanitizer::clip_weights;
use crate::Real;
use ndarray::{s, Array2};

/// The phases of summing a batch of a part, in order (`make bench` times each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartPhase {
    /// The batch's rows gathered from the training set.
    Gather,
    /// The forward sweep, δ back through the layers and each example's per-layer norms.
    ForwardBackward,
    /// Each example's whole norm and its clip factor per layer (nothing when not private).
    Clip,
    /// Σ_i w_i a_i δ_iᵀ per layer: the clipped gradients' sum.
    Gradient,
}

impl PartPhase {
    pub const ALL: [PartPhase; 4] = [
        PartPhase::Gather,
        PartPhase::ForwardBackward,
        PartPhase::Clip,
        PartPhase::Gradient,
    ];

    /// Its name in the bench's JSON.
    pub fn name(self) -> &'static str {
        match self {
            PartPhase::Gather => "gather",
            PartPhase::ForwardBackward => "forward_backward",
            PartPhase::Clip => "clip",
            PartPhase::Gradient => "gradient",
        }
    }
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
        train: Rows<'_>,
        part: &[usize],
        mode: Mode,
        bounds: &[f64],
        out: &mut PartSum,
    ) {
        self.sum_part_timed(model, train, part, mode, bounds, out, &mut |_| {});
    }

    /// [`PartWork::sum_part`], calling `lap` as each [`PartPhase`] ends (`make bench`'s
    /// phases: `bench::ceiling`).
    #[allow(clippy::too_many_arguments)]
    pub fn sum_part_timed(
        &mut self,
        model: &mut Mlp,
        train: Rows<'_>,
        part: &[usize],
        mode: Mode,
        bounds: &[f64],
        out: &mut PartSum,
        lap: &mut dyn FnMut(PartPhase),
    ) {
        for chunk in part.chunks(self.batch_x.nrows()) {
            train.gather(chunk, &mut self.batch_x, &mut self.batch_y);
            let xb = self.batch_x.slice(s![..chunk.len(), ..]);
            out.examples += chunk.len();
            lap(PartPhase::Gather);
            if mode == Mode::NonPrivate {
                model.forward_backward(xb, &self.batch_y, None);
                lap(PartPhase::ForwardBackward);
                model.add_grad_sum(xb, None, &mut out.grad);
                lap(PartPhase::Gradient);
                continue;
            }
            model.forward_backward(xb, &self.batch_y, Some(&mut self.norms));
            lap(PartPhase::ForwardBackward);
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
                lap(PartPhase::Clip);
                model.add_grad_sum(xb, Some(self.weights.view()), &mut out.grad);
            } else {
                lap(PartPhase::Clip);
                model.add_grad_sum(xb, None, &mut out.grad);
            }
            lap(PartPhase::Gradient);
            out.norms.extend_from_slice(&self.total_norms);
        }
        out.digest = part_digest(part);
    }
}
