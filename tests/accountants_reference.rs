//! Every accountant against the independently computed values in tests/fixtures/reference/
//! (dp_accounting, Opacus, SciPy quadrature; see its README).

mod common;

use dpsgd_lab::privacy::accountant::calibrate::sigma_for_epsilon;
use dpsgd_lab::privacy::accountant::AccountantName;
use dpsgd_lab::privacy::accountant::{Accountant, Amplification, SampledGaussian};

const ACCOUNTANTS: &str = "tests/fixtures/reference/accountants.csv";

fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn every_reference_row_matches() {
    let (header, rows) = common::read_csv(ACCOUNTANTS);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert!(rows.len() >= 20, "reference table has {} rows", rows.len());
    let cases = common::reference::COLUMNS;
    let mut failures = Vec::new();
    for row in &rows {
        let f = |name: &str| row[col(name)].parse::<f64>().unwrap();
        let mech = SampledGaussian::new(f("q"), f("sigma"), f("steps") as u64).unwrap();
        assert_eq!(
            mech.steps,
            SampledGaussian::steps_for_epochs(mech.q, f("epochs"))
        );
        for (name, ours, tol) in cases {
            let ours = ours.epsilon(&mech, f("delta"));
            let want = f(name);
            if rel_err(ours, want).is_nan() || rel_err(ours, want) > tol {
                failures.push(format!(
                    "{name} q={} σ={} T={}: ours {ours} vs {want}",
                    mech.q, mech.sigma, mech.steps
                ));
            }
        }
        // Our RDP minimises over more orders than the table's: never looser, never below PLD.
        let rdp = Accountant::named(AccountantName::Rdp)
            .epsilon(&mech, f("delta"))
            .unwrap();
        if !(rdp <= f("rdp") * (1.0 + 0.005) && rdp >= f("pld") * (1.0 - 0.02)) {
            failures.push(format!(
                "rdp (all orders) q={} σ={} T={}: {rdp} vs table {} and PLD {}",
                mech.q,
                mech.sigma,
                mech.steps,
                f("rdp"),
                f("pld")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn paper_figure_2_and_moments_values() {
    let d = 1e-5;
    let at = |epochs: f64| {
        SampledGaussian::new(0.01, 4.0, SampledGaussian::steps_for_epochs(0.01, epochs)).unwrap()
    };
    let strong = Accountant::of(AccountantName::Strong, Amplification::Paper);
    assert!(rel_err(strong.epsilon(&at(100.0), d).unwrap(), 9.34) < 0.005);
    assert!(rel_err(strong.epsilon(&at(400.0), d).unwrap(), 24.22) < 0.005);
    let m100 = Accountant::named(AccountantName::Moments)
        .epsilon(&at(100.0), d)
        .unwrap();
    assert!(
        (m100 - 1.26).abs() < 0.005,
        "moments at E=100: {m100} (paper 1.26)"
    );
    let m400 = Accountant::named(AccountantName::Moments)
        .epsilon(&at(400.0), d)
        .unwrap();
    assert!(
        (m400 - 2.576).abs() < 0.001,
        "moments at E=400: {m400} (paper prints 2.55)"
    );
}

#[test]
fn calibration_matches_reference_sigmas() {
    let (header, rows) = common::read_csv("tests/fixtures/reference/calibration.csv");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for row in &rows {
        let f = |name: &str| row[col(name)].parse::<f64>().unwrap();
        for (name, acc) in [
            ("sigma_moments", Accountant::named(AccountantName::Moments)),
            ("sigma_rdp", Accountant::named(AccountantName::Rdp)),
            ("sigma_pld", Accountant::named(AccountantName::Pld)),
        ] {
            let s = sigma_for_epsilon(
                acc,
                f("target_eps"),
                f("delta"),
                f("q"),
                f("steps") as u64,
                1e-7,
            )
            .unwrap();
            assert!(
                rel_err(s, f(name)) < 2e-3,
                "{name} for ε={}: {s} vs {}",
                f("target_eps"),
                f(name)
            );
            let mech = SampledGaussian::new(f("q"), s, f("steps") as u64).unwrap();
            let eps = acc.epsilon(&mech, f("delta")).unwrap();
            assert!(
                eps <= f("target_eps") && eps > f("target_eps") * 0.999,
                "ε(σ*) = {eps}"
            );
        }
    }
}

#[test]
fn edge_cases_give_numbers_not_panics() {
    let all = [
        Accountant::of(AccountantName::Naive, Amplification::Paper),
        Accountant::of(AccountantName::Naive, Amplification::Classical),
        Accountant::of(AccountantName::Naive, Amplification::Rigorous),
        Accountant::of(AccountantName::Strong, Amplification::Paper),
        Accountant::of(AccountantName::Strong, Amplification::Classical),
        Accountant::of(AccountantName::Strong, Amplification::Rigorous),
        Accountant::named(AccountantName::Moments),
        Accountant::named(AccountantName::Rdp),
        Accountant::named(AccountantName::Pld),
    ];
    for acc in all {
        let e = |q, s, t| {
            acc.epsilon(&SampledGaussian::new(q, s, t).unwrap(), 1e-5)
                .unwrap()
        };
        assert_eq!(e(0.01, 0.0, 100), f64::INFINITY, "{acc:?} σ = 0");
        assert_eq!(e(0.0, 1.0, 100), 0.0, "{acc:?} q = 0");
        assert_eq!(e(0.01, 1.0, 0), 0.0, "{acc:?} T = 0");
        for (q, s, t) in [
            (1.0, 1.0, 10),
            (0.01, 0.3, 10_000_000),
            (0.5, 100.0, 1),
            (0.001, 0.3, 1),
        ] {
            let v = e(q, s, t);
            assert!(v.is_finite() && v > 0.0, "{acc:?} q={q} σ={s} T={t}: {v}");
        }
        assert!(acc
            .epsilon(&SampledGaussian::new(0.1, 1.0, 10).unwrap(), 1.0)
            .is_err());
        assert!(acc
            .epsilon(&SampledGaussian::new(0.1, 1.0, 10).unwrap(), 0.0)
            .is_err());
    }
    assert!(SampledGaussian::new(1.5, 1.0, 10).is_err());
    assert!(SampledGaussian::new(-0.1, 1.0, 10).is_err());
}

#[test]
fn budget_steps_and_the_dptrain_question() {
    use dpsgd_lab::privacy::accountant::calibrate::max_steps_within;
    let (q, sigma, delta) = (0.01, 4.0, 1e-5);
    let eps_at = |steps: u64| {
        Accountant::named(AccountantName::Moments)
            .epsilon(&SampledGaussian::new(q, sigma, steps).unwrap(), delta)
    };
    // The paper's setting: ε = 1.26 at E = 100 (10,000 steps), so a budget of 1.26 allows
    // those steps and a few more, not 10,100.
    let t = max_steps_within(&eps_at, 1.26, 100_000).unwrap();
    assert!(
        eps_at(t).unwrap() <= 1.26 && eps_at(t + 1).unwrap() > 1.26,
        "{t} steps"
    );
    assert!((10_000..10_100).contains(&t), "{t} steps");
    assert_eq!(max_steps_within(&eps_at, 1e-9, 1000).unwrap(), 0);
    assert_eq!(max_steps_within(&eps_at, 1e6, 5000).unwrap(), 5000);
}
