//! Per step, the norm of a lot's clipped gradient sum against the norm of the noise added to
//! it, and the fraction clipped — a teaching view measured on the training data without noise,
//! and marked so.

use super::chart_frame::{
    builder, draw_header, frame, keyed, labeller, record_plot, Fonts, Header,
};
use super::chart_kit::{open_canvas, Dash, BLUE, GREEN, GRID, VERMILLION};
use super::legend::{legend_row, legend_row_height, LegendEntry};
use super::run_view::RunView;
use crate::charts::layout::MIN_PLOT_SHARE;
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
    let x_end = epochs.max(1) as f64;
    let x = AxisSpec::new(0.0, x_end, Scale::Integer, Format::Decimal, "epoch");
    let y = AxisSpec::new(lo, hi, Scale::Log, Format::Log, "norm (log)");
    let y2 = AxisSpec::new(0.0, 1.0, Scale::Linear, Format::Decimal, "clipped");
    // The chart in full words where they leave the plot its share of the canvas, else in
    // short ones (a projector's row at Text: largest: the full title's two lines and the
    // legend's three rows pushed the chart past the screen's foot).
    let height = f64::from(root.dim_in_pixel().1);
    let laid_out = |words: &Words| -> Result<_, JsError> {
        root.fill(&WHITE).map_err(js_err)?;
        let mut fonts = Fonts::new(scale);
        let legend = words.legend(points, said.is_none());
        let header = Header {
            title: words.title,
            badge: Some("not private: training data without noise"),
            note: said.clone(),
        };
        let top = draw_header(&root, &mut fonts, &header)?;
        let width = root.dim_in_pixel().0 as f64;
        let bottom = legend_row_height(&legend, width, fonts.legend) + 6.0 * scale;
        let frame = frame(&root, &fonts, top, 0.0, bottom);
        let lay = layout(&frame, &x, &y, Some(&y2));
        Ok((fonts, legend, frame, lay))
    };
    let mut drawn = laid_out(&FULL)?;
    if drawn.3.plot.h < MIN_PLOT_SHARE * height {
        drawn = laid_out(&SHORT)?;
    }
    let (fonts, legend, frame, lay) = drawn;
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
        .axis_desc_style(("sans-serif", lay.title_fonts[1]).into_font().color(&GREEN))
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

/// The chart's title and legend names, in full or short.
struct Words {
    title: &'static str,
    /// The clipped fraction's legend name (none: its right axis's green title names it).
    clipped: Option<&'static str>,
    expected: &'static str,
    signal: &'static str,
    noise: &'static str,
}

/// In full: the signal's formula, the fraction clipped in the title, and the legend saying
/// which curve reads on the right axis and that the dots are single lots.
const FULL: Words = Words {
    title: "Signal ‖Σ clipped g_i‖, noise, fraction clipped",
    clipped: Some("clipped (right axis)"),
    expected: "expected σC√d",
    signal: "signal (dots: lots)",
    noise: "noise (dots: lots)",
};

/// Short: the title on one line, the legend on one row (the right axis's title, "clipped" in
/// the curve's green, names that curve; the dots are drawn in their curves' colours).
const SHORT: Words = Words {
    title: "Signal ‖Σ clipped g_i‖ vs noise",
    clipped: None,
    expected: "σC√d",
    signal: "signal",
    noise: "noise",
};

impl Words {
    /// The legend's entries, in these words: the expected noise norm if any report has one,
    /// the noise if the run added any.
    fn legend(&self, points: &[NormPoint], noisy: bool) -> Vec<LegendEntry> {
        let mut legend: Vec<LegendEntry> = Vec::new();
        legend.extend(self.clipped.map(|c| (c.into(), GREEN, Dash::Solid.into())));
        if points.iter().any(|p| p.expected_noise_norm > 0.0) {
            legend.push((self.expected.into(), VERMILLION, Dash::Short.into()));
        }
        legend.push((self.signal.into(), BLUE, Dash::Solid.into()));
        if noisy {
            legend.push((self.noise.into(), VERMILLION, Dash::Solid.into()));
        }
        legend
    }
}
