//! Softmax (multinomial) logistic regression; with two classes it is binary logistic
//! regression. Parameters, flat: W (d × K, row-major) then the bias b (K).
//!
//! For example i with input x_i, probabilities p_i = softmax(Wᵀx_i + b) and one-hot label y_i,
//! the residual r_i = p_i − y_i gives ∇_W ℓ = x_i r_iᵀ and ∇_b ℓ = r_i, so
//! ||g_i||² = ||r_i||² (||x_i||² + 1): per-example norms cost O(B(d + K)) and the clipped sum
//! Σ_i w_i g_i is the single matrix product Xᵀ (diag(w) R).

use super::{softmax_rows, Model};
use crate::Real;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, ArrayView2, ArrayViewMut2, Axis};
use rand::Rng;
use rand_distr::{Distribution, Normal};

#[derive(Clone, Debug)]
pub struct SoftmaxRegression {
    d: usize,
    k: usize,
    params: Vec<Real>,
    /// Residuals R = P − Y of the last batch (B × K), reused across steps.
    residual: Array2<Real>,
}

impl SoftmaxRegression {
    /// All-zero parameters (the usual start for a convex model).
    pub fn zeros(d: usize, k: usize) -> Self {
        SoftmaxRegression {
            d,
            k,
            params: vec![0.0; d * k + k],
            residual: Array2::zeros((0, k)),
        }
    }

    /// Small random weights N(0, 0.01²) from the run's RNG, zero bias.
    pub fn random<R: Rng>(d: usize, k: usize, rng: &mut R) -> Self {
        let mut m = Self::zeros(d, k);
        let normal = Normal::new(0.0f64, 0.01).expect("valid std");
        for w in &mut m.params[..d * k] {
            *w = normal.sample(rng) as Real;
        }
        m
    }

    pub fn n_features(&self) -> usize {
        self.d
    }

    pub fn n_classes(&self) -> usize {
        self.k
    }

    fn weights(&self) -> ArrayView2<'_, Real> {
        ArrayView2::from_shape((self.d, self.k), &self.params[..self.d * self.k]).expect("shape")
    }

    fn logits(&self, x: ArrayView2<Real>) -> Array2<Real> {
        let mut z = Array2::zeros((x.nrows(), self.k));
        general_mat_mul(1.0, &x, &self.weights(), 0.0, &mut z);
        let b = Array1::from(self.params[self.d * self.k..].to_vec());
        z += &b;
        z
    }
}

impl Model for SoftmaxRegression {
    fn n_params(&self) -> usize {
        self.params.len()
    }

    fn params(&self) -> &[Real] {
        &self.params
    }

    fn params_mut(&mut self) -> &mut [Real] {
        &mut self.params
    }

    fn per_example_grad_norms(&mut self, x: ArrayView2<Real>, y: &[usize], norms: &mut Vec<Real>) {
        assert_eq!(x.ncols(), self.d, "feature count does not match the model");
        let mut r = self.logits(x);
        softmax_rows(&mut r);
        norms.clear();
        for ((mut row, xi), &label) in r.rows_mut().into_iter().zip(x.rows()).zip(y) {
            row[label] -= 1.0;
            let r2 = row.dot(&row);
            let x2 = xi.dot(&xi);
            norms.push((r2 * (x2 + 1.0)).sqrt());
        }
        self.residual = r;
    }

    fn add_weighted_grad_sum(&mut self, x: ArrayView2<Real>, weights: &[Real], grad: &mut [Real]) {
        assert_eq!(
            weights.len(),
            self.residual.nrows(),
            "weights do not match the last batch"
        );
        for (mut row, &w) in self.residual.rows_mut().into_iter().zip(weights) {
            row *= w;
        }
        let (gw, gb) = grad.split_at_mut(self.d * self.k);
        let mut gw = ArrayViewMut2::from_shape((self.d, self.k), gw).expect("shape");
        general_mat_mul(1.0, &x.t(), &self.residual, 1.0, &mut gw);
        for (g, s) in gb.iter_mut().zip(self.residual.sum_axis(Axis(0))) {
            *g += s;
        }
    }

    fn predict_proba(&self, x: ArrayView2<Real>) -> Array2<Real> {
        let mut z = self.logits(x);
        softmax_rows(&mut z);
        z
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

    /// Mean loss in f64 straight from the definition, for finite differences.
    fn loss_at(m: &SoftmaxRegression, x: &Array2<Real>, y: &[usize]) -> f64 {
        evaluate(m, x.view(), y).0
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let (n, d, k) = (7, 5, 3);
        let (x, y) = random_problem(n, d, k, 1);
        let mut m = SoftmaxRegression::random(d, k, &mut ChaCha8Rng::seed_from_u64(2));
        for w in m.params_mut() {
            *w *= 50.0; // away from the symmetric start
        }
        let mut norms = Vec::new();
        m.per_example_grad_norms(x.view(), &y, &mut norms);
        let mut grad = vec![0.0; m.n_params()];
        m.add_weighted_grad_sum(x.view(), &vec![1.0 / n as Real; n], &mut grad);
        let h = 1e-2f32;
        for (j, &g) in grad.iter().enumerate() {
            let mut plus = m.clone();
            plus.params_mut()[j] += h;
            let mut minus = m.clone();
            minus.params_mut()[j] -= h;
            let fd = (loss_at(&plus, &x, &y) - loss_at(&minus, &x, &y)) / (2.0 * h as f64);
            assert!(
                (fd - g as f64).abs() < 2e-3 * (1.0 + fd.abs()),
                "param {j}: finite difference {fd} vs analytic {g}"
            );
        }
    }

    #[test]
    fn per_example_norms_match_materialised_gradients() {
        let (n, d, k) = (6, 4, 3);
        let (x, y) = random_problem(n, d, k, 3);
        let mut m = SoftmaxRegression::random(d, k, &mut ChaCha8Rng::seed_from_u64(4));
        let mut norms = Vec::new();
        m.per_example_grad_norms(x.view(), &y, &mut norms);
        for i in 0..n {
            // Example i's gradient alone: weight 1 for i, 0 for the others.
            let mut w = vec![0.0; n];
            w[i] = 1.0;
            let mut g = vec![0.0; m.n_params()];
            let mut mi = m.clone();
            mi.per_example_grad_norms(x.view(), &y, &mut Vec::new());
            mi.add_weighted_grad_sum(x.view(), &w, &mut g);
            let brute = g.iter().map(|v| v * v).sum::<Real>().sqrt();
            assert!(
                (brute - norms[i]).abs() <= 1e-5 * brute.max(1.0),
                "{brute} vs {}",
                norms[i]
            );
        }
    }
}
