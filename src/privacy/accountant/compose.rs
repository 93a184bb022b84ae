//! Heterogeneous composition: several subsampled Gaussian mechanisms run one after the other,
//! each `steps` times — DP-PCA's single step before DP-SGD's T steps (paper Section 4), whose
//! cost must show in every accountant. Moments and RDP add per order and PLDs convolve (both
//! exact composition); naive and strong compose the parts' own guarantees by basic
//! composition with δ split evenly between the parts.

use super::moments::{log_moment, LAMBDAS};
use super::pld::{grid_interval, Direction, Pld, DEFAULT_INTERVAL};
use super::rdp::{default_orders, rdp_one_step, rdp_to_epsilon};
use super::{check_delta, AccountError, Accountant, Amplification, EpsilonReport, SampledGaussian};

/// ε at δ of all `parts` run in sequence, under `acc`.
pub fn epsilon(
    acc: Accountant,
    parts: &[SampledGaussian],
    delta: f64,
) -> Result<f64, AccountError> {
    check_delta(delta)?;
    // Parts that spend nothing drop out; a part without noise spends everything.
    let parts: Vec<SampledGaussian> = parts
        .iter()
        .copied()
        .filter(|p| p.trivial_epsilon() != Some(0.0))
        .collect();
    if parts
        .iter()
        .any(|p| p.trivial_epsilon() == Some(f64::INFINITY))
    {
        return Ok(f64::INFINITY);
    }
    match parts.as_slice() {
        [] => return Ok(0.0),
        [one] => return acc.epsilon(one, delta),
        _ => {}
    }
    Ok(match acc {
        Accountant::Naive(_) | Accountant::Strong(_) => {
            let share = delta / parts.len() as f64;
            parts
                .iter()
                .map(|p| acc.epsilon(p, share))
                .sum::<Result<f64, _>>()?
        }
        Accountant::Moments => LAMBDAS
            .map(|l| {
                let total: f64 = parts
                    .iter()
                    .map(|p| p.steps as f64 * log_moment(p.q, p.sigma, l))
                    .sum();
                (total + (1.0 / delta).ln()) / l as f64
            })
            .fold(f64::INFINITY, f64::min),
        Accountant::Rdp => default_orders()
            .into_iter()
            .map(|a| {
                let total: f64 = parts
                    .iter()
                    .map(|p| p.steps as f64 * rdp_one_step(p.q, p.sigma, a))
                    .sum();
                rdp_to_epsilon(a, total, delta)
            })
            .fold(f64::INFINITY, f64::min)
            .max(0.0),
        Accountant::Pld => [Direction::Remove, Direction::Add]
            .into_iter()
            .map(|dir| {
                // One grid for all parts: the widest any of them needs.
                let h = parts
                    .iter()
                    .map(|p| grid_interval(p, dir, DEFAULT_INTERVAL))
                    .fold(0.0, f64::max);
                let mut total: Option<Pld> = None;
                for p in &parts {
                    let composed = Pld::subsampled_gaussian(p.q, p.sigma, h, dir).compose(p.steps);
                    total = Some(match total {
                        None => composed,
                        Some(t) => t.convolve(&composed),
                    });
                }
                total.map_or(0.0, |t| t.epsilon_for_delta(delta))
            })
            .fold(0.0, f64::max),
    })
}

/// Per moment order or Rényi order: (the prefix's total, one training step).
type PerOrder = Vec<(f64, f64)>;

