//! Browser tests (wasm-bindgen-test in headless Chromium): the wasm build trains the golden run
//! to the same numbers as the native build, the accountants match the reference table, and the
//! charts draw into a real canvas.
#![cfg(target_arch = "wasm32")]

#[path = "common/golden.rs"]
mod golden;
#[path = "common/reference.rs"]
mod reference;

use dpsgd_lab::config::RunConfig;
use dpsgd_lab::data::{decode_packed, DataFacts};
use dpsgd_lab::privacy::accountant::SampledGaussian;
use dpsgd_lab::web::{
    accuracy_y_range, calibrate, draw_accuracy_chart, draw_epsilon_chart, draw_sigma_chart,
    epsilon_for, epsilon_preview, format_epsilon, sigma_needed,
};
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const ADULT: &[u8] = include_bytes!("../www/data/adult.bin");
const GOLDEN: &str = include_str!("fixtures/golden_run.json");
const ACCOUNTANTS: &str = include_str!("fixtures/reference/accountants.csv");

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

/// The kernel this build runs is the one its target features promise, and in the relaxed-SIMD
/// build (`make test` runs this file in both) the fused kernel agrees with gemm's simd128
/// product on the models' shapes and on ragged ones, row- and column-major B.
#[wasm_bindgen_test]
fn the_matrix_kernel_is_the_builds_and_agrees_with_gemm() {
    use dpsgd_lab::linalg::{gemm_matmul, KERNEL};
    use ndarray::Array2;
    // The fused kernel itself on every shape (matmul leaves thin ones to gemm); in the
    // simd128 build, matmul.
    #[cfg(target_feature = "relaxed-simd")]
    let fused_or_matmul = dpsgd_lab::linalg::fma::matmul::<dpsgd_lab::linalg::fma::Relaxed>;
    #[cfg(not(target_feature = "relaxed-simd"))]
    let fused_or_matmul = dpsgd_lab::linalg::matmul;
    let relaxed = cfg!(target_feature = "relaxed-simd");
    assert_eq!(
        KERNEL,
        if relaxed {
            "relaxed-simd fma"
        } else {
            "gemm simd128"
        }
    );
    let value = |i: usize, j: usize| ((i * 37 + j * 11) % 19) as f32 / 7.0 - 1.3;
    for (m, k, n) in [
        (600, 60, 1000),
        (600, 10, 1000),
        (60, 600, 1000),
        (7, 300, 13),
        (130, 5, 9),
        // Fused-kernel edges: a last row panel of 2 (MR = 3), whole 12-column panels only,
        // and a partial last one.
        (131, 40, 48),
        (65, 20, 37),
    ] {
        let a = Array2::from_shape_fn((m, k), |(i, j)| value(i, j));
        let b = Array2::from_shape_fn((k, n), |(i, j)| value(j + 3, i));
        let bt = b.t().as_standard_layout().into_owned();
        for b in [b.view(), bt.t()] {
            let (mut c, mut want) = (
                Array2::from_elem((m, n), 0.25),
                Array2::from_elem((m, n), 0.25),
            );
            fused_or_matmul(&mut c.view_mut(), &a.view(), &b, true);
            gemm_matmul(&mut want.view_mut(), &a.view(), &b, true);
            let worst = (&c - &want).iter().fold(0.0f32, |w, d| w.max(d.abs()));
            assert!(worst <= 2e-6 * k as f32, "{m}x{k}x{n}: {worst}");
        }
    }
}

