//! The "Audit this run" panel's side of the core: [`AuditSession`], run in every audit worker
//! (each does the runs it is handed; their scores are combined by one of them). Its two charts
//! are [`super::draw::audit_chart`]'s.

use super::session::LabData;
use super::{config_from_js, from_js, js_err, to_js};
use crate::audit::{summarize, worker_bytes, AuditPlan, AuditSpec, RunScores};
use crate::data::DataFacts;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// About how much memory one audit worker takes for a data set (`DataFacts`), in bytes, in a
/// multi-run audit (`one_run_canaries` = 0) or a one-run audit with that many canaries, or an
/// Alice audit (`alice`): the page runs no more audit workers than fit in half the device's
/// memory (www/views/cores.js).
#[wasm_bindgen]
pub fn audit_worker_bytes(
    facts: JsValue,
    one_run_canaries: u32,
    alice: bool,
) -> Result<f64, JsError> {
    let facts: DataFacts = from_js(facts, "data facts")?;
    Ok(worker_bytes(&facts, one_run_canaries as usize, alice))
}

/// An audit of one run's settings (a JS object of `RunConfig` fields) on a data set, with
/// the audit's spec ({threat, runs, canaries, seed}): the same plan in every worker.
#[wasm_bindgen]
pub struct AuditSession {
    plan: AuditPlan,
}

#[wasm_bindgen]
impl AuditSession {
    #[wasm_bindgen(constructor)]
    pub fn new(data: &LabData, config: JsValue, spec: JsValue) -> Result<AuditSession, JsError> {
        let cfg = config_from_js(&config)?;
        let spec: AuditSpec = from_js(spec, "audit")?;
        let plan = AuditPlan::new(cfg, Arc::clone(data.dataset()), spec).map_err(js_err)?;
        Ok(AuditSession { plan })
    }

    /// Runs in all (2R, and one for the one-run audit).
    #[wasm_bindgen(js_name = totalRuns)]
    pub fn total_runs(&self) -> u32 {
        self.plan.total_runs() as u32
    }

    /// Run `index`: {index, member, scores}.
    pub fn run(&self, index: u32) -> Result<JsValue, JsError> {
        to_js(&self.plan.run(index as usize).map_err(js_err)?)
    }

    /// The audit's report from every run's scores (an array, any order).
    pub fn summarize(&self, runs: JsValue) -> Result<JsValue, JsError> {
        let runs: Vec<RunScores> = from_js(runs, "audit runs")?;
        if runs.len() != self.plan.total_runs() {
            return Err(JsError::new(&format!(
                "{} of {} audit runs",
                runs.len(),
                self.plan.total_runs()
            )));
        }
        to_js(&summarize(&self.plan, &runs))
    }
}