/// ε of every accountant after `prefix` (e.g. DP-PCA's step) and then each of `steps` steps
/// of the training mechanism (q, σ): the ε-versus-epoch preview. The per-order RDP and log
/// moments of both parts are computed once for the whole curve.
pub fn curve(
    prefix: &[SampledGaussian],
    q: f64,
    sigma: f64,
    steps: &[u64],
    delta: f64,
    amp: Amplification,
) -> Result<Vec<EpsilonReport>, AccountError> {
    check_delta(delta)?;
    SampledGaussian::new(q, sigma, 0)?;
    let live: Vec<SampledGaussian> = prefix
        .iter()
        .copied()
        .filter(|p| p.trivial_epsilon() != Some(0.0))
        .collect();
    let open = live.iter().any(|p| p.trivial_epsilon().is_some()) || (sigma == 0.0 && q > 0.0);
    let lambdas: Vec<u32> = LAMBDAS.collect();
    let orders = default_orders();
    let (mom, ren): (PerOrder, PerOrder) = if open {
        (Vec::new(), Vec::new())
    } else {
        let per = |f: &dyn Fn(&SampledGaussian) -> f64, train: f64| {
            (
                live.iter().map(|p| p.steps as f64 * f(p)).sum::<f64>(),
                train,
            )
        };
        (
            lambdas
                .iter()
                .map(|&l| per(&|p| log_moment(p.q, p.sigma, l), log_moment(q, sigma, l)))
                .collect(),
            orders
                .iter()
                .map(|&a| {
                    per(
                        &|p| rdp_one_step(p.q, p.sigma, a),
                        rdp_one_step(q, sigma, a),
                    )
                })
                .collect(),
        )
    };
    steps
        .iter()
        .map(|&t| {
            let mut parts = live.clone();
            parts.push(SampledGaussian::new(q, sigma, t)?);
            if open
                && parts
                    .iter()
                    .any(|p| p.trivial_epsilon() == Some(f64::INFINITY))
            {
                let inf = f64::INFINITY;
                return Ok(EpsilonReport {
                    naive: inf,
                    strong: inf,
                    moments: inf,
                    rdp: inf,
                });
            }
            let tf = if q == 0.0 { 0.0 } else { t as f64 };
            let moments = lambdas
                .iter()
                .zip(&mom)
                .map(|(&l, (pre, one))| (pre + tf * one + (1.0 / delta).ln()) / l as f64)
                .fold(f64::INFINITY, f64::min);
            let rdp = orders
                .iter()
                .zip(&ren)
                .map(|(&a, (pre, one))| rdp_to_epsilon(a, pre + tf * one, delta))
                .fold(f64::INFINITY, f64::min)
                .max(0.0);
            let nothing = parts.iter().all(|p| p.trivial_epsilon() == Some(0.0));
            Ok(EpsilonReport {
                naive: epsilon(Accountant::Naive(amp), &parts, delta)?,
                strong: epsilon(Accountant::Strong(amp), &parts, delta)?,
                moments: if nothing { 0.0 } else { moments },
                rdp: if nothing { 0.0 } else { rdp },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::accountant::Amplification;

    const ALL: [Accountant; 5] = [
        Accountant::Naive(Amplification::Paper),
        Accountant::Strong(Amplification::Paper),
        Accountant::Moments,
        Accountant::Rdp,
        Accountant::Pld,
    ];

    #[test]
    fn the_curve_matches_pointwise_composition() {
        let pca = SampledGaussian::new(1.0, 7.0, 1).unwrap();
        let steps = [0u64, 100, 1000, 5000];
        for prefix in [vec![], vec![pca]] {
            let c = curve(&prefix, 0.01, 4.0, &steps, 1e-5, Amplification::Paper).unwrap();
            for (r, &t) in c.iter().zip(&steps) {
                let mut parts = prefix.clone();
                parts.push(SampledGaussian::new(0.01, 4.0, t).unwrap());
                for (acc, got) in [
                    (Accountant::Naive(Amplification::Paper), r.naive),
                    (Accountant::Strong(Amplification::Paper), r.strong),
                    (Accountant::Moments, r.moments),
                    (Accountant::Rdp, r.rdp),
                ] {
                    let want = epsilon(acc, &parts, 1e-5).unwrap();
                    assert!(
                        (got - want).abs() <= 1e-9 * want.max(1e-9),
                        "{acc:?} T={t}: {got} vs {want}"
                    );
                }
            }
        }
        let open = curve(&[], 0.01, 0.0, &[10], 1e-5, Amplification::Paper).unwrap();
        assert_eq!(open[0].moments, f64::INFINITY);
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
    fn splitting_identical_steps_in_two_parts_changes_nothing_for_exact_accountants() {
        // 300 steps as 100 + 200: moments, RDP and PLD compose exactly.
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
        for acc in [Accountant::Moments, Accountant::Rdp, Accountant::Pld] {
            let one = acc.epsilon(&whole, 1e-5).unwrap();
            let two = epsilon(acc, &[a, b], 1e-5).unwrap();
            assert!((one - two).abs() <= 2e-3 * one, "{acc:?}: {one} vs {two}");
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
}
