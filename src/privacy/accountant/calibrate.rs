//! Calibration: the smallest noise multiplier σ that keeps ε within a target, and the largest
//! number of epochs within a budget — one bracketing root-finder for every accountant
//! (ε is non-increasing in σ and non-decreasing in steps).

use super::{check_delta, compose, AccountError, Accountant, SampledGaussian};

/// The largest σ calibration tries; a target that needs more is out of reach.
pub const SIGMA_MAX: f64 = 1e6;

/// Smallest σ (to `rel_tol` relative) with ε(q, σ, steps, δ) ≤ `target_eps`.
pub fn sigma_for_epsilon(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    q: f64,
    steps: u64,
    rel_tol: f64,
) -> Result<f64, AccountError> {
    sigma_for_epsilon_after(acc, target_eps, delta, &[], q, steps, rel_tol)
}

/// Smallest σ (to `rel_tol` relative) whose T = `steps` steps, run after the mechanisms in
/// `prefix` (DP-PCA's step, paper Section 4), keep the composed ε within `target_eps`.
/// An error when no σ up to [`SIGMA_MAX`] is enough (e.g. the prefix alone spends more).
pub fn sigma_for_epsilon_after(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    prefix: &[SampledGaussian],
    q: f64,
    steps: u64,
    rel_tol: f64,
) -> Result<f64, AccountError> {
    check_delta(delta)?;
    if !(target_eps > 0.0 && target_eps.is_finite()) {
        return Err(AccountError(format!(
            "target epsilon = {target_eps} must be a positive number"
        )));
    }
    SampledGaussian::new(q, 1.0, steps)?;
    let eps = |sigma: f64| -> Result<f64, AccountError> {
        let training = SampledGaussian::new(q, sigma, steps)?;
        if prefix.is_empty() {
            acc.epsilon(&training, delta)
        } else {
            let mut parts = prefix.to_vec();
            parts.push(training);
            compose::epsilon(acc, &parts, delta)
        }
    };
    // Bracket from σ = 1 outwards, so tiny σ (costly for PLD) are only tried when needed.
    const SIGMA_MIN: f64 = 1e-3;
    let (mut lo, mut hi) = (0.5, 1.0);
    if eps(hi)? > target_eps {
        while eps(hi)? > target_eps {
            lo = hi;
            hi *= 2.0;
            if hi > SIGMA_MAX {
                return Err(AccountError(format!(
                    "no sigma up to {SIGMA_MAX:e} reaches epsilon {target_eps} with the {} accountant",
                    acc.name()
                )));
            }
        }
    } else {
        while eps(lo)? <= target_eps {
            hi = lo;
            lo /= 2.0;
            if lo < SIGMA_MIN {
                return Ok(hi); // almost no noise already meets the target
            }
        }
    }
    while hi - lo > rel_tol * hi {
        let mid = 0.5 * (lo + hi);
        if eps(mid)? <= target_eps {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// The σ needed for `target_eps` after each of several step counts T (after `prefix`, as in
/// [`sigma_for_epsilon_after`]), as in the seed note's comparison of σ_naive, σ_strong and
/// the moments bound (the paper's Theorem 1 shows the moments accountant needs σ growing like
/// q·sqrt(T log(1/δ))/ε, composition theorems like T or sqrt(T)). `None` where no σ up to
/// [`SIGMA_MAX`] reaches the target; bad inputs (δ, ε, q, T beyond the accountants' range)
/// are an error.
pub fn sigma_needed(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    prefix: &[SampledGaussian],
    q: f64,
    steps: &[u64],
    rel_tol: f64,
) -> Result<Vec<Option<f64>>, AccountError> {
    check_delta(delta)?;
    if !(target_eps > 0.0 && target_eps.is_finite()) {
        return Err(AccountError(format!(
            "target epsilon = {target_eps} must be a positive number"
        )));
    }
    steps
        .iter()
        .map(|&t| {
            SampledGaussian::new(q, 1.0, t)?;
            match sigma_for_epsilon_after(acc, target_eps, delta, prefix, q, t, rel_tol) {
                Ok(sigma) => Ok(Some(sigma)),
                // Out of reach: even σ = SIGMA_MAX spends more than the target.
                Err(_) if reach(acc, delta, prefix, q, t)? > target_eps => Ok(None),
                Err(e) => Err(e),
            }
        })
        .collect()
}

/// ε with σ = [`SIGMA_MAX`]: the least any calibration can reach.
fn reach(
    acc: Accountant,
    delta: f64,
    prefix: &[SampledGaussian],
    q: f64,
    steps: u64,
) -> Result<f64, AccountError> {
    let mut parts = prefix.to_vec();
    parts.push(SampledGaussian::new(q, SIGMA_MAX, steps)?);
    compose::epsilon(acc, &parts, delta)
}

/// Largest number of whole epochs (steps = round(epochs/q)) whose ε stays within the budget.
pub fn max_epochs_within(
    acc: Accountant,
    budget_eps: f64,
    delta: f64,
    q: f64,
    sigma: f64,
    max_epochs: u64,
) -> Result<u64, AccountError> {
    let eps = |e: u64| -> Result<f64, AccountError> {
        let steps = SampledGaussian::steps_for_epochs(q, e as f64);
        acc.epsilon(&SampledGaussian::new(q, sigma, steps)?, delta)
    };
    if eps(1)? > budget_eps {
        return Ok(0);
    }
    let (mut lo, mut hi) = (1u64, max_epochs.max(1));
    if eps(hi)? <= budget_eps {
        return Ok(hi);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if eps(mid)? <= budget_eps {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// Largest number of steps T ≤ `limit` with `eps_of(T)` ≤ `budget_eps`, for any ε that is
/// non-decreasing in T (binary search). The DPTrain loop's stopping point, found up front.
pub fn max_steps_within(
    eps_of: &dyn Fn(u64) -> Result<f64, AccountError>,
    budget_eps: f64,
    limit: u64,
) -> Result<u64, AccountError> {
    if eps_of(0)? > budget_eps {
        return Ok(0);
    }
    if eps_of(limit)? <= budget_eps {
        return Ok(limit);
    }
    let (mut lo, mut hi) = (0u64, limit); // ε(lo) within, ε(hi) over
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if eps_of(mid)? <= budget_eps {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// The paper's DPTrain budget: a running mechanism the trainer asks before every step.
#[derive(Clone, Debug)]
pub struct PrivacyBudget {
    pub accountant: Accountant,
    pub epsilon: f64,
    pub delta: f64,
}

impl PrivacyBudget {
    /// Whether taking step number `steps_taken + 1` keeps ε within the budget.
    pub fn allows_step(&self, q: f64, sigma: f64, steps_taken: u64) -> Result<bool, AccountError> {
        let next = SampledGaussian::new(q, sigma, steps_taken + 1)?;
        Ok(self.accountant.epsilon(&next, self.delta)? <= self.epsilon)
    }
}
