//! The PLD accountant's ε-versus-epoch curve, for the page's preview: one epoch's spectrum
//! is computed once and every further epoch costs one pointwise product and one inverse FFT
//! (instead of a full composition per epoch).

use super::pld::{complex_pow, grid_interval, Direction, Pld};
use super::pld_steps::step_pld;
use super::SampledGaussian;
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

/// ε at δ after 1, 2, …, `epochs` epochs of `steps_per_epoch` steps each, with grid interval
/// `h` — the ε-versus-epoch curve. One epoch's spectrum is computed once, and each further
/// epoch is one pointwise product and one inverse FFT.
pub fn epsilon_curve(
    q: f64,
    sigma: f64,
    steps_per_epoch: u64,
    epochs: u32,
    delta: f64,
    h: f64,
) -> Vec<f64> {
    let last = SampledGaussian {
        q,
        sigma,
        steps: steps_per_epoch * epochs as u64,
    };
    if epochs == 0 {
        return Vec::new();
    }
    if let Some(e) = last.trivial_epsilon() {
        return vec![e; epochs as usize];
    }
    let mut curve = vec![0.0f64; epochs as usize];
    for dir in [Direction::Remove, Direction::Add] {
        let (one, mgf) = step_pld(q, sigma, grid_interval(&last, dir, h), dir);
        let (lo, hi) = one.window(&mgf, last.steps);
        let size = ((hi - lo + 1) as usize)
            .max(one.grid_points())
            .next_power_of_two();
        let mut planner = FftPlanner::new();
        let per_epoch: Vec<Complex<f64>> = one
            .spectrum(size, &mut planner)
            .into_iter()
            .map(|c| complex_pow(c, steps_per_epoch as f64))
            .collect();
        let inverse = planner.plan_fft_inverse(size);
        let mut acc = vec![Complex::new(1.0, 0.0); size];
        let mut buf = vec![Complex::new(0.0, 0.0); size];
        for (e, out) in curve.iter_mut().enumerate() {
            for (a, p) in acc.iter_mut().zip(&per_epoch) {
                *a *= p;
            }
            buf.copy_from_slice(&acc);
            inverse.process(&mut buf);
            let t = steps_per_epoch * (e as u64 + 1);
            let eps = one
                .composed_from_cyclic(&buf, t, one.window(&mgf, t))
                .epsilon_for_delta(delta);
            *out = out.max(eps);
        }
    }
    curve
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::accountant::pld::epsilon_with_interval;

    #[test]
    fn curve_matches_pointwise_epsilons() {
        let (q, sigma, spe, delta) = (0.02, 1.5, 50, 1e-5);
        let curve = epsilon_curve(q, sigma, spe, 6, delta, 1e-3);
        for (e, &c) in curve.iter().enumerate() {
            let m = SampledGaussian::new(q, sigma, spe * (e as u64 + 1)).unwrap();
            let direct = epsilon_with_interval(&m, delta, 1e-3);
            assert!(
                (c - direct).abs() < 1e-6 * direct,
                "epoch {}: curve {c} vs direct {direct}",
                e + 1
            );
        }
    }
}
