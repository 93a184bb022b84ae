//! Every chart on the classroom's screens, through the layout each records (`chart_layout`):
//! on a phone (a 370 px square canvas) the plot stays at least 140 px tall; at the presenter's
//! text scale the tick labels are at least 16 px and the titles 20; the text widths the layout
//! reckons with are never short of the browser's; and Compare's runs are told apart, with the
//! cost of privacy between them.

use super::charts::{pixels, pixels_near, sized_canvas};
use super::{adult_facts, config, js};
use dpsgd_lab::charts::text_width;
use dpsgd_lab::config::{Mode, RunConfig};
use dpsgd_lab::web::{
    chart_layout, draw_accuracy_chart, draw_alice, draw_audit_epsilons, draw_audit_region,
    draw_boundary, draw_clipping_histogram, draw_epsilon_chart, draw_groups_chart,
    draw_noise_chart, draw_sigma_chart, epsilon_preview, sigma_needed, RunView,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

/// Adult's race groups, the longest names of any grouping, as a report carries them.
const GROUPS: &str = r#"[{"name":"Amer-Indian-Eskimo","n_train":311,"n_test":159,"test_acc":0.89},
    {"name":"Asian-Pac-Islander","n_train":1039,"n_test":480,"test_acc":0.83},
    {"name":"Black","n_train":3124,"n_test":1561,"test_acc":0.9},
    {"name":"Other","n_train":271,"n_test":135,"test_acc":0.85},
    {"name":"White","n_train":27816,"n_test":13946,"test_acc":0.84}]"#;

/// Three epochs of teaching-level reports: accuracies, ε, the noise chart's norms and groups.
fn reports() -> Vec<String> {
    (1..=3)
        .map(|e| {
            let lots: Vec<String> = (0..8)
                .map(|k| format!("[{}, {}, {}]", k as f64 / 8.0, 2.0 + k as f64 * 0.1, 20.0))
                .collect();
            format!(
                r#"{{"epoch":{e},"train_acc":{t},"test_acc":{t},"epsilon":{{"naive":{n},"strong":{s},"moments":{m},"rdp":{r},"pld":{r}}},
                "signal_norm":2.5,"noise_norm":19.0,"clipped_fraction":0.{e},"expected_noise_norm":20.0,
                "lot_signal_noise":[{lots}],"groups":{groups}}}"#,
                t = 0.9 + e as f64 * 0.02,
                n = 4.8 * e as f64,
                s = 2.4 * e as f64,
                m = 1.4 + 0.1 * e as f64,
                r = 1.1 + 0.1 * e as f64,
                lots = lots.join(","),
                groups = GROUPS,
            )
        })
        .collect()
}

/// A run's view with `reports` pushed, `mode` its sanitizer, and its ε preview.
fn view(mode: Mode) -> RunView {
    let cfg = RunConfig {
        epochs: 3,
        mode,
        ..RunConfig::default()
    };
    let mut view = RunView::new(config(cfg.clone())).unwrap();
    for r in reports() {
        view.push(js(&r)).unwrap();
    }
    let preview = epsilon_preview(config(cfg), adult_facts()).unwrap();
    view.set_preview(preview, JsValue::NULL).unwrap();
    view
}

/// An audit report as the audit charts read it.
fn audit_results() -> JsValue {
    js(r#"[{"threat":"worst-case","roc":[[0,0],[0.1,0.5],[1,1]],
           "region":{"band_upper":[[0,0.1],[0.05,0.6],[0.9,1]],"band_lower":[[0.1,0],[0.15,0.4],[1,0.9]],"evidence":[0.05,0.15,0.4,0.6]},
           "theory":[[0,0],[0.05,0.6],[1,1]],"theory_symmetric":[[0,0],[0.1,0.55],[1,1]],"eps_lower":0.8,
           "eps_upper":{"pld":1.1,"rdp":1.3,"moments":1.5},"one_run":{"eps_lower":0.4}},
          {"threat":"realistic","roc":[[0,0],[0.5,0.55],[1,1]],
           "region":{"band_upper":[[0,0.1],[0.45,0.6],[0.9,1]],"band_lower":[[0.1,0],[0.55,0.5],[1,0.9]],"evidence":[0.4,0.6,0.45,0.65]},
           "theory":[[0,0],[0.05,0.6],[1,1]],"theory_symmetric":[[0,0],[0.1,0.55],[1,1]],"eps_lower":0.1,
           "eps_upper":{"pld":1.1,"rdp":1.3,"moments":1.5}}]"#)
}

