//! Dense networks: input → hidden ReLU layers → softmax with cross-entropy. With no hidden
//! layer this is softmax (multinomial) logistic regression — binary logistic regression with
//! two classes. The paper's MNIST model is PCA-60 → 1,000 ReLU → 10.
//!
//! Per-example gradients are never materialised. For a dense layer with input a_i and
//! back-propagated delta δ_i (gradient of ℓ_i with respect to the pre-activation), example i's
//! gradient is the outer product a_i δ_iᵀ plus the bias part δ_i, so
//! ||g_i||² = ||δ_i||² (||a_i||² + 1), and Σ_i w_i g_i = Aᵀ (diag(w) Δ): one matrix product
//! (Goodfellow 2015; the paper's Section 3.1 and reference [25]).

use super::delta::Delta;
use super::{softmax_rows, Model};
use crate::linalg::panels::ColumnPanels;
use crate::linalg::{
    backward, backward_relu_panels, bias_relu_sum_squares, matmul, panels_pay, relu, relu_mask,
    relu_mask_sum_squares, sum_squares,
};
use crate::Real;
use ndarray::{s, Array2, ArrayView2, ArrayViewMut2};
use rand::Rng;
use rand_distr::{Distribution, Normal};
use std::ops::Range;

#[derive(Clone, Debug)]
pub struct Mlp {
    /// Layer widths: input, hidden…, classes.
    sizes: Vec<usize>,
    /// Start of each layer's parameters (W, in × out row-major, then b), plus the end.
    offsets: Vec<usize>,
    params: Vec<Real>,
    /// Rows of the last batch.
    rows: usize,
    /// Hidden activations a_1 … a_{L−1} of the last batch (capacity rows × width).
    acts: Vec<Array2<Real>>,
    /// δ_1 … δ_L of the last batch (capacity rows × layer output).
    deltas: Vec<Array2<Real>>,
    /// Scratch for a layer input with each row scaled by its clip factor.
    scaled: Array2<Real>,
    /// ||a_i||² of each layer's input and ||δ_i||² of each layer's delta, per example, when
    /// the last pass was asked for norms.
    input_sq: Vec<Vec<Real>>,
    delta_sq: Vec<Vec<Real>>,
    /// The first hidden layer's δ in column panels, where its gradient product reads them
    /// (`linalg::panels_pay`); its rows in `deltas[0]` are then not written (but by the
    /// product, where the next layer is wider than `linalg::backward` takes).
    first_delta: Option<ColumnPanels>,
}

impl Mlp {
    /// A network of the given layer widths (input, hidden…, classes) with all-zero
    /// parameters: a data-parallel helper's copy, whose parameters are then set from the
    /// coordinator's (`train::part`).
    pub fn with_sizes(sizes: Vec<usize>) -> Mlp {
        assert!(
            sizes.len() >= 2 && sizes.iter().all(|&s| s > 0),
            "bad layer sizes {sizes:?}"
        );
        let mut offsets = vec![0];
        for w in sizes.windows(2) {
            offsets.push(offsets.last().unwrap() + w[0] * w[1] + w[1]);
        }
        let n_params = *offsets.last().unwrap();
        let layers = sizes.len() - 1;
        Mlp {
            acts: sizes[1..layers]
                .iter()
                .map(|&w| Array2::zeros((0, w)))
                .collect(),
            deltas: sizes[1..].iter().map(|&w| Array2::zeros((0, w))).collect(),
            params: vec![0.0; n_params],
            rows: 0,
            scaled: Array2::zeros((0, 0)),
            input_sq: vec![Vec::new(); layers],
            delta_sq: vec![Vec::new(); layers],
            first_delta: (layers >= 2 && panels_pay(sizes[1])).then(ColumnPanels::default),
            offsets,
            sizes,
        }
    }

    /// The last layer's outputs before the softmax, one row per example. The first layer
    /// reads `x` in place (a copy of it was most of an evaluation's memory traffic).
    pub fn logits(&self, x: ArrayView2<Real>) -> Array2<Real> {
        let mut a = self.layer_outputs(x, 0);
        for l in 1..self.n_layers() {
            a = self.layer_outputs(a.view(), l);
        }
        a
    }

