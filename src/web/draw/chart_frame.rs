//! What every chart has around its plot: the fonts for its scale, the header above it (a "not
//! private" badge, the title fitted to the width, a note), the label areas and ticks laid out
//! by [`crate::charts::layout`] and bound into plotters' axes, and a record of each chart's
//! plot and fonts (in [`super::chart_record`]).

use super::chart_kit::{Area, GRID, VERMILLION};
use crate::charts::ticks::light_points;
use crate::charts::{fit_title, line_height, text_width, Frame, Layout, Scale, Tick};
use crate::web::js::js_err;
use plotters::coord::ranged1d::{AsRangedCoord, DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters_canvas::CanvasBackend;
use serde::Serialize;
use std::ops::Range;
use wasm_bindgen::prelude::*;

pub(super) use super::chart_record::{plot_rect, record, record_plot};

/// A chart's font sizes in canvas pixels: its title (as drawn, after fitting), tick labels,
/// legend and curve names; the axis titles, badge and note are sized from these.
#[derive(Clone, Copy, Debug, Serialize)]
pub(super) struct Fonts {
    pub title: f64,
    pub tick: f64,
    pub legend: f64,
}

impl Fonts {
    /// The fonts at `scale` (CSS px times the device pixel ratio, the chart's growth and the
    /// page's text scale): a 18 px title, 13 px labels.
    pub fn new(scale: f64) -> Fonts {
        Fonts {
            title: 18.0 * scale,
            tick: 13.0 * scale,
            legend: 13.0 * scale,
        }
    }

    /// The tick labels' style.
    pub fn tick_style(&self) -> TextStyle<'static> {
        ("sans-serif", self.tick).into_font().into()
    }
}

/// What a chart writes above its plot.
#[derive(Default)]
pub(super) struct Header<'a> {
    pub title: &'a str,
    /// A warning mark: what in the chart was computed without noise ("not private"), or is
    /// not a bound (the ε chart's naive and strong in an optimistic convention).
    pub badge: Option<&'a str>,
    /// A sentence under the title (the cost of privacy).
    pub note: Option<String>,
}

impl<'a> Header<'a> {
    /// A header of a title alone (no badge, no note).
    pub(super) fn titled(title: &'a str) -> Self {
        Header {
            title,
            ..Header::default()
        }
    }
}

/// The badge's text: the page's --warn-text (#a34700), 5.2:1 on the badge's #fde9dc where the
/// border's vermillion gives 3.3 (WCAG AA asks 4.5 for text this small).
const WARN_TEXT: RGBColor = RGBColor(163, 71, 0);

/// Draws `header` across the top of `root`: the badge at the top left, the title centred
/// beside it when both fit on one line (a line more for the plot on a projector's low chart),
/// else below it (shrunk to the tick labels' size at most, then wrapped, to fit the width: a
/// line of the plot's height is worth more than a larger title), the note centred
/// below that. Returns the chart's top margin and sets `fonts.title` to the title's font as
/// drawn.
pub(super) fn draw_header(root: &Area, fonts: &mut Fonts, header: &Header) -> Result<f64, JsError> {
    let (width, height) = root.dim_in_pixel();
    let width = width as f64;
    let unit = fonts.tick / 13.0; // one CSS px at this scale
    let room = width - 16.0 * unit;
    let mut y = 6.0 * unit;
    // A low chart (under 14 lines of its labels: a projector's row of charts) keeps its title
    // on one line beside the badge where it can, shrinking it to the labels' size rather than
    // wrapping it onto the plot's height (#53).
    let low = f64::from(height) < 14.0 * fonts.tick;
    let least = fonts.tick;
    let beside = header
        .badge
        .map_or(0.0, |b| text_width(b, fonts.tick) + 26.0 * unit);
    let title_room = if low { room - beside } else { room };
    let (lines, font) = fit_title(header.title, title_room, fonts.title, least);
    // Beside the badge only whole on one line: a one-word title too long there was cut
    // ("Acc…" on a low accuracy chart at Text: large), where below the badge it fits.
    let (lines, font) = match lines.as_slice() {
        [line] if line == header.title => (lines, font),
        _ => fit_title(header.title, room, fonts.title, least),
    };
    fonts.title = font;
    let mut title_centre = None; // the title's centre when it is not the chart's
    let mut badge_bottom = 0.0; // what lies below a badge the title stands beside starts here
    if let Some(text) = header.badge {
        let badge_font = fonts.tick.min(room / text_width(text, 1.0).max(1.0) - 1.0);
        let (w, h) = (
            text_width(text, badge_font) + 12.0 * unit,
            line_height(badge_font) + 6.0 * unit,
        );
        let at = ((6.0 * unit) as i32, y as i32);
        let corner = (at.0 + w as i32, at.1 + h as i32);
        let fill = ShapeStyle::from(&RGBColor(253, 233, 220)).filled();
        root.draw(&Rectangle::new([at, corner], fill))
            .map_err(js_err)?;
        let edge = ShapeStyle::from(&VERMILLION).stroke_width(unit.round().max(1.0) as u32);
        root.draw(&Rectangle::new([at, corner], edge))
            .map_err(js_err)?;
        let style = ("sans-serif", badge_font).into_font().color(&WARN_TEXT);
        let pos = (at.0 + (6.0 * unit) as i32, at.1 + (3.0 * unit) as i32);
        root.draw(&Text::new(text.to_string(), pos, style))
            .map_err(js_err)?;
        // Beside the title: one title line, centred on the chart when its span starts right
        // of the badge, else centred in the room right of it (a line more for the plot).
        let title_w = lines.first().map_or(0.0, |l| text_width(l, font));
        let badge_right = 6.0 * unit + w + 8.0 * unit;
        let centred_fits = badge_right <= (width - title_w) / 2.0;
        if lines.len() != 1 || badge_right + title_w + 8.0 * unit > width {
            y += h + 4.0 * unit;
        } else {
            badge_bottom = y + h + 4.0 * unit;
            if !centred_fits {
                title_centre = Some((badge_right + width - 8.0 * unit) / 2.0);
            }
        }
    }
    for line in lines {
        let style = ("sans-serif", font).into_font().color(&BLACK);
        match title_centre {
            Some(x) => centred_at(root, &line, x, y, style)?,
            None => centred(root, &line, y, style)?,
        }
        y += line_height(font);
    }
    y = y.max(badge_bottom);
    if let Some(note) = &header.note {
        // Fitted as the title is: the legend's size a little enlarged, shrunk to the tick
        // labels' size at most, then wrapped. On a projector's low chart at the largest Text a
        // claim cut with "…" read "privacy cost 0.0 ± 0.8 points: within cha…".
        let (lines, font) = fit_title(note, room, fonts.legend * 1.1, least);
        for line in lines {
            let style = ("sans-serif", font, FontStyle::Bold)
                .into_font()
                .color(&BLACK);
            centred(root, &line, y + 2.0 * unit, style)?;
            y += line_height(font);
        }
        y += 2.0 * unit;
    }
    Ok(y + 4.0 * unit)
}

