//! Why a run learned nothing, in words a student understands and with the setting to move:
//! read from the run's own epoch reports. A run "learned nothing" when its exact test accuracy
//! stayed within two binomial standard errors, √(p(1−p)/n), of the majority class's share p
//! of the n test examples for the last three epochs — what always guessing the most common
//! answer scores. A diverged run says so. The hint names the first of: clipping removes
//! almost all signal (≥ 90% of the gradients clipped), the noise dwarfs the signal in each lot
//! (≥ 5×), each step is too short to move the model (η·C ≤ 0.5: Algorithm 1's update
//! θ ← θ − η·g̃ moves the signal part at most η·C), too few steps.

use serde::{Deserialize, Serialize};

/// What the verdict reads of one epoch report (the fields of [`super::EpochReport`]).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct EpochOutcome {
    /// The exact test accuracy (absent at the private level, where a noisy count is released).
    #[serde(default)]
    pub test_acc: Option<f64>,
    #[serde(default)]
    pub clipped_fraction: Option<f64>,
    #[serde(default)]
    pub signal_norm: Option<f64>,
    #[serde(default)]
    pub noise_norm: Option<f64>,
    #[serde(default)]
    pub divergence: Option<String>,
    #[serde(default)]
    pub lr: f64,
    #[serde(default)]
    pub clip: f64,
    #[serde(default)]
    pub steps: u64,
}

/// Which way the run failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    NothingLearned,
    Diverged,
}

/// A run that learned nothing or diverged: which, and a sentence saying why and what to move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    pub say: String,
}

/// Epochs the accuracy must stay at the majority share before the run is said to have
/// learned nothing.
pub const FLAT_EPOCHS: usize = 3;

/// The verdict on a run from its reports so far, or `None` while it learns (or while it is too
/// early to tell, or the majority share `majority` of its `n_test` test examples is unknown).
pub fn verdict(
    history: &[EpochOutcome],
    majority: Option<f64>,
    n_test: Option<usize>,
) -> Option<Verdict> {
    let last = history.last()?;
    if let Some(why) = &last.divergence {
        return Some(Verdict {
            kind: VerdictKind::Diverged,
            say: format!(
                "The model diverged ({why}): lower the learning rate η (now {}).",
                short(last.lr)
            ),
        });
    }
    let (p, n) = (majority?, n_test?);
    if history.len() < FLAT_EPOCHS || n == 0 || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let band = band(p, n);
    let flat = history[history.len() - FLAT_EPOCHS..]
        .iter()
        .all(|r| r.test_acc.is_some_and(|a| (a - p).abs() <= band));
    if !flat {
        return None;
    }
    Some(Verdict {
        kind: VerdictKind::NothingLearned,
        say: format!(
            "Nothing learned: for {FLAT_EPOCHS} epochs the test accuracy stayed within ±{:.1} points of the {:.1}% majority share (always guessing the most common answer). {}",
            100.0 * band,
            100.0 * p,
            holding_back(last).say
        ),
    })
}

/// Whether the run's test accuracy shows that it learned (a lesson's "above the majority
/// line"): `Some(false)` when [`verdict`] says it learned nothing, `Some(true)` when its last
/// exact test accuracy is above the majority share by more than two standard errors on
/// `n_test`, and `None` otherwise — too early to tell, within that band, or no exact test
/// accuracy (the private release level).
pub fn learned(
    history: &[EpochOutcome],
    majority: Option<f64>,
    n_test: Option<usize>,
) -> Option<bool> {
    let nothing = verdict(history, majority, n_test);
    if nothing.is_some_and(|v| v.kind == VerdictKind::NothingLearned) {
        return Some(false);
    }
    let (p, n) = (majority?, n_test?);
    if n == 0 || !(0.0..=1.0).contains(&p) {
        return None;
    }
    let acc = history.last()?.test_acc?;
    (acc - p > band(p, n)).then_some(true)
}

/// Two standard errors of a test accuracy near the majority share `p` on `n` test examples.
fn band(p: f64, n: usize) -> f64 {
    2.0 * (p * (1.0 - p) / n as f64).sqrt()
}

