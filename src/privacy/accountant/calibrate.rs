//! Calibration, as dp_accounting's `mechanism_calibration`: the smallest noise multiplier σ
//! whose run — given as a function from σ to the releases it makes — stays within a target
//! ε; the σ needed for a range of run lengths; and the largest number of steps within a
//! budget. One bracketing root-finder for every accountant (ε is non-increasing in σ and
//! non-decreasing in steps).
//!
//! The root-finder keeps a bracket [lo, hi] (ε(lo) over the target, ε(hi) within) and shrinks
//! it by regula falsi on ln ε against ln σ with the Illinois modification, falling back to
//! bisection where ε is 0 or ∞ or the bracket stops halving: ε is close to a power of σ, so a
//! few evaluations reach 1e-6 where bisection took twenty — which matters for the PLD
//! accountant, whose every evaluation at small σ costs up to seconds.

use super::{check_delta, compose, AccountError, Accountant, SampledGaussian};

/// The largest σ calibration tries; a target that needs more is out of reach.
pub const SIGMA_MAX: f64 = 1e6;
/// Below this σ calibration stops looking: almost no noise already meets the target.
pub const SIGMA_MIN: f64 = 1e-3;
/// Largest factor between two trial σ of the bracketing phase.
const BRACKET_STEP: f64 = 4.0;
/// Most refining evaluations of one calibration (bisection alone needs about 60 at 1e-12).
const MAX_REFINEMENTS: usize = 200;

/// A run as a function of its noise multiplier σ: the releases it makes.
pub type Event<'a> = &'a dyn Fn(f64) -> Vec<SampledGaussian>;

fn check_target(target_eps: f64) -> Result<(), AccountError> {
    if target_eps > 0.0 && target_eps.is_finite() {
        Ok(())
    } else {
        Err(AccountError::out_of_range(
            "target_epsilon",
            format!(
                "target epsilon = {} must be a positive number",
                short(target_eps)
            ),
        ))
    }
}

/// A number for a message: as written when short, with an exponent otherwise (1e-300, not
/// three hundred digits).
fn short(v: f64) -> String {
    let plain = format!("{v}");
    if plain.len() <= 12 {
        plain
    } else {
        format!("{v:e}")
    }
}

/// One evaluation: σ, ln ε − ln target (±∞ where ε is ∞ or 0), and whether ε is within.
#[derive(Clone, Copy)]
struct Point {
    sigma: f64,
    f: f64,
    within: bool,
}

