//! The privacy budget's stop (the paper's DPTrain, Section 3.1: training stops before the step
//! whose ε would exceed the budget), computed once per run from its mechanism.

use crate::config::{fmt_num, ConfigError, RunConfig};
use crate::privacy::accountant::calibrate::max_steps_within;
use crate::privacy::accountant::compose;
use crate::privacy::accountant::mechanism::Mechanism;

/// The step count at which `cfg`'s budget stops the run `mechanism` is: the largest T whose ε,
/// everything the run releases included, stays within it (None without a budget). The trainer
/// stops there; an export (`crate::export`) plans the same number of steps.
pub fn budget_step_limit(
    cfg: &RunConfig,
    mechanism: &Mechanism,
) -> Result<Option<u64>, ConfigError> {
    let Some(budget) = cfg.budget_epsilon else {
        return Ok(None);
    };
    let as_config = |e: crate::privacy::accountant::AccountError| ConfigError {
        field: "budget_accountant",
        message: e.message,
    };
    let acc = cfg.budget_accountant();
    let limit = mechanism.total_steps();
    // Planned like the reports' running compositions (the whole run), so the ε at the stop
    // is the ε the report shows.
    let whole_run = mechanism.after_epochs(mechanism.epochs);
    let eps =
        |t: u64| compose::epsilon_planned(acc, &mechanism.after_steps(t), &whole_run, cfg.delta);
    let within = max_steps_within(&eps, budget, limit).map_err(as_config)?;
    if within == 0 {
        let first = eps(1).map_err(as_config)?;
        return Err(ConfigError {
            field: "budget_epsilon",
            message: format!(
                "the ε budget {} is spent before the first step (one step already costs \
                 ε = {} with the {} accountant): raise the budget or add noise",
                fmt_num(budget),
                fmt_num((first * 1000.0).ceil() / 1000.0),
                acc.name()
            ),
        });
    }
    Ok((within < limit).then_some(within)) // a budget the whole run fits in never stops it
}
