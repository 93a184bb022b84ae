//! Browser benchmarks (run by `make bench`, not by `make test`): the same cases as
//! `dpsgd bench`, in wasm in headless Chromium; the figures are printed as JSON lines.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn training_throughput_in_wasm() {
    for line in dpsgd_lab::web::bench_training(1000.0).lines() {
        console_log!("{line}");
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["examples_per_sec"].as_f64().unwrap() > 0.0);
    }
}

#[wasm_bindgen_test]
fn accountant_curves_in_wasm() {
    let lines = dpsgd_lab::web::bench_accountants();
    for line in lines.lines() {
        console_log!("{line}");
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["value"].as_f64().unwrap().is_finite());
    }
}

#[wasm_bindgen_test]
fn matrix_products_in_wasm() {
    for line in dpsgd_lab::web::bench_kernels(300.0).lines() {
        console_log!("{line}");
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["gflops"].as_f64().unwrap() > 0.0);
    }
}
