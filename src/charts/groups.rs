//! Who pays for privacy, in numbers (Bagdasaryan, Poursaeed & Shmatikov 2019, "Differential
//! Privacy Has Disparate Impact on Model Accuracy"): the gap between the best and the worst
//! group's test accuracy in one report, and, between a non-private run and a DP-SGD run at the
//! same epoch, how the gap moved and which group lost the most. The groups chart writes these
//! and the "Who pays" lesson quotes them: one computation for both.

use crate::config::Mode;
use crate::train::gap::accuracy_gap;
use crate::train::groups::GroupAccuracy;
use serde::Serialize;

/// The groups with a test accuracy, as (group, accuracy).
fn measured(groups: &[GroupAccuracy]) -> impl Iterator<Item = (&GroupAccuracy, f64)> {
    groups
        .iter()
        .filter_map(|g| Some((g, g.test_acc.filter(|a| a.is_finite())?)))
}

/// The best minus the worst group's test accuracy, in percentage points (`None` with fewer
/// than two measured groups).
pub fn gap_points(groups: &[GroupAccuracy]) -> Option<f64> {
    let accs: Vec<f64> = measured(groups).map(|(_, a)| a).collect();
    if accs.len() < 2 {
        return None;
    }
    let (lo, hi) = accs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &a| {
            (lo.min(a), hi.max(a))
        });
    Some(100.0 * (hi - lo))
}

/// One report's groups in a few numbers: the gap, the worst group and the rarest in training.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupSummary {
    pub gap: f64,
    /// Two standard errors of the gap, in points: the best and the worst group's accuracy each
    /// p(1−p)/n on its own test rows, added (#53 §2: a comparison carries its ±). Which group is
    /// best and worst is itself chosen by the same noisy accuracies, so a gap within it may be
    /// no gap at all.
    pub gap_margin: f64,
    pub worst: String,
    pub worst_acc: f64,
    pub rarest: String,
    pub rarest_n_train: usize,
}

/// `groups` summarised, or `None` with fewer than two measured groups.
pub fn summary(groups: &[GroupAccuracy]) -> Option<GroupSummary> {
    let (worst, worst_acc) = measured(groups).min_by(|p, q| p.1.total_cmp(&q.1))?;
    let rarest = measured(groups).map(|(g, _)| g).min_by_key(|g| g.n_train)?;
    Some(GroupSummary {
        gap: gap_points(groups)?,
        gap_margin: 2.0 * gap_variance(groups)?.sqrt(),
        worst: worst.name.clone(),
        worst_acc,
        rarest: rarest.name.clone(),
        rarest_n_train: rarest.n_train,
    })
}

/// One run's groups at one epoch, as the comparison reads them.
pub struct RunGroups<'a> {
    pub mode: Option<Mode>,
    /// Each epoch's groups (`None`: the report had none).
    pub epochs: Vec<Option<&'a [GroupAccuracy]>>,
}

/// A non-private and a DP-SGD run's groups set side by side at one epoch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupsCompared {
    /// The epoch both are read at: the DP-SGD run's latest (the non-private run's, if shorter).
    pub epoch: usize,
    /// The gap between the best and worst group, in points, without and with privacy.
    pub gap_non_private: f64,
    pub gap_dp: f64,
    /// The group whose accuracy fell most from the non-private run to the DP-SGD run, its
    /// training size and its fall in points.
    pub most_lost: String,
    pub most_lost_n_train: usize,
    pub most_lost_points: f64,
    /// Two standard errors of that fall from the group's test rows (`train::gap`, #53 §2: a
    /// race group of 135 test rows moved ±1.9 points between seeds), its test rows, and
    /// whether the fall is beyond them.
    pub most_lost_margin: f64,
    pub most_lost_n_test: usize,
    pub most_lost_clear: bool,
    /// The group with the next largest fall and its fall in points (`None` with one group),
    /// and whether the largest fall is beyond it by more than chance: the two falls are on
    /// different test rows, so the ± of their difference is their ± added in quadrature
    /// (`√(m₁² + m₂²)`, two standard errors). "Loses most" is a ranking, and a ranking is a
    /// comparison that carries its uncertainty too.
    pub next_lost: Option<String>,
    pub next_lost_points: Option<f64>,
    pub most_lost_ahead_clear: bool,
    /// How many groups fell beyond their ± (any of them, not only the one that fell most).
    pub falls_beyond_noise: usize,
    /// Two standard errors of the gap's change (DP-SGD's minus the non-private one's), in
    /// points: the best and the worst group of each run, each accuracy's p(1−p)/n on its own
    /// test rows, their variances added (#53 §2). The same test rows in both runs make the
    /// two gaps' errors correlate positively, so this overstates the change's ± — on the side
    /// of calling less a change.
    pub gap_change_margin: f64,
    /// Whether the gap widened beyond that ±.
    pub gap_widened_clear: bool,
    /// The group with the fewest training rows.
    pub rarest: String,
    pub rarest_n_train: usize,
}

