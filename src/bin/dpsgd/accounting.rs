//! `dpsgd epsilon` and `dpsgd sigma`: the accountants from the command line. Every flag is
//! checked here, by name, before an accountant sees it.

use super::args::{choice_help, fail, read, say, Given};

/// What `epsilon` and `sigma` account, printed with every answer: a run's other releases
/// (DP-PCA, private ranges, noisy counts) are not in it, and `train` reports a run's ε with them.
const ACCOUNTS: &str = "the training steps alone (T sampled Gaussian steps at rate q and noise \
     σ): a run's DP-PCA, private column ranges and noisy counts spend more, and `dpsgd train` \
     reports ε with them";
use dpsgd_lab::config::{fmt_num, MAX_SIGMA};
use dpsgd_lab::privacy::accountant::calibrate::sigma_for_epsilon_in;
use dpsgd_lab::privacy::accountant::{
    Accountant, AccountantName, Amplification, EpsilonReport, SampledGaussian, MAX_STEPS,
};

/// What each flag of the mechanism is, in its messages when it is not one.
const Q: &str = "a sampling rate in [0, 1]";
const EPOCHS: &str = "a number of epochs ≥ 0";
const STEPS: &str = "a whole number of steps";
const DELTA: &str = "a number in (0, 1)";
const SIGMA: &str = "a noise multiplier ≥ 0";
const TARGET: &str = "a positive number";

/// The sampled Gaussian mechanism both commands account: q, the steps (or epochs) and δ.
#[derive(clap::Args, Clone, Debug)]
pub struct MechanismArgs {
    /// Sampling rate q = L/N of each step (required) [range: 0 to 1]
    #[arg(long, value_name = "Q", value_parser = read::<f64>(Q))]
    q: Option<Given<f64>>,
    /// Epochs; the steps are epochs / q (this or --steps) [range: 0 or more]
    #[arg(long, value_name = "E", value_parser = read::<f64>(EPOCHS))]
    epochs: Option<Given<f64>>,
    #[arg(
        long,
        value_name = "T",
        value_parser = read::<u64>(STEPS),
        help = format!("Number of steps T (this or --epochs) [range: 0 to {MAX_STEPS}]")
    )]
    steps: Option<Given<u64>>,
    /// The δ of ε (required) [range: strictly between 0 and 1]
    #[arg(long, value_name = "δ", value_parser = read::<f64>(DELTA))]
    delta: Option<Given<f64>>,
    #[arg(
        long,
        value_name = "NAME",
        help = choice_help(
            "How naive and strong composition bound a step",
            Amplification::default()
        )
    )]
    amplification: Option<String>,
}

/// `dpsgd epsilon`'s options.
#[derive(clap::Args, Clone, Debug)]
pub struct EpsilonArgs {
    /// Noise multiplier σ (required) [range: 0 or more]
    #[arg(long, value_name = "S", value_parser = read::<f64>(SIGMA))]
    sigma: Option<Given<f64>>,
    #[command(flatten)]
    mechanism: MechanismArgs,
}

/// `dpsgd sigma`'s options.
#[derive(clap::Args, Clone, Debug)]
pub struct SigmaArgs {
    #[arg(
        long,
        value_name = "ε",
        value_parser = read::<f64>(TARGET),
        help = format!("The ε to stay within (required) [range: above 0]; the σ searched is \
                        {SIGMA_LEAST} to {MAX_SIGMA}")
    )]
    target_epsilon: Option<Given<f64>>,
    #[arg(
        long,
        value_name = "NAME",
        help = format!(
            "The accountant that measures ε [default: {}] [possible values: {}]",
            AccountantName::default().name(),
            AccountantName::names()
        )
    )]
    accountant: Option<String>,
    #[command(flatten)]
    mechanism: MechanismArgs,
}

/// The value of a required flag, or the one-line refusal saying what it should be.
fn need<T: Clone>(given: &Option<Given<T>>, flag: &str, what: &str) -> Given<T> {
    given
        .clone()
        .unwrap_or_else(|| fail(format!("--{flag} is required ({what})")))
}

