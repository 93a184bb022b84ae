//! `dpsgd epsilon` and `dpsgd sigma`: the accountants from the command line. Every flag is
//! checked here, by name, before an accountant sees it.

use super::args::{fail, Args};

/// What `epsilon` and `sigma` account, printed with every answer: a run's other releases
/// (DP-PCA, private ranges, noisy counts) are not in it, and `train` reports a run's ε with them.
const ACCOUNTS: &str = "the training steps alone (T sampled Gaussian steps at rate q and noise \
     σ): a run's DP-PCA, private column ranges and noisy counts spend more, and `dpsgd train` \
     reports ε with them";
use dpsgd_lab::config::{fmt_num, MAX_SIGMA};
use dpsgd_lab::privacy::accountant::calibrate::sigma_for_epsilon_in;
use dpsgd_lab::privacy::accountant::{
    Accountant, Amplification, EpsilonReport, SampledGaussian, MAX_STEPS,
};

/// q, steps and δ shared by `epsilon` and `sigma`, validated. Steps from epochs are
/// epochs / q, checked against the accountants' limit in floating point (as an integer it
/// overflowed: 1 epoch at q = 1e-300 was "steps = 18446744073709551615").
fn mechanism_args(a: &Args) -> (f64, u64, f64) {
    let q: f64 = a.need("q", "a sampling rate in [0, 1]");
    if !(0.0..=1.0).contains(&q) {
        fail(format!("--q = {} must be in [0, 1]", a.shown("q")));
    }
    let steps = match (
        a.get::<f64>("epochs", "a number of epochs ≥ 0"),
        a.get::<u64>("steps", "a whole number of steps"),
    ) {
        (Some(_), Some(_)) => fail("give --epochs or --steps, not both"),
        (Some(e), None) if e >= 0.0 && e.is_finite() => {
            let t = if q > 0.0 { e / q } else { 0.0 };
            if t.round() > MAX_STEPS as f64 {
                fail(format!(
                    "--epochs = {} at --q = {} means more than {MAX_STEPS} steps (steps = \
                     epochs / q); the accountants take at most {MAX_STEPS}: lower --epochs or \
                     raise --q",
                    a.shown("epochs"),
                    a.shown("q"),
                ));
            }
            SampledGaussian::steps_for_epochs(q, e)
        }
        (Some(_), None) => fail(format!(
            "--epochs = {} must be a finite number ≥ 0",
            a.shown("epochs")
        )),
        (None, Some(t)) if t > MAX_STEPS => fail(format!(
            "--steps = {} must be at most {MAX_STEPS}",
            a.shown("steps")
        )),
        (None, Some(t)) => t,
        (None, None) => fail("--epochs or --steps is required"),
    };
    let delta: f64 = a.need("delta", "a number in (0, 1)");
    if !(delta > 0.0 && delta < 1.0) {
        fail(format!(
            "--delta = {} must be strictly between 0 and 1",
            a.shown("delta")
        ));
    }
    (q, steps, delta)
}

/// `--amplification rigorous|classical|paper` (default rigorous: a valid bound).
fn amplification(a: &Args) -> Amplification {
    match a.0.get("amplification") {
        None => Amplification::Rigorous,
        Some(o) => Amplification::parse(o).unwrap_or_else(|e| fail(format!("--{e}"))),
    }
}

pub fn epsilon(raw: &[String]) {
    let a = Args::parse(
        raw,
        &["q", "sigma", "epochs", "steps", "delta", "amplification"],
    );
    let (q, steps, delta) = mechanism_args(&a);
    let sigma: f64 = a.need("sigma", "a noise multiplier ≥ 0");
    if !(sigma >= 0.0 && sigma.is_finite()) {
        fail(format!(
            "--sigma = {} must be a finite number ≥ 0",
            a.shown("sigma")
        ));
    }
    let amp = amplification(&a);
    let mech = SampledGaussian::new(q, sigma, steps).unwrap_or_else(|e| fail(e));
    let r = EpsilonReport::compute(&[mech], delta, amp).unwrap_or_else(|e| fail(e));
    let mut out = serde_json::to_value(r).expect("ε serialises"); // every accountant, ∞ as "inf"
    out["amplification"] = amp.name().into();
    out["steps"] = steps.into();
    out["accounts"] = ACCOUNTS.into();
    println!("{out}");
}

/// The least σ `dpsgd sigma` searches. Below it nothing private is left to find — at δ = 1e-5
/// one step at σ = 0.1 spends ε ≈ 30 even at q = 1e-6 — and each PLD evaluation takes
/// seconds (a target of 1e300 searched down to σ = 0.03 for over a minute).
const SIGMA_LEAST: f64 = 0.1;

/// `dpsgd sigma`: the smallest σ in [[`SIGMA_LEAST`], [`MAX_SIGMA`]] — the σ a run accepts —
/// that keeps the run within the target ε. Bounding the search bounds its work (a tiny target
/// sent the PLD accountant to σ = 10^5 and beyond) and keeps the answer one a run can use.
pub fn sigma(raw: &[String]) {
    let a = Args::parse(
        raw,
        &[
            "target-epsilon",
            "q",
            "epochs",
            "steps",
            "delta",
            "accountant",
            "amplification",
        ],
    );
    let (q, steps, delta) = mechanism_args(&a);
    let target: f64 = a.need("target-epsilon", "a positive number");
    if !(target > 0.0 && target.is_finite()) {
        fail(format!(
            "--target-epsilon = {} must be a positive number",
            a.shown("target-epsilon")
        ));
    }
    let amp = amplification(&a);
    let name = a.0.get("accountant").map_or("moments", String::as_str);
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
    let mut out = serde_json::json!({ "sigma": s, "accountant": name, "accounts": ACCOUNTS });
    if s <= SIGMA_LEAST {
        out["note"] = serde_json::json!(format!(
            "σ = {SIGMA_LEAST}, the least searched, already keeps ε within {}; a smaller σ may too",
            fmt_num(target)
        ));
    }
    if matches!(acc, Accountant::Naive(_) | Accountant::Strong(_)) && !amp.is_valid_bound() {
        out["warning"] = serde_json::json!(format!(
            "the {} convention is not always a valid bound: this σ may spend more than ε = {}",
            amp.name(),
            fmt_num(target)
        ));
    }
    println!("{out}");
}