/// Log-axis labels stay short at any ε: 1, 2 and 5 times powers of ten, exponents outside
/// 0.01..10⁴ (a 9-digit ε no longer overflows the label area; 5e-4 is not shown as 0.001).
#[wasm_bindgen_test]
fn log_axis_labels_fit_at_any_scale() {
    use dpsgd_lab::web::log_label;
    let cases = [
        (0.0005, "5e-4"),
        (0.001, "1e-3"),
        (0.02, "0.02"),
        (0.5, "0.5"),
        (1.0, "1"),
        (2000.0, "2000"),
        (10000.0, "1e4"),
        (5e8, "5e8"),
        (3.0, ""),
        (7e8, ""),
    ];
    for (v, want) in cases {
        assert_eq!(log_label(&v), want, "label of {v}");
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
        // The analytic accountants (PLD has a test of its own).
        let analytic = [
            "naive_paper",
            "naive_rigorous",
            "strong_paper",
            "moments",
            "rdp",
        ];
        for (name, ours, tol) in reference::COLUMNS {
            if !analytic.contains(&name) {
                continue;
            }
            let ours = ours.epsilon(&m, v("delta"));
            assert!(
                (ours - v(name)).abs() <= tol * v(name),
                "{name} row {line}: {ours}"
            );
        }
        rows += 1;
    }
    assert!(rows >= 20);
}

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

#[wasm_bindgen_test]
fn pld_and_calibration_in_wasm() {
    // Reference row q = 0.06, σ = 4, T = 17 (pld 0.227415).
    let pld = epsilon_for("pld", "rigorous", 0.06, 4.0, 17.0, 1e-5).unwrap();
    assert!((pld / 0.227415 - 1.0).abs() < 0.02, "pld {pld}");
    // Calibration of the page's default run: σ rounded up, its ε within the target.
    let cfg = RunConfig {
        epochs: 5,
        ..RunConfig::default()
    };
    let r = calibrate(config(cfg.clone()), adult_facts(), "rdp", 1.5).unwrap();
    let sigma = js_sys::Reflect::get(&r, &"sigma".into())
        .unwrap()
        .as_f64()
        .unwrap();
    let eps = js_sys::Reflect::get(&r, &"epsilon".into())
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(eps <= 1.5 && eps > 1.45, "σ {sigma} spends {eps}");
    assert_eq!(
        format!("{sigma:.4}").parse::<f64>().unwrap(),
        sigma,
        "4 decimals"
    );
    assert_eq!(
        epsilon_for("moments", "rigorous", 0.01, 0.0, 100.0, 1e-5).unwrap(),
        f64::INFINITY
    );
    assert!(epsilon_for("moments", "rigorous", 1.5, 1.0, 100.0, 1e-5).is_err());
    assert!(epsilon_for("bogus", "rigorous", 0.1, 1.0, 100.0, 1e-5).is_err());
    assert!(calibrate(config(cfg), JsValue::from_str("not facts"), "rdp", 1.5).is_err());
    assert_eq!(format_epsilon(JsValue::from_str("inf")), "∞");
    assert_eq!(format_epsilon(JsValue::from_f64(1.4996)), "1.500");
    assert_eq!(
        format_epsilon(JsValue::from_f64(1.5001)),
        "1.501",
        "rounded up, never down"
    );
    assert_eq!(format_epsilon(JsValue::from_f64(999_999.2)), "1000000");
    assert_eq!(
        format_epsilon(JsValue::from_f64(50_555_480_321.0)),
        "5.06e10"
    );
    assert_eq!(
        format_epsilon(JsValue::from_f64(9.999e7)),
        "1.00e8",
        "up across a power of ten"
    );
    assert_eq!(format_epsilon(JsValue::from_f64(2e6)), "2.00e6");
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

fn js(json: &str) -> JsValue {
    js_sys::JSON::parse(json).unwrap()
}

#[wasm_bindgen_test]
fn charts_draw_into_a_canvas() {
    let acc = canvas("acc-test");
    let history = js(
        r#"[{"epoch":1,"train_acc":0.80,"test_acc":0.79,"epsilon":{"naive":4.8,"strong":2.4,"moments":1.5,"rdp":1.1,"pld":1.0}},
                      {"epoch":2,"train_acc":0.83,"test_acc":0.82,"epsilon":{"naive":9.9,"strong":3.6,"moments":1.6,"rdp":1.2,"pld":1.1}}]"#,
    );
    let pins = js(
        r#"[{"label":"pin","history":[{"epoch":1,"test_acc":0.7,"epsilon":{"moments":"inf"}}]}]"#,
    );
    draw_accuracy_chart("acc-test", history.clone(), pins, 10, Some(0.764), 1.0).unwrap();
    assert!(
        inked_pixels(&acc) > 2000,
        "accuracy chart drew {} pixels",
        inked_pixels(&acc)
    );

    let eps = canvas("eps-test");
    let cfg = RunConfig {
        epochs: 10,
        pca: Some(20),
        ..RunConfig::default()
    };
    let preview = epsilon_preview(config(cfg), adult_facts()).unwrap();
    let empty = js("[]");
    for log_log in [false, true] {
        draw_epsilon_chart(
            "eps-test",
            preview.clone(),
            JsValue::NULL,
            history.clone(),
            empty.clone(),
            "paper",
            10,
            log_log,
            1.0,
        )
        .unwrap();
    }
    let inked = inked_pixels(&eps);
    assert!(inked > 2000, "epsilon chart drew {inked} pixels");

    assert!(draw_accuracy_chart(
        "no-such-canvas",
        empty.clone(),
        empty.clone(),
        10,
        None,
        1.0
    )
    .is_err());
    assert!(draw_accuracy_chart(
        "acc-test",
        JsValue::from_str("not a list"),
        empty.clone(),
        10,
        None,
        1.0
    )
    .is_err());
    assert!(
        draw_accuracy_chart("acc-test", empty, js("{}"), 10, None, 1.0).is_err(),
        "pins must be a list"
    );
}