/// The first setting that holds a run back, in the order of [`holding_back`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// ≥ 90% of the gradients clipped: clipping removes almost all signal.
    Clipping,
    /// Each lot's noise ≥ 5× its clipped signal.
    Noise,
    /// η·C ≤ 0.5: each step moves the model too little.
    ShortSteps,
    /// Under 100 steps so far.
    FewSteps,
    /// None of these: a larger η or C, or more epochs.
    Other,
}

/// What holds a run back and what to move ([`Verdict`]'s hint), from one epoch's numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HoldingBack {
    pub cause: Cause,
    pub say: String,
}

/// What to move, from the epoch report `r`: the first of clipping (≥ 90% of the gradients
/// clipped), the noise (≥ 5× the clipped signal of a lot), short steps (η·C ≤ 0.5: Algorithm 1's
/// update moves the signal part at most η·C) and few steps (< 100). A lesson that says why a
/// run learned nothing reads the same cause as the status line's verdict.
pub fn holding_back(r: &EpochOutcome) -> HoldingBack {
    let clipped = r.clipped_fraction.unwrap_or(0.0);
    let ratio = match (r.noise_norm, r.signal_norm) {
        (Some(noise), Some(signal)) if signal > 0.0 => noise / signal,
        _ => 0.0,
    };
    let (cause, say) = if clipped >= 0.9 {
        let say = format!(
            "Clipping removes almost all signal ({:.0}% of the gradients cut to C = {}): raise C.",
            100.0 * clipped,
            short(r.clip)
        );
        (Cause::Clipping, say)
    } else if ratio >= 5.0 {
        let say =
            format!("Each lot's noise is {ratio:.0}× its clipped signal: raise L or lower σ.");
        (Cause::Noise, say)
    } else if r.lr * r.clip <= 0.5 {
        let say = format!(
            "Each step moves the model at most η·C = {} ({} steps so far): raise C or η.",
            short(r.lr * r.clip),
            r.steps
        );
        (Cause::ShortSteps, say)
    } else if r.steps < 100 {
        let say = format!("Only {} steps so far: more epochs or a smaller L.", r.steps);
        (Cause::FewSteps, say)
    } else {
        (
            Cause::Other,
            "Try a larger η or C, or more epochs.".to_string(),
        )
    };
    HoldingBack { cause, say }
}

