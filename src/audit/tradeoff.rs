//! The privacy region of a run: the trade-off curve of the mechanism, from the PLD accountant.
//!
//! For a test of "the canary was in" (P, the run with it) against "it was not" (Q), at
//! false-positive rate α, every (ε, δ) pair the accountant gives bounds the true-positive rate
//! (the hockey-stick duality; Dong, Roth & Su 2019, "Gaussian Differential Privacy",
//! Proposition 2.12; Kairouz, Oh & Viswanath 2015):
//!
//!   TPR ≤ e^ε·α + δ_{P‖Q}(ε)   and   TPR ≤ 1 − e^{−ε}·(1 − δ_{Q‖P}(ε) − α),
//!
//! so TPR ≤ 1 − f(α) with f(α) = sup_ε max(0, 1 − δ_{P‖Q}(ε) − e^ε α, e^{−ε}(1 − δ_{Q‖P}(ε) − α)).
//! δ_{P‖Q} is the PLD's "remove" direction (P = the mixture with the canary), δ_{Q‖P} its
//! "add" direction. The symmetric curve, the one ε is reported from, uses the larger δ of the
//! two in both places.
//!
//! The supremum is taken over ε on the PLD's loss grid (thinned to a few thousand points):
//! fewer ε can only raise the bound, never lower it, and the PLD itself is pessimistic, so the
//! curve drawn is never below the mechanism's true one.

use crate::privacy::accountant::pld::{Direction, Pld};
use crate::privacy::accountant::pld_accountant::PldAccountant;
use crate::privacy::accountant::{PrivacyAccountant, SampledGaussian};

/// At most this many ε are tried per α.
const MAX_EPSILONS: usize = 4000;

/// δ(ε) of a PLD at ε = each non-negative loss on its grid (thinned), with the ε's.
fn delta_profile(pld: &Pld) -> Vec<(f64, f64)> {
    let n = pld.pmf.len();
    // Suffix sums A_i = Σ_{j ≥ i} p_j and B_i = Σ_{j ≥ i} p_j e^{−l_j}.
    let loss = |i: usize| (pld.offset + i as i64) as f64 * pld.h;
    let (mut a, mut b) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for i in (0..n).rev() {
        a[i] = a[i + 1] + pld.pmf[i];
        b[i] = b[i + 1] + pld.pmf[i] * (-loss(i)).exp();
    }
    let first = (0..n).find(|&i| loss(i) >= 0.0).unwrap_or(n);
    let stride = ((n - first) / MAX_EPSILONS).max(1);
    let mut out = vec![(0.0, pld.delta_for_epsilon(0.0))];
    for i in (first..n).step_by(stride) {
        let eps = loss(i);
        // δ(l_i) = inf + Σ_{l_j > l_i} p_j (1 − e^{l_i − l_j}).
        let d = pld.inf_mass + a[i + 1] - eps.exp() * b[i + 1];
        out.push((eps, d.clamp(0.0, 1.0)));
    }
    out
}

/// The bound on the TPR at FPR α from δ profiles of the two directions (sampled at the same ε
/// or not: each term is minimised separately).
fn tpr_bound(pq: &[(f64, f64)], qp: &[(f64, f64)], alpha: f64) -> f64 {
    let first = pq
        .iter()
        .map(|&(e, d)| e.exp() * alpha + d)
        .fold(1.0f64, f64::min);
    let second = qp
        .iter()
        .map(|&(e, d)| 1.0 - (-e).exp() * (1.0 - d - alpha))
        .fold(1.0f64, f64::min);
    first.min(second).clamp(alpha, 1.0)
}

/// The privacy region of a composition: the largest TPR any test can reach at each FPR.
pub struct TradeOff {
    /// δ profiles: the canary-in direction (P‖Q), the other (Q‖P), and their maximum.
    remove: Vec<(f64, f64)>,
    add: Vec<(f64, f64)>,
    symmetric: Vec<(f64, f64)>,
    /// The composition the curves were read from (its ε is the report's PLD ε).
    pld: PldAccountant,
}

