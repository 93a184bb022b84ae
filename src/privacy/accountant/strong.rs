//! Strong (advanced) composition, Dwork–Rothblum–Vadhan 2010: T steps that are each
//! (ε', δ')-DP compose to (sqrt(2T ln(1/δ''))·ε' + T·ε'(e^ε' − 1), T·δ' + δ'').
//! Here δ' = q·δ0 (one sampled Gaussian step, ε' amplified as in [`super::naive`]), and the
//! split of the total δ = T q δ0 + δ'' is chosen to minimise ε — the paper's Fig. 2 setting.

use super::naive::gaussian_eps0;
use super::{Amplification, SampledGaussian};

/// ε for the split where a fraction `f` of δ goes to δ'' and the rest to the steps.
fn epsilon_at_split(mech: &SampledGaussian, delta: f64, amp: Amplification, f: f64) -> f64 {
    let t = mech.steps as f64;
    let delta2 = f * delta;
    let delta0 = (1.0 - f) * delta / (t * mech.q);
    let e = amp.amplify(mech.q, gaussian_eps0(mech.sigma, delta0));
    (2.0 * t * (1.0 / delta2).ln()).sqrt() * e + t * e * e.exp_m1()
}

/// ε after `mech.steps` sampled steps by advanced composition, minimised over the δ split.
pub fn epsilon(mech: &SampledGaussian, delta: f64, amp: Amplification) -> f64 {
    if let Some(e) = mech.trivial_epsilon() {
        return e;
    }
    // Minimise over u = logit(f) on a grid, then refine the best bracket by golden section.
    let f_of = |u: f64| 1.0 / (1.0 + (-u).exp());
    let eps_of = |u: f64| epsilon_at_split(mech, delta, amp, f_of(u));
    let (lo, hi, n) = (-30.0, 30.0, 30);
    let h = (hi - lo) / n as f64;
    let best = (0..=n)
        .map(|i| lo + i as f64 * h)
        .map(|u| (u, eps_of(u)))
        .fold((lo, f64::INFINITY), |b, c| if c.1 < b.1 { c } else { b });
    let (mut a, mut b) = (best.0 - h, best.0 + h);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (eps_of(c), eps_of(d));
    for _ in 0..45 {
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
