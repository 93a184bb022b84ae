//! Calibration, as dp_accounting's `mechanism_calibration`: the smallest noise multiplier σ
//! whose run — given as a function from σ to the releases it makes — stays within a target
//! ε; the σ needed for a range of run lengths; and the largest number of steps within a
//! budget. One bracketing root-finder for every accountant (ε is non-increasing in σ and
//! non-decreasing in steps).

use super::{check_delta, compose, AccountError, Accountant, SampledGaussian};

/// The largest σ calibration tries; a target that needs more is out of reach.
pub const SIGMA_MAX: f64 = 1e6;
/// Below this σ calibration stops looking: almost no noise already meets the target.
const SIGMA_MIN: f64 = 1e-3;

/// A run as a function of its noise multiplier σ: the releases it makes.
pub type Event<'a> = &'a dyn Fn(f64) -> Vec<SampledGaussian>;

fn check_target(target_eps: f64) -> Result<(), AccountError> {
    if target_eps > 0.0 && target_eps.is_finite() {
        Ok(())
    } else {
        Err(AccountError(format!(
            "target epsilon = {target_eps} must be a positive number"
        )))
    }
}

/// Smallest σ (to `rel_tol` relative, from above: ε at the returned σ is within the target)
/// for which the releases `event(σ)` keep ε within `target_eps` under `acc`. An error when no
/// σ up to [`SIGMA_MAX`] is enough (e.g. DP-PCA's step alone spends more).
pub fn calibrate(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    event: Event,
    rel_tol: f64,
) -> Result<f64, AccountError> {
    check_delta(delta)?;
    check_target(target_eps)?;
    let within = |sigma: f64| -> Result<bool, AccountError> {
        Ok(compose::epsilon(acc, &event(sigma), delta)? <= target_eps)
    };
    // Bracket from σ = 1 outwards, so tiny σ (costly for PLD) are only tried when needed.
    let (mut lo, mut hi) = (0.5, 1.0);
    if !within(hi)? {
        while !within(hi)? {
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
        while within(lo)? {
            hi = lo;
            lo /= 2.0;
            if lo < SIGMA_MIN {
                return Ok(hi);
            }
        }
    }
    while hi - lo > rel_tol * hi {
        let mid = 0.5 * (lo + hi);
        if within(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// Smallest σ with ε(q, σ, steps, δ) ≤ `target_eps`: one sampled Gaussian, `steps` times.
pub fn sigma_for_epsilon(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    q: f64,
    steps: u64,
    rel_tol: f64,
) -> Result<f64, AccountError> {
    SampledGaussian::new(q, 1.0, steps)?;
    calibrate(
        acc,
        target_eps,
        delta,
        &|sigma| vec![SampledGaussian { q, sigma, steps }],
        rel_tol,
    )
}

/// σ rounded up to `decimals` decimals: never below σ, so a calibrated σ shown or applied at
/// that precision never spends more than its target.
pub fn round_up(sigma: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    let up = (sigma * scale).ceil() / scale;
    if up < sigma {
        up + 1.0 / scale
    } else {
        up
    }
}

/// The σ needed for `target_eps` for each of several run lengths: `event(σ, n)` is the run
/// of length `lengths[i]` = n with noise multiplier σ (the paper's Theorem 1 shows the
/// moments accountant needs σ growing like q·sqrt(T log(1/δ))/ε, composition theorems like
/// T or sqrt(T)). `None` where no σ up to [`SIGMA_MAX`] reaches the target; bad inputs are
/// an error.
pub fn sigma_needed(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    event: &dyn Fn(f64, u64) -> Vec<SampledGaussian>,
    lengths: &[u64],
    rel_tol: f64,
) -> Result<Vec<Option<f64>>, AccountError> {
    check_delta(delta)?;
    check_target(target_eps)?;
    lengths
        .iter()
        .map(|&n| {
            let at = |sigma: f64| event(sigma, n);
            match calibrate(acc, target_eps, delta, &at, rel_tol) {
                Ok(sigma) => Ok(Some(sigma)),
                // Out of reach: even σ = SIGMA_MAX spends more than the target.
                Err(_) if compose::epsilon(acc, &at(SIGMA_MAX), delta)? > target_eps => Ok(None),
                Err(e) => Err(e),
            }
        })
        .collect()
}

/// Largest number of steps T ≤ `limit` with `eps_of(T)` ≤ `budget_eps`, for any ε that is
/// non-decreasing in T (binary search): the paper's DPTrain loop, which asks the accountant
/// before every step, answered up front.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_up_never_lowers_sigma() {
        for s in [0.1, 1.23456789, 2.2781, 2.27805, 3.99999999, 7.0] {
            let r = round_up(s, 4);
            assert!(r >= s && r - s < 1.0001e-4, "{s} -> {r}");
            assert_eq!(format!("{r:.4}").parse::<f64>().unwrap(), r, "{s} -> {r}");
        }
    }

    #[test]
    fn calibration_takes_any_run() {
        // A run of a DP-PCA step (σ_p = 7) and 1,000 training steps: its σ is larger than for
        // the training steps alone, and meets the target.
        let (q, t, target, delta) = (0.01, 1000u64, 1.0, 1e-5);
        let pca = SampledGaussian::new(1.0, 7.0, 1).unwrap();
        let with = |sigma: f64| vec![pca, SampledGaussian { q, sigma, steps: t }];
        let s = calibrate(Accountant::Rdp, target, delta, &with, 1e-6).unwrap();
        let alone = sigma_for_epsilon(Accountant::Rdp, target, delta, q, t, 1e-6).unwrap();
        assert!(s > alone, "{s} vs {alone}");
        assert!(compose::epsilon(Accountant::Rdp, &with(s), delta).unwrap() <= target);
        assert!(calibrate(Accountant::Rdp, 0.01, delta, &with, 1e-6).is_err());
    }
}
