//! Per step, the norm of a lot's clipped gradient sum against the norm of the noise added to
//! it, and the fraction clipped — a teaching view measured on the training data without noise,
//! and marked so.

use super::chart_frame::{
    builder, draw_header, frame, keyed, labeller, record_plot, Fonts, Header,
};
use super::chart_kit::{open_canvas, Dash, BLUE, GREEN, GRID, VERMILLION};
use super::legend::{legend_row, legend_row_height, LegendEntry};
use super::run_view::RunView;
use crate::charts::{layout, AxisSpec, Format, Scale};
use crate::web::js::js_err;
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
/// drowns one lot's signal — and the fraction of examples clipped (right axis). A run that
/// added no noise (σ = 0, or a mode without it) has none to draw: the chart says so under its
/// title, lists no noise, and returns that sentence (the page's caption then speaks of no
/// noise either); `None` otherwise.
#[wasm_bindgen]
pub fn draw_noise_chart(
    canvas_id: &str,
    run: &RunView,
    scale: f64,
) -> Result<Option<String>, JsError> {
    let (points, epochs) = (&run.norms, run.epochs);
    let noisy = points
        .iter()
        .any(|p| p.noise_norm > 0.0 || p.lots().any(|(_, _, n)| n > 0.0));
    let said = (!points.is_empty() && !noisy).then(|| NO_NOISE.to_string());
    let (root, px) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
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
    let mut legend: Vec<LegendEntry> =
        vec![("clipped (right axis)".into(), GREEN, Dash::Solid.into())];
    if points.iter().any(|p| p.expected_noise_norm > 0.0) {
        legend.push(("expected σC√d".into(), VERMILLION, Dash::Short.into()));
    }
    legend.push(("signal (dots: lots)".into(), BLUE, Dash::Solid.into()));
    if said.is_none() {
        legend.push(("noise (dots: lots)".into(), VERMILLION, Dash::Solid.into()));
    }
    let header = Header {
        title: "Signal ‖Σ clipped g_i‖, noise, fraction clipped",
        badge: Some("not private: training data without noise"),
        note: said.clone(),
    };
    let top = draw_header(&root, &mut fonts, &header)?;
    let width = root.dim_in_pixel().0 as f64;
    let bottom = legend_row_height(&legend, width, fonts.legend) + 6.0 * scale;
    let frame = frame(&root, &fonts, top, 0.0, bottom);
    let x_end = epochs.max(1) as f64;
    let x = AxisSpec::new(0.0, x_end, Scale::Integer, Format::Decimal, "epoch");
    let y = AxisSpec::new(lo, hi, Scale::Log, Format::Log, "norm (log)");
    let y2 = AxisSpec::new(0.0, 1.0, Scale::Linear, Format::Decimal, "clipped");
    let lay = layout(&frame, &x, &y, Some(&y2));
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(0.0..x_end, &lay.x, 0.0, x_end, Scale::Integer),
            keyed((lo..hi).log_scale(), &lay.y, lo, hi, Scale::Log),
        )
        .map_err(js_err)?
        .set_secondary_coord(
            0.0..x_end,
            keyed(0.0..1.0, &lay.y2, 0.0, 1.0, Scale::Linear),
        );
    let (xf, yf, y2f) = (labeller(&lay.x), labeller(&lay.y), labeller(&lay.y2));
    chart
        .configure_secondary_axes()
        .y_desc(&lay.titles[2])
        .y_label_formatter(&y2f)
        .label_style(fonts.tick_style())
        .axis_desc_style(("sans-serif", lay.title_fonts[1]))
        .set_all_tick_mark_size(frame.tick_len.round() as u32)
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
        .x_desc(&lay.titles[0])
        .y_desc(&lay.titles[1])
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .light_line_style(GRID)
        .label_style(fonts.tick_style())
        .axis_desc_style(("sans-serif", lay.title_fonts[0]))
        .set_all_tick_mark_size(frame.tick_len.round() as u32)
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
    legend_row(&root, &legend, fonts.legend)?;
    record_plot(canvas_id, &root, chart.plotting_area(), fonts);
    root.present().map_err(js_err)?;
    Ok(said)
}

/// What the noise chart says of a run that added no noise.
pub const NO_NOISE: &str = "no noise added in this run";
