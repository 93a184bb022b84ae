//! Privacy accountants for DP-SGD's mechanism: the Poisson-subsampled Gaussian (sampling rate
//! q, noise multiplier σ) composed over T steps, reported as ε at a target δ.
//!
//! Pure maths with no dependency on training. Neighbouring datasets differ by adding or
//! removing one example (the paper's setting, and Opacus's and dp_accounting's).
//!
//! | accountant | what it computes |
//! |---|---|
//! | [`naive`] | basic composition of (ε0, δ0)-DP steps, exact (rigorous) or paper conventions |
//! | [`strong`] | advanced composition (Dwork–Rothblum–Vadhan), same conventions |
//! | [`moments`] | the paper's moments accountant (Section 3.2, Eq. (3)-(4), Theorem 2) |
//! | [`rdp`] | Rényi DP over fractional and integer orders (Mironov et al.), improved conversion |
//! | [`pld`] | privacy loss distribution composed by FFT: the tightest, and the slowest |
//!
//! Every accountant is used the same way, as dp_accounting's `PrivacyAccountant`: start one
//! ([`Accountant::start`]), [`PrivacyAccountant::compose`] the releases of a run (see
//! `privacy::accountant::mechanism`) in any order and amount, and read ε(δ) — or δ(ε) where the
//! accountant has it — at any point. [`compose`] builds ε and ε-curves on that.

pub mod calibrate;
pub mod compose;
mod log_mgf;
pub mod mechanism;
pub mod moments;
pub mod naive;
pub mod pld;
pub mod pld_accountant;
mod pld_steps;
pub mod rdp;
pub mod strong;
mod table;

pub use table::{AccountantName, Epsilon, PerAccountant};

pub(crate) mod special;

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

/// An input the accountants reject, or a question they cannot answer (#54 §3): its kind, the
/// argument at fault and the part of a composition it is in, and the sentence that says so with
/// the value and its valid range (what `Display` prints).
#[derive(Clone, Debug, PartialEq)]
pub struct AccountError {
    pub kind: AccountErrorKind,
    /// The argument at fault (`q`, `sigma`, `steps`, `delta`, `target_epsilon`, `sigma_range`,
    /// `accountant`, `amplification`); None when no one argument is.
    pub argument: Option<&'static str>,
    /// The index of the part of a composition whose argument it is, if it is one.
    pub part: Option<usize>,
    pub message: String,
}

/// What an [`AccountError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccountErrorKind {
    /// An argument outside its valid range.
    OutOfRange,
    /// A name that is not one of its kind's.
    UnknownName,
    /// No σ in the range searched reaches the target ε.
    Unreachable,
    /// A question about steps or runs not seen (a ledger with no run, a run of fewer steps).
    NotSeen,
}

impl AccountError {
    /// `argument` outside its range, said by `message`.
    pub fn out_of_range(argument: &'static str, message: String) -> Self {
        Self::of(AccountErrorKind::OutOfRange, Some(argument), message)
    }

    /// `argument` names nothing of its kind, said by `message`.
    pub fn unknown_name(argument: &'static str, message: String) -> Self {
        Self::of(AccountErrorKind::UnknownName, Some(argument), message)
    }

    fn of(kind: AccountErrorKind, argument: Option<&'static str>, message: String) -> Self {
        AccountError {
            kind,
            argument,
            part: None,
            message,
        }
    }

    /// No σ reaches the target (calibration), said by `message`.
    pub fn unreachable(message: String) -> Self {
        Self::of(AccountErrorKind::Unreachable, None, message)
    }

    /// A question about steps or runs not seen, said by `message`.
    pub fn not_seen(message: String) -> Self {
        Self::of(AccountErrorKind::NotSeen, None, message)
    }

    /// The same error, in part `index` of a composition.
    pub fn in_part(self, index: usize) -> Self {
        AccountError {
            part: Some(index),
            ..self
        }
    }
}

impl fmt::Display for AccountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AccountError {}