/// The fields of an Alice result the chart reads (`audit::alice`): two histograms and the best
/// threshold.
fn alice_result() -> JsValue {
    js(
        r#"{"edges":[1.0,1.5,2.0,2.5,3.0],"counts_in":[3,5,1,0],"counts_out":[0,1,4,4],"threshold_005":2.0}"#,
    )
}

/// Draws every chart on `w` × `h` canvases at `scale`; returns each chart's recorded layout.
fn draw_all(w: u32, h: u32, scale: f64) -> Vec<(&'static str, serde_json::Value)> {
    let run = view(Mode::Dp);
    let ids = [
        "s-accuracy",
        "s-epsilon",
        "s-loglog",
        "s-noise",
        "s-clipping",
        "s-sigma",
        "s-boundary",
        "s-region",
        "s-audit-eps",
        "s-groups",
        "s-alice",
    ];
    for id in ids {
        sized_canvas(id, w, h);
    }
    draw_accuracy_chart("s-accuracy", &run, Some(0.764), Some(16_281), scale).unwrap();
    draw_epsilon_chart("s-epsilon", &run, false, scale).unwrap();
    draw_epsilon_chart("s-loglog", &run, true, scale).unwrap();
    draw_noise_chart("s-noise", &run, scale).unwrap();
    let norms: Vec<f32> = (0..64).map(|k| k as f32 * 0.05).collect();
    draw_clipping_histogram("s-clipping", &norms, 1.0, false, scale).unwrap();
    let curve = sigma_needed(config(RunConfig::default()), adult_facts(), 2.0).unwrap();
    let points: serde_json::Value = serde_wasm_bindgen::from_value(curve).unwrap();
    let panel = serde_json::json!({
        "points": points, "target": 2.0, "delta": 1e-5, "run": {"epochs": 3, "sigma": 1.0}
    });
    draw_sigma_chart("s-sigma", js(&panel.to_string()), scale).unwrap();
    let probs: Vec<f32> = (0..400).map(|k| (k % 20) as f32 / 20.0).collect();
    let points = [-0.5f32, 0.2, 1.0, 0.8, -0.1, 0.0];
    draw_boundary(
        "s-boundary",
        &[-3.2, 2.7, -1.0, 1.0],
        20,
        &probs,
        &points,
        scale,
    )
    .unwrap();
    draw_audit_region("s-region", audit_results(), JsValue::NULL, scale).unwrap();
    draw_audit_epsilons("s-audit-eps", audit_results(), scale).unwrap();
    draw_groups_chart("s-groups", &run, scale).unwrap();
    draw_alice("s-alice", alice_result(), scale).unwrap();
    ids.iter()
        .map(|id| {
            let layout = serde_wasm_bindgen::from_value(chart_layout(id).unwrap()).unwrap();
            (*id, layout)
        })
        .collect()
}

/// On a 390 px phone each chart is a 370 px square (the stylesheet's narrow figures): every
/// plot keeps at least 140 px of height, and the fonts are recorded.
#[wasm_bindgen_test]
fn every_chart_keeps_a_readable_plot_on_a_phone() {
    for (id, layout) in draw_all(370, 370, 1.0) {
        let plot_h = layout["plot"]["h"].as_f64().unwrap_or(0.0);
        assert!(plot_h >= 140.0, "{id}: plot {layout}");
        for font in ["title", "tick", "legend"] {
            let px = layout["fonts"][font].as_f64().unwrap_or(0.0);
            assert!(px >= 12.0, "{id}: {font} font {layout}");
        }
    }
    assert!(chart_layout("never-drawn").unwrap().is_null());
}

