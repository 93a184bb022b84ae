//! Per step, the norm of a lot's clipped gradient sum against the norm of the noise added to
//! it, and the fraction clipped — a teaching view measured on the training data without noise,
//! and marked so.

use super::chart_kit::{
    epoch_label, legend_row, legend_row_height, log_label, not_private_badge, open_canvas,
    LegendEntry, BLUE, GREEN, GRID, VERMILLION,
};
use super::js_err;
use super::run_view::RunView;
use plotters::prelude::*;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// What the noise chart reads of a report (missing fields — a private-level report — read as 0).
#[derive(Deserialize)]
pub(super) struct NormPoint {
    epoch: f64,
    #[serde(default)]
    signal_norm: f64,
    #[serde(default)]
    noise_norm: f64,
    #[serde(default)]
    clipped_fraction: f64,
    /// (position in the epoch, signal, noise) of evenly spaced lots of the epoch.
    #[serde(default)]
    lot_signal_noise: Vec<[f64; 3]>,
    #[serde(default)]
    expected_noise_norm: f64,
}

impl NormPoint {
    /// The sampled lots as (x, signal, noise): x = epoch − 1 + position in the epoch.
    fn lots(&self) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
        self.lot_signal_noise
            .iter()
            .map(move |&[pos, s, n]| (self.epoch - 1.0 + pos, s, n))
    }
}

/// Per step, the norm of a lot's clipped gradient sum against the norm of the noise added to
/// it (faded dots, up to 64 lots an epoch), with each epoch's means as lines and the expected
/// noise norm σC·√d dashed, on a log scale — where the noise is above the signal, the noise
/// drowns one lot's signal — and the fraction of examples clipped (right axis).
#[wasm_bindgen]
pub fn draw_noise_chart(canvas_id: &str, run: &RunView, scale: f64) -> Result<(), JsError> {
    let (points, epochs) = (&run.norms, run.epochs);
    let (root, px) = open_canvas(canvas_id, scale)?;
    let values: Vec<f64> = points
        .iter()
        .flat_map(|p| {
            let lots = p.lots().flat_map(|(_, s, n)| [s, n]);
            [p.signal_norm, p.noise_norm, p.expected_noise_norm]
                .into_iter()
                .chain(lots)
        })
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let lo = values
        .iter()
        .cloned()
        .fold(f64::INFINITY, f64::min)
        .min(1.0)
        * 0.5;
    let hi = values.iter().cloned().fold(0.0, f64::max).max(1.0) * 3.0;
    let mut legend: Vec<LegendEntry> = vec![("clipped (right axis)".into(), GREEN, false)];
    if points.iter().any(|p| p.expected_noise_norm > 0.0) {
        legend.push(("expected σC√d".into(), VERMILLION, true));
    }
    legend.extend([
        ("signal: epoch mean, dots: lots".into(), BLUE, false),
        ("noise: epoch mean, dots: lots".into(), VERMILLION, false),
    ]);
    let font = px(13.0);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_bottom(legend_row_height(&legend, root.dim_in_pixel().0, font) + px(6.0))
        .margin_top(px(30.0)) // room for the "not private" badge
        .caption(
            "Signal ‖Σ clipped g_i‖, noise, fraction clipped",
            ("sans-serif", px(16.0)),
        )
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(56.0))
        .right_y_label_area_size(px(48.0))
        .build_cartesian_2d(0f64..(epochs.max(1) as f64), (lo..hi).log_scale())
        .map_err(js_err)?
        .set_secondary_coord(0f64..(epochs.max(1) as f64), 0f64..1.0);
    chart
        .configure_secondary_axes()
        .y_desc("fraction clipped")
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    let clipped = ShapeStyle::from(&GREEN).stroke_width(px(2.0));
    chart
        .draw_secondary_series(LineSeries::new(
            points.iter().map(|p| (p.epoch, p.clipped_fraction)),
            clipped,
        ))
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("norm (log scale)")
        .x_label_formatter(&epoch_label)
        .y_label_formatter(&log_label)
        .light_line_style(GRID)
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    // The sampled lots, faded, under the epoch means: at most about MAX_DOTS per series (every
    // k-th lot on long runs), since each dot is a canvas call and the draw must stay short.
    const MAX_DOTS: usize = 600;
    let total: usize = points.iter().map(|p| p.lot_signal_noise.len()).sum();
    let every = total.div_ceil(MAX_DOTS).max(1);
    for (color, pick) in [(BLUE, 0usize), (VERMILLION, 1)] {
        let dots = points
            .iter()
            .flat_map(|p| p.lots())
            .step_by(every)
            .filter_map(|(x, s, n)| {
                let v = if pick == 0 { s } else { n };
                (v > 0.0).then(|| Circle::new((x, v), px(1.5), color.mix(0.3).filled()))
            });
        chart.draw_series(dots).map_err(js_err)?;
    }
    let expected: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.expected_noise_norm > 0.0)
        .flat_map(|p| {
            [
                (p.epoch - 1.0, p.expected_noise_norm),
                (p.epoch, p.expected_noise_norm),
            ]
        })
        .collect();
    if !expected.is_empty() {
        let dashed = ShapeStyle::from(&VERMILLION.mix(0.8)).stroke_width(px(1.5));
        chart
            .draw_series(DashedLineSeries::new(expected, px(6.0), px(4.0), dashed))
            .map_err(js_err)?;
    }
    type Get = fn(&NormPoint) -> f64;
    let series: [(RGBColor, Get); 2] = [(BLUE, |p| p.signal_norm), (VERMILLION, |p| p.noise_norm)];
    for (color, get) in series {
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        let pts: Vec<(f64, f64)> = points
            .iter()
            .map(|p| (p.epoch, get(p)))
            .filter(|(_, v)| *v > 0.0)
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?;
        chart
            .draw_series(
                pts.into_iter()
                    .map(|p| Circle::new(p, px(3.0), color.filled())),
            )
            .map_err(js_err)?;
    }
    legend_row(&root, &legend, font)?;
    not_private_badge(&root, scale, "not private: training data without noise")?;
    root.present().map_err(js_err)
}
