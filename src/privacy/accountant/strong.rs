//! Strong (advanced) composition, Dwork–Rothblum–Vadhan 2010: T steps that are each
//! (ε', δ')-DP compose to (sqrt(2T ln(1/δ''))·ε' + T·ε'(e^ε' − 1), T·δ' + δ'').
//! Here δ' = q·δ0 (one sampled Gaussian step, its ε' as in [`super::naive`]), and the split of
//! the total δ = T q δ0 + δ'' is chosen to minimise ε — the paper's Fig. 2 setting.
//!
//! The split is searched through the step's ε0: for a given ε0 the step's δ0(ε0) is in closed
//! form (the Gaussian mechanism's exact δ, or 1.25·e^(−ε0²σ²/2) for Dwork & Roth's bound), so
//! δ'' = δ − T q δ0(ε0) follows without solving for ε0 at every trial split. Every ε0 tried
//! is a valid split, so the minimum found is a valid bound whatever the search does.

use super::naive::{analytic_gaussian_eps0, gaussian_eps0, log_gaussian_delta};
use super::{Amplification, SampledGaussian};

/// ln δ0 at which one unsampled Gaussian step with noise multiplier σ is (ε0, δ0)-DP under
/// the convention's ε0.
fn log_step_delta(amp: Amplification, sigma: f64, eps0: f64) -> f64 {
    match amp {
        Amplification::Rigorous => log_gaussian_delta(sigma, eps0).0,
        // Theorem A.1 inverted: ε0 = sqrt(2 ln(1.25/δ0))/σ.
        Amplification::Paper | Amplification::Classical => {
            1.25f64.ln() - 0.5 * (eps0 * sigma).powi(2)
        }
    }
}

/// ε after `mech.steps` sampled steps by advanced composition, minimised over the δ split.
pub fn epsilon(mech: &SampledGaussian, delta: f64, amp: Amplification) -> f64 {
    if let Some(e) = mech.trivial_epsilon() {
        return e;
    }
    let (t, q, sigma) = (mech.steps as f64, mech.q, mech.sigma);
    // The least ε0 that leaves any δ'' at all: T q δ0(ε0) = δ.
    let all_steps = (delta / (t * q)).min(1.0);
    let floor = match amp {
        Amplification::Rigorous => analytic_gaussian_eps0(sigma, all_steps),
        _ => gaussian_eps0(sigma, all_steps),
    };
    // ε0 = floor + scale·e^u over u ∈ [−30, 10] spans δ'' from a hair above 0 to almost δ.
    let scale = floor.max(1e-3 / sigma);
    let eps_of = |u: f64| {
        let eps0 = floor + scale * u.exp();
        let rest = 1.0 - t * q * (log_step_delta(amp, sigma, eps0) - delta.ln()).exp();
        if rest <= 0.0 {
            return f64::INFINITY;
        }
        let delta2 = delta * rest;
        let e = amp.amplify(q, eps0);
        (2.0 * t * (1.0 / delta2).ln()).sqrt() * e + t * e * e.exp_m1()
    };
    // A coarse scan, then golden-section refinement of the best bracket.
    let (lo, hi, n) = (-30.0, 10.0, 40);
    let h = (hi - lo) / n as f64;
    let best = (0..=n)
        .map(|i| lo + i as f64 * h)
        .map(|u| (u, eps_of(u)))
        .fold((lo, f64::INFINITY), |b, c| if c.1 < b.1 { c } else { b });
    let (mut a, mut b) = (best.0 - h, best.0 + h);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (eps_of(c), eps_of(d));
    for _ in 0..30 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = eps_of(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = eps_of(d);
        }
    }
    fc.min(fd).min(best.1)
}