/// q, steps and δ shared by `epsilon` and `sigma`, validated. Steps from epochs are
/// epochs / q, checked against the accountants' limit in floating point (as an integer it
/// overflowed: 1 epoch at q = 1e-300 was "steps = 18446744073709551615").
fn mechanism_args(a: &MechanismArgs) -> (f64, u64, f64) {
    let given_q = need(&a.q, "q", Q);
    let q = given_q.value;
    if !(0.0..=1.0).contains(&q) {
        fail(format!("--q = {} must be in [0, 1]", given_q.shown()));
    }
    let epochs = a.epochs.as_ref();
    let steps = match (epochs.map(|e| e.value), a.steps.as_ref().map(|t| t.value)) {
        (Some(_), Some(_)) => fail("give --epochs or --steps, not both"),
        (Some(e), None) if e >= 0.0 && e.is_finite() => {
            let t = if q > 0.0 { e / q } else { 0.0 };
            if t.round() > MAX_STEPS as f64 {
                fail(format!(
                    "--epochs = {} at --q = {} means more than {MAX_STEPS} steps (steps = \
                     epochs / q); the accountants take at most {MAX_STEPS}: lower --epochs or \
                     raise --q",
                    epochs.map(Given::shown).unwrap_or_default(),
                    given_q.shown(),
                ));
            }
            SampledGaussian::steps_for_epochs(q, e)
        }
        (Some(_), None) => fail(format!(
            "--epochs = {} must be a finite number ≥ 0",
            epochs.map(Given::shown).unwrap_or_default()
        )),
        (None, Some(t)) if t > MAX_STEPS => fail(format!(
            "--steps = {} must be at most {MAX_STEPS}",
            a.steps.as_ref().map(Given::shown).unwrap_or_default()
        )),
        (None, Some(t)) => t,
        (None, None) => fail("--epochs or --steps is required"),
    };
    let given_delta = need(&a.delta, "delta", DELTA);
    let delta = given_delta.value;
    if !(delta > 0.0 && delta < 1.0) {
        fail(format!(
            "--delta = {} must be strictly between 0 and 1",
            given_delta.shown()
        ));
    }
    (q, steps, delta)
}

/// What `dpsgd train` would count for `--epochs` at this q, where it is not round(epochs / q):
/// a run takes whole lots, round(N/L) = round(1/q) an epoch (`RunConfig::steps_per_epoch`), so
/// at q = 0.61 its 20 epochs are 40 steps, not 33, and a σ found for 33 spends more in it. A
/// sentence naming both counts and the flag that gives train's, or None.
fn train_steps_note(a: &MechanismArgs, q: f64, steps: u64, then: Then) -> Option<String> {
    let epochs = a.epochs.as_ref()?.value;
    if q <= 0.0 || epochs.fract() != 0.0 {
        return None;
    }
    let per_epoch = (1.0 / q).round().max(1.0);
    let train = epochs * per_epoch;
    (train != steps as f64 && train <= MAX_STEPS as f64).then(|| {
        format!(
            "steps = round(epochs / q) = {steps} here; `dpsgd train` takes whole lots, round(1/q) \
             = {per_epoch} an epoch: {train} steps for {epochs} epochs, so {} — give --steps \
             {train} for that run",
            match (then, train > steps as f64) {
                (Then::Epsilon, true) => "its ε is higher than this",
                (Then::Epsilon, false) => "its ε is lower than this",
                (Then::Sigma, true) => "this σ spends more than the target there",
                (Then::Sigma, false) => "this σ spends less than the target there",
            }
        )
    })
}

/// What the steps note speaks of: `epsilon`'s answer, or the σ `sigma` found.
#[derive(Clone, Copy)]
enum Then {
    Epsilon,
    Sigma,
}

/// `--amplification rigorous|classical|paper` (default rigorous: a valid bound).
fn amplification(a: &MechanismArgs) -> Amplification {
    match &a.amplification {
        None => Amplification::Rigorous,
        Some(o) => Amplification::parse(o).unwrap_or_else(|e| fail(format!("--{e}"))),
    }
}