    /// Layer `l`'s outputs for the rows of `a`: a·W + b, through the ReLU but for the last.
    fn layer_outputs(&self, a: ArrayView2<Real>, l: usize) -> Array2<Real> {
        let mut z = Array2::zeros((a.nrows(), self.sizes[l + 1]));
        dense(a, self.weights(l), self.bias(l), z.view_mut());
        if l + 1 < self.n_layers() {
            z.mapv_inplace(relu);
        }
        z
    }

    /// Softmax regression with all-zero parameters (the usual start for a convex model).
    pub fn logistic(d: usize, k: usize) -> Mlp {
        Mlp::with_sizes(vec![d, k])
    }

    /// An MLP with the given hidden widths: He initialisation N(0, 2/fan_in) for the ReLU
    /// layers, Glorot N(0, 2/(fan_in + fan_out)) for the output layer, zero biases.
    pub fn new<R: Rng + ?Sized>(d: usize, hidden: &[usize], k: usize, rng: &mut R) -> Mlp {
        let mut sizes = vec![d];
        sizes.extend_from_slice(hidden);
        sizes.push(k);
        let mut m = Mlp::with_sizes(sizes);
        let layers = m.n_layers();
        for l in 0..layers {
            let (fan_in, fan_out) = (m.sizes[l], m.sizes[l + 1]);
            let var = if l + 1 < layers {
                2.0 / fan_in as f64
            } else {
                2.0 / (fan_in + fan_out) as f64
            };
            let normal = Normal::new(0.0, var.sqrt()).expect("valid std");
            let w = m.offsets[l]..m.offsets[l] + fan_in * fan_out;
            for p in &mut m.params[w] {
                *p = normal.sample(rng) as Real;
            }
        }
        m
    }

    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    pub fn n_layers(&self) -> usize {
        self.sizes.len() - 1
    }

    fn weights(&self, l: usize) -> ArrayView2<'_, Real> {
        let (i, o) = (self.sizes[l], self.sizes[l + 1]);
        let start = self.offsets[l];
        ArrayView2::from_shape((i, o), &self.params[start..start + i * o]).expect("shape")
    }

    fn bias(&self, l: usize) -> &[Real] {
        let start = self.offsets[l] + self.sizes[l] * self.sizes[l + 1];
        &self.params[start..self.offsets[l + 1]]
    }

    /// The input of layer l for the last batch: x itself or a hidden activation.
    fn input<'a>(&'a self, x: &'a ArrayView2<'_, Real>, l: usize) -> ArrayView2<'a, Real> {
        if l == 0 {
            x.view()
        } else {
            self.acts[l - 1].slice(s![..self.rows, ..])
        }
    }
}

/// Grows `buf` to at least `rows` rows (keeping its width); contents are overwritten later.
fn ensure_rows(buf: &mut Array2<Real>, rows: usize) {
    if buf.nrows() < rows {
        *buf = Array2::zeros((rows, buf.ncols()));
    }
}

/// `input` with row r multiplied by `w[r]`, written into `scaled` (grown when needed); a row of
/// weight 0 is written as zeros, never multiplied (it may hold an overflow: 0·∞ is NaN).
fn scale_rows_into<'s>(
    scaled: &'s mut Array2<Real>,
    input: ArrayView2<Real>,
    w: ndarray::ArrayView1<Real>,
) -> ArrayView2<'s, Real> {
    let (n, i) = input.dim();
    if scaled.nrows() < n || scaled.ncols() != i {
        *scaled = Array2::zeros((n, i));
    }
    let mut a = scaled.slice_mut(s![..n, ..]);
    for ((mut dst, src), &wi) in a.rows_mut().into_iter().zip(input.rows()).zip(w) {
        if wi == 0.0 {
            dst.fill(0.0);
        } else {
            dst.zip_mut_with(&src, |d, &s| *d = wi * s);
        }
    }
    scaled.slice(s![..n, ..])
}

