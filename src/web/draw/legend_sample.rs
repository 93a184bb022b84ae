//! How a legend shows one entry: a sample of how the chart draws it (a stretch of its line
//! with its dash, a dot, a ring or a bar), drawn beside its name.

use super::chart_kit::{Area, Dash};
use crate::web::js::js_err;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::prelude::*;

/// One entry of a legend: name, colour, and how the chart draws it.
pub(super) type LegendEntry = (String, RGBColor, Sample);

/// How a legend shows an entry: as the chart draws it, a stretch of its line or its mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sample {
    /// A line with this dash pattern.
    Line(Dash),
    /// A filled dot (a run drawn as dots).
    Dot,
    /// A ring (a run drawn as hollow dots).
    Ring,
    /// A filled box (a histogram's bars).
    Bar,
    /// No sample: a line of words about the chart (a chart of columns' order).
    Words,
}

impl Sample {
    /// The dash of the line this entry's curve is drawn with (solid for a mark).
    pub(super) fn dash(self) -> Dash {
        match self {
            Sample::Line(dash) => dash,
            _ => Dash::Solid,
        }
    }
}

impl From<Dash> for Sample {
    fn from(dash: Dash) -> Self {
        Sample::Line(dash)
    }
}

/// An entry's sample from `at` (its left end, on the text's middle line), `len` long, at
/// `font`'s scale: a stretch of its line, or its mark centred in that stretch.
pub(super) fn sample(
    root: &Area,
    at: (i32, i32),
    len: f64,
    color: RGBColor,
    look: Sample,
    font: f64,
) -> Result<(), JsError> {
    let width = (font / 6.0).max(2.0);
    let centre = (at.0 + (len / 2.0) as i32, at.1);
    let radius = (font / 3.0).round().max(3.0) as i32;
    match look {
        Sample::Line(dash) => line_sample(root, at, len, (color, dash), font),
        Sample::Dot => root.draw(&Circle::new(centre, radius, color.filled())),
        Sample::Ring => root.draw(&Circle::new(
            centre,
            radius,
            color.stroke_width(width as u32),
        )),
        Sample::Bar => {
            let half = (font * 0.4) as i32;
            let corners = [(at.0, at.1 - half), (at.0 + len as i32, at.1 + half)];
            // As the chart draws a bar: a light fill and its outline.
            root.draw(&Rectangle::new(corners, color.mix(0.45).filled()))?;
            root.draw(&Rectangle::new(corners, color.stroke_width(1)))
        }
        Sample::Words => Ok(()),
    }
    .map_err(js_err)
}

/// A stretch of a line's look (`color`, `dash`), `len` long, at `font`'s scale.
fn line_sample(
    root: &Area,
    at: (i32, i32),
    len: f64,
    (color, dash): (RGBColor, Dash),
    font: f64,
) -> Result<(), DrawingAreaErrorKind<<CanvasBackend as DrawingBackend>::ErrorType>> {
    let style = ShapeStyle::from(&color).stroke_width((font / 6.0).max(2.0) as u32);
    let (on, off) = dash.pattern().map_or((len, 0.0), |(on, off)| {
        (on * font / 13.0, off * font / 13.0)
    });
    let mut k = 0.0;
    while k < len {
        let end = (k + on.max(1.0)).min(len);
        let ends = vec![(at.0 + k as i32, at.1), (at.0 + end as i32, at.1)];
        root.draw(&PathElement::new(ends, style))?;
        k = end + off.max(1.0);
    }
    Ok(())
}