impl SampledGaussian {
    /// Checks q ∈ [0, 1], σ ≥ 0 (σ = 0 means no privacy: ε = ∞), steps ≤ [`MAX_STEPS`].
    pub fn new(q: f64, sigma: f64, steps: u64) -> Result<Self, AccountError> {
        if !(0.0..=1.0).contains(&q) {
            return Err(AccountError::out_of_range(
                "q",
                format!("q = {q} must be in [0, 1]"),
            ));
        }
        if !(sigma >= 0.0 && sigma.is_finite()) {
            return Err(AccountError::out_of_range(
                "sigma",
                format!("sigma = {sigma} must be a finite number ≥ 0"),
            ));
        }
        if steps > MAX_STEPS {
            return Err(AccountError::out_of_range(
                "steps",
                format!("steps = {steps} must be at most {MAX_STEPS}"),
            ));
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

/// Checks a part's q, σ and steps as [`SampledGaussian::new`] does.
pub(crate) fn mechanism_check(p: &SampledGaussian) -> Result<(), AccountError> {
    SampledGaussian::new(p.q, p.sigma, p.steps).map(|_| ())
}

/// Checks δ ∈ (0, 1).
pub fn check_delta(delta: f64) -> Result<(), AccountError> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(AccountError::out_of_range(
            "delta",
            format!("delta = {delta} must be strictly between 0 and 1"),
        ))
    }
}

/// How naive and strong composition bound one sampled step: the (unsampled) Gaussian step's
/// ε0 at δ0, and its amplification by sampling with rate q.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum Amplification {
    /// ε0 of Dwork & Roth's Theorem A.1 amplified as ε' = q·ε0: the paper's "(O(qε), qδ)"
    /// read literally, which reproduces its Fig. 2. Optimistic: not a valid bound.
    Paper,
    /// ε0 of Theorem A.1 with the valid amplification ε' = ln(1 + q(e^ε0 − 1)): the textbook
    /// composition (and the reference table's `*_rigorous` columns). A bound only while
    /// ε0 < 1, i.e. not for small σ.
    Classical,
    /// The exact ε0 of the analytic Gaussian mechanism (Balle & Wang 2018) with the valid
    /// amplification: an upper bound for every σ. The default wherever ε decides something.
    #[default]
    Rigorous,
}

impl Amplification {
    /// ε' of one sampled step amplified from the unsampled step's ε0.
    pub fn amplify(self, q: f64, eps0: f64) -> f64 {
        match self {
            Amplification::Paper => q * eps0,
            _ if eps0 > 700.0 => eps0 + q.ln(), // e^ε0 overflows
            _ => (q * eps0.exp_m1()).ln_1p(),
        }
    }

    /// ε' of one step of the Gaussian mechanism with noise multiplier σ, sampled with rate q,
    /// whose unsampled step spends δ0.
    pub fn step_epsilon(self, q: f64, sigma: f64, delta0: f64) -> f64 {
        let eps0 = match self {
            Amplification::Paper | Amplification::Classical => naive::gaussian_eps0(sigma, delta0),
            Amplification::Rigorous => naive::analytic_gaussian_eps0(sigma, delta0),
        };
        self.amplify(q, eps0)
    }

    pub fn name(self) -> &'static str {
        match self {
            Amplification::Paper => "paper",
            Amplification::Classical => "classical",
            Amplification::Rigorous => "rigorous",
        }
    }

    /// The convention named `name` (one of [`Amplification::name`]'s).
    pub fn parse(name: &str) -> Result<Amplification, AccountError> {
        use strum::IntoEnumIterator;
        Amplification::iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Amplification::iter().map(Amplification::name).collect();
                AccountError::unknown_name(
                    "amplification",
                    format!("amplification '{name}' is not one of {}", names.join(", ")),
                )
            })
    }

    /// Whether naive and strong composition under this convention are an upper bound on ε
    /// for every σ.
    pub fn is_valid_bound(self) -> bool {
        self == Amplification::Rigorous
    }
}

/// A running composition of releases: compose mechanisms one after another, read ε or δ.
pub trait PrivacyAccountant {
    /// Adds `part` (a sampled Gaussian, `part.steps` times) to the composition. A part
    /// without noise makes ε infinite; one that samples nothing changes nothing.
    fn compose(&mut self, part: &SampledGaussian);
    /// The smallest ε the composition so far is (ε, δ)-DP for, by this accountant.
    fn epsilon(&mut self, delta: f64) -> f64;
    /// The δ at `eps` by this accountant, where it has a δ(ε) (moments, RDP, PLD).
    fn delta(&mut self, eps: f64) -> Option<f64>;
}

/// Whether a running composition must account `part`: not when it spends nothing (no step, or
/// nothing sampled); and a part without noise marks the composition `open` (ε = ∞) instead.
pub(crate) fn needs_accounting(part: &SampledGaussian, open: &mut bool) -> bool {
    match part.trivial_epsilon() {
        None => true,
        Some(e) => {
            *open |= e.is_infinite();
            false
        }
    }
}

