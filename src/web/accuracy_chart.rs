//! Accuracy against epochs, from the run's reports: the test accuracy (exact on a public test
//! set, or released from a noisy count on a private one), the training accuracy only where the
//! reports carry it (teaching level, marked not private), and pinned runs faded behind.

use super::chart_kit::{
    end_labels, epoch_label, not_private_badge, open_canvas, Point, BLUE, GREY, GRID, ORANGE,
    PIN_COLORS,
};
use super::js_err;
use super::run_view::RunView;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// Draws the accuracy of the run's finished epochs (`run`: its reports, on an x axis of its
/// epochs), with the test accuracy of its pinned runs faded behind and, when the test set is public, the majority class's share (`baseline`) as
/// a dashed line: what a model that learned nothing scores. The y range fits the curves and
/// the baseline; every curve is named at its right end, outside the plot, so no legend covers
/// data. `scale` is the device pixel ratio times the chart's growth.
#[wasm_bindgen]
pub fn draw_accuracy_chart(
    canvas_id: &str,
    run: &RunView,
    baseline: Option<f64>,
    scale: f64,
) -> Result<(), JsError> {
    let (history, pinned, epochs) = (&run.points, &run.pinned, run.epochs);
    let baseline = baseline.filter(|b| b.is_finite() && (0.0..=1.0).contains(b));
    let (root, px) = open_canvas(canvas_id, scale)?;
    let series = |pts: &[Point], get: &dyn Fn(&Point) -> Option<f64>| -> Vec<(f64, f64)> {
        pts.iter()
            .filter_map(|p| Some((p.epoch, get(p)?)))
            .filter(|(_, v)| v.is_finite())
            .collect()
    };
    let train = series(history, &|p| p.train_acc);
    let test = series(history, &Point::test);
    let noisy = history.iter().any(|p| p.private_test_acc.is_some());
    // The exact accuracy of a private test set (teaching level) is outside the guarantee.
    let exact_private = history
        .iter()
        .any(|p| p.not_private.iter().any(|f| f == "test_acc"));
    let pins: Vec<Vec<(f64, f64)>> = pinned
        .iter()
        .map(|p| series(&p.history, &Point::test))
        .collect();
    let (lo, hi) = y_range(
        train
            .iter()
            .chain(&test)
            .chain(pins.iter().flatten())
            .map(|&(_, v)| v)
            .chain(baseline),
    );
    // A run without a guarantee: its noisy count is not "in ε" (ε = ∞).
    let open = history.last().is_some_and(Point::no_guarantee);
    let test_name = match (open, noisy) {
        (true, _) => "test (ε = ∞)",
        (false, true) => "test (noisy, in ε)",
        (false, false) => "test",
    };
    let mut names: Vec<String> = pinned.iter().map(|p| short(&p.label)).collect();
    names.extend(["train (not private)".into(), test_name.into()]);
    if let Some(b) = baseline {
        names.push(format!("majority {:.1}%", 100.0 * b));
    }
    let font = px(13.0);
    let gutter = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as f64 * 0.56;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_top(px(if train.is_empty() && !exact_private && !open {
            10.0
        } else {
            30.0
        })) // the badge
        .margin_right(px(gutter * 13.0 + 14.0)) // the curves' names
        .caption("Accuracy", ("sans-serif", px(18.0)))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(48.0))
        .build_cartesian_2d(0f64..(epochs.max(1) as f64), lo..hi)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("accuracy")
        .x_label_formatter(&epoch_label)
        .y_labels(8)
        .light_line_style(GRID)
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    let x_end = epochs.max(1) as f64;
    let mut labels: Vec<(String, RGBColor, (i32, i32))> = Vec::new();
    if let Some(b) = baseline {
        let dashed = ShapeStyle::from(&GREY).stroke_width(px(1.5));
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, b), (x_end, b)],
                px(6.0),
                px(4.0),
                dashed,
            ))
            .map_err(js_err)?;
        labels.push((
            names[names.len() - 1].clone(),
            GREY,
            chart.backend_coord(&(x_end, b)),
        ));
    }
    for ((pin, pts), color) in pinned.iter().zip(&pins).zip(PIN_COLORS) {
        let style = ShapeStyle::from(&color.mix(0.6)).stroke_width(px(2.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?;
        if let Some(&(_, y)) = pts.last() {
            labels.push((short(&pin.label), color, chart.backend_coord(&(x_end, y))));
        }
    }
    for (name, color, pts) in [
        ("train (not private)", BLUE, &train),
        (test_name, ORANGE, &test),
    ] {
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?;
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, px(3.0), color.filled())))
            .map_err(js_err)?;
        if let Some(&(_, y)) = pts.last() {
            labels.push((name.into(), color, chart.backend_coord(&(x_end, y))));
        }
    }
    end_labels(&root, labels, px(15.0) as i32, font)?;
    if open {
        not_private_badge(&root, scale, "ε = ∞: no curve of this run is private")?;
    } else if exact_private {
        not_private_badge(&root, scale, "train and test curves: not private")?;
    } else if !train.is_empty() {
        not_private_badge(&root, scale, "train curve: not private")?;
    }
    root.present().map_err(js_err)
}

/// A pinned run's label, short enough for the chart's right margin.
fn short(label: &str) -> String {
    if label.chars().count() <= 18 {
        label.to_string()
    } else {
        label.chars().take(17).chain(['…']).collect()
    }
}

/// The y range of the accuracy chart: from the lowest value to the highest, widened by 0.02
/// and rounded out to the 0.05s, at least 0.1 tall, within [0, 1]. With no values yet, the
/// whole of [0, 1].
pub fn y_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        return (0.0, 1.0);
    }
    let down = |v: f64| (v * 20.0).floor() / 20.0;
    let up = |v: f64| (v * 20.0).ceil() / 20.0;
    let mut lo = down(lo - 0.02).max(0.0);
    let hi = up(hi + 0.02).min(1.0);
    if hi - lo < 0.1 {
        lo = (hi - 0.1).max(0.0);
    }
    (lo, hi.max(lo + 0.1))
}