/// out = input · W + b.
fn dense(input: ArrayView2<Real>, w: ArrayView2<Real>, b: &[Real], mut out: ArrayViewMut2<Real>) {
    matmul(&mut out, &input, &w, false);
    out += &ndarray::ArrayView1::from(b);
}

impl Model for Mlp {
    fn n_params(&self) -> usize {
        self.params.len()
    }

    fn params(&self) -> &[Real] {
        &self.params
    }

    fn params_mut(&mut self) -> &mut [Real] {
        &mut self.params
    }

    fn layer_ranges(&self) -> Vec<Range<usize>> {
        self.offsets.windows(2).map(|w| w[0]..w[1]).collect()
    }

    fn forward_backward(
        &mut self,
        x: ArrayView2<Real>,
        y: &[usize],
        norms: Option<&mut Array2<Real>>,
    ) {
        assert_eq!(
            x.ncols(),
            self.sizes[0],
            "feature count does not match the model"
        );
        let n = x.nrows();
        let layers = self.n_layers();
        let want_norms = norms.is_some();
        self.rows = n;
        let mut acts = std::mem::take(&mut self.acts);
        let mut deltas = std::mem::take(&mut self.deltas);
        for buf in acts.iter_mut().chain(deltas.iter_mut()) {
            ensure_rows(buf, n);
        }
        let (mut input_sq, mut delta_sq) = (
            std::mem::take(&mut self.input_sq),
            std::mem::take(&mut self.delta_sq),
        );
        for v in input_sq.iter_mut().chain(delta_sq.iter_mut()) {
            v.clear();
        }
        if want_norms {
            input_sq[0].extend(x.rows().into_iter().map(|r| r.dot(&r)));
        }
        // Forward: hidden layers into `acts`, the output layer's logits into the last delta.
        for l in 0..layers {
            if l + 1 < layers {
                let (done, rest) = acts.split_at_mut(l);
                let input = if l == 0 {
                    x.view()
                } else {
                    done[l - 1].slice(s![..n, ..])
                };
                let mut out = rest[0].slice_mut(s![..n, ..]);
                // a = ReLU(input·W + b): the bias added in the ReLU's sweep over each row
                // (while it is in L1), not in a sweep of its own over the layer's outputs.
                matmul(&mut out, &input, &self.weights(l), false);
                let (out, bias) = (out.as_slice_mut().expect("contiguous"), self.bias(l));
                for row in out.chunks_exact_mut(self.sizes[l + 1]) {
                    if want_norms {
                        input_sq[l + 1].push(bias_relu_sum_squares(row, bias));
                    } else {
                        for (v, &b) in row.iter_mut().zip(bias) {
                            *v = relu(*v + b);
                        }
                    }
                }
            } else {
                let input = if l == 0 {
                    x.view()
                } else {
                    acts[l - 1].slice(s![..n, ..])
                };
                let mut out = deltas[l].slice_mut(s![..n, ..]);
                dense(input, self.weights(l), self.bias(l), out.view_mut());
                softmax_rows(&mut out);
                for (mut row, &label) in out.rows_mut().into_iter().zip(y) {
                    row[label] -= 1.0; // δ_L = p − onehot(y)
                    if want_norms {
                        delta_sq[l].push(sum_squares(row.as_slice().expect("contiguous")));
                    }
                }
            }
        }
        // Backward: δ_l = (δ_{l+1} W_{l+1}ᵀ) ⊙ 1[a_l > 0].
        let mut first = self.first_delta.take();
        for l in (0..layers - 1).rev() {
            let (lower, upper) = deltas.split_at_mut(l + 1);
            let next = upper[0].slice(s![..n, ..]);
            let mut d = lower[l].slice_mut(s![..n, ..]);
            let width = self.sizes[l + 1];
            let a = acts[l].slice(s![..n, ..]);
            let w_next = self.weights(l + 1);
            if let Some(panels) = first.as_mut().filter(|_| l == 0) {
                // The first layer's δ into column panels, in one sweep with its product where
                // the product's k allows (`linalg::backward`); its rows in `deltas[0]` unused.
                let sums = want_norms.then_some(&mut delta_sq[0]);
                let a = a.as_slice().expect("contiguous");
                if backward::fits(self.sizes[l + 2]) {
                    backward_relu_panels(panels, &next, &w_next, a, sums);
                } else {
                    matmul(&mut d, &next, &w_next.t(), false);
                    panels.relu_mask_from(d.as_slice().expect("contiguous"), a, width, sums);
                }
                continue;
            }
            matmul(&mut d, &next, &w_next.t(), false);
            let rows = d
                .as_slice_mut()
                .expect("contiguous")
                .chunks_exact_mut(width)
                .zip(a.as_slice().expect("contiguous").chunks_exact(width));
            for (dr, ar) in rows {
                if want_norms {
                    delta_sq[l].push(relu_mask_sum_squares(dr, ar));
                } else {
                    relu_mask(dr, ar);
                }
            }
        }
        self.first_delta = first;
        // Goodfellow's identity: ||g_i,l||² = ||δ_i,l||² (||a_i,l||² + 1).
        if let Some(norms) = norms {
            if norms.dim() != (n, layers) {
                *norms = Array2::zeros((n, layers));
            }
            for l in 0..layers {
                for (i, (&d, &a)) in delta_sq[l].iter().zip(&input_sq[l]).enumerate() {
                    norms[[i, l]] = (d * (a + 1.0)).sqrt();
                }
            }
        }
        self.acts = acts;
        self.deltas = deltas;
        self.input_sq = input_sq;
        self.delta_sq = delta_sq;
    }

