//! ln M(u) = ln Σ_i p_i e^{u·i} over a PLD's grid, for the accountant's moment table
//! ([`super::pld`]'s `mgf_table`: 61 values of u each way, over every point of one step's
//! grid — 47,483 points at the default run's q and h; the table was most of an accountant's
//! first epoch).
//!
//! A term each, e^{ln p_i + u·i − top} shifted by the largest, took an exponential per point:
//! 5.8 million for the default run, a call each (glibc's natively; in the browser a port of
//! musl's compiled to wasm, 50–75 ms). Here the grid is cut into blocks of [`BLOCK`] points:
//! within a block starting at index s, Σ_k p_{s+k} e^{u·k} is a dot product of the block's
//! masses with the powers e^{u·k} (computed once per u: `BLOCK` exponentials), and the blocks'
//! sums are put together by their logarithms, ln(Σ_k …) + u·s, in a log-sum-exp — so nothing
//! underflows however wide the distribution (the table's reason to be in logs). A block is
//! short enough that |u·k| ≤ 6.4 ([`block_len`]: 64 points for every u of the default grid,
//! h = 10⁻⁴, where |u| ≤ 10³·h = 0.1; one point, the term-by-term sum, where |u| ≥ 6.4), so
//! each block's sum is a plain sum of terms within e^{±6.4} of their mass. An exponential and
//! a logarithm per block and per u, a multiply-add per point: the compiler vectorises the dot
//! products.
//!
//! The value differs from the term-by-term one in the last places only (a test: 1e-13 of the
//! larger of |ln M| and 1); the table places the Chernoff window's integer ends
//! (`pld_accountant::chernoff_window`), which such a difference leaves where they were.

/// The most points in a block.
pub(crate) const BLOCK: usize = 64;
/// The widest a block's weights e^{u·k} may range: e^{±6.4}.
const SPAN: f64 = 6.4;

/// Points per block at slope `u`: as many as keep |u·k| ≤ [`SPAN`], from 1 to [`BLOCK`].
pub(crate) fn block_len(u: f64) -> usize {
    let len = (SPAN / u.abs()).floor();
    if len >= BLOCK as f64 {
        BLOCK
    } else {
        (len as usize).max(1)
    }
}

/// Lanes of the dot products (the compiler's vectors, and a few in flight).
const LANES: usize = 8;

/// e^{u·k} for k = 0 … [`block_len`]`(u)` − 1: one block's weights at slope `u` (0 beyond).
pub(crate) fn block_powers(u: f64) -> [f64; BLOCK] {
    let len = block_len(u);
    std::array::from_fn(|k| if k < len { (u * k as f64).exp() } else { 0.0 })
}

/// ln Σ_i pmf[i]·e^{u·(offset + i)}, with `powers` = [`block_powers`]`(u)`; −∞ when every mass
/// is 0. Masses are probabilities (finite, ≥ 0).
pub(crate) fn log_mgf(pmf: &[f64], offset: i64, u: f64, powers: &[f64; BLOCK]) -> f64 {
    // ln of each block's sum, at the block's first index.
    let len = block_len(u);
    let logs: Vec<f64> = pmf
        .chunks(len)
        .enumerate()
        .filter_map(|(b, block)| {
            // A block of masses all below 1e-200 is summed scaled by 2^700 (exactly), so that
            // no product falls among the subnormals and loses its digits.
            let tiny = block.iter().all(|&p| p < 1e-200);
            let (scale, ln_scale) = if tiny { (SCALE, SCALE_LN) } else { (1.0, 0.0) };
            let sum = dot(block, powers, scale);
            let start = (offset + (b * len) as i64) as f64;
            (sum > 0.0).then(|| sum.ln() - ln_scale + u * start)
        })
        .collect();
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    top + logs.iter().map(|&l| (l - top).exp()).sum::<f64>().ln()
}

/// 2^700, and its logarithm.
const SCALE: f64 = 5.260_135_901_548_374e210;
const SCALE_LN: f64 = 700.0 * std::f64::consts::LN_2;

