//! The panel "σ needed for a target ε versus T": for each accountant, the noise multiplier
//! that spends exactly the target ε in E epochs, on log–log axes, with the current run (its
//! epochs and σ slider) marked. It makes the seed note's comparison visible: naive composition
//! needs σ growing like T, strong composition like √T, the moments accountant far less.

use super::chart_kit::{backend, colour, end_labels, log_label, GREY};
use super::{from_js, js_err};
use crate::privacy::accountant::{AccountantName, PerAccountant};
use plotters::prelude::*;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// One epoch count's σ per accountant (missing: no σ up to 1e6 reaches the target, or the
/// accountant is not in the panel).
#[derive(Deserialize)]
struct SigmaPoint {
    epoch: f64,
    #[serde(flatten)]
    sigma: PerAccountant<Option<f64>>,
}

/// Draws `curve` (from `sigma_needed`) with the current run at (`epochs`, `sigma`)
/// as a black dot: below an accountant's curve the run spends more than `target_eps` by that
/// accountant's reckoning, above it less. `scale` is the device pixel ratio.
#[wasm_bindgen]
pub fn draw_sigma_chart(
    canvas_id: &str,
    curve: JsValue,
    target_eps: f64,
    delta: f64,
    epochs: u32,
    sigma: f64,
    scale: f64,
) -> Result<(), JsError> {
    let curve: Vec<SigmaPoint> = from_js(curve, "σ curve")?;
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
    let values: Vec<f64> = curve
        .iter()
        .flat_map(|p| p.sigma.iter().filter_map(|(_, s)| *s).collect::<Vec<_>>())
        .chain((sigma > 0.0).then_some(sigma))
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let max_epoch = curve
        .iter()
        .map(|p| p.epoch)
        .fold(epochs.max(2) as f64, f64::max);
    if values.is_empty() {
        let (w, h) = root.dim_in_pixel();
        let font = ("sans-serif", px(18.0)).into_font().color(&GREY);
        root.draw(&Text::new(
            "No σ reaches this ε",
            (w as i32 / 5, h as i32 / 2),
            font,
        ))
        .map_err(js_err)?;
        return root.present().map_err(js_err);
    }
    let lo = values.iter().cloned().fold(f64::INFINITY, f64::min) * 0.7;
    let hi = values.iter().cloned().fold(0.0, f64::max) * 1.4;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_right(px(96.0)) // room for the curves' names
        .caption(
            format!("σ needed for ε = {target_eps} (δ = {delta:e})"),
            ("sans-serif", px(18.0)),
        )
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d((1f64..max_epoch).log_scale(), (lo..hi).log_scale())
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("epochs E (log scale; T = E·N/L steps)")
        .y_desc("σ (log scale)")
        .x_label_formatter(&log_label)
        .y_label_formatter(&log_label)
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    let mut labels = Vec::new();
    for a in AccountantName::ALL {
        let color = colour(a);
        let pts: Vec<(f64, f64)> = curve
            .iter()
            .filter_map(|p| {
                p.sigma
                    .get(a)
                    .filter(|s| s.is_finite())
                    .map(|s| (p.epoch, s))
            })
            .collect();
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?;
        if let Some(&last) = pts.last() {
            labels.push((a.label().to_string(), color, chart.backend_coord(&last)));
        }
    }
    if sigma > 0.0 && epochs >= 1 {
        let at = (epochs as f64, sigma);
        let dashed = ShapeStyle::from(&BLACK.mix(0.35)).stroke_width(px(1.0));
        chart
            .draw_series(DashedLineSeries::new(
                [(epochs as f64, lo), (epochs as f64, hi)],
                px(4.0),
                px(4.0),
                dashed,
            ))
            .map_err(js_err)?;
        chart
            .draw_series([Circle::new(at, px(5.0), BLACK.filled())])
            .map_err(js_err)?;
        let (x, y) = chart.backend_coord(&at);
        let font = ("sans-serif", px(13.0)).into_font().color(&BLACK);
        root.draw(&Text::new(
            format!("your run: σ = {sigma:.2}"),
            (x + px(8.0) as i32, y + px(4.0) as i32),
            font,
        ))
        .map_err(js_err)?;
    }
    end_labels(&root, labels, px(16.0) as i32, px(14.0))?;
    root.present().map_err(js_err)
}