/// `parts` with those that spend nothing left out and identical mechanisms (same q and σ)
/// merged into one with their steps added, in order of first appearance.
pub fn merge_parts(parts: &[SampledGaussian]) -> Vec<SampledGaussian> {
    let mut merged: Vec<SampledGaussian> = Vec::new();
    for p in parts.iter().filter(|p| p.trivial_epsilon() != Some(0.0)) {
        add_part(&mut merged, p);
    }
    merged
}

/// Adds `p` to `parts` (merged as [`merge_parts`] merges): its steps to the part with the same
/// q and σ, or `p` at the end. Returns whether it went to the end. One pass over `parts`, so a
/// running composition of n distinct parts costs n², not n³ (a student's file after hundreds of
/// runs: `train::ledger`).
pub(crate) fn add_part(parts: &mut Vec<SampledGaussian>, p: &SampledGaussian) -> bool {
    match parts.iter_mut().find(|m| (m.q, m.sigma) == (p.q, p.sigma)) {
        Some(m) => {
            m.steps = m.steps.saturating_add(p.steps);
            false
        }
        None => {
            parts.push(*p);
            true
        }
    }
}

/// An accountant as the lab runs it: which one ([`AccountantName`], the one list of them) and,
/// for naive and strong composition, how a step is bounded ([`Amplification`]; the others have
/// no such choice and ignore it). Not a second list of the accountants: a new one is a variant
/// of [`AccountantName`] and a case of [`Accountant::start`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accountant {
    pub name: AccountantName,
    pub amplification: Amplification,
}

impl Accountant {
    /// The accountant named `name` (one of [`AccountantName::ALL`]'s names); naive and strong
    /// with the given amplification.
    pub fn parse(name: &str, amp: Amplification) -> Result<Accountant, AccountError> {
        AccountantName::parse(name)
            .map(|a| Accountant::of(a, amp))
            .ok_or_else(|| {
                AccountError::unknown_name(
                    "accountant",
                    format!(
                        "accountant '{name}' is not one of {}",
                        AccountantName::names()
                    ),
                )
            })
    }

    /// Accountant `a`; naive and strong with the given amplification.
    pub const fn of(a: AccountantName, amp: Amplification) -> Accountant {
        Accountant {
            name: a,
            amplification: amp,
        }
    }

    /// Accountant `a`; naive and strong with the rigorous bound (a valid one).
    pub const fn named(a: AccountantName) -> Accountant {
        Accountant::of(a, Amplification::Rigorous)
    }

    /// Which accountant this is.
    pub fn kind(self) -> AccountantName {
        self.name
    }

    pub fn name(self) -> &'static str {
        self.name.name()
    }

    /// The amplification convention, for naive and strong composition; None for the others.
    pub fn convention(self) -> Option<Amplification> {
        matches!(self.name, AccountantName::Naive | AccountantName::Strong)
            .then_some(self.amplification)
    }

    /// An empty composition under this accountant. `capacity` is the most of each mechanism
    /// that will be composed (the PLD accountant plans its grid for it; the others ignore it).
    pub fn start(self, capacity: &[SampledGaussian]) -> Box<dyn PrivacyAccountant> {
        let amp = self.amplification;
        match self.name {
            AccountantName::Naive => Box::new(compose::BasicComposition::naive(amp)),
            AccountantName::Strong => Box::new(compose::BasicComposition::strong(amp)),
            AccountantName::Moments => Box::new(moments::MomentsAccountant::default()),
            AccountantName::Rdp => Box::new(rdp::RdpAccountant::default()),
            AccountantName::Pld => Box::new(pld_accountant::PldAccountant::new(capacity)),
        }
    }

    /// ε of `mech` at `delta` under this accountant (∞ when σ = 0).
    pub fn epsilon(self, mech: &SampledGaussian, delta: f64) -> Result<f64, AccountError> {
        compose::epsilon(self, std::slice::from_ref(mech), delta)
    }
}

/// ε of every accountant for one composition, as reports, the CLI and the audit give it.
pub type EpsilonReport = PerAccountant<f64>;

impl PerAccountant<f64> {
    /// ε of every accountant for `parts` composed (naive and strong with `amp`).
    pub fn compute(
        parts: &[SampledGaussian],
        delta: f64,
        amp: Amplification,
    ) -> Result<Self, AccountError> {
        PerAccountant::try_from_fn(|a| compose::epsilon(Accountant::of(a, amp), parts, delta))
    }
}
