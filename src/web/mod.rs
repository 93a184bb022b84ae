//! The browser facade (wasm32 only): a thin `#[wasm_bindgen]` layer over the core. The worker
//! uses [`LabData`] and [`Session`] to train; the page uses [`epsilon_curve`] and the chart
//! functions to draw the reports the worker posts (plotters-canvas needs the DOM, so charts
//! are drawn on the main thread).

mod accounting;
mod charts;
mod session;
mod sigma_chart;
mod views;

pub use accounting::{
    bench_accountants, bench_kernels, bench_training, calibrate_sigma, epsilon_curve, epsilon_for,
    pld_epsilon_curve, sigma_needed_curve,
};
pub use charts::{draw_accuracy_chart, draw_epsilon_chart};
pub use session::{LabData, Session};
pub use sigma_chart::draw_sigma_chart;
pub use views::{clipped_fraction, draw_boundary, draw_clipping_histogram, draw_noise_chart};

use wasm_bindgen::prelude::*;

/// Panics show up in the browser console with their message instead of "unreachable".
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}
