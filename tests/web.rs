//! Browser tests (wasm-bindgen-test in headless Chromium): the wasm build trains the golden run
//! to the same numbers as the native build, the accountants match the reference table, and the
//! charts draw into a real canvas.
//!
//! One module per concern, under tests/web/ (still one test crate, so `--test web` runs them
//! all): training, data-parallel training, accounting, charts, the QR code, a student's file.
//! The shared helpers stay here.
#![cfg(target_arch = "wasm32")]

#[path = "common/golden.rs"]
mod golden;
#[path = "common/noise_rng.rs"]
mod noise_rng;
#[path = "common/reference.rs"]
mod reference;

#[path = "web/accounting.rs"]
mod accounting;
#[path = "web/chart_pins.rs"]
mod chart_pins;
#[path = "web/chart_screens.rs"]
mod chart_screens;
#[path = "web/charts.rs"]
mod charts;
#[path = "web/own_file.rs"]
mod own_file;
#[path = "web/parallel.rs"]
mod parallel;
#[path = "web/share.rs"]
mod share;
#[path = "web/training.rs"]
mod training;

use dpsgd_lab::config::RunConfig;
use dpsgd_lab::data::DataFacts;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const ADULT: &[u8] = include_bytes!("../www/data/adult.bin");

/// The facts of Adult and a config object, as the page would send them.
fn adult_facts() -> JsValue {
    let facts = DataFacts {
        n_train: 32561,
        n_test: 16281,
        n_features: 104,
        n_classes: 2,
        private: false,
        releases: Vec::new(),
        majority_share: Some(0.764),
    };
    serde_wasm_bindgen::to_value(&facts).unwrap()
}

fn config(cfg: RunConfig) -> JsValue {
    let json = serde_json::to_string(&cfg).unwrap();
    js_sys::JSON::parse(&json).unwrap()
}

fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}