/// The factor from `p` towards the root for the next trial σ of the bracketing phase: where
/// ln ε is predicted to meet the target (a straight line in ln σ through `p` and the point
/// `before` it, or of slope −2 from `p` alone), 20% past it so that one trial brackets the
/// root, between 1.05 and [`BRACKET_STEP`]. A small step matters going down, where each
/// trial costs more than the last.
fn bracket_step(p: &Point, before: Option<&Point>) -> f64 {
    let slope = match before {
        Some(b) if b.f.is_finite() && p.f.is_finite() && b.f != p.f => {
            (p.f - b.f) / (p.sigma.ln() - b.sigma.ln())
        }
        _ => -2.0,
    };
    let distance = (p.f / slope).abs() * 1.2;
    if distance.is_finite() {
        distance.exp().clamp(1.05, BRACKET_STEP)
    } else {
        BRACKET_STEP
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
    calibrate_in(
        acc,
        target_eps,
        delta,
        event,
        rel_tol,
        (SIGMA_MIN, SIGMA_MAX),
    )
}

/// [`calibrate`] searching σ only in `range` = (σ_min, σ_max): σ_min itself when it is
/// already within the target, an error naming σ_max when even it is not.
pub fn calibrate_in(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    event: Event,
    rel_tol: f64,
    range: (f64, f64),
) -> Result<f64, AccountError> {
    check_delta(delta)?;
    check_target(target_eps)?;
    let (s_min, s_max) = range;
    if !(s_min > 0.0 && s_min <= s_max && s_max.is_finite()) {
        return Err(AccountError::out_of_range(
            "sigma_range",
            format!(
                "the range of σ searched, [{}, {}], must be positive and ordered",
                short(s_min),
                short(s_max)
            ),
        ));
    }
    let at = |sigma: f64| -> Result<Point, AccountError> {
        let eps = compose::epsilon(acc, &event(sigma), delta)?;
        let f = if eps.is_nan() {
            f64::INFINITY
        } else {
            eps.ln() - target_eps.ln()
        };
        Ok(Point {
            sigma,
            f,
            within: eps <= target_eps,
        })
    };
    // Bracket from σ = 1 outwards, so tiny σ (costly for PLD) are only tried when needed.
    let first = at(1f64.clamp(s_min, s_max))?;
    let (mut lo, mut hi) = if first.within {
        let (mut hi, mut before) = (first, None);
        loop {
            if hi.sigma <= s_min {
                return Ok(hi.sigma);
            }
            let p = at((hi.sigma / bracket_step(&hi, before.as_ref())).max(s_min))?;
            if !p.within {
                break (p, hi);
            }
            (hi, before) = (p, Some(hi));
        }
    } else {
        let (mut lo, mut before) = (first, None);
        loop {
            if lo.sigma >= s_max {
                return Err(AccountError::unreachable(format!(
                    "no σ up to {} reaches ε = {} with the {} accountant",
                    short(s_max),
                    short(target_eps),
                    acc.name()
                )));
            }
            let p = at((lo.sigma * bracket_step(&lo, before.as_ref())).min(s_max))?;
            if p.within {
                break (lo, p);
            }
            (lo, before) = (p, Some(lo));
        }
    };
    // The next σ is where the secant through the two latest points meets the target (ln ε is
    // nearly linear in ln σ), pushed half the tolerance past it so the bracket can close from
    // both sides. Where that leaves the bracket, regula falsi on its ends with the Illinois
    // modification (the f of an end kept twice in a row is halved, so both ends close in).
    // Four steps in a row that do not halve the bracket are followed by a bisection (ε may be
    // flat, or jump where a PLD grid ends).
    let (mut f_lo, mut f_hi) = (lo.f, hi.f);
    let (mut previous, mut latest) = (lo, hi);
    let mut kept_lo: Option<bool> = None;
    let tol_x = -(1.0 - rel_tol.clamp(1e-15, 0.5)).ln();
    let width = |lo: &Point, hi: &Point| hi.sigma.ln() - lo.sigma.ln();
    let (mut slow, mut reference) = (0, width(&lo, &hi));
    for _ in 0..MAX_REFINEMENTS {
        if hi.sigma - lo.sigma <= rel_tol * hi.sigma {
            break;
        }
        let (x_lo, x_hi) = (lo.sigma.ln(), hi.sigma.ln());
        let inside = |x: f64| x > x_lo && x < x_hi;
        let secant = {
            let (x0, x1) = (previous.sigma.ln(), latest.sigma.ln());
            let push = if latest.within { -0.5 } else { 0.5 } * tol_x;
            x1 - latest.f * (x1 - x0) / (latest.f - previous.f) + push
        };
        let x = if slow >= 4 {
            (slow, reference) = (0, x_hi - x_lo);
            0.5 * (x_lo + x_hi)
        } else if inside(secant) {
            secant
        } else if f_lo.is_finite() && f_hi.is_finite() && f_lo > f_hi {
            x_hi - f_hi * (x_hi - x_lo) / (f_hi - f_lo)
        } else {
            0.5 * (x_lo + x_hi)
        };
        // An estimate within the tolerance of an end moves just inside it: one evaluation
        // there closes the bracket if the estimate is right.
        let near = (0.99 * tol_x).min(0.5 * (x_hi - x_lo));
        let sigma = x.clamp(x_lo + near, x_hi - near).exp();
        if !(sigma > lo.sigma && sigma < hi.sigma) {
            break; // the bracket is as narrow as f64 allows
        }
        let p = at(sigma)?;
        (previous, latest) = (latest, p);
        if p.within {
            (hi, f_hi) = (p, p.f);
            if kept_lo == Some(true) {
                f_lo *= 0.5;
            }
            kept_lo = Some(true);
        } else {
            (lo, f_lo) = (p, p.f);
            if kept_lo == Some(false) {
                f_hi *= 0.5;
            }
            kept_lo = Some(false);
        }
        if width(&lo, &hi) <= 0.5 * reference {
            (slow, reference) = (0, width(&lo, &hi));
        } else {
            slow += 1;
        }
    }
    Ok(hi.sigma)
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
    sigma_for_epsilon_in(
        acc,
        target_eps,
        delta,
        q,
        steps,
        rel_tol,
        (SIGMA_MIN, SIGMA_MAX),
    )
}

/// [`sigma_for_epsilon`] searching σ only in `range` (see [`calibrate_in`]): the CLI asks for
/// the σ a run accepts, and an answer beyond it costs evaluations and says nothing.
pub fn sigma_for_epsilon_in(
    acc: Accountant,
    target_eps: f64,
    delta: f64,
    q: f64,
    steps: u64,
    rel_tol: f64,
    range: (f64, f64),
) -> Result<f64, AccountError> {
    SampledGaussian::new(q, 1.0, steps)?;
    calibrate_in(
        acc,
        target_eps,
        delta,
        &|sigma| vec![SampledGaussian { q, sigma, steps }],
        rel_tol,
        range,
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
#[path = "calibrate_tests.rs"]
mod tests;
