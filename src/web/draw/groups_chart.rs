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
use super::legend::{legend_column_width, LegendSpot};
use super::legend::{LegendEntry, Sample};
use super::run_view::RunView;
use crate::charts::groups::{compared_sentence, gap_points};
use crate::charts::row_labels::row_labels;
use crate::charts::{layout, line_height, AxisSpec, Format, Scale, Tick};
use crate::train::groups::GroupAccuracy;
use crate::web::js::js_err;
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
    // Short enough to stand beside the badge on a projector's low chart (the axes say "group").
    let title = format!("Test accuracy, epoch {epoch}");
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
    let mut legend: Vec<LegendEntry> = runs.iter().map(|r| r.0.clone()).collect();
    let spot = LegendSpot::of(&root, &legend, fonts.legend, 0.0);
    let beside = spot.beside;
    let mut frame = frame(&root, &fonts, top, spot.right, spot.bottom);
    let n = rows.len();
    // Its percentages need no axis title: the chart's title says "test accuracy".
    let acc_axis = AxisSpec::new(lo, hi, Scale::Linear, Format::Percent, "");
    // The rows' labels: whole where the plot can spare the room (at least 0.3 of the width
    // beside a legend column, else 0.45), else without the axis title, else shorter wordings.
    let least = if beside { 0.3 } else { 0.45 };
    let named: Vec<(String, usize)> = order
        .iter()
        .map(|&i| (rows[i].name.clone(), rows[i].n_train))
        .collect();
    let (labels, titled) = row_labels(&named, &frame, least);
    let row_ticks = labels.into_iter().enumerate().map(|(k, label)| Tick {
        value: (n - 1 - k) as f64 + 0.5,
        label,
    });
    let group_title = if titled { "group (size)" } else { "" };
    let group_axis = AxisSpec::new(0.0, n as f64, Scale::Linear, Format::Decimal, group_title);
    let by_rows = layout(
        &frame,
        &acc_axis,
        &group_axis.clone().with_ticks(row_ticks.collect()),
        None,
    );
    // Each row a line of its label and a little between: no two labels touch.
    let rows_need = n as f64 * 1.15 * line_height(fonts.tick);
    // Rows that would crowd a low chart (MNIST's ten digits on a projector at the room's type,
    // #53 §6) stand as columns when their names are short: rarest on the left, the sizes'
    // range in the x title.
    let columns = by_rows.plot.h < rows_need && rows.iter().all(|g| g.name.chars().count() <= 3);
    let (lay, need) = if columns {
        let sizes = (rows[order[0]].n_train, rows[order[n - 1]].n_train);
        // The columns' order in words: under them, or below the legend beside the plot (an x
        // title's line is a fifth of a projector's low plot).
        let mut title = format!("by train size: {} → {}", sizes.0, sizes.1);
        if beside {
            legend.push((
                format!("size {} → {}", sizes.0, sizes.1),
                GREY,
                Sample::Words,
            ));
            frame.right = frame.right.max(legend_column_width(&legend, fonts.legend));
            title.clear();
        }
        let ticks = (0..n).map(|k| Tick {
            value: k as f64 + 0.5,
            label: rows[order[k]].name.clone(),
        });
        let group_axis = AxisSpec::new(0.0, n as f64, Scale::Linear, Format::Decimal, &title);
        // Along a low plot's height "test accuracy" would be cut: the chart's title says "test".
        let acc_axis = AxisSpec {
            title: "accuracy".into(),
            ..acc_axis.clone()
        };
        (
            layout(
                &frame,
                &group_axis.with_ticks(ticks.collect()),
                &acc_axis,
                None,
            ),
            0.0,
        )
    } else {
        (by_rows, rows_need)
    };
    // Where group `k` (rarest first) has accuracy `acc` on the chart.
    let at = |k: usize, acc: f64| match columns {
        true => (k as f64 + 0.5, acc),
        false => (acc, (n - 1 - k) as f64 + 0.5),
    };
    let (x_range, y_range) = match columns {
        true => (0.0..n as f64, lo..hi),
        false => (lo..hi, 0.0..n as f64),
    };
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            with_points(x_range, lay.x.iter().map(|t| t.value).collect(), Vec::new()),
            with_points(y_range, lay.y.iter().map(|t| t.value).collect(), Vec::new()),
        )
        .map_err(js_err)?;
    draw_row_mesh(&mut chart, &lay, &fonts, &frame, columns)?;
    // Each group: a grey line from its lowest to its highest run, then the runs' dots (this
    // run last, on top; pins hollow so a dot under another still shows).
    for (k, &i) in order.iter().enumerate() {
        let name = &rows[i].name;
        let accs: Vec<f64> = runs
            .iter()
            .filter_map(|r| r.1.iter().find(|g| &g.name == name)?.test_acc)
            .filter(|a| a.is_finite())
            .collect();
        let (a, b) = accs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            });
        if a < b {
            let style = ShapeStyle::from(&GREY).stroke_width(px(2.0).max(1));
            chart
                .draw_series(LineSeries::new([at(k, a), at(k, b)], style))
                .map_err(js_err)?;
        }
    }
    let last = runs.len() - 1;
    for (j, ((_, color, _), groups)) in runs.iter().enumerate() {
        let dots = groups.iter().filter_map(|g| {
            let acc = g.test_acc.filter(|a| a.is_finite())?;
            Some(at(row_of(&g.name)?, acc))
        });
        let style = if j == last {
            color.filled()
        } else {
            color.stroke_width(px(2.5).max(1))
        };
        let radius = if j == last { px(6.0) } else { px(7.0) };
        chart
            .draw_series(dots.map(|p| Circle::new(p, radius, style)))
            .map_err(js_err)?;
    }
    let plot = plot_rect(chart.plotting_area());
    spot.draw(&root, &legend, fonts.legend, frame.top, (&lay, &plot))?;
    record(canvas_id, &root, Some(plot), fonts, need);
    root.present().map_err(js_err)
}
