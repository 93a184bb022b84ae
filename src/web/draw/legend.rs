//! Naming a chart's curves: a legend row under the plot, a legend column beside it, or names
//! at the curves' right ends ([`naming`] picks whichever leaves the larger plot), each entry
//! shown by a sample of how the chart draws it (a line's dash, a dot, a ring or a bar).

use super::chart_kit::{Area, GREY};
use super::curve_names::end_labels;
pub(super) use super::curve_names::{laid_out_clear, names_span, NamesSpan};
use super::legend_sample::sample;
pub(super) use super::legend_sample::{LegendEntry, Sample};
use crate::charts::layout::MIN_PLOT_SHARE;
use crate::charts::{fit_text, line_height, text_width, Layout, Rect};
use crate::web::js::js_err;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// How tall a legend row of `entries` is on a canvas `width` pixels wide (it wraps): the
/// bottom margin to leave for [`legend_row`].
pub(super) fn legend_row_height(entries: &[LegendEntry], width: f64, font: f64) -> f64 {
    legend_layout(entries, width, font)
        .last()
        .map_or(0.0, |l| l.1 + 1.0)
        * line_height(font)
        + font / 2.0
}

/// Where each entry goes: (x, line), its name cut to the width if it is wider.
fn legend_layout(entries: &[LegendEntry], width: f64, font: f64) -> Vec<(f64, f64)> {
    let (mut x, mut line) = (font, 0.0);
    entries
        .iter()
        .map(|(name, _, _)| {
            let w = font * 2.0 + text_width(name, font) + font;
            if x + w > width && x > font {
                (x, line) = (font, line + 1.0);
            }
            let at = (x, line);
            x += w;
            at
        })
        .collect()
}

/// A legend drawn below the chart, in the margin [`legend_row_height`] left free, so that it
/// never covers data (a legend box inside the plot area always covers some runs' curves).
pub(super) fn legend_row(root: &Area, entries: &[LegendEntry], font: f64) -> Result<(), JsError> {
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as f64, height as f64);
    let top = height - legend_row_height(entries, width, font) + font / 2.0;
    let place = legend_layout(entries, width, font);
    let len = font * 1.5;
    for ((name, color, dash), (x, line)) in entries.iter().zip(place) {
        let y = top + line * line_height(font) + font / 2.0;
        sample(root, (x as i32, y as i32), len, *color, *dash, font)?;
        let font_style = ("sans-serif", font).into_font().color(&GREY);
        let name = fit_text(name, width - x - len - font, font);
        let at = ((x + len + font / 3.0) as i32, (y - font / 2.0) as i32);
        root.draw(&Text::new(name, at, font_style))
            .map_err(js_err)?;
    }
    Ok(())
}

/// How wide a legend column of `entries` is ([`legend_column`]): the widest name with its
/// line sample and margins, the right margin to leave beside the plot.
pub(super) fn legend_column_width(entries: &[LegendEntry], font: f64) -> f64 {
    let widest = entries
        .iter()
        .map(|(name, _, _)| text_width(name, font))
        .fold(0.0, f64::max);
    widest + font * 3.5
}

/// A legend drawn as a column in the right margin [`legend_column_width`] left free, from
/// `top` down: for a chart whose plot should stay square on a wide, low canvas (a projector's
/// row of charts), where a legend row below would take the plot's height. An entry level with
/// `clear` (an x label reaching into the margin: its top, bottom and right end, [`names_span`])
/// starts right of it.
pub(super) fn legend_column(
    root: &Area,
    entries: &[LegendEntry],
    font: f64,
    top: f64,
    clear: Option<(i32, i32, i32)>,
) -> Result<(), JsError> {
    let width = root.dim_in_pixel().0 as f64;
    let column = width - legend_column_width(entries, font) + font;
    let len = font * 1.5;
    for (i, (name, color, dash)) in entries.iter().enumerate() {
        // Half a line below `top`: clear of a header's note just above the plot.
        let y = top + i as f64 * line_height(font) + font;
        let level = |c: &(i32, i32, i32)| {
            y + font / 2.0 > f64::from(c.0) && y - font / 2.0 < f64::from(c.1)
        };
        let x = match clear.filter(level) {
            Some((_, _, right)) => column.max(f64::from(right) + font / 3.0),
            None => column,
        };
        sample(root, (x as i32, y as i32), len, *color, *dash, font)?;
        let font_style = ("sans-serif", font).into_font().color(&GREY);
        let name = fit_text(name, width - x - len - font / 2.0, font);
        let at = ((x + len + font / 3.0) as i32, (y - font / 2.0) as i32);
        root.draw(&Text::new(name, at, font_style))
            .map_err(js_err)?;
    }
    Ok(())
}

/// Where the legend of a chart whose plot keeps its height goes (the audit's ROC, Alice's
/// histograms, the groups): beside the plot on a wide, low canvas (width ≥ 1.5 × height, the
/// presenter's row of charts), else in a row below, `row_gap` under the plot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LegendSpot {
    /// A column beside the plot, not a row below it.
    pub beside: bool,
    /// The right margin the legend takes.
    pub right: f64,
    /// The bottom margin the legend takes.
    pub bottom: f64,
}

