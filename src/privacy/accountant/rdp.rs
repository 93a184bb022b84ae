//! Rényi-DP accounting of the sampled Gaussian, as Opacus and dp_accounting do it.
//!
//! RDP of order a for one step: ε_a = ln(A_a) / (a − 1), with A_a = E_{z∼μ0}[(μ(z)/μ0(z))^a]
//! (Mironov, Talwar, Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian
//! Mechanism"). Integer orders use the binomial sum (shared with the moments accountant:
//! A_a = E2 at λ = a − 1); fractional orders use MTZ's two series with signed terms. RDP adds
//! over steps, and the conversion to (ε, δ) is the improved one of Balle et al. 2020 /
//! Canonne–Kamath–Steinke 2020: ε = r + ln(1 − 1/a) − ln(δ·a)/(a − 1), minimised over orders.

use super::moments::log_moment;
use super::special::{log_add, log_erfc, log_sub};
use super::SampledGaussian;

/// The orders: 1.1, 1.2, …, 10.9, then 11, 12, …, 63, then 128, 256, 512, 1024.
pub fn default_orders() -> Vec<f64> {
    let mut orders: Vec<f64> = (11..110).map(|i| i as f64 / 10.0).collect();
    orders.extend((11..64).map(|i| i as f64));
    orders.extend([128.0, 256.0, 512.0, 1024.0]);
    orders
}

/// ln A_a for a fractional order a > 1 (MTZ Section 3.3; Opacus `_compute_log_a_frac`).
fn log_a_frac(q: f64, sigma: f64, a: f64) -> f64 {
    let (mut log_a0, mut log_a1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let z0 = sigma * sigma * (1.0 / q - 1.0).ln() + 0.5;
    let (lq, l1q) = (q.ln(), (-q).ln_1p());
    let s2 = 2.0 * sigma * sigma;
    let (mut log_binom, mut positive) = (0.0f64, true); // ln|C(a, i)| and its sign
    let mut i = 0.0f64;
    loop {
        if i > 0.0 {
            let factor = (a - i + 1.0) / i;
            log_binom += factor.abs().ln();
            positive ^= factor < 0.0;
        }
        let j = a - i;
        let log_t0 = log_binom + i * lq + j * l1q;
        let log_t1 = log_binom + j * lq + i * l1q;
        let log_e0 = 0.5f64.ln() + log_erfc((i - z0) / (std::f64::consts::SQRT_2 * sigma));
        let log_e1 = 0.5f64.ln() + log_erfc((z0 - j) / (std::f64::consts::SQRT_2 * sigma));
        let log_s0 = log_t0 + (i * i - i) / s2 + log_e0;
        let log_s1 = log_t1 + (j * j - j) / s2 + log_e1;
        if positive {
            log_a0 = log_add(log_a0, log_s0);
            log_a1 = log_add(log_a1, log_s1);
        } else {
            log_a0 = log_sub(log_a0, log_s0);
            log_a1 = log_sub(log_a1, log_s1);
        }
        i += 1.0;
        if log_s0.max(log_s1) < -30.0 || i > 10_000.0 {
            break;
        }
    }
    log_add(log_a0, log_a1)
}

/// RDP of one step of the sampled Gaussian at order `a` (> 1).
pub fn rdp_one_step(q: f64, sigma: f64, a: f64) -> f64 {
    if q == 0.0 {
        0.0
    } else if sigma == 0.0 {
        f64::INFINITY
    } else if q == 1.0 {
        a / (2.0 * sigma * sigma)
    } else if a.fract() == 0.0 {
        log_moment(q, sigma, a as u32 - 1) / (a - 1.0)
    } else {
        log_a_frac(q, sigma, a) / (a - 1.0)
    }
}

/// (ε, δ) conversion of RDP `r` at order `a` (dp_accounting's `compute_epsilon`): zero when
/// δ² + expm1(−r) > 0, else r + ln(1 − 1/a) − ln(δ·a)/(a − 1).
pub fn rdp_to_epsilon(a: f64, r: f64, delta: f64) -> f64 {
    if delta * delta + (-r).exp_m1() > 0.0 {
        0.0
    } else {
        r + (-1.0 / a).ln_1p() - (delta * a).ln() / (a - 1.0)
    }
}

/// ε at δ after `mech.steps` steps, minimised over [`default_orders`].
pub fn epsilon(mech: &SampledGaussian, delta: f64) -> f64 {
    epsilon_curve(std::slice::from_ref(mech), delta).expect("one mechanism")[0]
}

/// [`epsilon`] for mechanisms that share q and σ (the first one's): the one-step RDP of each
/// order is computed once. `None` when `mechs` is empty.
pub fn epsilon_curve(mechs: &[SampledGaussian], delta: f64) -> Option<Vec<f64>> {
    let first = mechs.first()?;
    let orders = default_orders();
    let per_step: Vec<f64> = if first.trivial_epsilon().is_some() {
        Vec::new()
    } else {
        orders
            .iter()
            .map(|&a| rdp_one_step(first.q, first.sigma, a))
            .collect()
    };
    Some(
        mechs
            .iter()
            .map(|m| {
                m.trivial_epsilon().unwrap_or_else(|| {
                    let t = m.steps as f64;
                    orders
                        .iter()
                        .zip(&per_step)
                        .map(|(&a, &r)| rdp_to_epsilon(a, t * r, delta))
                        .fold(f64::INFINITY, f64::min)
                        .max(0.0)
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractional_series_is_continuous_with_integer_orders() {
        // The fractional formula at a ± 1e-6 brackets the integer formula at a.
        for &(q, sigma) in &[(0.01, 1.0), (0.06, 0.7), (0.1, 4.0)] {
            for a in [2.0, 5.0, 12.0] {
                let int = rdp_one_step(q, sigma, a);
                let near = log_a_frac(q, sigma, a + 1e-7) / (a + 1e-7 - 1.0);
                assert!(
                    (int - near).abs() < 1e-5 * int,
                    "q {q} σ {sigma} a {a}: {int} vs {near}"
                );
            }
        }
    }

    #[test]
    fn orders_are_the_reference_list() {
        let o = default_orders();
        assert_eq!(o.len(), 99 + 53 + 4);
        assert_eq!(
            (o[0], o[98], o[99], o[151], o[155]),
            (1.1, 10.9, 11.0, 63.0, 1024.0)
        );
    }
}
