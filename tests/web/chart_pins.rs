//! Pinned runs on the accuracy and ε charts drawn where their numbers are: a pin longer or
//! with other ε than the run on screen widens the axes (plotters moves a point past the range
//! onto the plot's edge, so such a pin lay flat on an axis or piled up at its end), a pin at
//! another δ says so, and a run that diverged is named with the ε it spent, not its plan's.

use super::charts::{pixels, sized_canvas};
use super::{adult_facts, config, js};
use dpsgd_lab::config::RunConfig;
use dpsgd_lab::web::RunView;
use dpsgd_lab::web::{chart_layout, draw_accuracy_chart, draw_epsilon_chart, epsilon_preview};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

/// The spread, as shares of the plot's width and height, of the near-black pixels inside the
/// plot of the chart last drawn on `id` (the first pin's look; the axes, ticks and names are
/// outside it or grey).
fn black_spread(id: &str, c: &web_sys::HtmlCanvasElement) -> (f64, f64) {
    let layout: serde_json::Value =
        serde_wasm_bindgen::from_value(chart_layout(id).unwrap()).unwrap();
    let p = &layout["plot"];
    let (x0, y0) = (
        p["x"].as_f64().unwrap() as usize + 3,
        p["y"].as_f64().unwrap() as usize + 3,
    );
    let (w, h) = (
        p["w"].as_f64().unwrap() as usize - 6,
        p["h"].as_f64().unwrap() as usize - 6,
    );
    let data = pixels(c);
    let width = c.width() as usize;
    let (mut xs, mut ys) = ((usize::MAX, 0), (usize::MAX, 0));
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let i = 4 * (y * width + x);
            if data[i] < 40 && data[i + 1] < 40 && data[i + 2] < 40 {
                xs = (xs.0.min(x), xs.1.max(x));
                ys = (ys.0.min(y), ys.1.max(y));
            }
        }
    }
    let share = |(lo, hi): (usize, usize), n: usize| hi.saturating_sub(lo) as f64 / n as f64;
    (share(xs, w), share(ys, h))
}

/// A report of epoch `e` with ε `eps` by every accountant.
fn report(e: u32, eps: f64, acc: f64, extra: &str) -> String {
    format!(
        r#"{{"epoch":{e},"test_acc":{acc},"epsilon":{{"naive":{eps},"strong":{eps},"moments":{eps},"rdp":{eps},"pld":{eps}}}{extra}}}"#
    )
}

