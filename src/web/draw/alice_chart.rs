//! The "Alice" chart: the loss on Alice of every model trained with her (D) and without her
//! (D′), as two overlapping histograms (`audit::alice`), with the line of the threshold test
//! the sentence quotes: the one with at most 5% false alarms (#53 §3).
//! Not private: it trains on D and D′ by design and shows how they differ, without noise.

use super::chart_frame::{
    builder, draw_header, draw_mesh, frame, keyed, plot_rect, record_plot, Fonts, Header,
};
use super::chart_kit::{open_canvas, Dash, BLUE, GREY};
use super::legend::LegendSpot;
use super::legend::{LegendEntry, Sample};
use crate::audit::alice::Alice;
use crate::charts::ticks::whole_ticks;
use crate::charts::{layout, AxisSpec, Format, Scale};
use crate::web::js::{from_js, js_err};
use plotters::prelude::*;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// The fields of `AliceResult` the chart reads.
#[derive(Deserialize)]
struct Drawn {
    edges: Vec<f64>,
    counts_in: Vec<usize>,
    counts_out: Vec<usize>,
    /// The threshold of the test with at most 5% false alarms (∞ serialised as null).
    threshold_005: Option<f64>,
}

/// With Alice: blue; without her: the page's orange-vermillion, as the audit's attacks.
const WITH: RGBColor = BLUE;
const WITHOUT: RGBColor = RGBColor(213, 94, 0);

/// Draws the two histograms of the loss on Alice (an `AliceResult` as a JS object).
#[wasm_bindgen]
pub fn draw_alice(canvas_id: &str, result: JsValue, scale: f64) -> Result<(), JsError> {
    let r: Drawn = from_js(result, "Alice result")?;
    let (root, px) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
    let top = draw_header(
        &root,
        &mut fonts,
        &Header {
            title: "What an observer sees: the loss on Alice",
            badge: Some("not private: trained with and without her"),
            note: None,
        },
    )?;
    let legend: Vec<LegendEntry> = vec![
        ("with Alice (D)".into(), WITH, Sample::Bar),
        ("without (D′)".into(), WITHOUT, Sample::Bar),
        ("at 5% false alarms".into(), GREY, Dash::Short.into()),
    ];
    let spot = LegendSpot::of(&root, &legend, fonts.legend, 6.0 * scale);
    let frame = frame(&root, &fonts, top, spot.right, spot.bottom);
    let (lo, hi) = match (r.edges.first(), r.edges.last()) {
        (Some(&a), Some(&b)) if a.is_finite() && b.is_finite() && b > a => (a, b),
        _ => (0.0, 1.0),
    };
    let top = r
        .counts_in
        .iter()
        .chain(&r.counts_out)
        .copied()
        .max()
        .unwrap_or(0)
        .max(1);
    let most = top as f64 * 1.1;
    // Counts of runs: whole-number ticks, at most six, as many as the plot's height keeps apart
    // (laid out once to learn it: the y labels do not change the plot's height).
    // No axis title: the chart's title says what the axis is (the loss on Alice). On a
    // projector's low chart a title is folded onto the tick row, where "loss on Alice", and
    // even "loss", left room for one label of the loss (1280×720, Text: largest).
    let x = AxisSpec::new(lo, hi, Scale::Linear, Format::Decimal, "");
    let y =
        |length: f64| {
            AxisSpec::new(0.0, most, Scale::Linear, Format::Decimal, "runs")
                .with_ticks(whole_ticks(top as u64, most, length, frame.tick_font))
        };
    let plot_h = layout(&frame, &x, &y(f64::INFINITY), None).plot.h;
    let lay = layout(&frame, &x, &y(plot_h), None);
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(lo..hi, &lay.x, lo, hi, Scale::Linear),
            keyed(0.0..most, &lay.y, 0.0, most, Scale::Linear),
        )
        .map_err(js_err)?;
    draw_mesh(&mut chart, &lay, &lay.x, &lay.y, &fonts, &frame)?;
    for (counts, color) in [(&r.counts_out, WITHOUT), (&r.counts_in, WITH)] {
        // Each non-empty bin's bar, filled and then outlined (the two histograms overlap).
        let bars: Vec<[(f64, f64); 2]> = r
            .edges
            .windows(2)
            .zip(counts.iter())
            .filter(|(_, &c)| c > 0)
            .map(|(e, &c)| [(e[0], 0.0), (e[1], c as f64)])
            .collect();
        let fill = color.mix(0.45).filled();
        let outline = ShapeStyle::from(&color).stroke_width(px(1.5));
        for style in [fill, outline] {
            chart
                .draw_series(bars.iter().map(|&b| Rectangle::new(b, style)))
                .map_err(js_err)?;
        }
    }
    if let Some(t) = r.threshold_005.filter(|t| (lo..=hi).contains(t)) {
        let dashed = ShapeStyle::from(&GREY).stroke_width(px(2.0));
        chart
            .draw_series(DashedLineSeries::new(
                [(t, 0.0), (t, most)],
                px(6.0),
                px(4.0),
                dashed,
            ))
            .map_err(js_err)?;
    }
    let plot = plot_rect(chart.plotting_area());
    spot.draw(&root, &legend, fonts.legend, frame.top, (&lay, &plot))?;
    record_plot(canvas_id, &root, chart.plotting_area(), fonts);
    root.present().map_err(js_err)
}

/// Draws Alice's image (an `Alice` as a JS object, from an image set: `image_side`), dark on
/// light, each pixel's shade its value over her brightest: so the class sees who she is.
#[wasm_bindgen]
pub fn draw_alice_image(canvas_id: &str, alice: JsValue) -> Result<(), JsError> {
    let a: Alice = from_js(alice, "Alice")?;
    let side = a
        .image_side
        .filter(|s| s * s == a.x.len())
        .ok_or_else(|| JsError::new("Alice is not an image"))?;
    let (root, _) = open_canvas(canvas_id, 1.0)?;
    let (w, h) = root.dim_in_pixel();
    let cell = (w.min(h) as f64 / side as f64).max(1.0);
    let brightest = a.x.iter().copied().fold(0.0, f64::max);
    for (k, v) in a.x.iter().enumerate() {
        let shade = if brightest > 0.0 {
            (v / brightest).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let grey = (255.0 * (1.0 - shade)).round() as u8;
        let (row, col) = ((k / side) as f64, (k % side) as f64);
        let corners = [
            ((col * cell) as i32, (row * cell) as i32),
            (((col + 1.0) * cell) as i32, ((row + 1.0) * cell) as i32),
        ];
        root.draw(&Rectangle::new(
            corners,
            RGBColor(grey, grey, grey).filled(),
        ))
        .map_err(js_err)?;
    }
    root.present().map_err(js_err)
}