    fn add_grad_sum(
        &mut self,
        x: ArrayView2<Real>,
        weights: Option<ArrayView2<Real>>,
        grad: &mut [Real],
    ) {
        let (n, layers) = (self.rows, self.n_layers());
        let mut deltas = std::mem::take(&mut self.deltas);
        let mut scaled = std::mem::take(&mut self.scaled);
        let mut first = self.first_delta.take();
        for l in 0..layers {
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let (gw, gb) = grad[self.offsets[l]..self.offsets[l + 1]].split_at_mut(i * o);
            let mut gw = ArrayViewMut2::from_shape((i, o), gw).expect("shape");
            let w = weights.as_ref().map(|w| w.column(l));
            // This layer's δ: row-major, or in column panels (the first layer's, where the
            // backward sweep wrote it so: `first_delta`).
            let mut row_major = deltas[l].slice_mut(s![..n, ..]);
            let delta: &mut dyn Delta = match first.as_mut().filter(|_| l == 0) {
                Some(panels) => panels,
                None => &mut row_major,
            };
            // An example of weight 0 (dropped by the sanitizer: its norm was not finite) gets
            // zero rows written, never multiplied — 0·∞ would be NaN — in its delta and, for
            // a hidden layer, its input activation (which may have overflowed).
            if let Some(w) = w {
                for r in (0..n).filter(|&r| w[r] == 0.0) {
                    delta.zero_row(r);
                    if l > 0 {
                        self.acts[l - 1].row_mut(r).fill(0.0);
                    }
                }
            }
            let input = self.input(&x, l);
            // Σ_i w_i a_i δ_iᵀ = Aᵀ diag(w) Δ: scale whichever of A (n × in) and Δ (n × out)
            // is smaller, so clipping costs O(n·min(in, out)) on top of the product.
            // The bias part's weights: Σ_i w_i δ_i, unless δ itself gets scaled below.
            let mut bias_w = None;
            let a = match w {
                Some(w) if i < o => {
                    bias_w = Some(w);
                    scale_rows_into(&mut scaled, input, w)
                }
                Some(w) => {
                    delta.scale_rows(w);
                    input
                }
                None => input,
            };
            delta.add_to_grad(a, &mut gw, bias_w, gb);
        }
        self.first_delta = first;
        self.scaled = scaled;
        self.deltas = deltas;
    }

    fn predict_proba(&self, x: ArrayView2<Real>) -> Array2<Real> {
        let mut z = self.logits(x);
        softmax_rows(&mut z);
        z
    }
}

#[cfg(test)]
#[path = "mlp_tests.rs"]
mod tests;
