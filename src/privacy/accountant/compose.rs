//! Composition of a run's releases under any accountant: ε of a list of mechanisms run in
//! sequence (DP-PCA's step, the training steps, private evaluations — paper Section 4's cost
//! must show in every accountant), and the ε-versus-epoch curve ("compose one epoch, read
//! ε", the same way for every accountant).
//!
//! Moments and RDP add per order and PLDs convolve (exact composition); naive and strong
//! compose the parts' own guarantees by basic composition with δ split evenly between them
//! ([`BasicComposition`]).

use super::mechanism_check;
use super::{
    add_part, check_delta, naive, needs_accounting, strong, AccountError, Accountant,
    AccountantName, Amplification, PerAccountant, PrivacyAccountant, SampledGaussian,
};
use crate::privacy::accountant::mechanism::Mechanism;

/// ε at δ of all `parts` run in sequence, under `acc`.
pub fn epsilon(
    acc: Accountant,
    parts: &[SampledGaussian],
    delta: f64,
) -> Result<f64, AccountError> {
    epsilon_planned(acc, parts, parts, delta)
}

/// [`epsilon`] with the accountant planned for `capacity` (the PLD accountant's grid): the same
/// plan as a running composition of a whole run gives the same ε as its reports.
pub fn epsilon_planned(
    acc: Accountant,
    parts: &[SampledGaussian],
    capacity: &[SampledGaussian],
    delta: f64,
) -> Result<f64, AccountError> {
    check_delta(delta)?;
    for (i, p) in parts.iter().enumerate() {
        mechanism_check(p).map_err(|e| e.in_part(i))?;
    }
    let mut ledger = acc.start(capacity);
    for p in parts {
        ledger.compose(p);
    }
    Ok(ledger.epsilon(delta))
}

/// ε under `acc` after each of the epochs 1..=`mech.epochs` of a run.
pub fn curve(acc: Accountant, mech: &Mechanism, delta: f64) -> Result<Vec<f64>, AccountError> {
    let mut ledger = acc.start(&mech.after_epochs(mech.epochs));
    curve_of(ledger.as_mut(), mech, delta)
}

/// ε after each epoch of a run, read from `ledger` (an empty composition): what releases are
/// made before training, then one epoch's releases at a time.
pub fn curve_of(
    ledger: &mut dyn PrivacyAccountant,
    mech: &Mechanism,
    delta: f64,
) -> Result<Vec<f64>, AccountError> {
    check_delta(delta)?;
    for (i, p) in mech.after_epochs(mech.epochs).iter().enumerate() {
        mechanism_check(p).map_err(|e| e.in_part(i))?;
    }
    for p in mech.before_training() {
        ledger.compose(&p);
    }
    let epoch = mech.one_epoch();
    Ok((0..mech.epochs)
        .map(|_| {
            for p in &epoch {
                ledger.compose(p);
            }
            ledger.epsilon(delta)
        })
        .collect())
}

/// Every accountant's ε after each epoch of a run (naive and strong with `amp`); PLD only
/// when `with_pld` (`None` otherwise: it costs milliseconds to seconds).
pub fn report_curve(
    mech: &Mechanism,
    delta: f64,
    amp: Amplification,
    with_pld: bool,
) -> Result<Vec<PerAccountant<Option<f64>>>, AccountError> {
    let curves = PerAccountant::try_from_fn(|a| match a {
        AccountantName::Pld if !with_pld => Ok(None),
        _ => curve(Accountant::of(a, amp), mech, delta).map(Some),
    })?;
    let epochs = curves.moments.as_ref().map_or(0, Vec::len);
    Ok((0..epochs)
        .map(|i| curves.map(|_, c| c.as_ref().map(|c| c[i])))
        .collect())
}

/// Naive or strong composition of several parts: each part's own bound at an equal share of
/// δ, added up (basic composition across parts).
pub struct BasicComposition {
    strong: bool,
    amp: Amplification,
    parts: Vec<SampledGaussian>,
    open: bool,
}

impl BasicComposition {
    pub fn naive(amp: Amplification) -> Self {
        BasicComposition {
            strong: false,
            amp,
            parts: Vec::new(),
            open: false,
        }
    }

    pub fn strong(amp: Amplification) -> Self {
        BasicComposition {
            strong: true,
            ..Self::naive(amp)
        }
    }
}

impl PrivacyAccountant for BasicComposition {
    fn compose(&mut self, part: &SampledGaussian) {
        if needs_accounting(part, &mut self.open) {
            add_part(&mut self.parts, part);
        }
    }

    fn epsilon(&mut self, delta: f64) -> f64 {
        if self.open {
            return f64::INFINITY;
        }
        let share = delta / self.parts.len().max(1) as f64;
        self.parts
            .iter()
            .map(|p| {
                if self.strong {
                    strong::epsilon(p, share, self.amp)
                } else {
                    naive::epsilon(p, share, self.amp)
                }
            })
            .sum()
    }

    fn delta(&mut self, _eps: f64) -> Option<f64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::accountant::mechanism::{Release, ReleaseKind};
    use crate::privacy::accountant::AccountErrorKind;