pub fn epsilon(a: &EpsilonArgs) {
    let (q, steps, delta) = mechanism_args(&a.mechanism);
    let given_sigma = need(&a.sigma, "sigma", SIGMA);
    let sigma = given_sigma.value;
    if !(sigma >= 0.0 && sigma.is_finite()) {
        fail(format!(
            "--sigma = {} must be a finite number ≥ 0",
            given_sigma.shown()
        ));
    }
    let amp = amplification(&a.mechanism);
    let mech = SampledGaussian::new(q, sigma, steps).unwrap_or_else(|e| fail(e));
    let r = EpsilonReport::compute(&[mech], delta, amp).unwrap_or_else(|e| fail(e));
    let mut out = serde_json::to_value(r).expect("ε serialises"); // every accountant, ∞ as "inf"
                                                                  // The mechanism echoed beside its ε: an ε without its δ (and q, σ) is no guarantee to read.
    out["delta"] = delta.into();
    out["q"] = q.into();
    out["sigma"] = sigma.into();
    out["amplification"] = amp.name().into();
    out["steps"] = steps.into();
    out["accounts"] = ACCOUNTS.into();
    // (none at σ = 0: every ε is ∞ whatever the steps)
    let note = (sigma > 0.0).then(|| train_steps_note(&a.mechanism, q, steps, Then::Epsilon));
    if let Some(note) = note.flatten() {
        out["steps_note"] = note.into();
    }
    if !amp.is_valid_bound() {
        out["warning"] = serde_json::json!(format!(
            "naive and strong use the {} convention, which is not always a valid bound",
            amp.name()
        ));
    }
    say(&out);
}

/// The least σ `dpsgd sigma` searches. Below it nothing private is left to find — at δ = 1e-5
/// one step at σ = 0.1 spends ε ≈ 30 even at q = 1e-6 — and each PLD evaluation takes
/// seconds (a target of 1e300 searched down to σ = 0.03 for over a minute).
const SIGMA_LEAST: f64 = 0.1;

/// `dpsgd sigma`: the smallest σ in [[`SIGMA_LEAST`], [`MAX_SIGMA`]] — the σ a run accepts —
/// that keeps the run within the target ε. Bounding the search bounds its work (a tiny target
/// sent the PLD accountant to σ = 10^5 and beyond) and keeps the answer one a run can use.
pub fn sigma(a: &SigmaArgs) {
    let (q, steps, delta) = mechanism_args(&a.mechanism);
    let given_target = need(&a.target_epsilon, "target-epsilon", TARGET);
    let target = given_target.value;
    if !(target > 0.0 && target.is_finite()) {
        fail(format!(
            "--target-epsilon = {} must be a positive number",
            given_target.shown()
        ));
    }
    let amp = amplification(&a.mechanism);
    let name = a
        .accountant
        .as_deref()
        .unwrap_or(AccountantName::default().name());
    let acc = Accountant::parse(name, amp).unwrap_or_else(|e| fail(format!("--accountant: {e}")));
    let range = (SIGMA_LEAST, MAX_SIGMA);
    let s = sigma_for_epsilon_in(acc, target, delta, q, steps, 1e-6, range).unwrap_or_else(|e| {
        fail(format!(
            "--target-epsilon: {e} at q = {}, {steps} steps and δ = {} (a run accepts σ up to \
             {MAX_SIGMA}): raise the target, or lower --q or the steps",
            fmt_num(q),
            fmt_num(delta)
        ))
    });
    let mut out = serde_json::json!({
        "sigma": s, "accountant": name, "delta": delta, "q": q, "steps": steps,
        "amplification": amp.name(), "accounts": ACCOUNTS
    });
    if let Some(note) = train_steps_note(&a.mechanism, q, steps, Then::Sigma) {
        out["steps_note"] = note.into();
    }
    if s <= SIGMA_LEAST {
        out["note"] = serde_json::json!(format!(
            "σ = {SIGMA_LEAST}, the least searched, already keeps ε within {}; a smaller σ may too",
            fmt_num(target)
        ));
    }
    if acc.convention().is_some() && !amp.is_valid_bound() {
        out["warning"] = serde_json::json!(format!(
            "the {} convention is not always a valid bound: this σ may spend more than ε = {}",
            amp.name(),
            fmt_num(target)
        ));
    }
    say(&out);
}
