//! The browser facade (wasm32 only): a thin `#[wasm_bindgen]` layer over the core.
//!
//! - [`session`]: the training worker's [`LabData`] and [`Session`]; [`parallel`]: the same
//!   Session as the coordinator of data-parallel training, and its helpers' [`GradientWorker`].
//! - [`accounting`]: what the page and its accounting worker ask of the accountants — the ε
//!   preview, the PLD curve, calibration, the σ-needed panel — always from the run's settings
//!   and the data's public facts, so the page never derives a privacy quantity itself.
//! - [`audit`]: the audit workers' [`AuditSession`] and the audit panel's two charts.
//! - [`draw`]: every chart the page draws, one file each, on its toolkit and frame; the room
//!   below the entry points here (it draws what it is given and calls none of them:
//!   `tests/layers.rs`). [`bench`] for `make bench`.
//! - [`share`]: the lab's link as a QR code's modules, for the page's "QR code" button;
//!   [`export`]: the run as an Opacus script, for the page's "Export as Opacus script".
//!
//! Values cross the boundary as JS objects (serde-wasm-bindgen), with ∞ written "inf" as in
//! the CLI's JSON.

mod accounting;
mod audit;
mod bench;
mod draw;
mod export;
mod js;
mod parallel;
mod preview_keys;
mod refusal;
mod session;
mod share;

/// The charts' log-axis labels (public for the browser tests).
#[doc(hidden)]
pub use crate::charts::log_label;
pub use accounting::{
    accountants, adds_noise, calibrate, check_run_config, epsilon_for, epsilon_preview,
    file_ledger, format_epsilon, group_choices, lot_at_least_n, pld_preview, run_defaults,
    sigma_needed, suggested_settings,
};
pub use audit::AuditSession;
pub use bench::{bench_accountants, bench_kernels, bench_session, bench_training};
pub use draw::accuracy_chart::{draw_accuracy_chart, y_range as accuracy_y_range};
pub use draw::alice_chart::draw_alice;
pub use draw::audit_chart::{draw_audit_epsilons, draw_audit_region};
pub use draw::boundary_chart::draw_boundary;
pub use draw::chart_record::chart_layout;
pub use draw::clipping_chart::{clipped_fraction, draw_clipping_histogram};
pub use draw::epsilon_chart::draw_epsilon_chart;
pub use draw::groups_chart::draw_groups_chart;
pub use draw::noise_chart::{draw_noise_chart, NO_NOISE};
pub use draw::run_view::RunView;
pub use draw::sigma_chart::draw_sigma_chart;
pub use export::{opacus_accountants, opacus_export, OpacusDownload};
pub use parallel::GradientWorker;
pub use preview_keys::preview_keys;
pub use session::{LabData, RunSettings, Session};
pub use share::{qr_modules, QrModules};

use crate::config::RunConfig;
pub(crate) use js::{from_js, js_err, to_js};
use std::sync::atomic::{AtomicU32, Ordering};
use wasm_bindgen::prelude::*;

/// How many times this instance has parsed a run's settings (for the tests).
#[doc(hidden)]
#[wasm_bindgen]
pub fn config_parses() -> u32 {
    CONFIG_PARSES.load(Ordering::Relaxed)
}

/// Panics show up in the browser console with their message instead of "unreachable".
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// Two test accuracies compared on a test set of `n_test` examples (`train::gap`): `{points,
/// margin, clear}` — the difference and its ± in percentage points, and whether it is beyond
/// the ± — or undefined when a share is not one. The lessons' comparisons say it (#53).
#[wasm_bindgen]
pub fn accuracy_gap(before: f64, after: f64, n_test: usize) -> Result<JsValue, JsError> {
    match crate::train::gap::accuracy_gap(before, after, n_test) {
        Some(gap) => to_js(&gap),
        None => Ok(JsValue::UNDEFINED),
    }
}

/// The matrix-product kernel this build runs (`linalg::KERNEL`): "relaxed-simd fma" in the
/// relaxed-SIMD build, "gemm simd128" in the fallback. The page names it in its footer.
#[wasm_bindgen]
pub fn matrix_kernel() -> String {
    crate::linalg::KERNEL.into()
}

/// For the tests only: a Rust panic, as a bug would cause one. The page must notice that the
/// worker's wasm instance is gone and start a new worker with the last settings.
#[wasm_bindgen]
#[doc(hidden)]
pub fn panic_for_tests() {
    panic!("panic_for_tests: a deliberate panic");
}

/// How many times the settings of a run have been parsed in this instance (`config_parses`).
static CONFIG_PARSES: AtomicU32 = AtomicU32::new(0);

/// A run's settings from a JS object, with the same readable, field-naming errors as the CLI:
/// through its JSON text, which `RunConfig::from_json` reads field by field to name the bad
/// one. Each consumer parses once: a preview, an accounting request, a start (`RunSettings`,
/// which the `Session` then takes as it is). Counted, for the test that holds it so.
pub(crate) fn config_from_js(v: &JsValue) -> Result<RunConfig, JsError> {
    CONFIG_PARSES.fetch_add(1, Ordering::Relaxed);
    let text = js_sys::JSON::stringify(v)
        .map_err(|_| JsError::new("config: not a plain object"))?
        .as_string()
        .unwrap_or_default();
    RunConfig::from_json(&text).map_err(js_err)
}
