//! Differentially private PCA (paper Section 4): take a Poisson sample of the training
//! examples, normalise each to unit L2 norm into A, add a symmetric Gaussian noise matrix with
//! std σ_p to AᵀA, and project every example onto the top-k eigenvectors of the noisy matrix.
//! One example changes AᵀA by a·aᵀ with Frobenius norm 1, so this is one Gaussian mechanism
//! with sensitivity 1 and noise multiplier σ_p on a sample with rate q — the accountants add
//! it to the training's cost (see `privacy::accountant::compose`).

use super::{Dataset, Split};
use crate::linalg::matmul;
use crate::privacy::sampling::poisson_lot;
use crate::Real;
use nalgebra::{DMatrix, SymmetricEigen};
use ndarray::{s, Array2, ArrayView2};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use std::sync::Arc;

/// A projection onto k principal directions (d × k), and how it was made.
#[derive(Clone, Debug)]
pub struct Projection {
    pub basis: Array2<Real>,
    /// Rows of the sample the covariance was computed from.
    pub sample_size: usize,
}

/// A d × d symmetric matrix whose entries on and above the diagonal are independent
/// N(0, σ²) (each below-diagonal entry mirrors its partner).
pub fn symmetric_noise<R: Rng + ?Sized>(d: usize, sigma: f64, rng: &mut R) -> DMatrix<f64> {
    let mut m = DMatrix::zeros(d, d);
    for i in 0..d {
        for j in i..d {
            let z: f64 = StandardNormal.sample(rng);
            m[(i, j)] = sigma * z;
            m[(j, i)] = sigma * z;
        }
    }
    m
}

/// Rows of the sample normalised and multiplied at a time (6.4 MB of Fashion-MNIST).
const GRAM_BLOCK: usize = 2048;

/// DP-PCA of the rows of `parts` taken in order as one table (an audit's run: the training
/// rows, then its canaries that are members, without a copy of the two together): top-`k`
/// eigenvectors of AᵀA + E, with A the unit-normalised rows of a Poisson sample with rate
/// `sample_rate` and E symmetric Gaussian noise of std `sigma_p` (0: exact PCA of the sample).
pub fn dp_pca<R: Rng + ?Sized>(
    parts: &[ArrayView2<Real>],
    k: usize,
    sigma_p: f64,
    sample_rate: f64,
    rng: &mut R,
) -> Projection {
    let d = parts.first().map_or(0, |x| x.ncols());
    assert!(
        parts.iter().all(|x| x.ncols() == d),
        "the parts of a table have the same features"
    );
    let k = k.clamp(1, d);
    let total = parts.iter().map(|x| x.nrows()).sum();
    // Row `r` of the table: in the first part that reaches past it.
    let row = |mut r: usize| {
        for x in parts {
            if r < x.nrows() {
                return x.row(r);
            }
            r -= x.nrows();
        }
        unreachable!("a sampled row is below the total")
    };
    let mut rows = Vec::new();
    poisson_lot(total, sample_rate, rng, &mut rows);
    // AᵀA = Σ over blocks of rows of A_bᵀA_b: only a block of the normalised sample is ever
    // copied (the whole sample of Fashion-MNIST would be 188 MB, in every worker that runs it).
    let mut gram = Array2::<Real>::zeros((d, d));
    let mut block = Array2::<Real>::zeros((GRAM_BLOCK.min(rows.len()), d));
    for (b, chunk) in rows.chunks(GRAM_BLOCK).enumerate() {
        let mut a = block.slice_mut(s![..chunk.len(), ..]);
        for (mut dst, &r) in a.rows_mut().into_iter().zip(chunk) {
            let src = row(r);
            let norm = src.dot(&src).sqrt();
            if norm > 0.0 {
                dst.zip_mut_with(&src, |d, &v| *d = v / norm);
            } else {
                dst.assign(&src);
            }
        }
        matmul(&mut gram.view_mut(), &a.t(), &a.view(), b > 0);
    }
    let mut c = DMatrix::<f64>::from_fn(d, d, |i, j| {
        0.5 * (gram[[i, j]] as f64 + gram[[j, i]] as f64)
    });
    if sigma_p > 0.0 {
        c += symmetric_noise(d, sigma_p, rng);
    }
    let eig = SymmetricEigen::new(c);
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by(|&i, &j| eig.eigenvalues[j].total_cmp(&eig.eigenvalues[i]));
    let basis = Array2::from_shape_fn((d, k), |(i, j)| eig.eigenvectors[(i, order[j])] as Real);
    Projection {
        basis,
        sample_size: rows.len(),
    }
}