/// `text` centred across `root` with its top at `y`.
fn centred(root: &Area, text: &str, y: f64, style: TextStyle) -> Result<(), JsError> {
    let (width, _) = root.dim_in_pixel();
    centred_at(root, text, f64::from(width) / 2.0, y, style)
}

/// `text` centred on `x` with its top at `y`.
fn centred_at(root: &Area, text: &str, x: f64, y: f64, style: TextStyle) -> Result<(), JsError> {
    let style = style.pos(plotters::style::text_anchor::Pos::new(
        plotters::style::text_anchor::HPos::Center,
        plotters::style::text_anchor::VPos::Top,
    ));
    root.draw(&Text::new(text.to_string(), (x as i32, y as i32), style))
        .map_err(js_err)
}

/// A message in place of a chart (no plot to draw), fitted to the width, in the middle.
pub(super) fn message(root: &Area, text: &str, font: f64, color: RGBColor) -> Result<(), JsError> {
    let (w, h) = root.dim_in_pixel();
    let font = font.min(0.9 * w as f64 / text_width(text, 1.0).max(1.0));
    centred(
        root,
        text,
        h as f64 / 2.0 - font / 2.0,
        ("sans-serif", font).into_font().color(&color),
    )
}

/// The frame of a chart on `root` at `fonts`: `top` (its header), `right` and `bottom` (room
/// for curve names or a legend), a small margin on the left.
pub(super) fn frame(root: &Area, fonts: &Fonts, top: f64, right: f64, bottom: f64) -> Frame {
    let (width, height) = root.dim_in_pixel();
    let unit = fonts.tick / 13.0;
    Frame {
        width: width as f64,
        height: height as f64,
        top,
        right: right.max(10.0 * unit),
        bottom: bottom.max(8.0 * unit),
        left: 6.0 * unit,
        tick_font: fonts.tick,
        title_font: fonts.tick,
        tick_len: 5.0 * unit,
    }
}

/// A chart builder on `root` with `lay`'s margins and label areas (no caption: the header is
/// drawn apart).
pub(super) fn builder<'a, 'b>(
    root: &'a Area,
    frame: &Frame,
    lay: &Layout,
) -> ChartBuilder<'a, 'b, CanvasBackend> {
    let r = |v: f64| v.round().max(0.0) as u32;
    let mut b = ChartBuilder::on(root);
    b.margin_top(r(frame.top))
        .margin_bottom(r(frame.bottom))
        .margin_left(r(lay.left))
        .margin_right(r(lay.right))
        .x_label_area_size(r(lay.x_area))
        .y_label_area_size(r(lay.y_area));
    if lay.y2_area > 0.0 {
        b.right_y_label_area_size(r(lay.y2_area));
    }
    b
}

