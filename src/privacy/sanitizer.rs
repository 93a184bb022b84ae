//! The sanitizer of Algorithm 1 (paper Section 3.1): clip each per-example gradient to L2 norm
//! C, sum, add Gaussian noise N(0, σ²C²I). Works on flat parameter-sized slices.
//!
//! An example whose gradient norm is not a finite number (an overflow, a NaN) is clipped to
//! no contribution at all — weight 0, which the model applies by writing zeros, never by
//! multiplying (0·∞ is NaN) — so one bad example can never move the sum by more than C, nor
//! reveal itself by turning the update into NaN.

use crate::linalg::sum_squares;
use crate::privacy::normals::FillNormals;
use crate::Real;
use ndarray::{Array2, ArrayView2};

/// Algorithm 1, "Clip gradient": ḡ(x_i) = g(x_i) / max(1, ||g(x_i)||₂ / C), as the factor
/// 1 / max(1, ||g||/C) that multiplies g. Exactly 1 when ||g|| ≤ C; 0 when ||g|| is not a
/// finite number.
pub fn clip_factor(norm: Real, clip: Real) -> Real {
    if !norm.is_finite() {
        0.0
    } else if norm > clip {
        clip / norm
    } else {
        1.0
    }
}

/// Whether clipping to `clip` leaves this norm as it is (a non-finite norm never is).
pub fn is_unclipped(norm: Real, clip: Real) -> bool {
    norm <= clip
}

/// Clip factors of a batch into `weights` (batch × layers), from the per-layer gradient norms
/// `norms` (batch × layers) and each example's whole-gradient norm `totals`.
/// Flat clipping (`bounds` = [C]): every layer of example i gets 1/max(1, ||g_i||/C).
/// Per-layer clipping (`bounds` = [C_1, …]): layer l gets 1/max(1, ||g_i,l||/C_l).
/// An example with a non-finite norm (whole or any layer's) gets weight 0 in every layer.
/// Returns how many examples were clipped (in any layer; a dropped example counts).
pub fn clip_weights(
    norms: ArrayView2<Real>,
    totals: &[Real],
    bounds: &[f64],
    weights: &mut Array2<Real>,
) -> usize {
    let (n, layers) = norms.dim();
    if weights.dim() != (n, layers) {
        *weights = Array2::zeros((n, layers));
    }
    let mut clipped = 0;
    for i in 0..n {
        let any = if !totals[i].is_finite() || norms.row(i).iter().any(|v| !v.is_finite()) {
            weights.row_mut(i).fill(0.0);
            true
        } else if let [c] = bounds {
            let c = *c as Real;
            weights.row_mut(i).fill(clip_factor(totals[i], c));
            !is_unclipped(totals[i], c)
        } else {
            let mut any = false;
            for (l, &c) in bounds.iter().enumerate() {
                let c = c as Real;
                weights[[i, l]] = clip_factor(norms[[i, l]], c);
                any |= !is_unclipped(norms[[i, l]], c);
            }
            any
        };
        clipped += any as usize;
    }
    clipped
}

/// Algorithm 1, "Add noise": sum += N(0, std² I) with std = σC. Returns the L2 norm of the
/// noise added (its expectation is about std·sqrt(d)).
///
/// Works in blocks that stay in L1: the standard normals of a block are drawn first (the RNG
/// is inherently sequential; rand_distr's `StandardNormal`, [`FillNormals`]), then scaled,
/// added and squared in passes the compiler vectorises.
pub fn add_gaussian_noise<R: FillNormals + ?Sized>(sum: &mut [Real], std: f64, rng: &mut R) -> f64 {
    gaussian_noise(sum, std, rng, |v, n| *v += n)
}

/// The same draws as [`add_gaussian_noise`] (same stream, same order, same std·z in f32),
/// written into `out` instead of added: noise drawn ahead, while other workers sum the lot's
/// parts, and added later — the sum comes out bit for bit as if added at once. Returns the
/// noise's L2 norm.
pub fn draw_gaussian_noise<R: FillNormals + ?Sized>(
    out: &mut [Real],
    std: f64,
    rng: &mut R,
) -> f64 {
    gaussian_noise(out, std, rng, |v, n| *v = n)
}

fn gaussian_noise<R: FillNormals + ?Sized>(
    target: &mut [Real],
    std: f64,
    rng: &mut R,
    apply: impl Fn(&mut Real, Real),
) -> f64 {
    if std == 0.0 {
        return 0.0;
    }
    let s = std as Real;
    let mut block = [0.0 as Real; 1024];
    let mut sq = 0.0f64;
    for chunk in target.chunks_mut(block.len()) {
        let z = &mut block[..chunk.len()];
        rng.fill_standard_normals(z);
        for (v, &zi) in chunk.iter_mut().zip(z.iter()) {
            apply(v, s * zi);
        }
        sq += sum_squares(z) as f64;
    }
    std * sq.sqrt()
}

