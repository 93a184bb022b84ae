//! The charts' toolkit: the colour-blind-safe palette and the pinned runs' line looks, a
//! canvas backend by id, and reading values out of the reports the page passes in (JS objects; ε may be "inf"). Layout and ticks: `chart_frame`;
//! legends: `legend`.

use crate::config::Mode;
use crate::privacy::accountant::{AccountantName, PerAccountant};
use crate::train::groups::GroupAccuracy;
use crate::web::js::js_err;
use plotters::coord::Shift;
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

/// The grid lines behind every chart's data.
pub(super) const GRID: RGBColor = RGBColor(238, 238, 238);

/// A chart's drawing area: the whole canvas.
pub(super) type Area = DrawingArea<CanvasBackend, Shift>;

/// A chart's canvas cleared to white, and `px`: a size in CSS pixels in the canvas's own
/// (times `scale`, the device pixel ratio times the chart's growth).
pub(super) fn open_canvas(
    canvas_id: &str,
    scale: f64,
) -> Result<(Area, impl Fn(f64) -> u32 + Copy), JsError> {
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    Ok((root, move |v: f64| (v * scale).round() as u32))
}

pub(super) fn backend(canvas_id: &str) -> Result<CanvasBackend, JsError> {
    CanvasBackend::new(canvas_id)
        .ok_or_else(|| JsError::new(&format!("no canvas with id '{canvas_id}'")))
}

/// A line's dash pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Dash {
    Solid,
    /// Long dashes.
    Long,
    /// Short dashes.
    Short,
    /// Dots.
    Dotted,
}

impl Dash {
    /// Dash and gap lengths in CSS px (`None`: solid).
    pub(super) fn pattern(self) -> Option<(f64, f64)> {
        match self {
            Dash::Solid => None,
            Dash::Long => Some((10.0, 5.0)),
            Dash::Short => Some((5.0, 4.0)),
            Dash::Dotted => Some((2.0, 4.0)),
        }
    }
}

/// How the pinned runs are drawn, in pin order, on every chart: distinct Okabe–Ito colours at
/// full strength and distinct dash patterns (the run being drawn is orange and solid), so
/// that a run is told apart by colour or by pattern.
pub(super) const PIN_LOOKS: [(RGBColor, Dash); 4] = [
    (RGBColor(0, 0, 0), Dash::Solid),
    (GREEN, Dash::Long),
    (PURPLE, Dash::Short),
    (RGBColor(86, 180, 233), Dash::Dotted),
];

/// Draws `points` on `chart` as a line in `color` with `dash`, `width` canvas px thick
/// (dashes sized by `unit`, a CSS px in canvas px).
pub(super) fn line<X, Y, C: Color>(
    chart: &mut ChartContext<'_, CanvasBackend, Cartesian2d<X, Y>>,
    points: Vec<(f64, f64)>,
    (color, dash): (C, Dash),
    width: f64,
    unit: f64,
) -> Result<(), JsError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let style = ShapeStyle::from(&color).stroke_width(width.round().max(1.0) as u32);
    match dash.pattern() {
        None => chart
            .draw_series(LineSeries::new(points, style))
            .map(|_| ()),
        Some((on, off)) => {
            let (on, off) = ((on * unit).round() as u32, (off * unit).round() as u32);
            chart
                .draw_series(DashedLineSeries::new(points, on, off, style))
                .map(|_| ())
        }
    }
    .map_err(js_err)
}

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
    /// Each group's sizes and test accuracy (`--groups`; the groups chart).
    #[serde(default)]
    pub groups: Option<Vec<GroupAccuracy>>,
    /// The ε budget ended the run here.
    #[serde(default)]
    pub stopped_by_budget: bool,
    /// The model diverged: the run stopped here.
    #[serde(default)]
    pub divergence: Option<String>,
    /// The training steps taken by the end of this report (a budget stops mid-epoch).
    #[serde(default)]
    pub steps: Option<u64>,
}

impl Point {
    /// The test accuracy the report released: exact, or from the noisy private count.
    pub fn test(&self) -> Option<f64> {
        self.test_acc.or(self.private_test_acc)
    }

    /// Whether this report is a run's last, in a run of `epochs` epochs
    /// ([`crate::train::run_is_over`]).
    pub fn ends_run(&self, epochs: usize) -> bool {
        crate::train::run_is_over(
            self.epoch as usize,
            epochs,
            self.stopped_by_budget,
            self.divergence.is_some(),
        )
    }

    /// No accountant bounds this run (a release without noise, ε = ∞): nothing computed from
    /// its model is private, whatever noise a count of it had.
    pub fn no_guarantee(&self) -> bool {
        finite(&self.epsilon).iter().all(|(_, v)| v.is_none())
    }
}

/// A pinned run: its label, what its sanitizer did (`None` from a page that does not say),
/// its settings (`None` likewise) and its epoch reports.
#[derive(Deserialize)]
pub(super) struct Pinned {
    pub label: String,
    #[serde(default)]
    pub mode: Option<Mode>,
    #[serde(default)]
    pub cfg: Option<serde_json::Value>,
    pub history: Vec<Point>,
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
