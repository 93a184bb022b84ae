//! The browser facade (wasm32 only): a thin `#[wasm_bindgen]` layer over the core.
//!
//! - [`session`]: the training worker's [`LabData`] and [`Session`]; [`parallel`]: the same
//!   Session as the coordinator of data-parallel training, and its helpers' [`GradientWorker`].
//! - [`accounting`]: what the page and its accounting worker ask of the accountants — the ε
//!   preview, the PLD curve, calibration, the σ-needed panel — always from the run's settings
//!   and the data's public facts, so the page never derives a privacy quantity itself.
//! - [`audit`]: the audit workers' [`AuditSession`] and the audit panel's two charts.
//! - one file per chart, on the toolkit in [`chart_kit`] and the frame (header, axes laid
//!   out by [`crate::charts`], the layouts drawn) in [`chart_frame`]; [`bench`] for `make bench`.
//! - [`share`]: the lab's link as a QR code's modules, for the page's "QR code" button;
//!   [`export`]: the run as an Opacus script, for the page's "Export as Opacus script".
//!
//! Values cross the boundary as JS objects (serde-wasm-bindgen), with ∞ written "inf" as in
//! the CLI's JSON.

mod accounting;
mod accuracy_chart;
mod alice_chart;
mod audit;
mod audit_chart;
mod bench;
mod boundary_chart;
mod chart_frame;
mod chart_kit;
mod chart_record;
mod clipping_chart;
mod epsilon_chart;
mod export;
mod groups_chart;
mod legend;
mod legend_sample;
mod noise_chart;
mod parallel;
mod preview_keys;
mod refusal;
mod run_view;
mod session;
mod share;
mod sigma_chart;

/// The charts' log-axis labels (public for the browser tests).
#[doc(hidden)]
pub use crate::charts::log_label;
pub use accounting::{
    accountants, calibrate, check_run_config, epsilon_for, epsilon_preview, file_ledger,
    format_epsilon, group_choices, lot_at_least_n, pld_preview, run_defaults, sigma_needed,
    suggested_settings,
};
pub use accuracy_chart::{draw_accuracy_chart, y_range as accuracy_y_range};
pub use alice_chart::draw_alice;
pub use audit::AuditSession;
pub use audit_chart::{draw_audit_epsilons, draw_audit_region};
pub use bench::{bench_accountants, bench_kernels, bench_session, bench_training};
pub use boundary_chart::draw_boundary;
pub use chart_record::chart_layout;
pub use clipping_chart::{clipped_fraction, draw_clipping_histogram};
pub use epsilon_chart::draw_epsilon_chart;
pub use export::{opacus_export, OpacusDownload};
pub use groups_chart::draw_groups_chart;
pub use noise_chart::draw_noise_chart;
pub use parallel::GradientWorker;
pub use preview_keys::preview_keys;
pub use run_view::RunView;
pub use session::{LabData, RunSettings, Session};
pub use share::{qr_modules, QrModules};
pub use sigma_chart::draw_sigma_chart;

use crate::config::RunConfig;
use serde::de::DeserializeOwned;
use serde::Serialize;
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

pub(crate) fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// A Rust value as a plain JS object (maps as objects, `None` as null).
pub(crate) fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_err)
}

/// A JS value as a Rust value; the error names `what` was malformed.
pub(crate) fn from_js<T: DeserializeOwned>(v: JsValue, what: &str) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(v).map_err(|e| JsError::new(&format!("{what}: {e}")))
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
