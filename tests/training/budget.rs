//! The privacy budget: a run stops before the step that would exceed it, a naive budget is
//! measured with the rigorous convention and says so, and a budget smaller than one step is
//! refused with the cost of a step.

use crate::common;
use dpsgd_lab::config::{AccountantName, RunConfig};
use dpsgd_lab::privacy::accountant::Amplification;
use dpsgd_lab::train::Trainer;

#[test]
fn budget_mode_stops_before_the_step_that_would_exceed_it() {
    let cfg = RunConfig {
        sigma: 1.0,
        lot_size: 256,
        epochs: 20,
        seed: Some(3),
        budget_epsilon: Some(1.7),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg.clone(), common::adult()).unwrap();
    let reports: Vec<_> = std::iter::from_fn(|| t.run_epoch()).collect();
    let last = reports.last().unwrap();
    assert!(last.stopped_by_budget && t.is_finished() && reports.len() < 20);
    assert!(reports[..reports.len() - 1]
        .iter()
        .all(|r| !r.stopped_by_budget));
    assert!(
        last.epsilon.moments <= 1.7,
        "ε {} over the budget",
        last.epsilon.moments
    );
    assert!(
        t.epsilon_after(last.steps + 1).moments > 1.7,
        "one more step would still fit"
    );
    assert_eq!(
        last.budget_stop.as_deref(),
        Some("one more step would spend more than ε = 1.7 with the moments accountant")
    );
    assert!(reports[..reports.len() - 1]
        .iter()
        .all(|r| r.budget_stop.is_none()));
    // The noise view places the cut epoch's lots where they were: the last before the end.
    let spe = t.steps_per_epoch();
    let lots_in_last = last.steps - (reports.len() as u64 - 1) * spe;
    let position = last.diag().lot_signal_noise.last().unwrap()[0] as f64;
    assert!(
        position <= lots_in_last as f64 / spe as f64 + 1e-6 && lots_in_last < spe,
        "last sampled lot at {position} of an epoch cut after {lots_in_last} of {spe} lots"
    );
    // A budget the run fits in changes nothing.
    let roomy = RunConfig {
        epochs: 2,
        budget_epsilon: Some(100.0),
        ..cfg
    };
    let mut t = Trainer::new(roomy, common::adult()).unwrap();
    let r: Vec<_> = std::iter::from_fn(|| t.run_epoch()).collect();
    assert_eq!(r.len(), 2);
    assert!(!r[1].stopped_by_budget);
}

#[test]
fn a_naive_budget_is_measured_and_said_to_be_measured_with_the_rigorous_convention() {
    // The report's naive figures follow the paper's optimistic q·ε₀ here; the budget does not.
    let rigorous = RunConfig {
        sigma: 1.0,
        lot_size: 256,
        epochs: 20,
        seed: Some(3),
        ..RunConfig::default()
    };
    let t = Trainer::new(rigorous.clone(), common::adult()).unwrap();
    let budget = t.epsilon_after(30).naive;
    let cfg = RunConfig {
        budget_epsilon: Some(budget),
        budget_accountant: AccountantName::Naive,
        amplification: Amplification::Paper,
        ..rigorous
    };
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    let last = std::iter::from_fn(|| t.run_epoch()).last().unwrap();
    assert_eq!(
        last.steps, 30,
        "the budget is the rigorous naive ε after 30 steps"
    );
    let why = last.budget_stop.expect("stopped by the budget");
    assert!(
        why.ends_with("with the naive accountant (rigorous convention)"),
        "{why}"
    );
    assert!(
        last.epsilon.naive < budget,
        "the report's paper-convention naive ε is lower"
    );
}

#[test]
fn a_budget_smaller_than_one_step_is_refused_with_the_cost_of_a_step() {
    // The moments accountant's bound after one step at σ = 1 (q ≈ 0.008) is 1.28: a budget of
    // 1.2 allows no step at all, which must be said, not left as a run that never reports.
    let cfg = RunConfig {
        budget_epsilon: Some(1.2),
        seed: Some(1),
        ..RunConfig::default()
    };
    let e = Trainer::new(cfg, common::adult()).err().expect("refused");
    assert_eq!(e.field, "budget_epsilon");
    assert!(
        e.message.contains("before the first step") && e.message.contains("1.284"),
        "{e}"
    );
}