impl TradeOff {
    /// The trade-off of `parts` composed (PLD at its default interval). With a release that
    /// has no noise, no test is bounded: the region is the whole square.
    pub fn of(parts: &[SampledGaussian]) -> TradeOff {
        let mut acc = PldAccountant::new(parts);
        for p in parts {
            acc.compose(p);
        }
        if parts
            .iter()
            .any(|p| p.trivial_epsilon() == Some(f64::INFINITY))
        {
            let open = vec![(0.0, 1.0)];
            return TradeOff {
                remove: open.clone(),
                add: open.clone(),
                symmetric: open,
                pld: acc,
            };
        }
        let profile = |acc: &mut PldAccountant, dir| match acc.composed(dir) {
            Some(pld) => delta_profile(&pld),
            None => vec![(0.0, 0.0)], // nothing noisy composed: nothing released
        };
        let remove = profile(&mut acc, Direction::Remove);
        let add = profile(&mut acc, Direction::Add);
        // The symmetric δ(ε) = max of both; each profile is exact at its own ε, so take the
        // larger δ at every ε of either (a profile's δ at another ε is bounded by its own at
        // the grid point below, δ being non-increasing).
        let at = |p: &[(f64, f64)], e: f64| {
            let i = p.partition_point(|&(x, _)| x <= e);
            p[i.saturating_sub(1)].1
        };
        let mut symmetric: Vec<(f64, f64)> = remove
            .iter()
            .chain(&add)
            .map(|&(e, _)| (e, at(&remove, e).max(at(&add, e))))
            .collect();
        symmetric.sort_by(|a, b| a.0.total_cmp(&b.0));
        TradeOff {
            remove,
            add,
            symmetric,
            pld: acc,
        }
    }

    /// The PLD accountant's ε at δ for the same composition (composed once, for both).
    pub fn epsilon(&mut self, delta: f64) -> f64 {
        self.pld.epsilon(delta)
    }

    /// The largest TPR at FPR α of a test for "the canary was in" (the direction audited).
    pub fn tpr(&self, alpha: f64) -> f64 {
        tpr_bound(&self.remove, &self.add, alpha)
    }

    /// The same bound from the symmetric (ε, δ) curve that ε is reported from.
    pub fn tpr_symmetric(&self, alpha: f64) -> f64 {
        tpr_bound(&self.symmetric, &self.symmetric, alpha)
    }

    /// The curve at `points` FPRs (log-spaced from 1e-4, then linear), as [α, TPR] pairs:
    /// (audited direction, symmetric).
    pub fn curves(&self, points: usize) -> (Vec<[f64; 2]>, Vec<[f64; 2]>) {
        let alphas = fpr_grid(points);
        (
            alphas.iter().map(|&a| [a, self.tpr(a)]).collect(),
            alphas.iter().map(|&a| [a, self.tpr_symmetric(a)]).collect(),
        )
    }
}

/// FPRs for drawing a curve: 0, a third log-spaced over [1e-4, 0.01), the rest linear to 1.
pub fn fpr_grid(points: usize) -> Vec<f64> {
    let points = points.max(8);
    let logs = points / 3;
    let mut a = vec![0.0];
    a.extend((0..logs).map(|i| 10f64.powf(-4.0 + 2.0 * i as f64 / logs as f64)));
    let lin = points - logs - 1;
    a.extend((0..=lin).map(|i| 0.01 + 0.99 * i as f64 / lin as f64));
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::accountant::special::log_normal_cdf;

    fn phi_inv(p: f64) -> f64 {
        // Bisection on the normal cdf (tests only).
        let (mut lo, mut hi) = (-40.0, 40.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if log_normal_cdf(mid).exp() < p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    #[test]
    fn full_batch_gaussian_is_mu_gdp() {
        // q = 1: T steps of N(0 or 1, σ²) are μ-GDP with μ = √T/σ, whose trade-off is
        // TPR = Φ(Φ⁻¹(α) + μ) (Dong, Roth & Su 2019, Corollary 3.3).
        let (sigma, steps) = (2.0, 16u64);
        let mu = (steps as f64).sqrt() / sigma;
        let t = TradeOff::of(&[SampledGaussian::new(1.0, sigma, steps).unwrap()]);
        for alpha in [1e-3, 0.01, 0.05, 0.1, 0.3, 0.7] {
            let exact = log_normal_cdf(phi_inv(alpha) + mu).exp();
            let got = t.tpr(alpha);
            assert!(
                got >= exact - 1e-9,
                "α {alpha}: {got} below the exact {exact}"
            );
            assert!(got - exact < 0.01, "α {alpha}: {got} vs exact {exact}");
            assert!(t.tpr_symmetric(alpha) >= got - 1e-12);
        }
    }

    #[test]
    fn subsampling_makes_the_directions_differ_and_no_noise_bounds_nothing() {
        let t = TradeOff::of(&[SampledGaussian::new(0.1, 0.8, 50).unwrap()]);
        let (remove, symmetric) = t.curves(60);
        assert!(remove.windows(2).all(|w| w[1][1] >= w[0][1] - 1e-12));
        assert!(remove
            .iter()
            .zip(&symmetric)
            .all(|(r, s)| s[1] >= r[1] - 1e-12 && r[1] >= r[0] && r[1] <= 1.0));
        let open = TradeOff::of(&[SampledGaussian::new(0.1, 0.0, 5).unwrap()]);
        assert_eq!(open.tpr(0.01), 1.0);
    }
}