/// The σ-needed panel in wasm: every σ of the curve spends at most the target ε (checked with
/// the same wasm accountants), σ never falls as the epochs grow, and the chart draws.
#[wasm_bindgen_test]
fn sigma_needed_panel_in_wasm() {
    let (target, delta) = (2.0, 1e-5);
    let (q, spe) = (256.0 / 32561.0, 127.0);
    let curve = sigma_needed(config(RunConfig::default()), adult_facts(), target).unwrap();
    let points: Vec<serde_json::Value> = serde_wasm_bindgen::from_value(curve.clone()).unwrap();
    assert!(points.len() >= 8, "{points:?}");
    for name in ["naive", "strong", "moments", "rdp"] {
        let mut last = 0.0;
        for p in &points {
            let Some(sigma) = p[name].as_f64() else {
                continue; // no σ reaches the target there
            };
            let steps = p["epoch"].as_f64().unwrap() * spe;
            let eps = epsilon_for(name, "rigorous", q, sigma, steps, delta).unwrap();
            assert!(eps <= target * (1.0 + 1e-9), "{name} at {p}: ε = {eps}");
            assert!(sigma >= last, "{name}: σ fell to {sigma} at {p}");
            last = sigma;
        }
    }
    assert!(sigma_needed(config(RunConfig::default()), adult_facts(), -1.0).is_err());
    let c = canvas("sigma-test");
    draw_sigma_chart("sigma-test", curve, target, delta, 20, 1.2, 1.0).unwrap();
    let inked = inked_pixels(&c);
    assert!(inked > 2000, "σ chart drew {inked} pixels");
}

#[wasm_bindgen_test]
fn the_worst_case_audit_meets_the_trade_off_curve_in_wasm() {
    use dpsgd_lab::audit::{summarize, AuditPlan, AuditSpec, Threat};
    // Full batch (q = 1), σ = 1, 2 steps: the μ-GDP curve (μ = √2); 40 runs a side (the
    // debug build of the wasm tests is slow; tests/audit.rs does 1000 natively).
    let data = Arc::new(dpsgd_lab::data::builtin::load_builtin("blobs", &[], 0, 0.1).unwrap());
    let cfg = RunConfig {
        sigma: 1.0,
        lot_size: 600,
        epochs: 2,
        dataset: "blobs".into(),
        ..RunConfig::default()
    };
    let spec = AuditSpec {
        threat: Threat::WorstCase,
        runs: 40,
        canaries: 0,
        seed: 4,
        fault: Default::default(),
    };
    let plan = AuditPlan::new(cfg, data, spec).unwrap();
    let runs = plan.run_all(&mut |_, _| {}).unwrap();
    let r = summarize(&plan, &runs);
    let pld = r.eps_upper["pld"];
    assert!(r.eps_lower <= pld, "ε_lower {} vs PLD {pld}", r.eps_lower);
    for f in ["0.1", "0.2"] {
        assert!(
            (r.tpr_at_fpr[f] - r.theory_tpr_at_fpr[f]).abs() < 0.2,
            "FPR {f}: {} vs {}",
            r.tpr_at_fpr[f],
            r.theory_tpr_at_fpr[f]
        );
    }
}

