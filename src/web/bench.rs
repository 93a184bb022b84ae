//! The benchmarks of `crate::bench` in the browser (run by `make bench`): the same code as
//! `dpsgd bench`, timed with `performance.now()`; one JSON line per case.

use crate::bench;
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
