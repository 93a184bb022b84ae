//! A lot L at least the data's N training rows: every step uses every row (q = 1), so Poisson
//! sampling amplifies nothing and ε grows fast. The page never changes L without saying so;
//! what it says — that run's ε, and the ε of a lot a tenth of N — is derived here, from the
//! run's mechanism, so the page only formats it.

use super::RunConfig;
use crate::data::DataFacts;
use crate::privacy::accountant::AccountantName;
use crate::privacy::accountant::{compose, AccountError, Accountant, Epsilon};
use serde::Serialize;

/// A run whose lot L is at least N: what it spends with L = N (q = 1), and a smaller lot
/// ([`RunConfig::lot_for`]) with what that spends — each over all the run's epochs, moments
/// accountant, at the run's δ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LotAtLeastN {
    /// The lot of the settings (possibly above N).
    pub lot: usize,
    pub n_train: usize,
    /// ε of the run with L = N: every row in every step.
    pub epsilon: Epsilon,
    pub suggested_lot: usize,
    pub suggested_q: f64,
    pub suggested_epsilon: Epsilon,
    pub delta: f64,
    pub epochs: usize,
}

impl RunConfig {
    /// A lot for data of `n_train` rows when the settings' lot is at least N: a tenth of N
    /// (q ≈ 0.1), at least 10 rows, and below N (q < 1) whenever N > 1.
    pub fn lot_for(n_train: usize) -> usize {
        (n_train / 10).max(10).min(n_train.saturating_sub(1)).max(1)
    }

    /// `None` while L < N; else what L ≥ N spends and what the suggested lot would.
    pub fn lot_at_least_n(&self, facts: &DataFacts) -> Result<Option<LotAtLeastN>, AccountError> {
        let n = facts.n_train;
        if self.lot_size < n || n == 0 {
            return Ok(None);
        }
        let spent = |lot: usize| -> Result<f64, AccountError> {
            let cfg = RunConfig {
                lot_size: lot,
                ..self.clone()
            };
            let mech = cfg.mechanism(facts);
            compose::epsilon(
                Accountant::named(AccountantName::Moments),
                &mech.after_epochs(self.epochs as u64),
                self.delta,
            )
        };
        let suggested = Self::lot_for(n);
        Ok(Some(LotAtLeastN {
            lot: self.lot_size,
            n_train: n,
            epsilon: Epsilon(spent(n)?),
            suggested_lot: suggested,
            suggested_q: self.sampling_rate_of(suggested, n),
            suggested_epsilon: Epsilon(spent(suggested)?),
            delta: self.delta,
            epochs: self.epochs,
        }))
    }

    fn sampling_rate_of(&self, lot: usize, n_train: usize) -> f64 {
        RunConfig {
            lot_size: lot,
            ..self.clone()
        }
        .sampling_rate(n_train)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lot_of_n_or_more_is_said_with_what_it_spends_and_a_tenth_of_n_beside_it() {
        let facts = DataFacts {
            n_train: 169,
            ..DataFacts::own_for_tests()
        };
        let cfg = RunConfig::default(); // L = 256, σ = 1, 20 epochs
        let at = cfg.lot_at_least_n(&facts).unwrap().expect("256 ≥ 169");
        assert_eq!(
            (at.lot, at.n_train, at.suggested_lot, at.epochs),
            (256, 169, 16, 20)
        );
        assert!((at.suggested_q - 16.0 / 169.0).abs() < 1e-12);
        // q = 1 for 20 epochs spends far more than q ≈ 0.09 for the same epochs.
        assert!(at.epsilon.0 > 2.0 * at.suggested_epsilon.0, "{at:?}");
        // The same figure as the run with L = N reports (its whole mechanism, the range
        // estimate and the noisy evaluations included).
        let full = RunConfig {
            lot_size: 169,
            ..cfg.clone()
        };
        let m = full.mechanism(&facts);
        let e = compose::epsilon(
            Accountant::named(AccountantName::Moments),
            &m.after_epochs(20),
            cfg.delta,
        )
        .unwrap();
        assert_eq!(at.epsilon.0, e);
        assert_eq!(
            full.lot_at_least_n(&facts).unwrap().unwrap().lot,
            169,
            "L = N counts"
        );
        let below = RunConfig {
            lot_size: 168,
            ..cfg
        };
        assert_eq!(below.lot_at_least_n(&facts).unwrap(), None);
        assert_eq!(RunConfig::lot_for(48), 10);
        assert_eq!(RunConfig::lot_for(10), 9);
        assert_eq!(RunConfig::lot_for(1), 1);
        assert_eq!(RunConfig::lot_for(60_000), 6_000);
    }
}
