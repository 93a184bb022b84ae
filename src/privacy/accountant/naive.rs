//! Basic (naive) composition. One Gaussian-mechanism step with noise multiplier σ is
//! (ε0, δ0)-DP with ε0 = sqrt(2 ln(1.25/δ0)) / σ (Dwork & Roth, Theorem A.1); sampling with
//! rate q amplifies it to (ε', q·δ0); T steps compose to (T·ε', T·q·δ0). All of δ is spent on
//! the steps: δ0 = δ / (T q).

use super::{Amplification, SampledGaussian};

/// ε0 of one (unsampled) Gaussian step with noise multiplier σ at δ0.
pub fn gaussian_eps0(sigma: f64, delta0: f64) -> f64 {
    (2.0 * (1.25 / delta0).ln()).max(0.0).sqrt() / sigma
}

/// ε after `mech.steps` sampled steps by basic composition, at total δ.
pub fn epsilon(mech: &SampledGaussian, delta: f64, amp: Amplification) -> f64 {
    if let Some(e) = mech.trivial_epsilon() {
        return e;
    }
    let t = mech.steps as f64;
    let delta0 = delta / (t * mech.q);
    t * amp.amplify(mech.q, gaussian_eps0(mech.sigma, delta0))
}
