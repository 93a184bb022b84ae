//! Browser tests (wasm-bindgen-test in headless Chromium): the wasm build trains the golden run
//! to the same numbers as the native build, the accountants match the reference table, and the
//! charts draw into a real canvas.
#![cfg(target_arch = "wasm32")]

#[path = "common/golden.rs"]
mod golden;
#[path = "common/reference.rs"]
mod reference;

use dpsgd_lab::config::RunConfig;
use dpsgd_lab::data::decode_packed;
use dpsgd_lab::privacy::accountant::SampledGaussian;
use dpsgd_lab::web::{
    calibrate_sigma, draw_accuracy_chart, draw_epsilon_chart, draw_sigma_chart, epsilon_curve,
    epsilon_for, sigma_needed_curve,
};
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const ADULT: &[u8] = include_bytes!("../www/data/adult.bin");
const GOLDEN: &str = include_str!("fixtures/golden_run.json");
const ACCOUNTANTS: &str = include_str!("../../shared/reference/accountants.csv");

#[wasm_bindgen_test]
fn wasm_training_reproduces_the_native_golden_runs() {
    let fixture: serde_json::Value = serde_json::from_str(GOLDEN).unwrap();
    let data = Arc::new(decode_packed(ADULT).unwrap());
    for run in fixture["runs"].as_array().unwrap() {
        let cfg: RunConfig = serde_json::from_value(run["config"].clone()).unwrap();
        let got = golden::run(cfg, data.clone());
        if let Err(e) = golden::compare(run["reports"].as_array().unwrap(), &got, 1e-5) {
            panic!("wasm differs from native: {e}");
        }
    }
}

#[wasm_bindgen_test]
fn accountants_match_the_reference_table_in_wasm() {
    let mut lines = ACCOUNTANTS.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let mut rows = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let v = |n: &str| f[col(n)].parse::<f64>().unwrap();
        let m = SampledGaussian::new(v("q"), v("sigma"), v("steps") as u64).unwrap();
        // The analytic accountants with the paper's amplification (PLD has a test of its own).
        let analytic = ["naive_paper", "strong_paper", "moments", "rdp"];
        for (name, acc, tol) in reference::COLUMNS {
            if !analytic.contains(&name) {
                continue;
            }
            let ours = acc.epsilon(&m, v("delta")).unwrap();
            assert!(
                (ours - v(name)).abs() <= tol * v(name),
                "{name} row {line}: {ours}"
            );
        }
        rows += 1;
    }
    assert!(rows >= 20);
}

#[wasm_bindgen_test]
fn pld_and_calibration_in_wasm() {
    // Reference row q = 0.06, σ = 4, T = 17 (pld 0.227415) and calibration row ε = 2 (σ_rdp 2.27806).
    let pld = epsilon_for("pld", "paper", 0.06, 4.0, 17.0, 1e-5).unwrap();
    assert!((pld / 0.227415 - 1.0).abs() < 0.02, "pld {pld}");
    let s = calibrate_sigma("rdp", 2.0, 1e-5, 0.01, 10_000.0, 0.0, 0.0).unwrap();
    assert!((s / 2.27806 - 1.0).abs() < 2e-3, "σ {s}");
    assert_eq!(
        epsilon_for("moments", "paper", 0.01, 0.0, 100.0, 1e-5).unwrap(),
        f64::INFINITY
    );
    assert!(epsilon_for("moments", "paper", 1.5, 1.0, 100.0, 1e-5).is_err());
    assert!(epsilon_for("bogus", "paper", 0.1, 1.0, 100.0, 1e-5).is_err());
}

fn canvas(id: &str) -> web_sys::HtmlCanvasElement {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    c.set_id(id);
    c.set_width(400);
    c.set_height(300);
    doc.body().unwrap().append_child(&c).unwrap();
    c
}

/// Number of pixels that are not white, read back from the canvas.
fn inked_pixels(c: &web_sys::HtmlCanvasElement) -> usize {
    let ctx: web_sys::CanvasRenderingContext2d =
        c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let data = ctx.get_image_data(0.0, 0.0, 400.0, 300.0).unwrap().data();
    data.chunks(4)
        .filter(|p| p[0] < 200 || p[1] < 200 || p[2] < 200)
        .count()
}

#[wasm_bindgen_test]
fn charts_draw_into_a_canvas() {
    let acc = canvas("acc-test");
    let history = r#"[{"epoch":1,"train_acc":0.80,"test_acc":0.79,"epsilon":{"naive":4.8,"strong":2.4,"moments":1.5,"rdp":1.1}},
                      {"epoch":2,"train_acc":0.83,"test_acc":0.82,"epsilon":{"naive":9.9,"strong":3.6,"moments":1.6,"rdp":1.2}}]"#;
    draw_accuracy_chart(
        "acc-test",
        history,
        r#"[{"label":"pin","history":[{"epoch":1,"test_acc":0.7,"epsilon":{"moments":"inf"}}]}]"#,
        10,
        1.0,
    )
    .unwrap();
    assert!(
        inked_pixels(&acc) > 2000,
        "accuracy chart drew {} pixels",
        inked_pixels(&acc)
    );

    let eps = canvas("eps-test");
    let preview = epsilon_curve(0.01, 1.0, 100.0, 10, 1e-5, 1.0, 7.0).unwrap();
    draw_epsilon_chart("eps-test", &preview, history, "[]", 10, false, 1.0).unwrap();
    draw_epsilon_chart("eps-test", &preview, history, "[]", 10, true, 1.0).unwrap();
    let inked = inked_pixels(&eps);
    assert!(inked > 2000, "epsilon chart drew {inked} pixels");

    assert!(draw_accuracy_chart("no-such-canvas", "[]", "[]", 10, 1.0).is_err());
    assert!(draw_accuracy_chart("acc-test", "not json", "[]", 10, 1.0).is_err());
    assert!(
        draw_accuracy_chart("acc-test", "[]", "{}", 10, 1.0).is_err(),
        "pins must be a list"
    );
}

/// The σ-needed panel in wasm: every σ of the curve spends at most the target ε (checked with
/// the same wasm accountants), σ never falls as the epochs grow, and the chart draws.
#[wasm_bindgen_test]
fn sigma_needed_panel_in_wasm() {
    let (target, delta, q, spe) = (2.0, 1e-5, 0.01, 100.0);
    let json = sigma_needed_curve(target, delta, q, spe, 400, 0.0, 0.0).unwrap();
    let points: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert!(points.len() >= 8, "{json}");
    for name in ["naive", "strong", "moments", "rdp"] {
        let mut last = 0.0;
        for p in &points {
            let sigma = p[name].as_f64().unwrap_or_else(|| panic!("{name}: {p}"));
            let steps = p["epoch"].as_f64().unwrap() * spe;
            let eps = epsilon_for(name, "paper", q, sigma, steps, delta).unwrap();
            assert!(eps <= target * (1.0 + 1e-9), "{name} at {p}: ε = {eps}");
            assert!(sigma >= last, "{name}: σ fell to {sigma} at {p}");
            last = sigma;
        }
    }
    assert!(sigma_needed_curve(-1.0, delta, q, spe, 400, 0.0, 0.0).is_err());
    let c = canvas("sigma-test");
    draw_sigma_chart("sigma-test", &json, target, delta, 20, 1.2, 1.0).unwrap();
    let inked = inked_pixels(&c);
    assert!(inked > 2000, "σ chart drew {inked} pixels");
}
