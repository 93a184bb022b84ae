//! Tests of calibration: σ is rounded up, never down; any run can be calibrated; the
//! root-finder needs few evaluations and finds the smallest σ; a range bounds the search.

use super::*;
use crate::privacy::accountant::{AccountErrorKind, AccountantName};

#[test]
fn rounding_up_never_lowers_sigma() {
    for s in [0.1, 1.23456789, 2.2781, 2.27805, 3.99999999, 7.0] {
        let r = round_up(s, 4);
        assert!(r >= s && r - s < 1.0001e-4, "{s} -> {r}");
        assert_eq!(format!("{r:.4}").parse::<f64>().unwrap(), r, "{s} -> {r}");
    }
}

#[test]
fn calibration_takes_any_run() {
    // A run of a DP-PCA step (σ_p = 7) and 1,000 training steps: its σ is larger than for
    // the training steps alone, and meets the target.
    let (q, t, target, delta) = (0.01, 1000u64, 1.0, 1e-5);
    let pca = SampledGaussian::new(1.0, 7.0, 1).unwrap();
    let with = |sigma: f64| vec![pca, SampledGaussian { q, sigma, steps: t }];
    let s = calibrate(
        Accountant::named(AccountantName::Rdp),
        target,
        delta,
        &with,
        1e-6,
    )
    .unwrap();
    let alone = sigma_for_epsilon(
        Accountant::named(AccountantName::Rdp),
        target,
        delta,
        q,
        t,
        1e-6,
    )
    .unwrap();
    assert!(s > alone, "{s} vs {alone}");
    assert!(
        compose::epsilon(Accountant::named(AccountantName::Rdp), &with(s), delta).unwrap()
            <= target
    );
    assert!(calibrate(
        Accountant::named(AccountantName::Rdp),
        0.01,
        delta,
        &with,
        1e-6
    )
    .is_err());
}

/// Counts the runs built: bisection took 22 to 25 ε evaluations to reach 1e-6, each up
/// to seconds for PLD at small σ; the secant steps take about 8.
#[test]
fn calibration_needs_few_evaluations_and_finds_the_smallest_sigma() {
    let (q, t, delta) = (0.01, 1000u64, 1e-5);
    let count = std::cell::Cell::new(0);
    let run = |sigma: f64| {
        count.set(count.get() + 1);
        vec![SampledGaussian { q, sigma, steps: t }]
    };
    for acc in [
        Accountant::named(AccountantName::Moments),
        Accountant::named(AccountantName::Rdp),
        Accountant::of(
            AccountantName::Strong,
            crate::privacy::accountant::Amplification::Rigorous,
        ),
        Accountant::of(
            AccountantName::Naive,
            crate::privacy::accountant::Amplification::Rigorous,
        ),
    ] {
        for target in [0.3, 1.5, 8.0] {
            count.set(0);
            let Ok(s) = calibrate(acc, target, delta, &run, 1e-6) else {
                continue; // naive composition cannot reach 0.3 here
            };
            let eps = |sigma| compose::epsilon(acc, &run(sigma), delta).unwrap();
            let n = count.get();
            assert!(n <= 12, "{acc:?} ε {target}: {n} evaluations");
            assert!(
                eps(s) <= target && eps(s * (1.0 - 2e-6)) > target,
                "{acc:?} {s}"
            );
        }
    }
}

/// A range bounds the search both ways: out of reach is said after a few evaluations
/// (not a σ of 10^4, where the accountants' ε underflows to 0), and a target met at the
/// least σ returns it.
#[test]
fn a_range_bounds_the_search() {
    let count = std::cell::Cell::new(0);
    let run = |sigma: f64| {
        count.set(count.get() + 1);
        vec![SampledGaussian {
            q: 0.01,
            sigma,
            steps: 1000,
        }]
    };
    for acc in [
        Accountant::named(AccountantName::Rdp),
        Accountant::named(AccountantName::Pld),
        Accountant::named(AccountantName::Moments),
    ] {
        count.set(0);
        let err = calibrate_in(acc, 1e-300, 1e-5, &run, 1e-6, (0.1, 100.0)).unwrap_err();
        assert_eq!(err.kind, AccountErrorKind::Unreachable);
        let e = err.message;
        assert!(
            e.starts_with("no σ up to 100 reaches ε = 1e-300 with the") && count.get() <= 6,
            "{e} after {} evaluations",
            count.get()
        );
        let s = calibrate_in(acc, 1e300, 1e-5, &run, 1e-6, (0.5, 100.0)).unwrap();
        assert_eq!(s, 0.5);
    }
    assert!(calibrate_in(
        Accountant::named(AccountantName::Rdp),
        1.0,
        1e-5,
        &run,
        1e-6,
        (2.0, 1.0)
    )
    .is_err());
}