/// In the presenter layout (20 px tick labels on a 1280 × 720 screen's 620 × 360 charts, #53
/// §6) every chart's tick labels and legend are at least 20 px and its title no smaller than
/// its labels (a title is shrunk to them, not below, before it wraps).
#[wasm_bindgen_test]
fn presenter_text_is_large_on_every_chart() {
    for (id, layout) in draw_all(620, 360, 20.0 / 13.0) {
        let font = |f: &str| layout["fonts"][f].as_f64().unwrap_or(0.0);
        assert!(
            font("tick") >= 20.0 && font("legend") >= 20.0 && font("title") >= font("tick"),
            "{id}: {layout}"
        );
        assert!(
            layout["plot"]["h"].as_f64().unwrap_or(0.0) >= 140.0,
            "{id}: {layout}"
        );
    }
}

/// The layout's text widths are never short of what the browser's sans-serif draws, so the
/// room it makes for a label is room enough.
#[wasm_bindgen_test]
fn text_widths_are_never_short_of_the_browsers() {
    let doc = web_sys::window().unwrap().document().unwrap();
    let c: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().dyn_into().unwrap();
    let ctx: web_sys::CanvasRenderingContext2d =
        c.get_context("2d").unwrap().unwrap().dyn_into().unwrap();
    let measure = js_sys::Reflect::get(&ctx, &"measureText".into()).unwrap();
    let measure: js_sys::Function = measure.dyn_into().unwrap();
    for font in [13.0, 16.9, 26.0] {
        ctx.set_font(&format!("{font}px sans-serif"));
        for text in [
            "0.00010",
            "2.5e8",
            "92.5%",
            "100",
            "1e-3",
            "epoch (log scale)",
            "ε (log scale)",
            "Signal ‖Σ clipped g_i‖, noise, fraction clipped",
            "majority 57.9% ↓",
            "privacy costs 3.5 points here",
            "WWWMMM%%%",
            "moments 1.699",
        ] {
            let metrics = measure.call1(&ctx, &text.into()).unwrap();
            let drawn = js_sys::Reflect::get(&metrics, &"width".into())
                .unwrap()
                .as_f64()
                .unwrap();
            assert!(
                text_width(text, font) >= drawn,
                "{text} at {font}px: {drawn} drawn"
            );
        }
    }
}

