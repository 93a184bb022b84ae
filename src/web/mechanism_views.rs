//! Views of the mechanism, from the real run's reports: the histogram of per-example gradient
//! norms with the clipping bound C, the clipped signal against the added noise, and the
//! decision boundary of 2-D data. The first two show what was measured on the training data
//! without noise — teaching diagnostics outside ε — and say so on the chart.

use super::chart_kit::{
    backend, epoch_label, legend, log_label, not_private_badge, BLUE, GREEN, ORANGE, VERMILLION,
};
use super::{from_js, js_err};
use plotters::prelude::*;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

const BINS: usize = 30;

/// The fraction of `norms` above `clip`: what clipping to C would touch.
#[wasm_bindgen]
pub fn clipped_fraction(norms: &[f32], clip: f64) -> f64 {
    if norms.is_empty() {
        return 0.0;
    }
    norms.iter().filter(|&&n| n as f64 > clip).count() as f64 / norms.len() as f64
}

/// Histogram of the latest lot's per-example gradient norms (before clipping) with a vertical
/// line at `clip`; the caption says what fraction of them C clips. Redrawn as C moves.
#[wasm_bindgen]
pub fn draw_clipping_histogram(
    canvas_id: &str,
    norms: &[f32],
    clip: f64,
    scale: f64,
) -> Result<(), JsError> {
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
    let max = norms.iter().fold(0.0f64, |m, &n| m.max(n as f64));
    let hi = (max.max(clip) * 1.1).max(1e-6);
    let width = hi / BINS as f64;
    let mut counts = [0u32; BINS];
    for &n in norms {
        counts[((n as f64 / width) as usize).min(BINS - 1)] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(0).max(1);
    let caption = if norms.is_empty() {
        "Per-example gradient norms (no lot yet)".to_string()
    } else {
        format!(
            "Gradient norms of the last lot: C = {clip:.3} clips {:.0}%",
            100.0 * clipped_fraction(norms, clip)
        )
    };
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_top(px(30.0)) // room for the "not private" badge
        .caption(caption, ("sans-serif", px(16.0)))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(48.0))
        .build_cartesian_2d(0f64..hi, 0u32..top + top / 10 + 1)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("‖g_i‖ before clipping")
        .y_desc("examples")
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    chart
        .draw_series(counts.iter().enumerate().map(|(i, &c)| {
            let x0 = i as f64 * width;
            let color = if x0 + width / 2.0 > clip {
                ORANGE
            } else {
                BLUE
            };
            Rectangle::new([(x0, 0), (x0 + width * 0.92, c)], color.filled())
        }))
        .map_err(js_err)?;
    let line = ShapeStyle::from(&VERMILLION).stroke_width(px(3.0));
    chart
        .draw_series(LineSeries::new(
            [(clip, 0), (clip, top + top / 10 + 1)],
            line,
        ))
        .map_err(js_err)?;
    not_private_badge(&root, scale, "not private: training data without noise")?;
    root.present().map_err(js_err)
}

/// What the noise chart reads of a report (missing fields — a private-level report — read as 0).
#[derive(Deserialize)]
struct NormPoint {
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
pub fn draw_noise_chart(
    canvas_id: &str,
    history: JsValue,
    epochs: u32,
    scale: f64,
) -> Result<(), JsError> {
    let points: Vec<NormPoint> = from_js(history, "noise history")?;
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
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
    // A decade and more of headroom above the data, where the legend goes.
    let hi = values.iter().cloned().fold(0.0, f64::max).max(1.0) * 30.0;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
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
        .map_err(js_err)?
        .label("clipped (right axis)")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], clipped));
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("norm (log scale)")
        .x_label_formatter(&epoch_label)
        .y_label_formatter(&log_label)
        .light_line_style(RGBColor(238, 238, 238))
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
            .map_err(js_err)?
            .label("expected σC√d")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 8, y)], dashed));
    }
    type Get = fn(&NormPoint) -> f64;
    let series: [(&str, RGBColor, Get); 2] = [
        ("signal", BLUE, |p| p.signal_norm),
        ("noise", VERMILLION, |p| p.noise_norm),
    ];
    for (name, color, get) in series {
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        let pts: Vec<(f64, f64)> = points
            .iter()
            .map(|p| (p.epoch, get(p)))
            .filter(|(_, v)| *v > 0.0)
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?
            .label(format!("{name}: epoch mean, dots: lots"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        chart
            .draw_series(
                pts.into_iter()
                    .map(|p| Circle::new(p, px(3.0), color.filled())),
            )
            .map_err(js_err)?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight, px(14.0))?;
    not_private_badge(&root, scale, "not private: training data without noise")?;
    root.present().map_err(js_err)
}

/// The decision boundary of a model on 2-D data: a `res` × `res` heatmap of P(class 1)
/// (`probs`, row by row from the bottom) over `bounds` = [x_min, x_max, y_min, y_max], with the
/// training points (`points` = [x, y, label, …]) on top.
#[wasm_bindgen]
pub fn draw_boundary(
    canvas_id: &str,
    bounds: &[f32],
    res: u32,
    probs: &[f32],
    points: &[f32],
    scale: f64,
) -> Result<(), JsError> {
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    if bounds.len() != 4 || probs.len() != (res * res) as usize {
        return Err(JsError::new(
            "boundary: bounds need 4 numbers and probs res × res",
        ));
    }
    let px = |v: f64| (v * scale).round() as u32;
    let (x0, x1, y0, y1) = (
        bounds[0] as f64,
        bounds[1] as f64,
        bounds[2] as f64,
        bounds[3] as f64,
    );
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .caption(
            "Decision boundary: the model's P(blue) over the plane",
            ("sans-serif", px(16.0)),
        )
        .x_label_area_size(px(30.0))
        .y_label_area_size(px(40.0))
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .label_style(("sans-serif", px(12.0)))
        .draw()
        .map_err(js_err)?;
    let res_u = res as usize;
    let (dx, dy) = ((x1 - x0) / res as f64, (y1 - y0) / res as f64);
    // Orange (P = 0) through white (0.5) to blue (P = 1).
    let shade = |p: f32| {
        let t = (p.clamp(0.0, 1.0) as f64 - 0.5) * 2.0;
        let (c, a) = if t < 0.0 { (ORANGE, -t) } else { (BLUE, t) };
        let mix = |ch: u8| (255.0 + (ch as f64 - 255.0) * a * 0.6) as u8;
        RGBColor(mix(c.0), mix(c.1), mix(c.2))
    };
    chart
        .draw_series(probs.iter().enumerate().map(|(k, &p)| {
            let (i, j) = ((k % res_u) as f64, (k / res_u) as f64);
            Rectangle::new(
                [
                    (x0 + i * dx, y0 + j * dy),
                    (x0 + (i + 1.0) * dx, y0 + (j + 1.0) * dy),
                ],
                shade(p).filled(),
            )
        }))
        .map_err(js_err)?;
    chart
        .draw_series(points.chunks_exact(3).map(|p| {
            let color = if p[2] > 0.5 { BLUE } else { ORANGE };
            Circle::new((p[0] as f64, p[1] as f64), px(3.0), color.filled())
        }))
        .map_err(js_err)?;
    root.present().map_err(js_err)
}