/// An axis whose key points (labelled ticks, grid lines) and light points (finer, unlabelled
/// grid lines) are given: plotters' `WithKeyPoints`, but with plotters' default formatting
/// so that any axis takes the charts' own label formatter.
pub(super) struct Keyed<R: Ranged<ValueType = f64>> {
    inner: R,
    bold: Vec<f64>,
    light: Vec<f64>,
}

/// Draws `chart`'s grid, the tick labels `x` and `y` (in their formatter) and `lay`'s axis
/// titles, in the lab's style: what every chart's axes share.
pub(super) fn draw_mesh<X, Y>(
    chart: &mut ChartContext<'_, CanvasBackend, Cartesian2d<X, Y>>,
    lay: &Layout,
    x: &[Tick],
    y: &[Tick],
    fonts: &Fonts,
    frame: &Frame,
) -> Result<(), JsError>
where
    X: Ranged<ValueType = f64, FormatOption = DefaultFormatting>,
    Y: Ranged<ValueType = f64, FormatOption = DefaultFormatting>,
{
    mesh(chart, lay, (x, y), fonts, frame, Grid::All)
}

/// The mesh of a chart of rows (or with `columns`, of columns): a bar or dots per row, named
/// by its tick label: the value axis's grid and both axes' labels, no grid lines between
/// the rows.
pub(super) fn draw_row_mesh<X, Y>(
    chart: &mut ChartContext<'_, CanvasBackend, Cartesian2d<X, Y>>,
    lay: &Layout,
    fonts: &Fonts,
    frame: &Frame,
    columns: bool,
) -> Result<(), JsError>
where
    X: Ranged<ValueType = f64, FormatOption = DefaultFormatting>,
    Y: Ranged<ValueType = f64, FormatOption = DefaultFormatting>,
{
    let grid = if columns { Grid::Rows } else { Grid::Columns };
    mesh(chart, lay, (&lay.x, &lay.y), fonts, frame, grid)
}

/// Which grid lines a mesh draws: all (with the light grid), only those across the y axis's
/// ticks (horizontal), or only those across the x axis's (vertical).
#[derive(Clone, Copy, PartialEq)]
enum Grid {
    All,
    Rows,
    Columns,
}

/// The one mesh every chart draws, with `grid`'s lines.
fn mesh<X, Y>(
    chart: &mut ChartContext<'_, CanvasBackend, Cartesian2d<X, Y>>,
    lay: &Layout,
    (x, y): (&[Tick], &[Tick]),
    fonts: &Fonts,
    frame: &Frame,
    grid: Grid,
) -> Result<(), JsError>
where
    X: Ranged<ValueType = f64, FormatOption = DefaultFormatting>,
    Y: Ranged<ValueType = f64, FormatOption = DefaultFormatting>,
{
    let (xf, yf) = (labeller(x), labeller(y));
    let mut style = chart.configure_mesh();
    match grid {
        Grid::All => style.light_line_style(GRID),
        Grid::Rows => style.disable_x_mesh(),
        Grid::Columns => style.disable_y_mesh(),
    };
    style
        .x_desc(&lay.titles[0])
        .y_desc(&lay.titles[1])
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(fonts.tick_style())
        .axis_desc_style(("sans-serif", lay.title_fonts[0]))
        .set_all_tick_mark_size(frame.tick_len.round() as u32)
        .draw()
        .map_err(js_err)
}

/// `range` with `bold` key points and `light` points.
pub(super) fn with_points<A>(range: A, bold: Vec<f64>, light: Vec<f64>) -> Keyed<A::CoordDescType>
where
    A: AsRangedCoord<Value = f64>,
{
    Keyed {
        inner: range.into(),
        bold,
        light,
    }
}

impl<R: Ranged<ValueType = f64>> Ranged for Keyed<R> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.inner.range()
    }

    fn axis_pixel_range(&self, limit: (i32, i32)) -> Range<i32> {
        self.inner.axis_pixel_range(limit)
    }
}

/// `range` with `ticks` as its key points (labels and grid lines) and a finer, unlabelled grid
/// between them (the axis runs from `lo` to `hi` on `scale`).
pub(super) fn keyed<A>(
    range: A,
    ticks: &[Tick],
    lo: f64,
    hi: f64,
    scale: Scale,
) -> Keyed<A::CoordDescType>
where
    A: AsRangedCoord<Value = f64>,
    A::CoordDescType: Ranged<ValueType = f64>,
{
    let bold = ticks.iter().map(|t| t.value).collect();
    with_points(range, bold, light_points(ticks, lo, hi, scale))
}

/// The label of whichever of `ticks` is at `v` (plotters asks for its key points' labels).
pub(super) fn labeller(ticks: &[Tick]) -> impl Fn(&f64) -> String + '_ {
    move |v: &f64| {
        ticks
            .iter()
            .find(|t| (t.value - v).abs() <= 1e-9 * t.value.abs().max(1e-12))
            .map(|t| t.label.clone())
            .unwrap_or_default()
    }
}
