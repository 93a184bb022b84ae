//! ε against epochs for each accountant: the whole run's curve (from the preview, before
//! training) thin, the epochs trained so far thick, pinned runs faded, each curve named at its
//! end — or, in the log-log view, with its growth exponent.

use super::accounting::format_eps;
use super::chart_kit::{
    colour, end_labels, epoch_label, log_label, open_canvas, GREY, GRID, PIN_COLORS, VERMILLION,
};
use super::js_err;
use super::run_view::{EpsilonPoint, RunView};
use crate::privacy::accountant::AccountantName;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// Draws ε (log scale) against epochs for each accountant: the whole run's curve (the run's
/// preview, with the PLD curve once the accounting worker has computed it) thin, and the epochs
/// trained so far (the run's reports) thick with markers; the pinned runs' moments ε faded.
/// Naive and strong are labelled "paper, optimistic" when the run uses the paper's or the
/// classical convention. When every ε is ∞ it says "∞ — no privacy"; before anything is
/// computed, that it is computing. `log_log`: x on a log
/// scale too, each curve named with its growth exponent.
#[wasm_bindgen]
pub fn draw_epsilon_chart(
    canvas_id: &str,
    run: &RunView,
    log_log: bool,
    scale: f64,
) -> Result<(), JsError> {
    let (preview, pinned, paper, epochs) = (&run.preview, &run.pinned, run.paper, run.epochs);
    // Log-log view: x is log10(epoch) on a linear axis, labelled in epochs, so each accountant's
    // growth shows as a slope (naive 1, strong about ½, the moments accountant much flatter).
    let ex = |e: f64| if log_log { e.max(1.0).log10() } else { e };
    let done: Vec<EpsilonPoint> = run
        .points
        .iter()
        .map(|p| EpsilonPoint::new(p.epoch, &p.epsilon))
        .collect();
    let (root, px) = open_canvas(canvas_id, scale)?;
    let all = preview
        .iter()
        .chain(&done)
        .flat_map(|p| p.eps.iter().filter_map(|(_, v)| *v).collect::<Vec<_>>());
    let positive: Vec<f64> = all.filter(|v| v.is_finite() && *v > 0.0).collect();
    if preview.is_empty() && done.is_empty() {
        // Nothing computed yet (the page is loading its data): no ε to claim, least of all ∞.
        let (w, h) = root.dim_in_pixel();
        let style = ("sans-serif", px(18.0)).into_font().color(&GREY);
        root.draw(&Text::new(
            "ε: computing…",
            (w as i32 / 3, h as i32 / 2),
            style,
        ))
        .map_err(js_err)?;
        return root.present().map_err(js_err);
    }
    if positive.is_empty() {
        let (w, h) = root.dim_in_pixel();
        let style = ("sans-serif", px(22.0)).into_font().color(&VERMILLION);
        root.draw(&Text::new(
            "ε = ∞ — no privacy (σ = 0)",
            (w as i32 / 6, h as i32 / 2),
            style,
        ))
        .map_err(js_err)?;
        return root.present().map_err(js_err);
    }
    let lo = positive.iter().cloned().fold(f64::INFINITY, f64::min) * 0.8;
    let hi = positive.iter().cloned().fold(0.0, f64::max) * 1.5;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_right(px(match (log_log, paper) {
            (true, true) => 260.0,
            (true, false) => 170.0,
            (false, true) => 210.0,
            (false, false) => 118.0,
        })) // room for the curves' names
        .caption("Privacy spent ε (δ fixed)", ("sans-serif", px(18.0)))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(
            if log_log {
                0.0..ex(epochs.max(2) as f64)
            } else {
                0f64..(epochs.max(1) as f64)
            },
            (lo..hi).log_scale(),
        )
        .map_err(js_err)?;
    let log_epoch_label = |v: &f64| log_label(&10f64.powf(*v));
    chart
        .configure_mesh()
        .x_desc(if log_log {
            "epoch (log scale)"
        } else {
            "epoch"
        })
        .y_desc("ε (log scale)")
        .x_label_formatter(if log_log {
            &log_epoch_label
        } else {
            &epoch_label
        })
        .light_line_style(GRID)
        .label_style(("sans-serif", px(13.0)))
        .y_label_formatter(&log_label)
        .draw()
        .map_err(js_err)?;
    let name = |a: AccountantName| match a {
        AccountantName::Naive | AccountantName::Strong if paper => {
            format!("{} (paper, optimistic)", a.label())
        }
        _ => a.label().to_string(),
    };
    let mut labels: Vec<(String, RGBColor, (i32, i32))> = Vec::new();
    for a in AccountantName::ALL {
        let color = colour(a);
        let series = |pts: &[EpsilonPoint]| -> Vec<(f64, f64)> {
            pts.iter()
                .filter_map(|p| p.eps.get(a).filter(|v| *v > 0.0).map(|v| (ex(p.epoch), v)))
                .collect()
        };
        let thin = ShapeStyle::from(&color.mix(0.45)).stroke_width(px(1.5));
        let whole = series(preview);
        chart
            .draw_series(LineSeries::new(whole.clone(), thin))
            .map_err(js_err)?;
        let thick = ShapeStyle::from(&color).stroke_width(px(3.0));
        let trained = series(&done);
        chart
            .draw_series(LineSeries::new(trained.clone(), thick))
            .map_err(js_err)?;
        chart
            .draw_series(
                trained
                    .iter()
                    .map(|&p| Circle::new(p, px(3.0), color.filled())),
            )
            .map_err(js_err)?;
        if let Some(&(x, y)) = whole.last().or(trained.last()) {
            let at = chart.backend_coord(&(x, y));
            let slope = match (log_log, whole.first()) {
                // Growth exponent over the second half of the run: d ln ε / d ln E.
                (true, Some(_)) if whole.len() >= 4 => {
                    let (x0, y0) = whole[whole.len() / 2];
                    format!(
                        " (slope {:.2})",
                        (y.ln() - y0.ln()) / ((x - x0) * std::f64::consts::LN_10)
                    )
                }
                _ => String::new(),
            };
            labels.push((format!("{} {}{slope}", name(a), format_eps(y)), color, at));
        }
    }
    for (pin, color) in pinned.iter().zip(PIN_COLORS) {
        let pts: Vec<(f64, f64)> = pin
            .history
            .iter()
            .filter_map(|p| Some((ex(p.epoch), p.epsilon.moments.filter(|v| v.is_finite())?)))
            .filter(|p| p.1 > 0.0)
            .collect();
        let style = ShapeStyle::from(&color.mix(0.6)).stroke_width(px(2.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?;
        if let Some(&(x, y)) = pts.last() {
            let at = chart.backend_coord(&(x, y.clamp(lo, hi)));
            labels.push((format!("{} {}", pin.label, format_eps(y)), color, at));
        }
    }
    end_labels(&root, labels, px(16.0) as i32, px(14.0))?;
    root.present().map_err(js_err)
}
