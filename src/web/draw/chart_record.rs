//! The record of each chart drawn: its plot, fonts and the least height it needs, by canvas
//! id, which [`chart_layout`] gives the tests and the presenter layout (#53 §6).

use super::chart_frame::Fonts;
use super::chart_kit::Area;
use crate::charts::layout::MIN_PLOT_SHARE;
use crate::charts::Rect;
use crate::web::js::to_js;
use plotters::coord::CoordTranslate;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;

/// A chart's layout as drawn: its plot (`None`: a message in its place), fonts, and the least
/// canvas height (canvas px) at which its plot keeps [`MIN_PLOT_SHARE`] of it and the height
/// its content needs (a row chart's rows): the presenter layout gives a chart no less (#53).
#[derive(Serialize)]
struct Drawn {
    plot: Option<Rect>,
    fonts: Fonts,
    least: Option<f64>,
}

thread_local! {
    /// The last layout of each chart drawn in this instance, by canvas id.
    static DRAWN: RefCell<HashMap<String, Drawn>> = RefCell::new(HashMap::new());
}

/// The rectangle of plotters' plotting area `area` on the canvas.
pub(super) fn plot_rect<C: CoordTranslate>(area: &DrawingArea<CanvasBackend, C>) -> Rect {
    let (xs, ys) = area.get_pixel_range();
    Rect {
        x: xs.start as f64,
        y: ys.start as f64,
        w: (xs.end - xs.start) as f64,
        h: (ys.end - ys.start) as f64,
    }
}

/// Records a chart whose plot is plotters' `area` and needs no more than 40% of the canvas
/// ([`record`] with no plot height of its own): most charts end with this.
pub(super) fn record_plot<C: CoordTranslate>(
    canvas_id: &str,
    root: &Area,
    area: &DrawingArea<CanvasBackend, C>,
    fonts: Fonts,
) {
    record(canvas_id, root, Some(plot_rect(area)), fonts, 0.0);
}

/// Records the chart drawn on `canvas_id` (`root`): its plot (`None`: a message instead),
/// fonts, and the least height it needs: what is not plot, plus a plot of `needs` pixels (a
/// row chart's rows, 0 for a curve's) and at least [`MIN_PLOT_SHARE`] of the canvas.
pub(super) fn record(canvas_id: &str, root: &Area, plot: Option<Rect>, fonts: Fonts, needs: f64) {
    let height = f64::from(root.dim_in_pixel().1);
    let least = plot.map(|p| {
        let around = height - p.h;
        (around / (1.0 - MIN_PLOT_SHARE)).max(around + needs).ceil()
    });
    let drawn = Drawn { plot, fonts, least };
    DRAWN.with(|d| d.borrow_mut().insert(canvas_id.to_string(), drawn));
}

/// The layout of the chart last drawn on `canvas_id`, in canvas pixels: `{plot: {x, y, w, h},
/// fonts: {title, tick, legend}, least}` (`plot` and `least` null where a message stands in for
/// the chart), or null if no chart was drawn there. For the tests (the plot's size and the
/// fonts on screen) and the presenter layout (`least`: the height to give it).
#[wasm_bindgen]
pub fn chart_layout(canvas_id: &str) -> Result<JsValue, JsError> {
    DRAWN.with(|d| match d.borrow().get(canvas_id) {
        Some(drawn) => to_js(drawn),
        None => Ok(JsValue::NULL),
    })
}