/// The accuracy chart's y range fits the curves and the majority baseline (#13): Adult's 84%
/// against its 76% baseline, not a fixed 0.8–1.0 with the baseline off the chart.
#[wasm_bindgen_test]
fn accuracy_range_fits_the_curves_and_the_baseline() {
    assert_eq!(
        accuracy_y_range([0.84, 0.85, 0.764].into_iter()),
        (0.7, 0.9)
    );
    assert_eq!(accuracy_y_range([0.99, 1.0].into_iter()), (0.9, 1.0));
    assert_eq!(accuracy_y_range([0.03].into_iter()), (0.0, 0.1));
    assert_eq!(accuracy_y_range(std::iter::empty()), (0.0, 1.0));
}

#[wasm_bindgen_test]
fn a_gradient_helper_sums_what_the_trainer_sums_and_refuses_what_does_not_fit() {
    use dpsgd_lab::config::{Clipping, Mode, ModelKind};
    use dpsgd_lab::train::part::{part_digest, PartSum, PartWork};
    use dpsgd_lab::train::Trainer;
    use dpsgd_lab::web::GradientWorker;
    let data = Arc::new(decode_packed(ADULT).unwrap());
    let cfg = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![16],
        clipping: Clipping::PerLayer,
        lot_size: 600,
        seed: Some(4),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, data.clone()).unwrap();
    t.draw_lot();
    let rows = t.lot_part(1, 2).to_vec();
    let part: Vec<u32> = rows.iter().map(|&i| i as u32).collect();
    // What the training worker sums for part 1 of 2 (`Trainer::sum_own_part`).
    let mut want = PartSum::default();
    want.reset(t.params().len());
    let mut model = t.model().clone();
    PartWork::new(256, data.n_features()).sum_part(
        &mut model,
        (&data.train).into(),
        &rows,
        Mode::Dp,
        t.clip_bounds(),
        &mut want,
    );
    // A helper given the rows, the run's spec and the parameters sums the same, bit for bit.
    let x: Vec<f32> = data.train.x.iter().copied().collect();
    let y: Vec<u32> = data.train.y.iter().map(|&c| c as u32).collect();
    let mut helper = GradientWorker::new(x, y.clone()).unwrap();
    let spec = format!(
        r#"{{"sizes": [{}, 16, 2], "mode": "dp", "batch": 256}}"#,
        data.n_features()
    );
    helper.configure(js(&spec)).unwrap();
    let params = t.params().to_vec();
    helper.sum(&params, &part, t.clip_bounds()).unwrap();
    let grad = js_sys::Float32Array::new_with_length(params.len() as u32);
    helper.grad_into(&grad).unwrap();
    assert_eq!(grad.to_vec(), want.grad);
    // A buffer of the wrong length is refused, not a panic.
    let short = js_sys::Float32Array::new_with_length(params.len() as u32 - 1);
    assert!(helper.grad_into(&short).is_err());
    assert_eq!(helper.norms(), want.norms);
    let counts = [want.examples, want.clipped, want.unclipped].map(|c| c as u32);
    assert_eq!(
        helper.counts(),
        [&counts[..], &[part_digest(&rows)]].concat()
    );
    assert!(want.examples == rows.len() && want.grad.iter().any(|&g| g != 0.0));
    // Refusals: a row beyond the data, the wrong parameter count, a bound of 0, bad rows.
    let n = y.len() as u32;
    assert!(helper.sum(&params, &[n], t.clip_bounds()).is_err());
    assert!(helper.sum(&params[1..], &part, t.clip_bounds()).is_err());
    assert!(helper.sum(&params, &part, &[0.0, 1.0]).is_err());
    let wrong = r#"{"sizes": [3, 2], "mode": "dp", "batch": 1}"#;
    assert!(helper.configure(js(wrong)).is_err());
    assert!(GradientWorker::new(vec![1.0; 5], vec![0, 1]).is_err());
}

