//! Accuracy against epochs, from the run's reports: the test accuracy (exact on a public test
//! set, or released from a noisy count on a private one), the training accuracy only where the
//! reports carry it (teaching level, marked not private), and pinned runs faded behind.

use super::chart_kit::{
    backend, epoch_label, legend, not_private_badge, points, Pinned, Point, BLUE, ORANGE,
    PIN_COLORS,
};
use super::js_err;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// Draws the accuracy of the finished epochs (`history`: the run's reports) on an x axis of
/// `epochs` epochs, with the test accuracy of pinned runs (`pinned`: [{label, history}])
/// faded behind. `scale` is the device pixel ratio times the chart's growth.
#[wasm_bindgen]
pub fn draw_accuracy_chart(
    canvas_id: &str,
    history: JsValue,
    pinned: JsValue,
    epochs: u32,
    scale: f64,
) -> Result<(), JsError> {
    let history = points(history, "accuracy history")?;
    let pinned = Pinned::list(pinned)?;
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
    let series = |pts: &[Point], get: &dyn Fn(&Point) -> Option<f64>| -> Vec<(f64, f64)> {
        pts.iter()
            .filter_map(|p| Some((p.epoch, get(p)?)))
            .filter(|(_, v)| v.is_finite())
            .collect()
    };
    let train = series(&history, &|p| p.train_acc);
    let test = series(&history, &Point::test);
    let noisy = history.iter().any(|p| p.private_test_acc.is_some());
    // The exact accuracy of a private test set (teaching level) is outside the guarantee.
    let exact_private = history
        .iter()
        .any(|p| p.not_private.iter().any(|f| f == "test_acc"));
    let pins: Vec<Vec<(f64, f64)>> = pinned
        .iter()
        .map(|p| series(&p.history, &Point::test))
        .collect();
    let lo = train
        .iter()
        .chain(&test)
        .chain(pins.iter().flatten())
        .map(|&(_, v)| v)
        .fold(1.0f64, f64::min);
    let lo = (((lo - 0.02) * 20.0).floor() / 20.0).clamp(0.0, 0.9); // to the 0.05 below
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_top(px(if train.is_empty() && !exact_private {
            10.0
        } else {
            30.0
        })) // the badge
        .caption("Accuracy", ("sans-serif", px(18.0)))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(48.0))
        .build_cartesian_2d(0f64..(epochs.max(1) as f64), lo..1.0)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("accuracy")
        .x_label_formatter(&epoch_label)
        .y_labels(8)
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    for ((pin, pts), color) in pinned.iter().zip(&pins).zip(PIN_COLORS) {
        let style = ShapeStyle::from(&color.mix(0.6)).stroke_width(px(2.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?
            .label(format!("{} (test)", pin.label))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    let test_name = if noisy {
        "test (noisy count, in ε)"
    } else {
        "test"
    };
    for (name, color, pts) in [
        ("train (not private)", BLUE, &train),
        (test_name, ORANGE, &test),
    ] {
        if pts.is_empty() {
            continue;
        }
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, px(3.0), color.filled())))
            .map_err(js_err)?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight, px(14.0))?;
    if exact_private {
        not_private_badge(&root, scale, "train and test curves: not private")?;
    } else if !train.is_empty() {
        not_private_badge(&root, scale, "train curve: not private")?;
    }
    root.present().map_err(js_err)
}
