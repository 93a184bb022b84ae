//! The accuracy chart's arithmetic: its y range (fitted to the curves when runs are compared,
//! so that their differences fill the plot), where the majority-class line goes on it, and the
//! cost of privacy — how many points of test accuracy a DP-SGD run gives up against a
//! non-private one — that the chart writes and a lesson quotes.

use crate::config::Mode;

/// The y range of the accuracy chart for the values of its curves (test and train accuracies,
/// in [0, 1]) and the majority class's share `baseline`.
///
/// A single run: the curves and the baseline, widened by 0.02 and rounded out to the 0.05s, at
/// least 0.1 tall — the baseline is on the chart, showing how far above it the model learned.
/// Runs compared (`compared`: pins on the chart): the curves alone, widened by a tenth of their
/// spread (at least 0.01) and rounded out to the 0.01s, at least 0.05 tall, so that runs a few
/// points apart are told apart from the back of the room; the baseline, if outside, is marked
/// at the edge ([`baseline_mark`]). Always within [0, 1]; with no values, all of it.
pub fn y_range(
    curves: impl Iterator<Item = f64>,
    baseline: Option<f64>,
    compared: bool,
) -> (f64, f64) {
    let values = curves.chain(baseline.filter(|_| !compared));
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        return (0.0, 1.0);
    }
    let (pad, grid, least) = if compared {
        ((0.1 * (hi - lo)).max(0.01), 100.0, 0.05)
    } else {
        (0.02, 20.0, 0.1)
    };
    let mut lo = ((lo - pad) * grid).floor().max(0.0) / grid;
    let hi = ((hi + pad) * grid).ceil().min(grid) / grid;
    if hi - lo < least {
        lo = (hi - least).max(0.0);
    }
    let hi = hi.max(lo + least);
    (lo, hi)
}

/// Where the majority-class line goes on a y range from `lo` to `hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaselineMark {
    /// At its value.
    Inside,
    /// Below the range: drawn along the bottom edge, labelled with "↓".
    Below,
    /// Above the range: along the top edge, with "↑".
    Above,
}

/// Where `baseline` goes on a y range from `lo` to `hi`.
pub fn baseline_mark(baseline: f64, lo: f64, hi: f64) -> BaselineMark {
    if baseline < lo {
        BaselineMark::Below
    } else if baseline > hi {
        BaselineMark::Above
    } else {
        BaselineMark::Inside
    }
}

/// The majority line's name: "majority 57.9%", with an arrow when it is marked at an edge.
pub fn baseline_label(baseline: f64, mark: BaselineMark) -> String {
    let arrow = match mark {
        BaselineMark::Inside => "",
        BaselineMark::Below => " ↓",
        BaselineMark::Above => " ↑",
    };
    format!("majority {:.1}%{arrow}", 100.0 * baseline)
}

/// A run on the accuracy chart as the comparison reads it: what its sanitizer did (`None`:
/// not known) and its last released test accuracy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunEnd {
    pub mode: Option<Mode>,
    pub final_test: Option<f64>,
}

/// The cost of privacy on a chart of `runs` (oldest first, the run being drawn last), in
/// percentage points: the final test accuracy of the latest non-private run minus that of the
/// latest DP-SGD run. `None` unless both are on the chart with a test accuracy. Negative when
/// the DP-SGD run scored higher (it happens, by chance, on small test sets).
pub fn privacy_cost_points(runs: &[RunEnd]) -> Option<f64> {
    let (non_private, dp) = privacy_cost_ends(runs)?;
    Some(100.0 * (non_private - dp))
}

/// The final test accuracies the cost of privacy compares: the latest non-private run's and
/// the latest DP-SGD run's, both shares.
pub fn privacy_cost_ends(runs: &[RunEnd]) -> Option<(f64, f64)> {
    let last = |mode: Mode| {
        runs.iter()
            .rev()
            .find(|r| r.mode == Some(mode) && r.final_test.is_some_and(f64::is_finite))
            .and_then(|r| r.final_test)
    };
    Some((last(Mode::NonPrivate)?, last(Mode::Dp)?))
}