/// Compare's four runs on breast cancer: the chart names the DP-SGD run once, draws each pin
/// in its own colour at full strength, and the cost of privacy is the non-private run's final
/// test accuracy minus the DP-SGD run's — only between runs alike but for the mode and budget,
/// and only while the DP-SGD run's ε is finite.
#[wasm_bindgen_test]
fn compared_runs_are_told_apart_with_the_cost_of_privacy() {
    let settings = |mode: Mode, sigma: f64| {
        let cfg = RunConfig {
            epochs: 3,
            mode,
            sigma,
            ..RunConfig::default()
        };
        serde_json::to_string(&cfg).unwrap()
    };
    let sigma = RunConfig::default().sigma;
    let pin = |label: &str, mode: Mode, acc: f64, sigma: f64| {
        let m = serde_json::to_string(&mode).unwrap();
        format!(
            r#"{{"label":"{label}","mode":{m},"cfg":{},"history":[{{"epoch":1,"test_acc":0.9}},{{"epoch":3,"test_acc":{acc}}}]}}"#,
            settings(mode, sigma)
        )
    };
    let dp: serde_json::Value = serde_json::from_str(&reports()[2]).unwrap();
    let dp_acc = dp["test_acc"].as_f64().unwrap();
    let history: Vec<String> = reports();
    let pins_with = |non_private: String| {
        format!(
            "[{non_private},{},{},{{\"label\":\"DP-SGD\",\"mode\":\"dp\",\"cfg\":{},\"history\":[{}]}}]",
            pin("clip only", Mode::ClipOnly, 0.95, sigma),
            pin("noise only", Mode::NoiseOnly, 0.91, sigma),
            settings(Mode::Dp, sigma),
            history.join(",")
        )
    };
    let mut run = view(Mode::Dp);
    let alike = pin("non-private", Mode::NonPrivate, dp_acc + 0.035, sigma);
    run.set_pinned(js(&pins_with(alike.clone()))).unwrap();
    let cost = run
        .privacy_cost_points()
        .expect("a cost with both runs on the chart");
    assert!((cost - 3.5).abs() < 1e-9, "{cost}");
    // A cost is two runs' ends: none while this run trains (2 of its 3 epochs), nor against
    // a pin pinned part-way; a run its ε budget stopped has ended.
    let mut training = RunView::new(config(RunConfig {
        epochs: 3,
        ..RunConfig::default()
    }))
    .unwrap();
    for r in &history[..2] {
        training.push(js(r)).unwrap();
    }
    training
        .set_pinned(js(&format!(
            "[{}]",
            pin("non-private", Mode::NonPrivate, 0.95, sigma)
        )))
        .unwrap();
    assert_eq!(
        training.privacy_cost_points(),
        None,
        "this run still trains"
    );
    let part_way = pin("non-private", Mode::NonPrivate, 0.95, sigma)
        .replace(r#"{"epoch":3,"test_acc":0.95}"#, "");
    let part_way = part_way.replace(",]", "]");
    run.set_pinned(js(&pins_with(part_way))).unwrap();
    assert_eq!(run.privacy_cost_points(), None, "a pin pinned part-way");
    let budget = pin("non-private", Mode::NonPrivate, 0.95, sigma).replace(
        r#"{"epoch":3,"test_acc":0.95}"#,
        r#"{"epoch":2,"test_acc":0.95,"stopped_by_budget":true}"#,
    );
    run.set_pinned(js(&pins_with(budget))).unwrap();
    assert!(
        run.privacy_cost_points().is_some(),
        "a run its budget ended"
    );
    // At the private release level only a noisy count is released: no cost from it.
    let noisy = pin("non-private", Mode::NonPrivate, 0.95, sigma).replace(
        r#"{"epoch":3,"test_acc":0.95}"#,
        r#"{"epoch":3,"private_test_acc":0.95}"#,
    );
    run.set_pinned(js(&pins_with(noisy))).unwrap();
    assert_eq!(run.privacy_cost_points(), None, "a noisy count");
    run.set_pinned(js(&pins_with(alike))).unwrap();
    let c = sized_canvas("s-compare", 620, 400);
    draw_accuracy_chart("s-compare", &run, Some(0.579), Some(114), 1.0).unwrap();
    // Full-strength pins: the clip-only run's green and the noise-only run's purple, unmixed.
    assert!(pixels_near(&c, [0, 158, 115]) > 60, "green pin");
    assert!(pixels_near(&c, [204, 121, 167]) > 60, "purple pin");
    // A non-private run of other settings (another σ) is no comparison.
    let other = pin("non-private", Mode::NonPrivate, dp_acc + 0.035, sigma * 2.0);
    run.set_pinned(js(&pins_with(other))).unwrap();
    assert_eq!(run.privacy_cost_points(), None);
    // Without a non-private run there is no cost.
    run.set_pinned(js("[]")).unwrap();
    assert_eq!(run.privacy_cost_points(), None);
    // A DP-SGD run whose ε is ∞ (σ = 0) is no private run to compare with a non-private one.
    let mut open = RunView::new(config(RunConfig {
        epochs: 3,
        sigma: 0.0,
        ..RunConfig::default()
    }))
    .unwrap();
    open.push(js(
        r#"{"epoch":3,"test_acc":0.9,"epsilon":{"moments":"inf","rdp":"inf"}}"#,
    ))
    .unwrap();
    open.set_pinned(js(&format!(
        "[{}]",
        pin("non-private", Mode::NonPrivate, 0.95, 0.0)
    )))
    .unwrap();
    assert_eq!(open.privacy_cost_points(), None);
}

/// MNIST's ten digits on a projector's low chart (620 × 260 at the presenter's 20 px labels,
/// #53 §6): as rows they would need 10 lines of labels and left the plot 63 px with the labels
/// on top of each other; they stand as columns, with a plot of at least 90 px.
#[wasm_bindgen_test]
fn ten_short_groups_stand_as_columns_on_a_low_chart() {
    let digits: Vec<String> = (0..10)
        .map(|d| {
            format!(
                r#"{{"name":"{d}","n_train":{},"n_test":100,"test_acc":0.{}}}"#,
                600 + 30 * d,
                50 + 4 * d
            )
        })
        .collect();
    let report = format!(
        r#"{{"epoch":1,"train_acc":0.8,"test_acc":0.8,"groups":[{}]}}"#,
        digits.join(",")
    );
    let mut run = RunView::new(config(RunConfig::default())).unwrap();
    run.push(js(&report)).unwrap();
    let scale = 20.0 / 13.0;
    sized_canvas("s-digits", 620, 260);
    draw_groups_chart("s-digits", &run, scale).unwrap();
    let layout: serde_json::Value =
        serde_wasm_bindgen::from_value(chart_layout("s-digits").unwrap()).unwrap();
    let plot_h = layout["plot"]["h"].as_f64().unwrap_or(0.0);
    assert!(plot_h >= 90.0, "{layout}");
    assert!(
        layout["fonts"]["tick"].as_f64().unwrap() >= 20.0,
        "{layout}"
    );
    // Its labels fit the canvas it has: the least height it asks for (rows: one line each).
    assert!(layout["least"].as_f64().unwrap() <= 260.0, "{layout}");
}

/// An audit of other settings kept beside the last (#53 §4): its attacks' ROC curves are drawn
/// in long dashes of their colours. Here the earlier worst case runs near TPR 0.95 across the
/// middle of the plot, where nothing else is vermillion: its dashes are there, and only with it.
#[wasm_bindgen_test]
fn an_earlier_audit_s_roc_is_drawn_beside_the_last() {
    let earlier = js(r#"{"label":"earlier audit, σ = 0","results":[
        {"threat":"worst-case","roc":[[0,0],[0.02,0.9],[1,1]]}]}"#);
    let reddish_across_the_middle = |earlier: JsValue| {
        let c = sized_canvas("s-region-earlier", 620, 360);
        draw_audit_region("s-region-earlier", audit_results(), earlier, 1.0).unwrap();
        let layout: serde_json::Value =
            serde_wasm_bindgen::from_value(chart_layout("s-region-earlier").unwrap()).unwrap();
        let plot = |k: &str| layout["plot"][k].as_f64().unwrap();
        let px = pixels(&c);
        let width = c.width() as usize;
        let mut count = 0;
        for k in 30..70 {
            let fpr = k as f64 / 100.0;
            let tpr = 0.9 + 0.1 * (fpr - 0.02) / 0.98;
            let x = (plot("x") + fpr * plot("w")).round() as usize;
            let y0 = (plot("y") + (1.0 - tpr) * plot("h")).round() as usize;
            for y in y0 - 2..=y0 + 2 {
                let p = &px[4 * (y * width + x)..4 * (y * width + x) + 3];
                if i32::from(p[0]) - i32::from(p[1]) > 60 {
                    count += 1;
                }
            }
        }
        count
    };
    assert_eq!(reddish_across_the_middle(JsValue::NULL), 0);
    assert!(reddish_across_the_middle(earlier) >= 15);
}

