//! Models trained by DP-SGD. Each exposes what per-example clipping needs — every example's
//! gradient norm, per layer, and a weighted sum of per-example gradients — without
//! materialising the per-example gradients one by one (Goodfellow 2015, the paper's
//! reference [25]).

mod delta;
mod mlp;

pub use mlp::Mlp;

use crate::Real;
use ndarray::{Array2, ArrayView2, Axis};
use std::ops::Range;

/// A differentiable classifier with all parameters in one flat vector (so noise, updates and
/// the sanitizer work on plain slices), organised in layers (the groups of per-layer clipping).
pub trait Model {
    /// Number of parameters (the dimension d of the noise vector).
    fn n_params(&self) -> usize;
    fn params(&self) -> &[Real];
    fn params_mut(&mut self) -> &mut [Real];

    /// The parameter range of each layer, in order; they tile `0..n_params()`.
    fn layer_ranges(&self) -> Vec<Range<usize>>;

    /// Forward and backward pass of the cross-entropy loss on a batch; keeps what
    /// [`Model::add_grad_sum`] needs. With `norms`, also sets `norms[[i, l]]` to the L2 norm of
    /// example i's gradient with respect to layer l (resized to batch × layers), computed in
    /// the same sweeps over the activations and deltas.
    fn forward_backward(
        &mut self,
        x: ArrayView2<Real>,
        y: &[usize],
        norms: Option<&mut Array2<Real>>,
    );

    /// `grad += Σ_i Σ_l w[[i, l]] · ∇_{θ_l} ℓ(θ; x_i, y_i)` over the last batch; `None` means
    /// every weight is 1 (the plain, non-private gradient sum). With
    /// `w[[i, l]] = 1/max(1, ||g_i||/C)` this is the clipped sum of Algorithm 1.
    fn add_grad_sum(
        &mut self,
        x: ArrayView2<Real>,
        weights: Option<ArrayView2<Real>>,
        grad: &mut [Real],
    );

    /// Class probabilities, one row per example.
    fn predict_proba(&self, x: ArrayView2<Real>) -> Array2<Real>;
}

/// Mean cross-entropy loss and accuracy of `model` on the examples `(x, y)`.
pub fn evaluate<M: Model + ?Sized>(model: &M, x: ArrayView2<Real>, y: &[usize]) -> (f64, f64) {
    const CHUNK: usize = 4096;
    let (mut loss, mut correct) = (0.0f64, 0usize);
    for (c, xs) in x.axis_chunks_iter(Axis(0), CHUNK).enumerate() {
        let p = model.predict_proba(xs);
        for (i, row) in p.rows().into_iter().enumerate() {
            let label = y[c * CHUNK + i];
            loss -= (row[label] as f64).max(1e-12).ln();
            let best = row
                .iter()
                .enumerate()
                .fold(
                    (0, Real::NEG_INFINITY),
                    |b, (k, &v)| if v > b.1 { (k, v) } else { b },
                );
            correct += (best.0 == label) as usize;
        }
    }
    let n = y.len().max(1) as f64;
    (loss / n, correct as f64 / n)
}

/// Row-wise softmax in place, stable against overflow.
pub(crate) fn softmax_rows<S: ndarray::DataMut<Elem = Real>>(
    z: &mut ndarray::ArrayBase<S, ndarray::Ix2>,
) {
    for mut row in z.rows_mut() {
        let m = row.fold(Real::NEG_INFINITY, |a, &b| a.max(b));
        row.mapv_inplace(|v| (v - m).exp());
        let s = row.sum();
        row.mapv_inplace(|v| v / s);
    }
}