/// Σ_k (block[k]·scale)·powers[k] (`block` at most [`block_len`] long), in [`LANES`] lanes.
fn dot(block: &[f64], powers: &[f64; BLOCK], scale: f64) -> f64 {
    let mut lanes = [0.0f64; LANES];
    let (full, rest) = (block.chunks_exact(LANES), block.len() / LANES * LANES);
    for (c, w) in full.zip(powers.chunks_exact(LANES)) {
        for l in 0..LANES {
            lanes[l] += (c[l] * scale) * w[l];
        }
    }
    let tail: f64 = block[rest..]
        .iter()
        .zip(&powers[rest..])
        .map(|(p, w)| (p * scale) * w)
        .sum();
    lanes.iter().sum::<f64>() + tail
}

/// The term-by-term log-sum-exp the blocks replace (the tests' reference).
#[cfg(test)]
pub(crate) fn log_mgf_term_by_term(pmf: &[f64], offset: i64, u: f64) -> f64 {
    let terms: Vec<f64> = pmf
        .iter()
        .enumerate()
        .filter(|(_, &p)| p > 0.0)
        .map(|(i, &p)| p.ln() + u * (offset + i as i64) as f64)
        .collect();
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    top + terms.iter().map(|&t| (t - top).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_is_two_to_the_700_and_blocks_span_at_most_e_to_the_6_4() {
        assert_eq!(SCALE, 2f64.powi(700));
        assert_eq!(block_len(0.0), BLOCK);
        assert_eq!(block_len(0.1), 64);
        assert_eq!(block_len(-0.2), 32);
        assert_eq!(block_len(6.4), 1);
        assert_eq!(block_len(1e3), 1);
        for u in [1e-7, 0.05, 0.1, 0.3, -1.0, 6.0, 100.0] {
            assert!((block_len(u) - 1) as f64 * u.abs() <= SPAN);
        }
    }

    #[test]
    fn the_blocks_give_the_term_by_term_log_mgf() {
        // Masses over many decades (down to subnormals), zeros inside and at both ends, lengths
        // around a block, offsets of both signs.
        let shapes: Vec<(Vec<f64>, i64)> = vec![
            (vec![], 0),
            (vec![0.0; 70], 5),
            (vec![1.0], -3),
            ((0..63).map(|i| 1.0 / (1.0 + i as f64)).collect(), -40),
            ((0..64).map(|i| (-(i as f64) * 0.5).exp()).collect(), 0),
            (
                (0..47_483)
                    .map(|i| {
                        let z = (i as f64 - 3000.0) / 400.0;
                        if i % 97 == 0 || i < 10 {
                            0.0
                        } else {
                            (-z * z / 2.0).exp() * 1e-3
                        }
                    })
                    .collect(),
                -2_500,
            ),
            ((0..5_000).map(|i| 1e-300 * (1.0 + i as f64)).collect(), 100),
            // From 1 down through the subnormals to 0 (e^−i underflows past i = 745).
            ((0..900).map(|i| (-(i as f64)).exp()).collect(), -7),
        ];
        // The default grid (every block full) and wider ones (shorter blocks, down to one point).
        for (h, (pmf, offset)) in [1e-4, 1e-3, 1e-2, 0.1]
            .into_iter()
            .flat_map(|h| shapes.iter().map(move |s| (h, s)))
        {
            for k in 0..61 {
                for sign in [1.0, -1.0] {
                    let u = sign * 10f64.powf(-3.0 + k as f64 * 0.1) * h;
                    let (got, want) = (
                        log_mgf(pmf, *offset, u, &block_powers(u)),
                        log_mgf_term_by_term(pmf, *offset, u),
                    );
                    if want == f64::NEG_INFINITY {
                        assert_eq!(got, want);
                        continue;
                    }
                    let tol = 1e-13 * want.abs().max(1.0);
                    assert!(
                        (got - want).abs() <= tol,
                        "{} points at {offset}, u = {u:e}: {got} against {want}",
                        pmf.len()
                    );
                }
            }
        }
    }
}