#[wasm_bindgen_test]
fn the_training_worker_writes_its_parameters_into_a_helpers_buffer_of_their_length_only() {
    let session = dpsgd_lab::web::bench_session("mlp 60-1000-10").unwrap();
    let n = session.n_params();
    assert_eq!(n, 60 * 1000 + 1000 + 1000 * 10 + 10);
    let buffer = js_sys::Float32Array::new_with_length(n);
    session.params_into(&buffer).unwrap();
    let params = buffer.to_vec();
    assert!(params.iter().all(|p| p.is_finite()) && params.iter().any(|&p| p != 0.0));
    let long = js_sys::Float32Array::new_with_length(n + 1);
    assert!(session.params_into(&long).is_err());
}

#[wasm_bindgen_test]
fn the_coordinator_refuses_to_mix_two_lots_or_count_a_part_twice() {
    // A lot split over messages: a second lot drawn while the first is out (a pause and a play
    // during one lot) or a part that comes twice would give the step a sensitivity the
    // accountants never assumed, so each is an error, not a quiet step.
    let mut s = dpsgd_lab::web::bench_session("logistic 784-10").unwrap();
    let n = s.n_params() as usize;
    s.draw_lot().unwrap();
    assert!(
        s.draw_lot().is_err(),
        "a second lot while the first is open"
    );
    s.sum_own_part(0, 2).unwrap();
    assert!(s.sum_own_part(0, 2).is_err(), "part 0 twice");
    assert!(s.finish_lot(2).is_err(), "part 1 is not in");
    // What a helper reports for a part: its examples (clipped, unclipped) and their digest.
    let reported = |rows: Vec<u32>| {
        let rows: Vec<usize> = rows.into_iter().map(|r| r as usize).collect();
        let digest = dpsgd_lab::train::part::part_digest(&rows);
        let e = rows.len() as u32;
        (vec![1.0; rows.len()], [e, e, 0, digest])
    };
    let (norms, counts) = reported(s.lot_part(1, 2));
    let (_, other) = reported(s.lot_part(0, 2));
    // The channel cuts the lot (shared memory gives the coordinator less): it may not change
    // while the parts are out; saying the same again is no change.
    s.set_part_channel(false).unwrap();
    assert!(
        s.set_part_channel(true).is_err(),
        "the channel changed mid-lot"
    );
    assert_eq!(s.lot_part(1, 2).len(), norms.len(), "the lot as it was cut");
    assert!(
        s.receive_part(1, 2, vec![0.0; n], norms.clone(), &other)
            .is_err(),
        "part 0's rows as part 1"
    );
    assert!(
        s.receive_part(1, 2, vec![0.0; n], norms.clone(), &counts[..3])
            .is_err(),
        "no digest"
    );
    s.receive_part(1, 2, vec![0.0; n], norms.clone(), &counts)
        .unwrap();
    assert!(
        s.receive_part(1, 2, vec![0.0; n], norms, &counts).is_err(),
        "part 1 twice"
    );
    s.finish_lot(2).unwrap();
    assert!(s.finish_lot(2).is_err(), "finished already");
    assert!(s.sum_own_part(0, 1).is_err(), "no lot open");
    // The next lot goes as usual, in one part or in two; between lots the channel may change.
    s.draw_lot().unwrap();
    s.sum_own_part(0, 1).unwrap();
    s.finish_lot(1).unwrap();
    let by_message = s.lot_part(1, 2).len();
    s.set_part_channel(true).unwrap();
    assert!(
        s.lot_part(1, 2).len() > by_message,
        "through shared memory a helper takes more of the lot"
    );
}