    const ALL: [Accountant; 5] = [
        Accountant::of(AccountantName::Naive, Amplification::Rigorous),
        Accountant::of(AccountantName::Strong, Amplification::Paper),
        Accountant::named(AccountantName::Moments),
        Accountant::named(AccountantName::Rdp),
        Accountant::named(AccountantName::Pld),
    ];

    fn run(pca: bool, eval: bool) -> Mechanism {
        Mechanism {
            before: if pca {
                vec![Release {
                    what: ReleaseKind::DpPca,
                    q: 1.0,
                    sigma: 7.0,
                }]
            } else {
                vec![]
            },
            step: Release {
                what: ReleaseKind::Training,
                q: 0.01,
                sigma: 4.0,
            },
            per_epoch: if eval {
                vec![Release {
                    what: ReleaseKind::Evaluation,
                    q: 1.0,
                    sigma: 40.0,
                }]
            } else {
                vec![]
            },
            steps_per_epoch: 100,
            epochs: 5,
        }
    }

    #[test]
    fn the_curve_matches_pointwise_composition() {
        for (pca, eval) in [(false, false), (true, false), (true, true)] {
            let m = run(pca, eval);
            for acc in ALL {
                let c = curve(acc, &m, 1e-5).unwrap();
                for (e, got) in c.iter().enumerate() {
                    let want = epsilon(acc, &m.after_epochs(e as u64 + 1), 1e-5).unwrap();
                    assert!(
                        (got - want).abs() <= 1e-6 * want.max(1e-9),
                        "{acc:?} epoch {}: {got} vs {want}",
                        e + 1
                    );
                }
            }
        }
        let open = Mechanism {
            step: Release {
                sigma: 0.0,
                ..run(false, false).step
            },
            ..run(false, false)
        };
        assert!(
            curve(Accountant::named(AccountantName::Moments), &open, 1e-5)
                .unwrap()
                .iter()
                .all(|e| e.is_infinite())
        );
    }

    #[test]
    fn one_part_is_the_plain_accountant_and_an_empty_part_drops_out() {
        let m = SampledGaussian::new(0.02, 1.5, 300).unwrap();
        let idle = SampledGaussian::new(0.5, 3.0, 0).unwrap();
        for acc in ALL {
            let plain = acc.epsilon(&m, 1e-5).unwrap();
            assert_eq!(epsilon(acc, &[idle, m], 1e-5).unwrap(), plain, "{acc:?}");
            assert_eq!(epsilon(acc, &[], 1e-5).unwrap(), 0.0);
        }
    }

    #[test]
    fn splitting_identical_steps_in_two_parts_changes_nothing() {
        let whole = SampledGaussian::new(0.02, 1.5, 300).unwrap();
        let (a, b) = (
            SampledGaussian {
                steps: 100,
                ..whole
            },
            SampledGaussian {
                steps: 200,
                ..whole
            },
        );
        for acc in ALL {
            let one = acc.epsilon(&whole, 1e-5).unwrap();
            let two = epsilon(acc, &[a, b], 1e-5).unwrap();
            assert!((one - two).abs() <= 1e-6 * one, "{acc:?}: {one} vs {two}");
        }
    }

    #[test]
    fn an_extra_part_costs_privacy_and_noise_free_parts_cost_everything() {
        let train = SampledGaussian::new(0.01, 4.0, 1000).unwrap();
        let pca = SampledGaussian::new(1.0, 7.0, 1).unwrap();
        for acc in ALL {
            let alone = acc.epsilon(&train, 1e-5).unwrap();
            let with = epsilon(acc, &[pca, train], 1e-5).unwrap();
            assert!(with > alone, "{acc:?}: {with} ≤ {alone}");
            let before_training =
                epsilon(acc, &[pca, SampledGaussian { steps: 0, ..train }], 1e-5).unwrap();
            assert!(before_training > 0.0, "{acc:?}: PCA alone costs something");
            let open = SampledGaussian { sigma: 0.0, ..pca };
            assert_eq!(epsilon(acc, &[open, train], 1e-5).unwrap(), f64::INFINITY);
        }
    }

    /// An error names its argument and the part of the composition it is in (#54 §3), and
    /// says it in a sentence with the value and the valid range.
    #[test]
    fn an_error_names_the_argument_and_the_part() {
        let good = SampledGaussian {
            q: 0.01,
            sigma: 1.0,
            steps: 100,
        };
        let bad = SampledGaussian { q: 1.5, ..good };
        let err = epsilon(ALL[2], &[good, bad], 1e-5).unwrap_err();
        assert_eq!(err.kind, AccountErrorKind::OutOfRange);
        assert_eq!((err.argument, err.part), (Some("q"), Some(1)));
        assert_eq!(err.to_string(), "q = 1.5 must be in [0, 1]");
        let err = epsilon(ALL[2], &[good], 1.0).unwrap_err();
        assert_eq!((err.argument, err.part), (Some("delta"), None));
        let err = Accountant::parse("moment", Amplification::Rigorous).unwrap_err();
        assert_eq!(
            (err.kind, err.argument),
            (AccountErrorKind::UnknownName, Some("accountant"))
        );
    }
}
