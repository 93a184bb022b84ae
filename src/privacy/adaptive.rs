//! Adaptive clipping (Andrew, Thakkar, McMahan & Ramaswamy 2021, "Differentially Private
//! Learning with Adaptive Clipping", Algorithm 1): each lot also releases how many of its
//! examples were not clipped, with Gaussian noise, and C moves geometrically towards the
//! target quantile γ of the gradient norms: C ← C·exp(−η_C (b̃ − γ)).
//!
//! The count is centred — Σ_i (1[‖g_i‖ ≤ C] − ½) — so that adding or removing one example
//! changes it by ½ (sensitivity ½), and it is normalised by the expected lot size L, which is
//! public, not by the lot's actual size, which is not: b̃ = (Σ_i (b_i − ½) + N(0, σ_b²)) / L + ½.
//! (TF Privacy's quantile estimator does the same; Opacus's AdaClip divides by the actual
//! lot size and counts uncentred.) The count and the gradient sum are one Gaussian release on
//! the same lot: accounted together with multiplier (σ⁻² + (2σ_b)⁻²)^−½, see
//! `RunConfig::accounted_sigma`.

use rand::Rng;
use rand_distr::StandardNormal;

/// C never leaves this range, however the noisy counts push it (Opacus's min/max clip bound).
pub const CLIP_RANGE: (f64, f64) = (1e-4, 1e4);

/// The released fraction of unclipped examples b̃ of one lot: `unclipped` of the lot's
/// `lot_len` examples had ‖g_i‖ ≤ C; `expected_lot` is L; the noise has std `count_noise`.
pub fn noisy_unclipped_fraction<R: Rng + ?Sized>(
    unclipped: usize,
    lot_len: usize,
    expected_lot: f64,
    count_noise: f64,
    rng: &mut R,
) -> f64 {
    let centred = unclipped as f64 - 0.5 * lot_len as f64;
    let noise = count_noise * rng.sample::<f64, _>(StandardNormal);
    (centred + noise) / expected_lot + 0.5
}

/// The geometric update of C towards the target quantile γ with learning rate η_C.
pub fn next_clip(clip: f64, unclipped_fraction: f64, target: f64, lr: f64) -> f64 {
    (clip * (-lr * (unclipped_fraction - target)).exp()).clamp(CLIP_RANGE.0, CLIP_RANGE.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_noisy_fraction_is_unbiased_with_the_stated_spread() {
        // 200 of 256 unclipped, L = 256, σ_b = 12.8 (L/20): b̃ has mean 200/256 and std 0.05.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let n = 20_000;
        let draws: Vec<f64> = (0..n)
            .map(|_| noisy_unclipped_fraction(200, 256, 256.0, 12.8, &mut rng))
            .collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        let sd = (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!(
            (mean - 200.0 / 256.0).abs() < 5.0 * 0.05 / (n as f64).sqrt(),
            "{mean}"
        );
        assert!((sd / 0.05 - 1.0).abs() < 0.03, "{sd}");
    }

    #[test]
    fn c_follows_the_quantile_of_a_fixed_norm_distribution() {
        // Norms uniform on [0, 2]: the median is 1. From C = 0.01 and from C = 100, the
        // geometric update with exact counts settles within 2% of it.
        let norms: Vec<f64> = (0..1000).map(|i| 2.0 * (i as f64 + 0.5) / 1000.0).collect();
        for start in [0.01, 100.0] {
            let mut c = start;
            for _ in 0..400 {
                let unclipped = norms.iter().filter(|&&g| g <= c).count() as f64 / 1000.0;
                c = next_clip(c, unclipped, 0.5, 0.2);
            }
            assert!((c - 1.0).abs() < 0.02, "from {start}: C = {c}");
        }
        assert_eq!(next_clip(1e4, 0.0, 0.5, 10.0), CLIP_RANGE.1);
    }
}
