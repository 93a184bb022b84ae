//! The histogram of the last lot's per-example gradient norms with the clipping bound C — a
//! teaching view of clipping, measured on the training data without noise, and marked so.

use super::chart_frame::{
    builder, draw_header, draw_mesh, frame, keyed, record_plot, Fonts, Header,
};
use super::chart_kit::{open_canvas, BLUE, ORANGE, VERMILLION};
use crate::charts::clipping::histogram_title;
use crate::charts::{layout, AxisSpec, Format, Scale};
use crate::web::js::js_err;
use plotters::prelude::*;
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
/// `adapted`: `clip` is the run's C as adaptive clipping left it (Andrew et al. 2021), not the
/// slider's starting value, and the caption says so.
#[wasm_bindgen]
pub fn draw_clipping_histogram(
    canvas_id: &str,
    norms: &[f32],
    clip: f64,
    adapted: bool,
    scale: f64,
) -> Result<(), JsError> {
    let (root, px) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
    let max = norms.iter().fold(0.0f64, |m, &n| m.max(n as f64));
    let hi = (max.max(clip) * 1.1).max(1e-6);
    let width = hi / BINS as f64;
    let mut counts = [0u32; BINS];
    for &n in norms {
        counts[((n as f64 / width) as usize).min(BINS - 1)] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let y_end = (top * 1.1).ceil() + 1.0;
    let clipped = (!norms.is_empty()).then(|| clipped_fraction(norms, clip));
    let caption = histogram_title(clipped, clip, adapted);
    let header = Header {
        title: &caption,
        badge: Some("not private: training data without noise"),
        note: None,
    };
    let margin_top = draw_header(&root, &mut fonts, &header)?;
    let frame = frame(&root, &fonts, margin_top, 0.0, 0.0);
    let x = AxisSpec::new(
        0.0,
        hi,
        Scale::Linear,
        Format::Decimal,
        "‖g_i‖ before clipping",
    );
    let y = AxisSpec::new(0.0, y_end, Scale::Integer, Format::Decimal, "examples");
    let lay = layout(&frame, &x, &y, None);
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(0.0..hi, &lay.x, 0.0, hi, Scale::Linear),
            keyed(0.0..y_end, &lay.y, 0.0, y_end, Scale::Integer),
        )
        .map_err(js_err)?;
    draw_mesh(&mut chart, &lay, &lay.x, &lay.y, &fonts, &frame)?;
    chart
        .draw_series(counts.iter().enumerate().map(|(i, &c)| {
            let x0 = i as f64 * width;
            let color = if x0 + width / 2.0 > clip {
                ORANGE
            } else {
                BLUE
            };
            Rectangle::new([(x0, 0.0), (x0 + width * 0.92, c as f64)], color.filled())
        }))
        .map_err(js_err)?;
    let line = ShapeStyle::from(&VERMILLION).stroke_width(px(3.0));
    chart
        .draw_series(LineSeries::new([(clip, 0.0), (clip, y_end)], line))
        .map_err(js_err)?;
    record_plot(canvas_id, &root, chart.plotting_area(), fonts);
    root.present().map_err(js_err)
}