/// The variance, in squared points, of a run's gap: its best and its worst group's accuracy
/// each p(1−p)/n on its own test rows, added (`None` with fewer than two measured groups).
fn gap_variance(groups: &[GroupAccuracy]) -> Option<f64> {
    let best = measured(groups).max_by(|p, q| p.1.total_cmp(&q.1))?;
    let worst = measured(groups).min_by(|p, q| p.1.total_cmp(&q.1))?;
    let var = |(g, p): (&GroupAccuracy, f64)| 1e4 * p * (1.0 - p) / g.n_test.max(1) as f64;
    Some(var(best) + var(worst))
}

/// The latest non-private and the latest DP-SGD run among `runs` (oldest first, the run being
/// drawn last) compared at the same epoch, or `None` unless both are there with the same
/// groups measured.
pub fn compare(runs: &[RunGroups]) -> Option<GroupsCompared> {
    let last = |mode: Mode| {
        runs.iter()
            .rev()
            .find(|r| r.mode == Some(mode) && r.epochs.iter().any(Option::is_some))
    };
    let (np, dp) = (last(Mode::NonPrivate)?, last(Mode::Dp)?);
    let epoch = np.epochs.len().min(dp.epochs.len());
    let (a, b) = (np.epochs[epoch - 1]?, dp.epochs[epoch - 1]?);
    if a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.name != y.name) {
        return None;
    }
    // Each group's fall from the non-private run to DP-SGD, in points, with its ± (the same
    // test rows in both runs).
    let falls = a.iter().zip(b).filter_map(|(x, y)| {
        let gap = accuracy_gap(y.test_acc?, x.test_acc?, x.n_test)?;
        Some((x, gap))
    });
    let falls: Vec<_> = falls.filter(|(_, g)| g.points.is_finite()).collect();
    let falls_beyond_noise = falls
        .iter()
        .filter(|(_, g)| g.clear && g.points > 0.0)
        .count();
    let mut ranked: Vec<_> = falls.iter().collect();
    ranked.sort_by(|p, q| q.1.points.total_cmp(&p.1.points));
    let &&(lost, fall) = ranked.first()?;
    let next = ranked.get(1).map(|&&(g, gap)| (g, gap));
    let most_lost_ahead_clear = next.is_none_or(|(_, n)| {
        fall.points - n.points > (fall.margin.powi(2) + n.margin.powi(2)).sqrt()
    });
    let rarest = measured(a).map(|(g, _)| g).min_by_key(|g| g.n_train)?;
    let (gap_non_private, gap_dp) = (gap_points(a)?, gap_points(b)?);
    let gap_change_margin = 2.0 * (gap_variance(a)? + gap_variance(b)?).sqrt();
    Some(GroupsCompared {
        epoch,
        gap_non_private,
        gap_dp,
        gap_change_margin,
        gap_widened_clear: gap_dp - gap_non_private > gap_change_margin,
        most_lost: lost.name.clone(),
        most_lost_n_train: lost.n_train,
        most_lost_points: fall.points,
        most_lost_margin: fall.margin,
        most_lost_n_test: lost.n_test,
        most_lost_clear: fall.clear,
        next_lost: next.map(|(g, _)| g.name.clone()),
        next_lost_points: next.map(|(_, n)| n.points),
        most_lost_ahead_clear,
        falls_beyond_noise,
        rarest: rarest.name.clone(),
        rarest_n_train: rarest.n_train,
    })
}

