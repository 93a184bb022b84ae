//! Lots drawn by Poisson sampling (paper Section 3.1, "Lots"): every example joins the lot
//! independently with probability q = L/N, so lot sizes vary around L. This is the sampling
//! the accountants assume.

use rand::Rng;

/// Draws a Poisson-sampled lot of indices from 0..n into `out` (sorted, cleared first).
///
/// Equivalent to n independent Bernoulli(q) draws, but costs O(qn): the gaps between chosen
/// indices are geometric, skip = floor(ln U / ln(1 − q)) with U uniform on (0, 1].
pub fn poisson_lot<R: Rng + ?Sized>(n: usize, q: f64, rng: &mut R, out: &mut Vec<usize>) {
    out.clear();
    if q <= 0.0 || n == 0 {
        return;
    }
    if q >= 1.0 {
        out.extend(0..n);
        return;
    }
    let log_keep = (-q).ln_1p(); // ln(1 − q) < 0
    let mut i = 0usize;
    loop {
        let u = 1.0 - rng.random::<f64>(); // (0, 1]
        let skip = (u.ln() / log_keep).floor();
        if skip >= (n - i) as f64 {
            return;
        }
        i += skip as usize;
        out.push(i);
        i += 1;
        if i >= n {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn each_example_is_included_with_probability_q() {
        let (n, q, draws) = (50, 0.2, 20_000);
        let mut rng = ChaCha20Rng::seed_from_u64(5);
        let mut counts = vec![0usize; n];
        let mut lot = Vec::new();
        let mut sizes = 0usize;
        for _ in 0..draws {
            poisson_lot(n, q, &mut rng, &mut lot);
            assert!(lot.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
            sizes += lot.len();
            for &i in &lot {
                counts[i] += 1;
            }
        }
        // Each count is Binomial(20000, 0.2): std 56.6; 6 std = 340.
        for (i, &c) in counts.iter().enumerate() {
            let expected = draws as f64 * q;
            assert!(
                (c as f64 - expected).abs() < 340.0,
                "index {i}: {c} vs {expected}"
            );
        }
        let mean = sizes as f64 / draws as f64;
        assert!((mean - q * n as f64).abs() < 0.1, "mean lot size {mean}");
    }

    #[test]
    fn edge_rates() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let mut lot = vec![7];
        poisson_lot(10, 0.0, &mut rng, &mut lot);
        assert!(lot.is_empty());
        poisson_lot(10, 1.0, &mut rng, &mut lot);
        assert_eq!(lot, (0..10).collect::<Vec<_>>());
    }
}