/// A pin of 10 epochs at ε 0.05 to 0.2 behind a run of 3 epochs at ε 1 to 3 (a pin at σ = 4,
/// the run at σ = 0.5): its curve spans the plot, across and up, on both charts.
#[wasm_bindgen_test]
fn a_pin_longer_or_more_private_than_the_run_is_drawn_inside_the_axes() {
    let cfg = RunConfig {
        epochs: 3,
        ..RunConfig::default()
    };
    let mut view = RunView::new(config(cfg)).unwrap();
    for e in 1..=3 {
        view.push(js(&report(e, f64::from(e), 0.5 + 0.1 * f64::from(e), "")))
            .unwrap();
    }
    let pin: Vec<String> = (1..=10)
        .map(|e| report(e, 0.02 * f64::from(e), 0.2 + 0.05 * f64::from(e), ""))
        .collect();
    let pins = format!(r#"[{{"label":"σ 4","history":[{}]}}]"#, pin.join(","));
    view.set_pinned(js(&pins)).unwrap();
    for id in ["pins-eps", "pins-acc"] {
        let c = sized_canvas(id, 600, 400);
        if id == "pins-eps" {
            draw_epsilon_chart(id, &view, false, 1.0).unwrap();
        } else {
            draw_accuracy_chart(id, &view, None, None, 1.0).unwrap();
        }
        let (across, up) = black_spread(id, &c);
        assert!(
            across > 0.7,
            "{id}: the pin spans {across:.2} of the plot's width"
        );
        assert!(
            up > 0.2,
            "{id}: the pin rises over {up:.2} of the plot's height"
        );
    }
}

/// The ε chart names δ in its title, and a pin at another δ in its name.
#[wasm_bindgen_test]
fn the_epsilon_chart_names_its_delta_and_a_pin_at_another() {
    let cfg = RunConfig {
        epochs: 2,
        ..RunConfig::default()
    };
    let mut view = RunView::new(config(cfg.clone())).unwrap();
    view.push(js(&report(1, 1.0, 0.8, ""))).unwrap();
    let pin = |delta: f64| {
        format!(
            r#"[{{"label":"other","cfg":{{"delta":{delta}}},"history":[{}]}}]"#,
            report(1, 2.0, 0.7, "")
        )
    };
    view.set_pinned(js(&pin(1e-8))).unwrap();
    sized_canvas("delta-eps", 600, 400);
    draw_epsilon_chart("delta-eps", &view, false, 1.0).unwrap();
    let said = view.epsilon_texts();
    assert!(
        said.contains(&"Privacy spent ε at δ = 1e-5".to_string()),
        "{said:?}"
    );
    assert!(
        said.iter().any(|t| t == "other 2.000 at δ = 1e-8"),
        "{said:?}"
    );
    // The same δ, from the page's slider (10 ** -5 in JavaScript): not said.
    view.set_pinned(js(&pin(0.000009999999999999999))).unwrap();
    draw_epsilon_chart("delta-eps", &view, false, 1.0).unwrap();
    let said = view.epsilon_texts();
    assert!(
        said.iter().any(|t| t == "other 2.000"),
        "the same δ is not said: {said:?}"
    );
}

/// A run that diverged in epoch 2 of 3 is named with the ε it spent, as a budget-stopped one.
#[wasm_bindgen_test]
fn a_run_that_diverged_is_named_where_it_stopped() {
    let cfg = RunConfig {
        epochs: 3,
        ..RunConfig::default()
    };
    let mut view = RunView::new(config(cfg.clone())).unwrap();
    let preview = epsilon_preview(config(cfg), adult_facts()).unwrap();
    view.set_preview(preview, JsValue::NULL).unwrap();
    view.push(js(&report(1, 0.4, 0.8, ""))).unwrap();
    view.push(js(&report(
        2,
        0.5,
        0.1,
        r#","divergence":"the loss is NaN""#,
    )))
    .unwrap();
    let named: std::collections::BTreeMap<String, f64> =
        serde_wasm_bindgen::from_value(view.epsilon_named().unwrap()).unwrap();
    assert_eq!(named["moments"], 0.5, "{named:?}");
}

/// Naive and strong in the paper's convention are starred, the badge saying what the star
/// means: their names once took a column of the chart ("naive (paper, optimistic) 144") and
/// left the moments lesson's plot a sixth of it on a projector.
#[wasm_bindgen_test]
fn the_papers_convention_is_a_star_and_a_badge_not_a_column_of_names() {
    let cfg = RunConfig {
        epochs: 100,
        sigma: 4.0,
        lot_size: 600,
        amplification: dpsgd_lab::privacy::accountant::Amplification::Paper,
        ..RunConfig::default()
    };
    let mut view = RunView::new(config(cfg.clone())).unwrap();
    let preview = epsilon_preview(config(cfg), adult_facts()).unwrap();
    view.set_preview(preview, JsValue::NULL).unwrap();
    sized_canvas("paper-eps", 620, 330);
    draw_epsilon_chart("paper-eps", &view, false, 1.6).unwrap();
    let said = view.epsilon_texts();
    assert!(
        said.iter()
            .any(|t| t.contains("paper's convention, not a bound")),
        "{said:?}"
    );
    let layout: serde_json::Value =
        serde_wasm_bindgen::from_value(chart_layout("paper-eps").unwrap()).unwrap();
    let plot_w = layout["plot"]["w"].as_f64().unwrap();
    assert!(plot_w > 0.45 * 620.0, "the plot is {plot_w} px of 620");
    let rigorous = RunView::new(config(RunConfig::default())).unwrap();
    assert_eq!(
        rigorous.epsilon_texts().len(),
        1,
        "no badge for the rigorous bound"
    );
}