/// Σ v² over a whole parameter vector: f32 lanes within blocks of 1,024 (vectorised) and
/// f64 across blocks (so a million coordinates lose no precision that shows).
pub fn sum_of_squares(v: &[Real]) -> f64 {
    v.chunks(1024).map(|block| sum_squares(block) as f64).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::noise_rng::ChaCha8Lanes;
    use rand::{Rng, SeedableRng};
    use rand_chacha::{ChaCha20Rng, ChaCha8Rng};

    #[test]
    fn clipped_norm_never_exceeds_c() {
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        for _ in 0..10_000 {
            let norm: Real = 10f32.powf(rng.random_range(-4.0..4.0));
            let c: Real = 10f32.powf(rng.random_range(-2.0..1.3));
            let f = clip_factor(norm, c);
            assert!(
                norm * f <= c * (1.0 + 1e-6),
                "norm {norm}, C {c}, clipped {}",
                norm * f
            );
            assert!(f <= 1.0 && f > 0.0);
            if norm <= c {
                assert_eq!(f, 1.0, "gradients inside the ball are untouched");
            }
        }
    }

    #[test]
    fn flat_and_per_layer_weights_bound_what_they_should() {
        let norms: Array2<Real> = ndarray::array![[3.0, 4.0], [0.3, 0.4], [0.1, 2.0]];
        let totals: Vec<Real> = norms.rows().into_iter().map(|r| r.dot(&r).sqrt()).collect();
        let mut w = Array2::zeros((0, 0));
        // Flat, C = 1: the whole gradient (norm 5, 0.5, ~2.0) is scaled to norm ≤ 1.
        assert_eq!(clip_weights(norms.view(), &totals, &[1.0], &mut w), 2);
        for i in 0..3 {
            let scaled = totals[i] * w[[i, 0]];
            assert!(scaled <= 1.0 + 1e-6 && w[[i, 0]] == w[[i, 1]]);
        }
        assert_eq!(w.row(1).to_vec(), [1.0, 1.0]);
        // Per layer, C = (1, 1): each layer separately.
        assert_eq!(clip_weights(norms.view(), &totals, &[1.0, 1.0], &mut w), 2);
        assert_eq!(w.row(2).to_vec(), [1.0, 0.5]);
        assert!((w[[0, 0]] - 1.0 / 3.0).abs() < 1e-7 && (w[[0, 1]] - 0.25).abs() < 1e-7);
    }

    #[test]
    fn noise_has_mean_zero_and_std_sigma_c() {
        // 200,000 draws: the sample mean has std sigma*C/sqrt(n) = 0.0067 * sigma*C, so
        // |mean| < 5 of those fails by chance with probability < 1e-6; the sample std has
        // relative std 1/sqrt(2n) = 0.0016, so a 1% tolerance is over 6 of those.
        let (sigma, c) = (3.0, 0.5);
        let mut v = vec![0.0; 200_000];
        // The wasm noise generator's draws (their common case taken by `normals` itself).
        let mut rng = ChaCha8Lanes::at(&ChaCha8Rng::seed_from_u64(1));
        let norm = add_gaussian_noise(&mut v, sigma * c, &mut rng);
        let n = v.len() as f64;
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        assert!(mean.abs() < 5.0 * sigma * c / n.sqrt(), "mean {mean}");
        assert!(
            (var.sqrt() / (sigma * c) - 1.0).abs() < 0.01,
            "std {}",
            var.sqrt()
        );
        assert!(
            (norm / (sigma * c * n.sqrt()) - 1.0).abs() < 0.01,
            "noise norm {norm}"
        );
    }

    #[test]
    fn a_non_finite_norm_contributes_nothing() {
        assert_eq!(clip_factor(Real::NAN, 1.0), 0.0);
        assert_eq!(clip_factor(Real::INFINITY, 1.0), 0.0);
        assert!(!is_unclipped(Real::NAN, 1.0));
        let norms: Array2<Real> =
            ndarray::array![[0.5, 0.5], [Real::INFINITY, 0.1], [0.2, Real::NAN]];
        let totals: Vec<Real> = vec![0.7, Real::INFINITY, Real::NAN];
        let mut w = Array2::zeros((0, 0));
        for bounds in [&[1.0][..], &[1.0, 1.0][..]] {
            assert_eq!(clip_weights(norms.view(), &totals, bounds, &mut w), 2);
            assert_eq!(w.row(0).to_vec(), [1.0, 1.0]);
            assert_eq!(w.row(1).to_vec(), [0.0, 0.0]);
            assert_eq!(w.row(2).to_vec(), [0.0, 0.0]);
        }
    }

    #[test]
    fn zero_noise_adds_nothing() {
        let mut v = vec![1.5; 10];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(add_gaussian_noise(&mut v, 0.0, &mut rng), 0.0);
        assert!(v.iter().all(|&x| x == 1.5));
    }

    #[test]
    fn sum_of_squares_matches_a_plain_f64_sum() {
        for n in [0, 1, 7, 8, 1023, 1024, 1025, 5000] {
            let v: Vec<Real> = (0..n)
                .map(|i| ((i * 37 % 101) as Real - 50.0) / 7.0)
                .collect();
            let want: f64 = v.iter().map(|&x| (x as f64).powi(2)).sum();
            let got = sum_of_squares(&v);
            assert!(
                (got - want).abs() <= 1e-6 * want.max(1.0),
                "n {n}: {got} vs {want}"
            );
        }
    }
}
