//! The charts' toolkit: the colour-blind-safe palette, a canvas backend by id, axis label
//! formatters, legends and end-of-line labels, pinned runs, and reading values out of the
//! reports the page passes in (JS objects; ε may be "inf").

use super::js_err;
use crate::privacy::accountant::{AccountantName, PerAccountant};
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

// Okabe–Ito colour-blind-safe palette.
pub(super) const BLUE: RGBColor = RGBColor(0, 114, 178);
pub(super) const ORANGE: RGBColor = RGBColor(230, 159, 0);
pub(super) const GREEN: RGBColor = RGBColor(0, 158, 115);
pub(super) const VERMILLION: RGBColor = RGBColor(213, 94, 0);
pub(super) const PURPLE: RGBColor = RGBColor(204, 121, 167);
pub(super) const GREY: RGBColor = RGBColor(90, 90, 90);

pub(super) fn backend(canvas_id: &str) -> Result<CanvasBackend, JsError> {
    CanvasBackend::new(canvas_id)
        .ok_or_else(|| JsError::new(&format!("no canvas with id '{canvas_id}'")))
}

/// Epoch axis labels: whole epochs only (plotters may put ticks at halves).
pub(super) fn epoch_label(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

/// Log axis labels: only 1, 2 and 5 times a power of ten, so the ticks between stay unlabelled;
/// from 10⁴ up and below 0.01 as "2e8" or "5e-4", so a huge ε (σ near 0) fits the label area
/// and a tiny one is not rounded to the wrong value.
pub fn log_label(v: &f64) -> String {
    let exponent = v.log10().floor();
    let mantissa = v / 10f64.powf(exponent);
    let Some(m) = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|m| (mantissa - m).abs() < 1e-6)
    else {
        return String::new();
    };
    let (m, exponent) = if m == 10.0 {
        (1.0, exponent + 1.0)
    } else {
        (m, exponent)
    };
    if (-2.0..4.0).contains(&exponent) {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{m}e{exponent}")
    }
}

/// Colours of pinned runs (the rest of the Okabe–Ito palette, then grey).
pub(super) const PIN_COLORS: [RGBColor; 4] = [
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(204, 121, 167),
    RGBColor(150, 150, 150),
];

/// Every accountant's ε of a report or a preview point, finite or `None` (∞, or not computed):
/// what a chart can draw.
pub(super) type Epsilons = PerAccountant<Option<f64>>;

/// `e` with ∞ (no bound) as `None`: nothing to draw.
pub(super) fn finite(e: &Epsilons) -> Epsilons {
    e.map(|_, v| v.filter(|x| x.is_finite()))
}

/// The fields of an epoch report the accuracy and ε charts read (only these cross from JS:
/// a report's lists of norms stay where they are).
#[derive(Clone, Debug, Deserialize)]
pub(super) struct Point {
    pub epoch: f64,
    #[serde(default)]
    pub train_acc: Option<f64>,
    #[serde(default)]
    pub test_acc: Option<f64>,
    #[serde(default)]
    pub private_test_acc: Option<f64>,
    #[serde(default)]
    pub epsilon: Epsilons,
    /// The report's fields outside the guarantee.
    #[serde(default)]
    pub not_private: Vec<String>,
}

impl Point {
    /// The test accuracy the report released: exact, or from the noisy private count.
    pub fn test(&self) -> Option<f64> {
        self.test_acc.or(self.private_test_acc)
    }

    /// No accountant bounds this run (a release without noise, ε = ∞): nothing computed from
    /// its model is private, whatever noise a count of it had.
    pub fn no_guarantee(&self) -> bool {
        finite(&self.epsilon).iter().all(|(_, v)| v.is_none())
    }
}

/// The points of a JS array of reports.
pub(super) fn points(v: JsValue, what: &str) -> Result<Vec<Point>, JsError> {
    super::from_js(v, what)
}

/// A pinned run: its label and its epoch reports.
#[derive(Deserialize)]
pub(super) struct Pinned {
    pub label: String,
    pub history: Vec<Point>,
}

impl Pinned {
    /// The pinned runs from a JS array of {label, history}.
    pub fn list(v: JsValue) -> Result<Vec<Pinned>, JsError> {
        super::from_js(v, "pinned runs")
    }
}

/// The chart's legend box, in the lab's style.
pub(super) fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    font_px: u32,
) -> Result<(), JsError> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font(("sans-serif", font_px))
        .background_style(WHITE.mix(0.85))
        .border_style(GREY)
        .draw()
        .map_err(js_err)
}

/// One entry of a legend row: name, colour, and whether its line is dashed.
pub(super) type LegendEntry = (String, RGBColor, bool);

/// How tall a legend row of `entries` is on a canvas `width` pixels wide (it wraps): the
/// bottom margin to leave for [`legend_row`].
pub(super) fn legend_row_height(entries: &[LegendEntry], width: u32, font_px: u32) -> u32 {
    legend_layout(entries, width, font_px)
        .last()
        .map_or(0, |l| l.1 + 1)
        * (font_px * 3 / 2)
        + font_px / 2
}

