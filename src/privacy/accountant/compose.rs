//! Heterogeneous composition: several subsampled Gaussian mechanisms run one after the other,
//! each `steps` times — DP-PCA's single step before DP-SGD's T steps (paper Section 4), whose
//! cost must show in every accountant. Moments and RDP add per order and PLDs convolve (both
//! exact composition); naive and strong compose the parts' own guarantees by basic
//! composition with δ split evenly between the parts.

use super::moments::{log_moment, LAMBDAS};
use super::pld::{grid_interval, Direction, Pld, DEFAULT_INTERVAL};
use super::rdp::{default_orders, rdp_one_step, rdp_to_epsilon};
use super::{check_delta, AccountError, Accountant, SampledGaussian};

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