impl Projection {
    /// Rows of input-space examples (n × d) in the projection's coordinates (n × k): what the
    /// model of a run with PCA reads.
    pub fn apply(&self, x: ArrayView2<Real>) -> Array2<Real> {
        let mut out = Array2::<Real>::zeros((x.nrows(), self.basis.ncols()));
        matmul(&mut out.view_mut(), &x, &self.basis.view(), false);
        out
    }

    /// The range of each projected coordinate over the unit cube [0, 1]^d, as (low, high):
    /// coordinate j of x·basis is Σ_i x_i b_ij, lowest where x_i = 1 exactly for the
    /// negative b_ij and highest for the positive ones. From the released basis and a public
    /// box alone, so it reveals nothing more than the projection did.
    pub fn range_over_unit_cube(&self) -> Vec<(Real, Real)> {
        self.basis
            .columns()
            .into_iter()
            .map(|b| {
                b.iter().fold((0.0, 0.0), |(lo, hi), &v| {
                    (lo + v.min(0.0), hi + v.max(0.0))
                })
            })
            .collect()
    }
}

/// The dataset with every example (train and test) projected onto `p`'s basis.
pub fn project(data: &Dataset, p: &Projection) -> Dataset {
    let proj = |s: &Split| Split {
        x: p.apply(s.x.view()),
        y: s.y.clone(),
    };
    Dataset {
        name: format!("{} (PCA {})", data.name, p.basis.ncols()),
        feature_names: (1..=p.basis.ncols()).map(|j| format!("pc{j}")).collect(),
        class_names: data.class_names.clone(),
        train: proj(&data.train),
        test: Arc::new(proj(&data.test)),
        private: data.private,
        releases: data.releases.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Largest principal angle's sine between the column spaces of two orthonormal bases:
    /// the spectral norm of (I − QQᵀ)P.
    fn subspace_sine(p: &Array2<Real>, q: &DMatrix<f64>) -> f64 {
        let p = DMatrix::from_fn(p.nrows(), p.ncols(), |i, j| p[[i, j]] as f64);
        let resid = &p - q * (q.transpose() * &p);
        resid.singular_values().max()
    }

    /// Every point of the unit cube projects inside the range, and the range's ends are
    /// reached (at the cube's corners): it is the projected cube's exact bounding box.
    #[test]
    fn the_range_over_the_unit_cube_holds_every_point_and_is_reached() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let (d, k) = (7, 2);
        let q = DMatrix::<f64>::from_fn(d, k, |_, _| rng.random_range(-1.0..1.0))
            .qr()
            .q();
        let p = Projection {
            basis: Array2::from_shape_fn((d, k), |(i, j)| q[(i, j)] as Real),
            sample_size: 0,
        };
        let range = p.range_over_unit_cube();
        let inside = Array2::from_shape_fn((500, d), |_| rng.random_range(0.0..=1.0) as Real);
        let corners = Array2::from_shape_fn((1 << d, d), |(c, i)| ((c >> i) & 1) as Real);
        for (j, &(lo, hi)) in range.iter().enumerate() {
            assert!(
                lo < 0.0 && hi > 0.0,
                "a random direction has both signs: {lo} {hi}"
            );
            let col = p.apply(inside.view()).column(j).to_owned();
            assert!(col.iter().all(|&v| v >= lo - 1e-5 && v <= hi + 1e-5));
            let ends = p.apply(corners.view()).column(j).to_owned();
            let min = ends.iter().copied().fold(Real::INFINITY, Real::min);
            let max = ends.iter().copied().fold(Real::NEG_INFINITY, Real::max);
            assert!(
                (min - lo).abs() < 1e-5 && (max - hi).abs() < 1e-5,
                "{min} {max} vs {lo} {hi}"
            );
        }
    }

    #[test]
    fn without_noise_it_finds_the_planted_subspace() {
        // Rows lie exactly in a random 3-dimensional subspace of R^12.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (d, k, n) = (12, 3, 400);
        let basis = DMatrix::<f64>::from_fn(d, k, |_, _| rng.random_range(-1.0..1.0))
            .qr()
            .q();
        let coords =
            DMatrix::<f64>::from_fn(n, k, |_, j| rng.random_range(-1.0..1.0) * (3.0 - j as f64));
        let rows = &coords * basis.transpose();
        let x = Array2::from_shape_fn((n, d), |(i, j)| rows[(i, j)] as Real);
        let p = dp_pca(&[x.view()], k, 0.0, 1.0, &mut rng);
        assert_eq!(p.sample_size, n);
        let sine = subspace_sine(&p.basis, &basis);
        assert!(sine < 1e-6, "subspace angle {sine}");
    }

    /// The matrix is summed over blocks of rows: directions that only early rows and only late
    /// rows take (e5, e6 in the first 2,500 of 5,000; e2 in the rest: three blocks) must all be
    /// found — a sum that kept one block would miss one of them (the solver then fills the rest
    /// with other axes, e0 and e1 here).
    #[test]
    fn every_block_of_rows_counts() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let (d, n) = (8, 5000);
        assert!(n > 2 * GRAM_BLOCK);
        let x = Array2::from_shape_fn((n, d), |(i, j)| match (i < n / 2, j) {
            (true, 5 | 6) | (false, 2) => rng.random_range(0.5..1.5) as Real,
            _ => 0.0,
        });
        let p = dp_pca(&[x.view()], 3, 0.0, 1.0, &mut rng);
        let want = DMatrix::<f64>::from_fn(d, 3, |i, j| (i == [2, 5, 6][j]) as u8 as f64);
        let sine = subspace_sine(&p.basis, &want);
        assert!(sine < 1e-5, "subspace angle {sine}");
    }

    /// A table given in parts (an audit's training rows and its member canaries) is the same
    /// table: the same sample and, bit for bit, the same basis as the rows put together.
    #[test]
    fn a_table_in_parts_is_the_table() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let x = Array2::from_shape_fn((GRAM_BLOCK + 700, 9), |_| rng.random_range(-1.0..1.0));
        let whole = dp_pca(&[x.view()], 3, 2.0, 0.6, &mut ChaCha8Rng::seed_from_u64(5));
        for cut in [0, 1, 700, GRAM_BLOCK + 699] {
            let (a, b) = x.view().split_at(ndarray::Axis(0), cut);
            let parts = dp_pca(&[a, b], 3, 2.0, 0.6, &mut ChaCha8Rng::seed_from_u64(5));
            assert_eq!(parts.sample_size, whole.sample_size, "cut at {cut}");
            assert_eq!(parts.basis, whole.basis, "cut at {cut}");
        }
    }

    #[test]
    fn noise_is_symmetric_with_the_stated_std() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (d, sigma) = (300, 7.0);
        let e = symmetric_noise(d, sigma, &mut rng);
        assert_eq!(e, e.transpose());
        // The d(d+1)/2 = 45,150 independent entries: sample std within 1% (std error 0.33%).
        let upper: Vec<f64> = (0..d)
            .flat_map(|i| (i..d).map(move |j| (i, j)))
            .map(|(i, j)| e[(i, j)])
            .collect();
        let n = upper.len() as f64;
        let mean = upper.iter().sum::<f64>() / n;
        let sd = (upper.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!(
            mean.abs() < 5.0 * sigma / n.sqrt() && (sd / sigma - 1.0).abs() < 0.01,
            "mean {mean}, std {sd}"
        );
    }

    #[test]
    fn projection_keeps_labels_and_makes_k_features() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let x = Array2::from_shape_fn((50, 6), |_| rng.random_range(-1.0..1.0));
        let data = Dataset {
            name: "t".into(),
            feature_names: (0..6).map(|j| j.to_string()).collect(),
            class_names: vec!["a".into(), "b".into()],
            train: Split {
                x: x.clone(),
                y: vec![0; 50],
            },
            test: Arc::new(Split {
                x: x.slice(ndarray::s![..5, ..]).to_owned(),
                y: vec![1; 5],
            }),
            private: false,
            releases: Vec::new(),
        };
        let p = dp_pca(&[data.train.x.view()], 2, 1.0, 0.5, &mut rng);
        assert!(
            p.sample_size > 10 && p.sample_size < 40,
            "Poisson sample of about 25: {}",
            p.sample_size
        );
        let out = project(&data, &p);
        assert_eq!((out.n_features(), out.test.y.clone()), (2, vec![1; 5]));
    }
}
