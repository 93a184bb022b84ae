//! Privacy accountants for DP-SGD's mechanism: the Poisson-subsampled Gaussian (sampling rate
//! q, noise multiplier σ) composed over T steps, reported as ε at a target δ.
//!
//! Pure maths with no dependency on training. Neighbouring datasets differ by adding or
//! removing one example (the paper's setting, and Opacus's and dp_accounting's).
//!
//! | accountant | what it computes |
//! |---|---|
//! | [`naive`] | basic composition of (ε0, δ0)-DP steps, paper or rigorous amplification |
//! | [`strong`] | advanced composition (Dwork–Rothblum–Vadhan), same two amplifications |
//! | [`moments`] | the paper's moments accountant (Section 3.2, Eq. (3)-(4), Theorem 2) |
//! | [`rdp`] | Rényi DP over fractional and integer orders (Mironov et al.), improved conversion |
//! | [`pld`] | privacy loss distribution composed by FFT: the tightest, and the slowest |

pub mod calibrate;
pub mod compose;
pub mod moments;
pub mod naive;
pub mod pld;
pub mod pld_curve;
pub mod rdp;
pub mod strong;

mod special;

use serde::{Deserialize, Serialize};
use std::fmt;

/// Largest number of steps the accountants accept.
pub const MAX_STEPS: u64 = 10_000_000;

/// The subsampled Gaussian mechanism composed `steps` times: each step samples every example
/// with probability `q` and adds N(0, σ²C²) noise to the sum of gradients clipped to C.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampledGaussian {
    pub q: f64,
    pub sigma: f64,
    pub steps: u64,
}

/// An input the accountants reject, with the argument and its valid range.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountError(pub String);

impl fmt::Display for AccountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AccountError {}

impl SampledGaussian {
    /// Checks q ∈ [0, 1], σ ≥ 0 (σ = 0 means no privacy: ε = ∞), steps ≤ [`MAX_STEPS`].
    pub fn new(q: f64, sigma: f64, steps: u64) -> Result<Self, AccountError> {
        if !(0.0..=1.0).contains(&q) {
            return Err(AccountError(format!("q = {q} must be in [0, 1]")));
        }
        if !(sigma >= 0.0 && sigma.is_finite()) {
            return Err(AccountError(format!(
                "sigma = {sigma} must be a finite number ≥ 0"
            )));
        }
        if steps > MAX_STEPS {
            return Err(AccountError(format!(
                "steps = {steps} must be at most {MAX_STEPS}"
            )));
        }
        Ok(SampledGaussian { q, sigma, steps })
    }

    /// Steps for `epochs` passes at rate q: round(epochs / q), the reference tables' convention.
    pub fn steps_for_epochs(q: f64, epochs: f64) -> u64 {
        if q <= 0.0 {
            0
        } else {
            (epochs / q).round() as u64
        }
    }

    /// The cases every accountant answers the same way: no step or no sampling spends nothing;
    /// no noise spends everything.
    pub(crate) fn trivial_epsilon(&self) -> Option<f64> {
        if self.steps == 0 || self.q == 0.0 {
            Some(0.0)
        } else if self.sigma == 0.0 {
            Some(f64::INFINITY)
        } else {
            None
        }
    }
}

/// Checks δ ∈ (0, 1).
pub fn check_delta(delta: f64) -> Result<(), AccountError> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(AccountError(format!(
            "delta = {delta} must be strictly between 0 and 1"
        )))
    }
}

/// How one sampled step's (ε0, δ0) is amplified by sampling with rate q.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Amplification {
    /// ε' = q·ε0: the paper's "(O(qε), qδ)" read literally. Optimistic: not a valid bound.
    Paper,
    /// ε' = ln(1 + q(e^ε0 − 1)): the valid amplification-by-subsampling bound.
    Rigorous,
}

impl Amplification {
    /// ε' of one sampled step.
    pub fn amplify(self, q: f64, eps0: f64) -> f64 {
        match self {
            Amplification::Paper => q * eps0,
            Amplification::Rigorous if eps0 > 700.0 => eps0 + q.ln(), // e^ε0 overflows
            Amplification::Rigorous => (q * eps0.exp_m1()).ln_1p(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Amplification::Paper => "paper",
            Amplification::Rigorous => "rigorous",
        }
    }
}

/// The accountants the lab offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accountant {
    Naive(Amplification),
    Strong(Amplification),
    Moments,
    Rdp,
    Pld,
}

impl Accountant {
    /// Parses "naive", "strong", "moments" or "rdp" with the given amplification.
    pub fn parse(name: &str, amp: Amplification) -> Result<Accountant, AccountError> {
        match name {
            "naive" => Ok(Accountant::Naive(amp)),
            "strong" => Ok(Accountant::Strong(amp)),
            "moments" => Ok(Accountant::Moments),
            "rdp" => Ok(Accountant::Rdp),
            "pld" => Ok(Accountant::Pld),
            other => Err(AccountError(format!(
                "accountant '{other}' is not one of naive, strong, moments, rdp, pld"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Accountant::Naive(_) => "naive",
            Accountant::Strong(_) => "strong",
            Accountant::Moments => "moments",
            Accountant::Rdp => "rdp",
            Accountant::Pld => "pld",
        }
    }

    /// ε of `mech` at `delta` under this accountant (∞ when σ = 0).
    pub fn epsilon(self, mech: &SampledGaussian, delta: f64) -> Result<f64, AccountError> {
        check_delta(delta)?;
        Ok(match self {
            Accountant::Naive(a) => naive::epsilon(mech, delta, a),
            Accountant::Strong(a) => strong::epsilon(mech, delta, a),
            Accountant::Moments => moments::epsilon(mech, delta),
            Accountant::Rdp => rdp::epsilon(mech, delta),
            Accountant::Pld => pld::epsilon(mech, delta),
        })
    }
}

/// ε of every accountant for one mechanism, in the shape the CLI and the page report.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EpsilonReport {
    pub naive: f64,
    pub strong: f64,
    pub moments: f64,
    pub rdp: f64,
}

impl EpsilonReport {
    /// ε of every accountant after each of `steps` (one report per entry). The per-step RDP
    /// and log moments do not depend on T, so they are computed once for the whole curve.
    pub fn curve(
        q: f64,
        sigma: f64,
        steps: &[u64],
        delta: f64,
        amp: Amplification,
    ) -> Result<Vec<Self>, AccountError> {
        compose::curve(&[], q, sigma, steps, delta, amp)
    }

    /// ε of every accountant for `parts` run in sequence (see [`compose`]).
    pub fn compute_parts(
        parts: &[SampledGaussian],
        delta: f64,
        amp: Amplification,
    ) -> Result<Self, AccountError> {
        Ok(EpsilonReport {
            naive: compose::epsilon(Accountant::Naive(amp), parts, delta)?,
            strong: compose::epsilon(Accountant::Strong(amp), parts, delta)?,
            moments: compose::epsilon(Accountant::Moments, parts, delta)?,
            rdp: compose::epsilon(Accountant::Rdp, parts, delta)?,
        })
    }

    pub fn compute(
        mech: &SampledGaussian,
        delta: f64,
        amp: Amplification,
    ) -> Result<Self, AccountError> {
        check_delta(delta)?;
        Ok(EpsilonReport {
            naive: naive::epsilon(mech, delta, amp),
            strong: strong::epsilon(mech, delta, amp),
            moments: moments::epsilon(mech, delta),
            rdp: rdp::epsilon(mech, delta),
        })
    }
}