/// What the chart writes of a cost of privacy of `points`, to one decimal, with its ± (two
/// standard errors of the difference on the test set's size, `train::gap`) where known: a gap
/// within its ± is said as within chance, not as a cost (#53).
pub fn privacy_cost_sentence(points: f64, margin: Option<f64>) -> String {
    let rounded = (points * 10.0).round() / 10.0;
    match margin {
        Some(m) if points.abs() <= m => {
            format!(
                "privacy cost {:.1} ± {m:.1} points: within chance",
                rounded.abs()
            )
        }
        Some(m) if rounded > 0.0 => format!("privacy costs {rounded:.1} ± {m:.1} points here"),
        Some(m) => format!(
            "DP-SGD scores {:.1} ± {m:.1} points above non-private here",
            -rounded
        ),
        None if rounded > 0.0 => format!("privacy costs {rounded:.1} points here"),
        None if rounded < 0.0 => format!(
            "DP-SGD scores {:.1} points above non-private here",
            -rounded
        ),
        None => "privacy costs nothing here".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(mode: Mode, acc: f64) -> RunEnd {
        RunEnd {
            mode: Some(mode),
            final_test: Some(acc),
        }
    }

    #[test]
    fn a_single_run_keeps_the_baseline_in_range() {
        assert_eq!(
            y_range([0.84, 0.85].into_iter(), Some(0.764), false),
            (0.7, 0.9)
        );
        assert_eq!(y_range([0.99, 1.0].into_iter(), None, false), (0.9, 1.0));
        assert_eq!(y_range([0.03].into_iter(), None, false), (0.0, 0.1));
        assert_eq!(y_range(std::iter::empty(), Some(0.5), true), (0.0, 1.0));
    }

    #[test]
    fn compared_runs_fill_the_plot_and_the_baseline_goes_to_the_edge() {
        // Breast cancer's Compare: four runs between 90% and 97%, majority 57.9%.
        let (lo, hi) = y_range([0.90, 0.93, 0.95, 0.97].into_iter(), Some(0.579), true);
        assert!(
            (lo - 0.89).abs() < 1e-9 && (hi - 0.98).abs() < 1e-9,
            "{lo}..{hi}"
        );
        assert_eq!(baseline_mark(0.579, lo, hi), BaselineMark::Below);
        assert_eq!(
            baseline_label(0.579, BaselineMark::Below),
            "majority 57.9% ↓"
        );
        // Close curves still get a range at least 0.05 tall, inside [0, 1].
        let (lo, hi) = y_range([0.995, 0.998].into_iter(), None, true);
        assert!(hi <= 1.0 && hi - lo >= 0.05 - 1e-12, "{lo}..{hi}");
        let (lo, hi) = y_range([0.001].into_iter(), None, true);
        assert!(lo >= 0.0 && hi - lo >= 0.05 - 1e-12, "{lo}..{hi}");
        // A baseline inside the fitted range is drawn where it is.
        assert_eq!(baseline_mark(0.8, 0.7, 0.9), BaselineMark::Inside);
    }

    #[test]
    fn the_cost_of_privacy_is_non_private_minus_dp_sgd() {
        let compare = [
            end(Mode::NonPrivate, 0.971),
            end(Mode::ClipOnly, 0.965),
            end(Mode::NoiseOnly, 0.90),
            end(Mode::Dp, 0.936),
        ];
        let cost = privacy_cost_points(&compare).unwrap();
        assert!((cost - 3.5).abs() < 1e-9, "{cost}");
        assert_eq!(
            privacy_cost_sentence(cost, None),
            "privacy costs 3.5 points here"
        );
        // With its ± on 114 test patients (about 5 points) the same gap is within chance; on
        // Adult's 16,281 (under 1 point) it is a cost.
        let margin = |n| {
            crate::train::gap::accuracy_gap(0.936, 0.971, n)
                .unwrap()
                .margin
        };
        assert_eq!(
            privacy_cost_sentence(cost, Some(margin(114))),
            format!(
                "privacy cost 3.5 ± {:.1} points: within chance",
                margin(114)
            )
        );
        assert_eq!(
            privacy_cost_sentence(cost, Some(margin(16_281))),
            format!("privacy costs 3.5 ± {:.1} points here", margin(16_281))
        );
        // The latest run of each mode counts; without both modes there is no cost.
        let mut more = compare.to_vec();
        more.push(end(Mode::Dp, 0.951));
        assert!((privacy_cost_points(&more).unwrap() - 2.0).abs() < 1e-9);
        assert_eq!(privacy_cost_points(&compare[..3]), None);
        let unknown = RunEnd {
            mode: Some(Mode::Dp),
            final_test: None,
        };
        assert_eq!(privacy_cost_points(&[compare[0], unknown]), None);
        assert_eq!(
            privacy_cost_sentence(-0.4, None),
            "DP-SGD scores 0.4 points above non-private here"
        );
        assert_eq!(
            privacy_cost_sentence(0.02, None),
            "privacy costs nothing here"
        );
    }
}