/// A run that adds no noise (σ = 0): the noise chart says so, lists no noise and draws none
/// (its vermillion is only the expected-noise legend's, gone too), and the σ chart draws no dot
/// for it, which the page's captions follow.
#[wasm_bindgen_test]
fn a_run_without_noise_draws_no_noise_and_no_dot() {
    // Each report with its noise norms at 0: the epoch's, each lot's, and the expected one.
    let noiseless = |r: &String| {
        r.replace("\"noise_norm\":19.0", "\"noise_norm\":0")
            .replace(", 20]", ", 0]")
            .replace("\"expected_noise_norm\":20.0", "\"expected_noise_norm\":0")
    };
    let mut run = RunView::new(config(RunConfig {
        epochs: 3,
        sigma: 0.0,
        ..RunConfig::default()
    }))
    .unwrap();
    let c = sized_canvas("s-noiseless", 620, 400);
    assert_eq!(
        draw_noise_chart("s-noiseless", &run, 1.0).unwrap(),
        None,
        "no report: no claim"
    );
    for r in reports() {
        run.push(js(&noiseless(&r))).unwrap();
    }
    let said = draw_noise_chart("s-noiseless", &run, 1.0).unwrap();
    assert_eq!(said.as_deref(), Some(dpsgd_lab::web::NO_NOISE));
    assert!(
        pixels_near(&c, [213, 94, 0]) < 10,
        "vermillion drawn without noise"
    );
    // With noise: no sentence, and the noise is drawn.
    let noisy = view(Mode::Dp);
    assert_eq!(draw_noise_chart("s-noiseless", &noisy, 1.0).unwrap(), None);
    assert!(
        pixels_near(&c, [213, 94, 0]) > 200,
        "the noise in vermillion"
    );
    let curve = sigma_needed(config(RunConfig::default()), adult_facts(), 2.0).unwrap();
    let points: serde_json::Value = serde_wasm_bindgen::from_value(curve).unwrap();
    let dot = |sigma: f64, mode: &str| {
        let run = serde_json::json!({"epochs": 3, "sigma": sigma, "mode": mode});
        let panel = serde_json::json!({
            "points": points, "target": 2.0, "delta": 1e-5, "run": run
        });
        draw_sigma_chart("s-noiseless", js(&panel.to_string()), 1.0).unwrap()
    };
    assert!(dot(1.0, "dp"), "a run with noise is the dot");
    assert!(!dot(0.0, "dp"), "σ = 0 has no place on the log axis");
    // Compare's non-private, clip-only and noise-only runs: ε = ∞ whatever σ the sliders hold.
    for mode in ["non-private", "clip-only", "noise-only"] {
        assert!(!dot(1.0, mode), "{mode}");
    }
}