/// Where each entry goes: (x, line).
fn legend_layout(entries: &[LegendEntry], width: u32, font_px: u32) -> Vec<(u32, u32)> {
    let (mut x, mut line) = (font_px, 0);
    entries
        .iter()
        .map(|(name, _, _)| {
            let w = font_px * 2 + (name.chars().count() as u32 * font_px * 14 / 25) + font_px;
            if x + w > width && x > font_px {
                (x, line) = (font_px, line + 1);
            }
            let at = (x, line);
            x += w;
            at
        })
        .collect()
}

/// A legend drawn below the chart, in the margin [`legend_row_height`] left free, so that it
/// never covers data (a legend box inside the plot area always covers some runs' curves).
pub(super) fn legend_row(
    root: &DrawingArea<CanvasBackend, plotters::coord::Shift>,
    entries: &[LegendEntry],
    font_px: u32,
) -> Result<(), JsError> {
    let (width, height) = root.dim_in_pixel();
    let top = height - legend_row_height(entries, width, font_px) + font_px / 2;
    let place = legend_layout(entries, width, font_px);
    for ((name, color, dashed), (x, line)) in entries.iter().zip(place) {
        let y = (top + line * (font_px * 3 / 2) + font_px / 2) as i32;
        let x = x as i32;
        let style = ShapeStyle::from(color).stroke_width((font_px / 6).max(2));
        let len = font_px as i32 * 3 / 2;
        if *dashed {
            for k in (0..len).step_by((font_px / 2).max(2) as usize * 2) {
                let end = (k + (font_px as i32 / 2).max(2)).min(len);
                root.draw(&PathElement::new(vec![(x + k, y), (x + end, y)], style))
                    .map_err(js_err)?;
            }
        } else {
            root.draw(&PathElement::new(vec![(x, y), (x + len, y)], style))
                .map_err(js_err)?;
        }
        let font = ("sans-serif", font_px).into_font().color(&GREY);
        root.draw(&Text::new(
            name.clone(),
            (x + len + font_px as i32 / 3, y - font_px as i32 / 2),
            font,
        ))
        .map_err(js_err)?;
    }
    Ok(())
}

/// Names each curve at its right end (`labels`: text, colour, backend position), nudged apart
/// vertically by at least `gap` pixels so close curves stay readable.
pub(super) fn end_labels(
    root: &DrawingArea<CanvasBackend, plotters::coord::Shift>,
    mut labels: Vec<(String, RGBColor, (i32, i32))>,
    gap: i32,
    font_px: u32,
) -> Result<(), JsError> {
    labels.sort_by_key(|l| l.2 .1);
    for i in 1..labels.len() {
        let min_y = labels[i - 1].2 .1 + gap;
        if labels[i].2 .1 < min_y {
            labels[i].2 .1 = min_y;
        }
    }
    for (text, color, (x, y)) in labels {
        let font = ("sans-serif", font_px).into_font().color(&color);
        let pos = (x + font_px as i32 * 3 / 7, y - font_px as i32 / 2);
        root.draw(&Text::new(text, pos, font)).map_err(js_err)?;
    }
    Ok(())
}

/// A "not private" mark in the chart's top-left corner, saying what in the chart was computed
/// from the training data without noise (which ε does not cover).
pub(super) fn not_private_badge(
    root: &DrawingArea<CanvasBackend, plotters::coord::Shift>,
    scale: f64,
    text: &str,
) -> Result<(), JsError> {
    let px = |v: f64| (v * scale).round() as i32;
    let (w, h) = (px(6.6 * text.chars().count() as f64 + 12.0), px(20.0));
    let at = (px(4.0), px(4.0));
    root.draw(&Rectangle::new(
        [at, (at.0 + w, at.1 + h)],
        ShapeStyle::from(&RGBColor(253, 233, 220)).filled(),
    ))
    .map_err(js_err)?;
    root.draw(&Rectangle::new(
        [at, (at.0 + w, at.1 + h)],
        ShapeStyle::from(&VERMILLION).stroke_width(1),
    ))
    .map_err(js_err)?;
    let font = ("sans-serif", px(12.0) as u32)
        .into_font()
        .color(&VERMILLION);
    root.draw(&Text::new(text, (at.0 + px(6.0), at.1 + px(4.0)), font))
        .map_err(js_err)
}

/// Each accountant's colour (Okabe–Ito), the same in every chart that draws them.
pub(super) fn colour(a: AccountantName) -> RGBColor {
    match a {
        AccountantName::Naive => VERMILLION,
        AccountantName::Strong => PURPLE,
        AccountantName::Moments => BLUE,
        AccountantName::Rdp => GREEN,
        AccountantName::Pld => ORANGE,
    }
}