/// What the groups chart writes of a comparison: the gap without privacy, then with DP-SGD,
/// and its change's ±.
pub fn compared_sentence(c: &GroupsCompared) -> String {
    format!(
        "gap: {:.1} → {:.1} points with DP-SGD (±{:.1})",
        c.gap_non_private, c.gap_dp, c.gap_change_margin
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(name: &str, n_train: usize, acc: Option<f64>) -> GroupAccuracy {
        GroupAccuracy {
            name: name.into(),
            n_train,
            n_test: 10,
            test_acc: acc,
        }
    }

    #[test]
    fn the_gap_is_best_minus_worst_of_the_measured_groups() {
        let groups = [g("a", 5, Some(0.9)), g("b", 9, Some(0.6)), g("c", 1, None)];
        assert!((gap_points(&groups).unwrap() - 30.0).abs() < 1e-9);
        assert_eq!(gap_points(&groups[..1]), None);
        // Its ±: 2·√(p(1−p)/n) of the best and the worst added, in points, on 10 rows each:
        // 2·√(0.09/10 + 0.24/10)·100 = 36.3.
        let s = summary(&groups).unwrap();
        assert!(
            (s.gap_margin - 200.0 * 0.033f64.sqrt()).abs() < 1e-9,
            "{s:?}"
        );
        assert_eq!((s.worst.as_str(), s.rarest.as_str()), ("b", "a"));
    }

    #[test]
    fn a_comparison_reads_both_runs_at_the_same_epoch_and_names_who_lost_most() {
        let np1 = [g("a", 50, Some(0.8)), g("b", 5, Some(0.7))];
        let np2 = [g("a", 50, Some(0.9)), g("b", 5, Some(0.8))];
        let dp1 = [g("a", 50, Some(0.85)), g("b", 5, Some(0.4))];
        let np = RunGroups {
            mode: Some(Mode::NonPrivate),
            epochs: vec![Some(&np1), Some(&np2)],
        };
        let dp = RunGroups {
            mode: Some(Mode::Dp),
            epochs: vec![Some(&dp1)],
        };
        let c = compare(&[np, dp]).unwrap();
        assert_eq!(c.epoch, 1);
        assert!((c.gap_non_private - 10.0).abs() < 1e-9);
        assert!((c.gap_dp - 45.0).abs() < 1e-9);
        assert_eq!((c.most_lost.as_str(), c.most_lost_n_train), ("b", 5));
        assert!((c.most_lost_points - 30.0).abs() < 1e-9);
        assert_eq!((c.rarest.as_str(), c.rarest_n_train), ("b", 5));
        // The gap's change, 35 points, against 2·√(Σ p(1−p)/10) over the four accuracies at
        // epoch 1 (np: 0.8 and 0.7; DP-SGD: 0.85 and 0.4) in points: 2·√(160 + 210 + 127.5 + 240).
        let margin = 2.0 * (160.0f64 + 210.0 + 127.5 + 240.0).sqrt();
        assert!((c.gap_change_margin - margin).abs() < 1e-9, "{c:?}");
        assert!(
            !c.gap_widened_clear,
            "35 is within ±{margin} on 10 test rows"
        );
        assert_eq!(
            compared_sentence(&c),
            "gap: 10.0 → 45.0 points with DP-SGD (±54.3)"
        );
        // 30 points on 10 test rows is within its ± (2 SE: 200·√(0.21/10 + 0.24/10) ≈ 42.4).
        assert_eq!(c.most_lost_n_test, 10);
        assert!(
            (c.most_lost_margin - 200.0 * 0.045f64.sqrt()).abs() < 1e-9,
            "{c:?}"
        );
        assert!(!c.most_lost_clear && c.falls_beyond_noise == 0, "{c:?}");
        // b's 30 points against a's −5, on 10 rows each: 35 apart, within √(42.4² + m_a²).
        assert_eq!(c.next_lost.as_deref(), Some("a"));
        assert!((c.next_lost_points.unwrap() + 5.0).abs() < 1e-9, "{c:?}");
        assert!(!c.most_lost_ahead_clear, "{c:?}");
        // On 1,000 test rows each, a's 5-point fall is beyond its ± 2.9 and b's 30 points
        // beyond theirs: both counted, b the most.
        let rows = |acc: [f64; 2]| {
            [("a", acc[0]), ("b", acc[1])].map(|(name, a)| GroupAccuracy {
                name: name.into(),
                n_train: 50,
                n_test: 1000,
                test_acc: Some(a),
            })
        };
        let (np3, dp3) = (rows([0.9, 0.7]), rows([0.85, 0.4]));
        let runs = [
            RunGroups {
                mode: Some(Mode::NonPrivate),
                epochs: vec![Some(&np3)],
            },
            RunGroups {
                mode: Some(Mode::Dp),
                epochs: vec![Some(&dp3)],
            },
        ];
        let c = compare(&runs).unwrap();
        assert_eq!(c.most_lost, "b");
        assert!(c.most_lost_clear && c.falls_beyond_noise == 2, "{c:?}");
        // 30 against 5 points on 1,000 rows each: ahead beyond chance.
        assert!(c.most_lost_ahead_clear, "{c:?}");
        // Two falls close together on 1,000 rows each (30 and 29 points): the first is the
        // larger, and no more than chance says so.
        let (np4, dp4) = (rows([0.9, 0.7]), rows([0.61, 0.4]));
        let close = compare(&[
            RunGroups {
                mode: Some(Mode::NonPrivate),
                epochs: vec![Some(&np4)],
            },
            RunGroups {
                mode: Some(Mode::Dp),
                epochs: vec![Some(&dp4)],
            },
        ])
        .unwrap();
        assert_eq!(
            (close.most_lost.as_str(), close.next_lost.as_deref()),
            ("b", Some("a"))
        );
        assert!(
            close.most_lost_clear && !close.most_lost_ahead_clear,
            "{close:?}"
        );
        // The gap widened from 20 to 45 points, beyond ±5.2 on these rows.
        assert!(
            c.gap_widened_clear && (c.gap_change_margin - 5.167).abs() < 1e-3,
            "{c:?}"
        );
        // Without a non-private run there is nothing to compare.
        let alone = RunGroups {
            mode: Some(Mode::Dp),
            epochs: vec![Some(&dp1)],
        };
        assert_eq!(compare(&[alone]), None);
    }
}
