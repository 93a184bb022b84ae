//! Whether two test accuracies differ beyond what the test set's size alone would make them
//! differ: the lessons' comparisons (#53). Each accuracy is a share p of n test examples, with
//! binomial standard error √(p(1−p)/n); the difference of two has standard error
//! √(p₁(1−p₁)/n + p₂(1−p₂)/n) — the two runs taken as independent, which on one shared test set
//! errs on the careful side (their errors are positively correlated). A difference is called a
//! difference only beyond two standard errors, the same two as [`super::verdict`]'s band around
//! the majority line; within them a lesson says "within the noise" and gives the ±.

use serde::Serialize;

/// Two test accuracies compared: `points`, the second minus the first in percentage points;
/// `margin`, two standard errors of that difference in points (the ±); `clear`, whether the
/// difference is beyond it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AccuracyGap {
    pub points: f64,
    pub margin: f64,
    pub clear: bool,
}

/// `after` against `before` (shares in [0, 1]) on a test set of `n_test` examples, or `None`
/// when a share is not one or there is no test example.
pub fn accuracy_gap(before: f64, after: f64, n_test: usize) -> Option<AccuracyGap> {
    let share = |p: f64| (0.0..=1.0).contains(&p);
    if !(share(before) && share(after)) || n_test == 0 {
        return None;
    }
    let var = |p: f64| p * (1.0 - p) / n_test as f64;
    let margin = 200.0 * (var(before) + var(after)).sqrt();
    let points = 100.0 * (after - before);
    Some(AccuracyGap {
        points,
        margin,
        clear: points.abs() > margin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_is_clear_only_beyond_two_standard_errors_of_the_difference() {
        // Adult's 16,281 test rows: 84.8% against 76.4% is far beyond ±0.9 points.
        let g = accuracy_gap(0.764, 0.848, 16_281).unwrap();
        assert!((g.points - 8.4).abs() < 1e-9);
        let se = (0.764 * 0.236 / 16_281.0 + 0.848 * 0.152 / 16_281.0f64).sqrt();
        assert!((g.margin - 200.0 * se).abs() < 1e-9, "{g:?}");
        assert!(g.clear && g.margin > 0.8 && g.margin < 0.95, "{g:?}");
        // Breast cancer's 114 test patients: 3.5 points between 96.5% and 93.0% is within ±6.
        let g = accuracy_gap(0.965, 0.93, 114).unwrap();
        assert!(
            !g.clear && g.points < 0.0 && g.margin > 5.5 && g.margin < 6.5,
            "{g:?}"
        );
        // The same accuracy twice is never a difference; an empty test set or a non-share, none.
        assert!(!accuracy_gap(0.5, 0.5, 10).unwrap().clear);
        assert_eq!(accuracy_gap(0.5, 0.6, 0), None);
        assert_eq!(accuracy_gap(0.5, 1.2, 100), None);
        assert_eq!(accuracy_gap(f64::NAN, 0.5, 100), None);
    }

    #[test]
    fn a_perfect_score_on_both_sides_has_no_margin_and_no_gap() {
        let g = accuracy_gap(1.0, 1.0, 50).unwrap();
        assert_eq!((g.points, g.margin, g.clear), (0.0, 0.0, false));
    }
}
