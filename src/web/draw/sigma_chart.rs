//! The panel "σ needed for a target ε versus T": for each accountant, the noise multiplier
//! that spends exactly the target ε in E epochs, on log–log axes, with the current run (its
//! epochs and σ slider) marked. It makes the seed note's comparison visible: naive composition
//! needs σ growing like T, strong composition like √T, the moments accountant far less.

use super::chart_frame::{
    builder, draw_header, draw_mesh, frame, keyed, message, plot_rect, record, Fonts, Header,
};
use super::chart_kit::{colour, open_canvas, Dash, GREY};
use super::legend::{laid_out_clear, name_curves, names_span, naming, LegendEntry};
use crate::charts::{layout, line_height, text_width, AxisSpec, Format, Scale};
use crate::config::Mode;
use crate::privacy::accountant::{AccountantName, PerAccountant};
use crate::text::delta_in_words;
use crate::web::js::{from_js, js_err};
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

/// What the panel draws: the curve of `sigma_needed` (`points`) for ε = `target` at `delta`,
/// and the current run (its epochs and σ).
#[derive(Deserialize)]
struct SigmaPanel {
    points: Vec<SigmaPoint>,
    target: f64,
    delta: f64,
    run: RunMark,
}

#[derive(Deserialize)]
struct RunMark {
    epochs: u32,
    sigma: f64,
    /// What the run's sanitizer does: a mode without noise or without clipping (Compare's
    /// first three runs) spends ε = ∞ whatever σ the sliders hold, and has no place on it.
    #[serde(default)]
    mode: Option<Mode>,
}

/// Draws the panel's curve with the current run at (epochs, σ) as a black dot: below an
/// accountant's curve the run spends more than the target ε by that accountant's reckoning,
/// above it less. `scale` is the device pixel ratio times the chart's growth and the page's
/// text scale. Returns whether it drew the dot: a run without noise (σ = 0, or a mode that adds
/// none) has no place on it, and the page's caption then does not name a dot.
#[wasm_bindgen]
pub fn draw_sigma_chart(canvas_id: &str, panel: JsValue, scale: f64) -> Result<bool, JsError> {
    let SigmaPanel {
        points: curve,
        target: target_eps,
        delta,
        run: RunMark {
            epochs,
            sigma,
            mode,
        },
    } = from_js(panel, "σ panel")?;
    let (root, px) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
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
        message(&root, "No σ reaches this ε", 18.0 * scale, GREY)?;
        record(canvas_id, &root, None, fonts, 0.0);
        return root.present().map(|_| false).map_err(js_err);
    }
    let lo = values.iter().cloned().fold(f64::INFINITY, f64::min) * 0.7;
    let hi = values.iter().cloned().fold(0.0, f64::max) * 1.4;
    let title = format!(
        "σ needed for ε = {target_eps} (δ = {})",
        delta_in_words(delta)
    );
    let top = draw_header(&root, &mut fonts, &Header::titled(&title))?;
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as f64, height as f64);
    let legend: Vec<LegendEntry> = AccountantName::ALL
        .iter()
        .map(|&a| (a.label().to_string(), colour(a), Dash::Solid.into()))
        .collect();
    let names = legend.len();
    let naming = naming(&legend, fonts.legend, false, (width, height));
    let x_title = "epochs E (log scale; T = E·N/L steps)";
    let x = AxisSpec::new(1.0, max_epoch, Scale::Log, Format::Log, x_title);
    let y = AxisSpec::new(lo, hi, Scale::Log, Format::Log, "σ (log scale)");
    let (naming, frame, lay) = laid_out_clear(naming, height, fonts.legend, |right, bottom| {
        let frame = frame(&root, &fonts, top, right, bottom);
        let lay = layout(&frame, &x, &y, None);
        (frame, lay)
    });
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(
                (1f64..max_epoch).log_scale(),
                &lay.x,
                1.0,
                max_epoch,
                Scale::Log,
            ),
            keyed((lo..hi).log_scale(), &lay.y, lo, hi, Scale::Log),
        )
        .map_err(js_err)?;
    draw_mesh(&mut chart, &lay, &lay.x, &lay.y, &fonts, &frame)?;
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
            let at = chart.backend_coord(&last);
            labels.push(((a.label().to_string(), color, Dash::Solid.into()), at));
        }
    }
    let plot = plot_rect(chart.plotting_area());
    // Noise without clipping bounds nothing either (its sensitivity is unbounded: ε = ∞).
    let dot = sigma > 0.0 && epochs >= 1 && mode.is_none_or(|m| m.adds_noise() && m.clips());
    if dot {
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
        // Right of the dot, or left of it where the plot ends first.
        let (x, y) = chart.backend_coord(&at);
        let text = format!("your run: σ = {sigma:.2}");
        let w = text_width(&text, fonts.legend);
        let right = x as f64 + 8.0 * scale + w <= plot.x + plot.w;
        let x = if right {
            x as f64 + 8.0 * scale
        } else {
            (x as f64 - 8.0 * scale - w).max(plot.x)
        };
        // On a translucent white backing: the curves it crosses stay visible, faded, and do not
        // cross out its words on a projector. Below the dot in the plot's upper half, above it
        // in the lower (where below ran onto the x axis's labels), and inside the plot.
        let lh = line_height(fonts.legend);
        let lower = f64::from(y) > plot.y + plot.h / 2.0;
        let top = if lower {
            f64::from(y) - px(4.0) as f64 - lh
        } else {
            f64::from(y) + px(4.0) as f64
        };
        let top = top.min(plot.y + plot.h - lh).max(plot.y) as i32;
        let pad = px(2.0) as i32;
        root.draw(&Rectangle::new(
            [
                (x as i32 - pad, top - pad),
                (
                    (x + w) as i32 + pad,
                    top + line_height(fonts.legend) as i32 + pad,
                ),
            ],
            WHITE.mix(0.6).filled(),
        ))
        .map_err(js_err)?;
        let font = ("sans-serif", fonts.legend).into_font().color(&BLACK);
        root.draw(&Text::new(text, (x as i32, top), font))
            .map_err(js_err)?;
    }
    name_curves(
        &root,
        naming,
        labels,
        false,
        fonts.legend,
        names_span(&lay, &plot, height, fonts.legend),
    )?;
    let needs = naming.plot_needs(names, fonts.legend);
    record(canvas_id, &root, Some(plot), fonts, needs);
    root.present().map(|_| dot).map_err(js_err)
}
