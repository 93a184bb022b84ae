//! Accuracy against epochs, from the run's reports: the test accuracy (exact on a public test
//! set, or released from a noisy count on a private one), the training accuracy only where the
//! reports carry it (teaching level, marked not private), and the pinned runs — compared, with
//! the y axis fitted to their curves and the cost of privacy written above them.

use super::chart_frame::{
    builder, draw_header, draw_mesh, frame, keyed, plot_rect, record, Fonts, Header,
};
use super::chart_kit::{line, open_canvas, Dash, Point, BLUE, GREY, ORANGE, PIN_LOOKS};
use super::legend::{laid_out_clear, name_curves, names_span, naming, LegendEntry};
use super::run_view::RunView;
pub use crate::charts::accuracy::y_range;
use crate::charts::accuracy::{baseline_label, baseline_mark, privacy_cost_sentence, BaselineMark};
use crate::charts::{layout, AxisSpec, Format, Scale};
use crate::web::js::js_err;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// Draws the accuracy of the run's finished epochs (`run`: its reports, on an x axis of its
/// epochs) with its pinned runs, and, when the test set is public, the majority class's share
/// (`baseline`) as a dashed line: what a model that learned nothing scores. Alone, the run's
/// y range takes in the baseline; compared with pins, it fits the curves and the baseline is
/// marked at the edge it lies beyond, and the gap between a non-private and a DP-SGD run is
/// written above the plot. A pin that is the run itself is drawn once, under the pin's name.
/// Every curve is named at its right end, outside the plot, so no legend covers data.
/// The cost of privacy carries its ± on the `n_test` examples of the test set (none where
/// unknown). `scale` is the device pixel ratio times the chart's growth and the page's text scale.
#[wasm_bindgen]
pub fn draw_accuracy_chart(
    canvas_id: &str,
    run: &RunView,
    baseline: Option<f64>,
    n_test: Option<usize>,
    scale: f64,
) -> Result<(), JsError> {
    let (history, epochs) = (&run.points, run.epochs);
    let baseline = baseline.filter(|b| b.is_finite() && (0.0..=1.0).contains(b));
    let (root, _) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
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
    // The pins, each with its look (by its place in the list, as on the ε chart); a pin whose
    // curve is this run's is this run, drawn once under the pin's name.
    let mut this_name = None;
    let mut pins = Vec::new();
    for (pin, look) in run.pinned.iter().zip(PIN_LOOKS) {
        if this_name.is_none() && run.is_this_run(pin) {
            this_name = Some(pin.label.clone());
        } else {
            pins.push((pin.label.clone(), look, series(&pin.history, &Point::test)));
        }
    }
    let compared = !run.pinned.is_empty();
    let curves = train
        .iter()
        .chain(&test)
        .chain(pins.iter().flat_map(|p| &p.2));
    let (lo, hi) = y_range(curves.map(|&(_, v)| v), baseline, compared);
    // A run without a guarantee: its noisy count is not "in ε" (ε = ∞).
    let open = history.last().is_some_and(Point::no_guarantee);
    let suffix = match (open, noisy) {
        (true, _) => " (ε = ∞)",
        (false, true) => " (noisy, in ε)",
        (false, false) => "",
    };
    let name = match (this_name, compared) {
        (Some(pin), _) => pin,
        (None, true) => "this run".into(),
        (None, false) => "test".into(),
    };
    let test_name = format!("{name}{suffix}");
    let badge = if open {
        Some("ε = ∞: no curve of this run is private")
    } else if exact_private {
        Some("train and test curves: not private")
    } else if !train.is_empty() {
        Some("train curve: not private")
    } else {
        None
    };
    let mark = baseline.map(|b| (b, baseline_mark(b, lo, hi)));
    // This run's epochs, or a longer pin's.
    let x_end = (epochs.max(1) as f64).max(run.pins_last_epoch());
    // Every curve's legend entry, in drawing order: the baseline, the pins, train, this run.
    let mut entries: Vec<(LegendEntry, Vec<(f64, f64)>)> = Vec::new();
    if let Some((b, m)) = mark {
        let at = match m {
            BaselineMark::Inside => b,
            BaselineMark::Below => lo,
            BaselineMark::Above => hi,
        };
        entries.push((
            (baseline_label(b, m), GREY, Dash::Long.into()),
            vec![(0.0, at), (x_end, at)],
        ));
    }
    for (name, (color, dash), pts) in pins {
        entries.push(((name, color, dash.into()), pts));
    }
    entries.push((
        ("train (outside ε)".into(), BLUE, Dash::Solid.into()),
        train,
    ));
    entries.push(((test_name, ORANGE, Dash::Solid.into()), test));
    let legend: Vec<LegendEntry> = entries
        .iter()
        .filter(|e| !e.1.is_empty())
        .map(|e| e.0.clone())
        .collect();

    let margin = run.privacy_cost_margin(n_test);
    let note = run
        .privacy_cost_points()
        .map(|points| privacy_cost_sentence(points, margin));
    let header = Header {
        title: "Accuracy",
        badge,
        note,
    };
    let top = draw_header(&root, &mut fonts, &header)?;
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as f64, height as f64);
    let names = legend.len();
    let naming = naming(&legend, fonts.legend, compared, (width, height));
    let x = AxisSpec::new(0.0, x_end, Scale::Integer, Format::Decimal, "epoch");
    let y = AxisSpec::new(lo, hi, Scale::Linear, Format::Percent, "accuracy");
    let (naming, frame, lay) = laid_out_clear(naming, height, fonts.legend, |right, bottom| {
        let frame = frame(&root, &fonts, top, right, bottom);
        let lay = layout(&frame, &x, &y, None);
        (frame, lay)
    });
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(0.0..x_end, &lay.x, 0.0, x_end, Scale::Integer),
            keyed(lo..hi, &lay.y, lo, hi, Scale::Linear),
        )
        .map_err(js_err)?;
    draw_mesh(&mut chart, &lay, &lay.x, &lay.y, &fonts, &frame)?;
    let unit = scale;
    let mut labels = Vec::new();
    let last = entries.len().saturating_sub(2); // train and this run: thick, with markers
    for (k, (entry, pts)) in entries.into_iter().enumerate() {
        let Some(&(_, y)) = pts.last() else {
            continue;
        };
        let (width, dots) = match k {
            k if k >= last => (3.0, true),
            0 if mark.is_some() => (1.5, false),
            _ => (2.5, false),
        };
        line(
            &mut chart,
            pts.clone(),
            (entry.1, entry.2.dash()),
            width * unit,
            unit,
        )?;
        if dots {
            let dots = pts
                .iter()
                .map(|&p| Circle::new(p, (3.0 * unit) as u32, entry.1.filled()));
            chart.draw_series(dots).map_err(js_err)?;
        }
        labels.push((entry, chart.backend_coord(&(x_end, y))));
    }
    let plot = plot_rect(chart.plotting_area());
    name_curves(
        &root,
        naming,
        labels,
        compared,
        fonts.legend,
        names_span(&lay, &plot, height, fonts.legend),
    )?;
    let needs = naming.plot_needs(names, fonts.legend);
    record(canvas_id, &root, Some(plot), fonts, needs);
    root.present().map_err(js_err)
}
