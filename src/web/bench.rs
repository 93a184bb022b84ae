//! The benchmarks of `crate::bench` in the browser (run by `make bench`): the same code as
//! `dpsgd bench`, timed with `performance.now()`; one JSON line per case.

use super::js_err;
use super::session::Session;
use crate::bench;
use crate::config::RunConfig;
use crate::train::part::LotParts;
use crate::train::Trainer;
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// `performance.now()` (in a window or a worker), or `Date.now()` where there is none.
fn now_ms() -> f64 {
    let global = js_sys::global();
    let perf = js_sys::Reflect::get(&global, &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
    perf.map_or_else(js_sys::Date::now, |p| p.now())
}

fn json_lines<T: Serialize>(lines: &[T]) -> String {
    lines
        .iter()
        .map(|l| serde_json::to_string(l).expect("bench line serialises"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The accountant benchmark; one JSON line per case.
#[wasm_bindgen]
pub fn bench_accountants() -> String {
    json_lines(&bench::accountant_curves("wasm", &now_ms))
}

/// The training-throughput benchmark, about `budget_ms` per case; one JSON line per case.
#[wasm_bindgen]
pub fn bench_training(budget_ms: f64) -> String {
    json_lines(&bench::training("wasm", &now_ms, budget_ms))
}

/// The matrix-product benchmark; one JSON line per product.
#[wasm_bindgen]
pub fn bench_kernels(budget_ms: f64) -> String {
    json_lines(&bench::kernels("wasm", &now_ms, budget_ms))
}

/// A training benchmark's run (`bench::TRAINING_CASES`, private) as a [`Session`], for the
/// data-parallel benchmark (`scripts/bench-parallel.mjs` drives it through the training
/// worker's own lot loop with k workers). `batch`, when given, is the examples summed at once
/// within a part (the case's own: the whole lot).
#[wasm_bindgen]
pub fn bench_session(model: &str, batch: Option<u32>) -> Result<Session, JsError> {
    let (cfg, data) = bench::training_case(model, true)
        .ok_or_else(|| JsError::new(&format!("no benchmark case '{model}'")))?;
    // Lots only: no epoch reports, accounting or evaluation in the figure; never finished.
    let cfg = RunConfig {
        epochs: 10_000,
        batch_size: batch.map_or(cfg.batch_size, |b| b.max(1) as usize),
        ..cfg
    };
    let trainer = Trainer::for_audit(cfg, data, None, None, u64::MAX).map_err(js_err)?;
    Ok(Session {
        trainer,
        unreported: true,
        lot: LotParts::default(),
    })
}

#[wasm_bindgen]
impl Session {
    /// The kernel's GFLOP/s on this benchmark session's products for a part of `n` examples,
    /// for about `budget_ms` ([`bench::ceiling::products_gflops`]): `make bench` times it in
    /// one worker, then in two at once.
    #[wasm_bindgen(js_name = benchProducts)]
    pub fn bench_products(&self, n: u32, budget_ms: f64) -> f64 {
        let sizes = self.trainer.model().sizes().to_vec();
        bench::ceiling::products_gflops(&sizes, n as usize, &now_ms, budget_ms)
    }

    /// `make bench`'s ceiling of this benchmark session's (`model`'s) part 0 of `k`
    /// ([`bench::ceiling::lot_ceiling`]), about `budget_ms` for its phases and as long again
    /// for its products; one JSON line. Draws lots without stepping: call it last.
    #[wasm_bindgen(js_name = benchCeiling)]
    pub fn bench_ceiling(&mut self, model: &str, k: u32, budget_ms: f64) -> String {
        let k = k.max(1) as usize;
        let line =
            bench::ceiling::lot_ceiling("wasm", model, &mut self.trainer, k, &now_ms, budget_ms);
        serde_json::to_string(&line).expect("bench line serialises")
    }
}