/// The noise chart in a 1280 × 720 projector's row at Text: largest (24 px labels, 389 px
/// left for it): its full title's two lines and legend's three rows asked for 465 px, so its
/// legend ran below the screen. It now takes short words there and asks for no more than it
/// has, with a plot of at least MIN_PLOT_SHARE of it; on a roomy canvas it keeps its full words.
#[wasm_bindgen_test]
fn the_noise_chart_fits_a_projectors_row_at_the_largest_text() {
    let run = view(Mode::Dp);
    sized_canvas("s-noise-low", 620, 389);
    draw_noise_chart("s-noise-low", &run, 24.0 / 13.0).unwrap();
    let layout: serde_json::Value =
        serde_wasm_bindgen::from_value(chart_layout("s-noise-low").unwrap()).unwrap();
    let least = layout["least"].as_f64().unwrap();
    assert!(least <= 389.0, "asks for {least} px: {layout}");
    assert!(
        layout["plot"]["h"].as_f64().unwrap() >= 0.4 * 389.0,
        "{layout}"
    );
}

/// The audit's ε bars on a 1920 × 1080 projector at Text: largest (39 px labels, a 937 × 277
/// chart): their six rows' names stood on one another, the chart asking for no more than a
/// curve's share. It asks for its rows' lines, and drawn as tall as it asks (taller, its x title
/// leaves the tick row: it may ask once more) its rows are a line apart.
#[wasm_bindgen_test]
fn the_audit_bars_ask_for_a_line_a_row() {
    let rows = 6.0; // ε_lower of each attack, the worst case's one-run, three accountants
    let drawn = |id: &str, h: u32| {
        sized_canvas(id, 937, h);
        draw_audit_epsilons(id, audit_results(), 39.0 / 13.0).unwrap();
        let layout: serde_json::Value =
            serde_wasm_bindgen::from_value(chart_layout(id).unwrap()).unwrap();
        let num = |v: &serde_json::Value| v.as_f64().unwrap();
        let (plot, tick) = (num(&layout["plot"]["h"]), num(&layout["fonts"]["tick"]));
        (plot / rows, tick, num(&layout["least"]), layout)
    };
    let (pitch, tick, mut asks, layout) = drawn("s-audit-bars-low", 277);
    assert!(pitch < tick && asks > 277.0, "{layout}");
    for i in 0..3 {
        let given = asks.ceil();
        let (pitch, tick, again, layout) = drawn(&format!("s-audit-bars-{i}"), given as u32);
        if again <= given {
            assert!(pitch >= tick, "given {given} px: {layout}");
            return;
        }
        asks = again;
    }
    panic!("the audit bars' height never settles: {asks} px");
}