/// A setting as a student reads it: three significant digits.
fn short(v: f64) -> String {
    crate::text::three_digits(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn epoch(acc: f64) -> EpochOutcome {
        EpochOutcome {
            test_acc: Some(acc),
            clipped_fraction: Some(0.3),
            signal_norm: Some(1.0),
            noise_norm: Some(1.5),
            lr: 2.0,
            clip: 0.1,
            steps: 1270,
            ..Default::default()
        }
    }

    #[test]
    fn flat_on_the_majority_share_for_three_epochs_is_nothing_learned() {
        // p = 0.7638, n = 16281: two standard errors are 0.67 points.
        let runs = [epoch(0.80), epoch(0.7638), epoch(0.7600), epoch(0.7690)];
        let v = verdict(&runs, Some(0.7638), Some(16281)).expect("a verdict");
        assert_eq!(v.kind, VerdictKind::NothingLearned);
        assert!(
            v.say.contains("±0.7 points") && v.say.contains("76.4%"),
            "{}",
            v.say
        );
        assert!(
            v.say.contains("η·C = 0.2"),
            "the short step is the hint: {}",
            v.say
        );
    }

    #[test]
    fn learned_is_said_only_beyond_the_band_and_unknown_in_between() {
        let (p, n) = (Some(0.7638), Some(16281)); // the band: 0.67 points
        let flat = [epoch(0.80), epoch(0.7638), epoch(0.7600), epoch(0.7690)];
        assert_eq!(learned(&flat, p, n), Some(false));
        // Two epochs, on the line: too early for the verdict, and not above it either.
        assert_eq!(learned(&[epoch(0.7638), epoch(0.7640)], p, n), None);
        assert_eq!(learned(&[epoch(0.7638), epoch(0.775)], p, n), Some(true));
        assert_eq!(learned(&[epoch(0.7638), epoch(0.769)], p, n), None);
        // The private level: no exact test accuracy, nothing to say.
        let private = EpochOutcome {
            test_acc: None,
            ..epoch(0.9)
        };
        assert_eq!(learned(&[private], p, n), None);
        assert_eq!(learned(&[epoch(0.9)], None, n), None);
    }

    #[test]
    fn a_small_step_is_written_with_its_digits() {
        assert_eq!(short(1e-4), "0.0001");
        assert_eq!(short(0.2), "0.2");
        assert_eq!(short(0.123456), "0.123");
        assert_eq!(short(12.345), "12.3");
        assert_eq!(short(3e-9), "3e-9");
        assert_eq!(short(0.0), "0");
    }

    #[test]
    fn one_epoch_outside_the_band_or_too_few_epochs_is_no_verdict() {
        let p = Some(0.7638);
        assert_eq!(
            verdict(
                &[epoch(0.7638), epoch(0.7710), epoch(0.7638)],
                p,
                Some(16281)
            ),
            None
        );
        assert_eq!(
            verdict(&[epoch(0.7638), epoch(0.7638)], p, Some(16281)),
            None
        );
        // The same accuracies on 114 test examples are within two standard errors (8 points).
        assert!(verdict(&[epoch(0.7638), epoch(0.7710), epoch(0.80)], p, Some(114)).is_some());
        // Unknown majority (a student's private file) or no exact accuracy: no verdict.
        assert_eq!(
            verdict(
                &[epoch(0.7638), epoch(0.7638), epoch(0.7638)],
                None,
                Some(16281)
            ),
            None
        );
        let private = EpochOutcome {
            test_acc: None,
            ..epoch(0.0)
        };
        assert_eq!(
            verdict(&[private.clone(), private.clone(), private], p, Some(16281)),
            None
        );
    }

    #[test]
    fn the_hint_names_the_first_cause() {
        let p = (Some(0.5), Some(1000));
        let with = |f: &dyn Fn(&mut EpochOutcome)| {
            let mut r = epoch(0.5);
            f(&mut r);
            verdict(&[r.clone(), r.clone(), r], p.0, p.1).unwrap().say
        };
        assert!(with(&|r| r.clipped_fraction = Some(0.95)).contains("raise C."));
        assert!(with(&|r| r.noise_norm = Some(40.0)).contains("40× its clipped signal"));
        assert!(with(&|r| r.clip = 1.0).contains("Try a larger η or C"));
        assert!(with(&|r| {
            r.clip = 1.0;
            r.steps = 30;
        })
        .contains("Only 30 steps"));
    }

    #[test]
    fn the_cause_is_the_hint_the_verdict_says() {
        let cause = |f: &dyn Fn(&mut EpochOutcome)| {
            let mut r = epoch(0.5);
            f(&mut r);
            let said = holding_back(&r);
            let flat = [r.clone(), r.clone(), r];
            let verdict = verdict(&flat, Some(0.5), Some(1000)).unwrap().say;
            assert!(verdict.ends_with(&said.say), "{verdict} / {}", said.say);
            said.cause
        };
        // epoch(): 30% clipped, noise 1.5× the signal, η·C = 0.2, 1270 steps.
        assert_eq!(cause(&|_| {}), Cause::ShortSteps);
        // Noise above the signal but under 5×: not the noise's doing by this rule.
        assert_eq!(cause(&|r| r.noise_norm = Some(4.9)), Cause::ShortSteps);
        assert_eq!(cause(&|r| r.noise_norm = Some(5.0)), Cause::Noise);
        assert_eq!(
            cause(&|r| {
                r.noise_norm = Some(40.0);
                r.clipped_fraction = Some(0.9);
            }),
            Cause::Clipping
        );
        assert_eq!(cause(&|r| r.clip = 1.0), Cause::Other);
        assert_eq!(
            cause(&|r| {
                r.clip = 1.0;
                r.steps = 99;
            }),
            Cause::FewSteps
        );
        // No noise views (the private level): never the noise.
        assert_eq!(
            cause(&|r| {
                r.signal_norm = None;
                r.noise_norm = Some(40.0);
                r.clip = 1.0;
            }),
            Cause::Other
        );
    }

    #[test]
    fn a_diverged_run_says_so_with_the_setting_to_move() {
        let mut r = epoch(0.5);
        r.divergence = Some("the loss became NaN in step 12".into());
        r.lr = 5.0;
        let v = verdict(&[r], None, None).unwrap();
        assert_eq!(v.kind, VerdictKind::Diverged);
        assert!(
            v.say.contains("lower the learning rate η (now 5)"),
            "{}",
            v.say
        );
    }
}
