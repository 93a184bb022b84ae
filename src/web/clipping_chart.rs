//! The histogram of the last lot's per-example gradient norms with the clipping bound C — a
//! teaching view of clipping, measured on the training data without noise, and marked so.

use super::chart_kit::{not_private_badge, open_canvas, BLUE, GRID, ORANGE, VERMILLION};
use super::js_err;
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
#[wasm_bindgen]
pub fn draw_clipping_histogram(
    canvas_id: &str,
    norms: &[f32],
    clip: f64,
    scale: f64,
) -> Result<(), JsError> {
    let (root, px) = open_canvas(canvas_id, scale)?;
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
        .light_line_style(GRID)
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