impl LegendSpot {
    /// The spot for `entries` at `font` on `root`.
    pub(super) fn of(root: &Area, entries: &[LegendEntry], font: f64, row_gap: f64) -> Self {
        let (width, height) = root.dim_in_pixel();
        let (width, height) = (width as f64, height as f64);
        match width >= 1.5 * height {
            true => Self {
                beside: true,
                right: legend_column_width(entries, font),
                bottom: 0.0,
            },
            false => Self {
                beside: false,
                right: 0.0,
                bottom: legend_row_height(entries, width, font) + row_gap,
            },
        }
    }

    /// Draws `entries` there: a column from `top` down, stepping right of an x label of
    /// `lay` (whose plot is `plot`) that reaches into the margin, or a row under the chart.
    pub(super) fn draw(
        &self,
        root: &Area,
        entries: &[LegendEntry],
        font: f64,
        top: f64,
        (lay, plot): (&Layout, &Rect),
    ) -> Result<(), JsError> {
        match self.beside {
            true => {
                let height = root.dim_in_pixel().1 as f64;
                let clear = names_span(lay, plot, height, font).clear;
                legend_column(root, entries, font, top, clear)
            }
            false => legend_row(root, entries, font),
        }
    }
}

/// Where a chart names its curves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Naming {
    /// At their right ends ([`end_labels`]), in a right margin this wide.
    Beside(f64),
    /// In a legend column in a right margin this wide ([`legend_column`]).
    Column(f64),
    /// In a legend row under the chart ([`legend_row`]), this tall.
    Below(f64),
}

impl Naming {
    /// The plot height `names` curve names at `font` need beside the plot, one line each (none
    /// for a legend row): a chart asks the presenter layout for it (chart_frame.rs `record`).
    pub(super) fn plot_needs(self, names: usize, font: f64) -> f64 {
        match self {
            Naming::Beside(_) => names as f64 * line_height(font),
            Naming::Column(_) => names as f64 * line_height(font) + font / 2.0,
            Naming::Below(_) => 0.0,
        }
    }

    /// The right and bottom margins this naming takes from the plot.
    pub(super) fn margins(self) -> (f64, f64) {
        match self {
            Naming::Beside(room) | Naming::Column(room) => (room, 0.0),
            Naming::Below(height) => (0.0, height),
        }
    }
}

/// Where `entries` go on a canvas `width` × `height` at `font` (with line samples if
/// `samples`): beside the curves' ends if the widest name takes at most 2/5 of the width (the
/// plot keeps the rest); else in a legend column beside the plot or a legend row below,
/// whichever leaves the larger plot (on a projector's wide, low charts a row of three lines
/// took most of the plot's height). No name is cut.
pub(super) fn naming(
    entries: &[LegendEntry],
    font: f64,
    samples: bool,
    (width, height): (f64, f64),
) -> Naming {
    let sample = if samples { 1.8 * font } else { 0.0 };
    let widest = entries
        .iter()
        .map(|e| text_width(&e.0, font))
        .fold(0.0, f64::max);
    let room = widest + sample + font;
    let column = legend_column_width(entries, font);
    let row = legend_row_height(entries, width, font) + font / 2.0;
    // What the plot keeps, roughly: the axes' labels and the title take about 5 and 6 lines.
    let (plot_w, plot_h) = (width - 5.0 * font, height - 6.0 * font);
    // A low chart (large type on a projector's short row) whose legend row would leave the
    // plot under MIN_PLOT_SHARE of the canvas names its curves beside the plot, giving it more
    // of the width (#53): its x title is then on the tick row, so the plot is nearer 4.5 lines
    // shorter than the canvas.
    let low = plot_h - row < MIN_PLOT_SHARE * height;
    let (beside, column_share, plot_h) = match low {
        true => (0.5, 0.7, height - 4.5 * font),
        false => (0.4, 0.6, plot_h),
    };
    if room <= beside * width {
        return Naming::Beside(room);
    }
    let tall = entries.len() as f64 * line_height(font) + font / 2.0;
    let column_fits = column <= column_share * width && tall <= plot_h;
    if column_fits && (low || (plot_w - column) * plot_h > plot_w * (plot_h - row)) {
        Naming::Column(column)
    } else {
        Naming::Below(row)
    }
}

/// Names the curves of `labels` (each a legend entry and where its curve ends on the canvas)
/// as `naming` says: at their right ends, with line samples if `samples`, in a column from the
/// plot's top, or in a legend row; names at the ends are kept within `span`.
pub(super) fn name_curves(
    root: &Area,
    naming: Naming,
    labels: Vec<(LegendEntry, (i32, i32))>,
    samples: bool,
    font: f64,
    span: NamesSpan,
) -> Result<(), JsError> {
    match naming {
        Naming::Beside(room) => end_labels(root, labels, samples, font, room, span),
        Naming::Column(_) => {
            let entries: Vec<LegendEntry> = labels.into_iter().map(|l| l.0).collect();
            legend_column(root, &entries, font, span.top as f64, span.clear)
        }
        Naming::Below(_) => {
            let entries: Vec<LegendEntry> = labels.into_iter().map(|l| l.0).collect();
            legend_row(root, &entries, font)
        }
    }
}
