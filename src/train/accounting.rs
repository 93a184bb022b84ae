//! The run's privacy accounting, beside the trainer (as Opacus attaches its accountant to the
//! optimizer): one running composition per accountant, fed the releases the run's
//! [`Mechanism`] makes — before training, per step, per epoch — and read at each epoch's report
//! (Algorithm 1's "compute the overall privacy cost", done once an epoch).

use crate::privacy::accountant::mechanism::Mechanism;
use crate::privacy::accountant::{
    Accountant, Amplification, EpsilonReport, PerAccountant, PrivacyAccountant,
};

pub(super) struct RunAccounting {
    ledgers: PerAccountant<Box<dyn PrivacyAccountant>>,
    delta: f64,
    /// The steps composed so far.
    accounted_steps: u64,
}

impl RunAccounting {
    /// The compositions of `mechanism`'s run (naive and strong under `amp`, ε read at `delta`),
    /// with what the run releases before training already in them.
    pub(super) fn new(mechanism: &Mechanism, amp: Amplification, delta: f64) -> Self {
        let whole_run = mechanism.after_epochs(mechanism.epochs);
        let before = mechanism.before_training();
        let ledgers = PerAccountant::from_fn(|a| {
            let mut ledger = Accountant::of(a, amp).start(&whole_run);
            for part in &before {
                ledger.compose(part);
            }
            ledger
        });
        RunAccounting {
            ledgers,
            delta,
            accounted_steps: 0,
        }
    }

    /// Composes the steps since the last report (`steps` taken in all) and one epoch's
    /// releases, and reads every accountant's ε.
    pub(super) fn epoch(&mut self, mechanism: &Mechanism, steps: u64) -> EpsilonReport {
        let mut parts = vec![mechanism.step.times(steps - self.accounted_steps)];
        parts.extend(mechanism.per_epoch.iter().map(|r| r.times(1)));
        self.accounted_steps = steps;
        let delta = self.delta;
        let ledgers = &mut self.ledgers;
        PerAccountant::from_fn(|a| {
            let ledger = ledgers.get_mut(a);
            for p in &parts {
                ledger.compose(p);
            }
            ledger.epsilon(delta)
        })
    }
}
