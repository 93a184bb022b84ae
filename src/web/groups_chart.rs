//! Who pays for privacy (Bagdasaryan, Poursaeed & Shmatikov 2019): each group's test accuracy
//! at the run's latest epoch, one row per group labelled with its size in the training data
//! (rarest on top), this run and each pinned run read at the same epoch as dots on the row, so
//! a non-private and a DP-SGD run of the same seed stand side by side. The header writes the
//! gap between the best and the worst group (`crate::charts::groups`). The accuracies are
//! covered (the built-in sets' public test set); the sizes in the labels are counted without
//! noise, public facts of a public set but outside ε: the report lists them in `not_private`
//! (`train::report::GROUP_SIZES`), and the header's badge says so.

use super::chart_frame::{
    builder, draw_header, draw_row_mesh, frame, message, record, with_points,
};
use super::chart_frame::{plot_rect, Fonts, Header};
use super::chart_kit::{open_canvas, Point};
use super::chart_kit::{GREY, ORANGE, PIN_LOOKS};
use super::js_err;
use super::legend::{legend_row, legend_row_height, LegendEntry, Sample};
use super::run_view::RunView;
use crate::charts::groups::{compared_sentence, gap_points};
use crate::charts::{fit_text, layout, line_height, AxisSpec, Format, Scale, Tick};
use crate::train::groups::GroupAccuracy;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// The groups of `history`'s report at `epoch` (1-based; its last if shorter).
fn groups_at(history: &[Point], epoch: usize) -> Option<&[GroupAccuracy]> {
    let k = epoch.min(history.len()).checked_sub(1)?;
    history[k].groups.as_deref()
}

/// Draws the per-group test accuracy of `run` and its pins at the run's latest epoch (a
/// message while there are no groups). `scale`: as every chart's.
#[wasm_bindgen]
pub fn draw_groups_chart(canvas_id: &str, run: &RunView, scale: f64) -> Result<(), JsError> {
    let (root, px) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
    let epoch = run.points.len();
    let Some(rows) = groups_at(&run.points, epoch).filter(|g| !g.is_empty()) else {
        let text = if epoch == 0 {
            "Each group's accuracy appears after the first epoch"
        } else {
            "Choose Groups (sex, race or class) to see who pays for privacy"
        };
        message(&root, text, fonts.legend * 1.2, GREY)?;
        record(canvas_id, &root, None, fonts, 0.0);
        return root.present().map_err(js_err);
    };
    // Rows by training size, the rarest at the top (the highest row).
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| rows[i].n_train);
    let row_of = |name: &str| order.iter().position(|&i| rows[i].name == name);
    // The runs drawn: the pins in their looks, then this run (once, under a pin's name if it
    // is pinned as it is), each read at this run's epoch.
    let mut runs: Vec<(LegendEntry, &[GroupAccuracy])> = Vec::new();
    let mut this_name = None;
    for (pin, (color, _)) in run.pinned.iter().zip(PIN_LOOKS) {
        if this_name.is_none() && run.is_this_run(pin) {
            this_name = Some(pin.label.clone());
        } else if let Some(g) = groups_at(&pin.history, epoch) {
            runs.push(((pin.label.clone(), color, Sample::Ring), g));
        }
    }
    let name = this_name.unwrap_or_else(|| "this run".into());
    runs.push(((name, ORANGE, Sample::Dot), rows));
    let accs = runs
        .iter()
        .flat_map(|r| r.1.iter().filter_map(|g| g.test_acc))
        .filter(|a| a.is_finite());
    let low = accs.fold(1.0f64, f64::min);
    let lo = ((low - 0.05) * 10.0).floor().max(0.0) / 10.0;
    let hi = 1.0;

    let note = run
        .groups_compared()
        .map(|c| compared_sentence(&c))
        .or_else(|| gap_points(rows).map(|g| format!("gap between groups: {g:.1} points")));
    let title = format!("Accuracy by group, epoch {epoch}"); // the x axis says "test accuracy"
    let k = epoch.min(run.points.len()) - 1;
    let sizes_outside = run.points[k]
        .not_private
        .iter()
        .any(|f| f == "groups.n_train");
    let header = Header {
        title: &title,
        badge: sizes_outside.then_some("sizes: not private"),
        note,
    };
    let top = draw_header(&root, &mut fonts, &header)?;
    let width = root.dim_in_pixel().0 as f64;
    let legend: Vec<LegendEntry> = runs.iter().map(|r| r.0.clone()).collect();
    let bottom = legend_row_height(&legend, width, fonts.legend);
    let frame = frame(&root, &fonts, top, 0.0, bottom);
    let n = rows.len();
    let names = order.iter().enumerate().map(|(k, &i)| Tick {
        value: (n - 1 - k) as f64 + 0.5,
        label: fit_text(
            &format!("{} ({})", rows[i].name, rows[i].n_train),
            0.45 * width,
            fonts.tick,
        ),
    });
    let x = AxisSpec::new(lo, hi, Scale::Linear, Format::Percent, "test accuracy");
    let y = AxisSpec::new(
        0.0,
        n as f64,
        Scale::Linear,
        Format::Decimal,
        "group (train size)",
    )
    .with_ticks(names.collect());
    let lay = layout(&frame, &x, &y, None);
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            with_points(lo..hi, lay.x.iter().map(|t| t.value).collect(), Vec::new()),
            with_points(
                0.0..n as f64,
                lay.y.iter().map(|t| t.value).collect(),
                Vec::new(),
            ),
        )
        .map_err(js_err)?;
    draw_row_mesh(&mut chart, &lay, &fonts, &frame)?;
    // Each row: a grey line from its lowest to its highest run, then the runs' dots (this run
    // last, on top; pins hollow so a dot under another still shows).
    let row_y = |row: usize| (n - 1 - row) as f64 + 0.5;
    for (row, &i) in order.iter().enumerate() {
        let name = &rows[i].name;
        let at: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.1.iter().find(|g| &g.name == name)?.test_acc)
            .filter(|a| a.is_finite())
            .collect();
        let (a, b) = at
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        if a < b {
            let style = ShapeStyle::from(&GREY).stroke_width(px(2.0).max(1));
            let y = row_y(row);
            chart
                .draw_series(LineSeries::new([(a, y), (b, y)], style))
                .map_err(js_err)?;
        }
    }
    let last = runs.len() - 1;
    for (k, ((_, color, _), groups)) in runs.iter().enumerate() {
        let dots = groups.iter().filter_map(|g| {
            let acc = g.test_acc.filter(|a| a.is_finite())?;
            Some((acc, row_y(row_of(&g.name)?)))
        });
        let style = if k == last {
            color.filled()
        } else {
            color.stroke_width(px(2.5).max(1))
        };
        let radius = if k == last { px(6.0) } else { px(7.0) };
        chart
            .draw_series(dots.map(|p| Circle::new(p, radius, style)))
            .map_err(js_err)?;
    }
    let plot = plot_rect(chart.plotting_area());
    legend_row(&root, &legend, fonts.legend)?;
    // Each row a line of its label and a little between: no two labels touch.
    let rows_need = rows.len() as f64 * 1.15 * line_height(fonts.tick);
    record(canvas_id, &root, Some(plot), fonts, rows_need);
    root.present().map_err(js_err)
}
