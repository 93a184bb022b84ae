//! Dense networks: input → hidden ReLU layers → softmax with cross-entropy. With no hidden
//! layer this is softmax (multinomial) logistic regression — binary logistic regression with
//! two classes. The paper's MNIST model is PCA-60 → 1,000 ReLU → 10.
//!
//! Per-example gradients are never materialised. For a dense layer with input a_i and
//! back-propagated delta δ_i (gradient of ℓ_i with respect to the pre-activation), example i's
//! gradient is the outer product a_i δ_iᵀ plus the bias part δ_i, so
//! ||g_i||² = ||δ_i||² (||a_i||² + 1), and Σ_i w_i g_i = Aᵀ (diag(w) Δ): one matrix product
//! (Goodfellow 2015; the paper's Section 3.1 and reference [25]).

use super::{softmax_rows, Model};
use crate::linalg::matmul;
use crate::Real;
use ndarray::{s, Array1, Array2, ArrayView2, ArrayViewMut2, Axis};
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
}

impl Mlp {
    fn with_sizes(sizes: Vec<usize>) -> Mlp {
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
            offsets,
            sizes,
        }
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

    fn forward_backward(&mut self, x: ArrayView2<Real>, y: &[usize]) {
        assert_eq!(
            x.ncols(),
            self.sizes[0],
            "feature count does not match the model"
        );
        let n = x.nrows();
        let layers = self.n_layers();
        self.rows = n;
        let mut acts = std::mem::take(&mut self.acts);
        let mut deltas = std::mem::take(&mut self.deltas);
        for buf in acts.iter_mut().chain(deltas.iter_mut()) {
            ensure_rows(buf, n);
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
                dense(input, self.weights(l), self.bias(l), out.view_mut());
                for v in out.as_slice_mut().expect("contiguous") {
                    *v = v.max(0.0);
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
                }
            }
        }
        // Backward: δ_l = (δ_{l+1} W_{l+1}ᵀ) ⊙ 1[a_l > 0].
        for l in (0..layers - 1).rev() {
            let (lower, upper) = deltas.split_at_mut(l + 1);
            let mut d = lower[l].slice_mut(s![..n, ..]);
            matmul(
                &mut d,
                &upper[0].slice(s![..n, ..]),
                &self.weights(l + 1).t(),
                false,
            );
            // The rows are contiguous: a flat, branch-free loop the compiler vectorises.
            let a = acts[l].slice(s![..n, ..]);
            let (d, a) = (
                d.as_slice_mut().expect("contiguous"),
                a.as_slice().expect("contiguous"),
            );
            for (dv, &av) in d.iter_mut().zip(a) {
                *dv = if av > 0.0 { *dv } else { 0.0 };
            }
        }
        self.acts = acts;
        self.deltas = deltas;
    }

    fn per_example_grad_norms(&self, x: ArrayView2<Real>, norms: &mut Array2<Real>) {
        let (n, layers) = (self.rows, self.n_layers());
        if norms.dim() != (n, layers) {
            *norms = Array2::zeros((n, layers));
        }
        for l in 0..layers {
            let input = self.input(&x, l);
            let delta = self.deltas[l].slice(s![..n, ..]);
            for (i, (a, d)) in input.rows().into_iter().zip(delta.rows()).enumerate() {
                norms[[i, l]] = (d.dot(&d) * (a.dot(&a) + 1.0)).sqrt();
            }
        }
    }

    fn add_grad_sum(
        &mut self,
        x: ArrayView2<Real>,
        weights: Option<ArrayView2<Real>>,
        grad: &mut [Real],
    ) {
        let (n, layers) = (self.rows, self.n_layers());
        let mut deltas = std::mem::take(&mut self.deltas);
        for l in 0..layers {
            let mut delta = deltas[l].slice_mut(s![..n, ..]);
            if let Some(w) = &weights {
                for (mut row, &wi) in delta.rows_mut().into_iter().zip(w.column(l)) {
                    row *= wi;
                }
            }
            let (i, o) = (self.sizes[l], self.sizes[l + 1]);
            let (gw, gb) = grad[self.offsets[l]..self.offsets[l + 1]].split_at_mut(i * o);
            let mut gw = ArrayViewMut2::from_shape((i, o), gw).expect("shape");
            matmul(&mut gw, &self.input(&x, l).t(), &delta.view(), true);
            for (g, s) in gb.iter_mut().zip(delta.sum_axis(Axis(0))) {
                *g += s;
            }
        }
        self.deltas = deltas;
    }

    fn predict_proba(&self, x: ArrayView2<Real>) -> Array2<Real> {
        let layers = self.n_layers();
        let mut a = x.to_owned();
        for l in 0..layers {
            let mut z = Array2::zeros((a.nrows(), self.sizes[l + 1]));
            matmul(&mut z.view_mut(), &a.view(), &self.weights(l), false);
            z += &Array1::from(self.bias(l).to_vec());
            if l + 1 < layers {
                z.mapv_inplace(|v| v.max(0.0));
            } else {
                softmax_rows(&mut z);
            }
            a = z;
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evaluate;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn random_problem(n: usize, d: usize, k: usize, seed: u64) -> (Array2<Real>, Vec<usize>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let x = Array2::from_shape_fn((n, d), |_| rng.random_range(-1.0..1.0));
        let y = (0..n).map(|_| rng.random_range(0..k)).collect();
        (x, y)
    }

    fn full_grad(
        m: &mut Mlp,
        x: &Array2<Real>,
        y: &[usize],
        weights: Option<ArrayView2<Real>>,
    ) -> Vec<Real> {
        let mut g = vec![0.0; m.n_params()];
        m.forward_backward(x.view(), y);
        m.add_grad_sum(x.view(), weights, &mut g);
        g
    }

    #[test]
    fn gradients_match_finite_differences() {
        for hidden in [vec![], vec![6], vec![5, 4]] {
            let (n, d, k) = (7, 5, 3);
            let (x, y) = random_problem(n, d, k, 1);
            let mut m = Mlp::new(d, &hidden, k, &mut ChaCha8Rng::seed_from_u64(2));
            for b in m.params_mut() {
                *b += 0.05; // non-zero biases too
            }
            let g = full_grad(&mut m, &x, &y, None);
            let h = 1e-3f32;
            let loss = |m: &Mlp| evaluate(m, x.view(), &y).0 * n as f64; // the summed loss
            let base = loss(&m);
            let mut kinks = 0;
            for (j, &gj) in g.iter().enumerate() {
                let mut plus = m.clone();
                plus.params_mut()[j] += h;
                let mut minus = m.clone();
                minus.params_mut()[j] -= h;
                let (up, down) = (
                    (loss(&plus) - base) / h as f64,
                    (base - loss(&minus)) / h as f64,
                );
                let fd = 0.5 * (up + down);
                // A ReLU switching inside ±h makes the one-sided slopes disagree: skip it.
                if (up - down).abs() > 2e-3 * (1.0 + fd.abs()) {
                    kinks += 1;
                    continue;
                }
                assert!(
                    (fd - gj as f64).abs() < 5e-3 * (1.0 + fd.abs()),
                    "hidden {hidden:?} param {j}: finite difference {fd} vs analytic {gj}"
                );
            }
            assert!(
                kinks * 10 <= g.len(),
                "{kinks} of {} parameters straddle a kink",
                g.len()
            );
        }
    }

    #[test]
    fn per_example_norms_and_clipped_sums_match_brute_force() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for trial in 0..6 {
            let (n, d, k) = (
                rng.random_range(1..20),
                rng.random_range(1..12),
                rng.random_range(2..6),
            );
            let hidden: Vec<usize> = (0..trial % 3).map(|_| rng.random_range(1..10)).collect();
            let (x, y) = random_problem(n, d, k, trial);
            let mut m = Mlp::new(d, &hidden, k, &mut rng);
            let layers = m.n_layers();
            m.forward_backward(x.view(), &y);
            let mut norms = Array2::zeros((0, 0));
            m.per_example_grad_norms(x.view(), &mut norms);
            let w = Array2::from_shape_fn((n, layers), |_| rng.random_range(0.0..1.0));
            let mut clipped = vec![0.0; m.n_params()];
            m.add_grad_sum(x.view(), Some(w.view()), &mut clipped);

            // Brute force: each example's gradient alone, materialised.
            let mut want = vec![0.0f64; m.n_params()];
            for i in 0..n {
                let xi = x.slice(s![i..i + 1, ..]).to_owned();
                let gi = full_grad(&mut m.clone(), &xi, &y[i..i + 1], None);
                for (l, r) in m.layer_ranges().into_iter().enumerate() {
                    let brute = gi[r.clone()]
                        .iter()
                        .map(|v| (*v as f64).powi(2))
                        .sum::<f64>()
                        .sqrt();
                    let trick = norms[[i, l]] as f64;
                    assert!(
                        (brute - trick).abs() <= 1e-5 * brute.max(1e-3),
                        "layer {l}: {brute} vs {trick}"
                    );
                    for j in r {
                        want[j] += w[[i, l]] as f64 * gi[j] as f64;
                    }
                }
            }
            let scale = want.iter().map(|v| v.abs()).fold(1e-3, f64::max);
            for (a, b) in clipped.iter().zip(&want) {
                assert!(
                    (*a as f64 - b).abs() <= 1e-5 * scale,
                    "clipped sum {a} vs {b}"
                );
            }
        }
    }
}
