//! Where a chart's plot goes on its canvas once the tick labels and axis titles around it have
//! their room — the label areas sized from the labels themselves — and where plotters then
//! draws each label (for the test that no two collide).

use super::ticks::{self, position, Format, Scale, Tick};
use super::{fit_text, line_height, text_width};
use serde::Serialize;

/// A rectangle on the canvas, in pixels from its top-left corner.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    /// Whether the two rectangles share any area.
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    /// Whether `self` lies within `outer`, to half a pixel.
    pub fn inside(&self, outer: &Rect) -> bool {
        self.x >= outer.x - 0.5
            && self.y >= outer.y - 0.5
            && self.x + self.w <= outer.x + outer.w + 0.5
            && self.y + self.h <= outer.y + outer.h + 0.5
    }
}

/// The canvas and what a chart keeps around its axes: the free space on each side (its
/// header on top, a legend at the bottom, curve names at the right), the fonts and the tick
/// marks' length.
#[derive(Clone, Debug)]
pub struct Frame {
    pub width: f64,
    pub height: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
    pub left: f64,
    /// The tick labels' font size.
    pub tick_font: f64,
    /// The axis titles' font size (shrunk where a title would not fit).
    pub title_font: f64,
    /// The tick marks' length; plotters puts labels twice that far from the axis.
    pub tick_len: f64,
}

/// One axis: its range, scale, label format and title (empty: none), and its ticks when they
/// are given rather than chosen (the rows of a bar chart, the columns of a chart of groups).
#[derive(Clone, Debug)]
pub struct AxisSpec {
    pub lo: f64,
    pub hi: f64,
    pub scale: Scale,
    pub format: Format,
    pub title: String,
    pub given: Option<Vec<Tick>>,
}

impl AxisSpec {
    pub fn new(lo: f64, hi: f64, scale: Scale, format: Format, title: &str) -> AxisSpec {
        AxisSpec {
            lo,
            hi,
            scale,
            format,
            title: title.into(),
            given: None,
        }
    }

    /// The axis with `ticks` as its ticks, whatever room they have.
    pub fn with_ticks(self, ticks: Vec<Tick>) -> AxisSpec {
        AxisSpec {
            given: Some(ticks),
            ..self
        }
    }
}

/// A chart's layout: the plot's rectangle, the sizes of the label areas, the ticks of the x,
/// left y and right y axes, the axis titles as drawn (cut to fit) and their font sizes.
#[derive(Clone, Debug)]
pub struct Layout {
    pub plot: Rect,
    /// The left and right margins (the frame's, widened for an x label that would spill over).
    pub left: f64,
    pub right: f64,
    pub x_area: f64,
    pub y_area: f64,
    pub y2_area: f64,
    pub x: Vec<Tick>,
    pub y: Vec<Tick>,
    pub y2: Vec<Tick>,
    /// The x, y and right y axis titles as drawn.
    pub titles: [String; 3],
    /// The font of the x and left y axis titles, and of the right one.
    pub title_fonts: [f64; 2],
    frame: Frame,
    specs: [AxisSpec; 3],
}

/// Lays out a chart on `frame` with axes `x`, `y` and, if any, a right-hand `y2`.
pub fn layout(frame: &Frame, x: &AxisSpec, y: &AxisSpec, y2: Option<&AxisSpec>) -> Layout {
    let (font, tf) = (frame.tick_font, frame.title_font);
    let dist = 2.0 * frame.tick_len;
    let titled = |a: &AxisSpec| !a.title.is_empty();
    let ticks_only = dist + line_height(font);
    let under = gap(tf) + line_height(tf);
    // A low chart (large type on a projector's short row) reflows rather than lose its plot:
    // the x axis's title moves up onto the tick row, after the last label, when under the
    // labels it would leave the plot less than MIN_PLOT_SHARE of the canvas (#53).
    let room = frame.height - frame.top - frame.bottom;
    // Given x ticks (a chart of columns, each named) are never dropped for the folded title.
    let folded =
        titled(x) && x.given.is_none() && room - ticks_only - under < MIN_PLOT_SHARE * frame.height;
    let x_area = ticks_only + if titled(x) && !folded { under } else { 0.0 };
    let plot_h = (frame.height - frame.top - frame.bottom - x_area).max(1.0);
    let vertical = |a: &AxisSpec| match &a.given {
        Some(given) => given.clone(),
        None => ticks::ticks(a.lo, a.hi, a.scale, a.format, plot_h, false, font),
    };
    let y_ticks = vertical(y);
    let y2_ticks = y2.map(vertical).unwrap_or_default();
    let area = |a: &AxisSpec, t: &[Tick]| {
        let widest = t
            .iter()
            .map(|t| text_width(&t.label, font))
            .fold(0.0, f64::max);
        label_area(frame, widest, titled(a))
    };
    let y_area = area(y, &y_ticks);
    let y2_area = y2.map_or(0.0, |a| area(a, &y2_ticks));
    // The x labels for the plot's width; the margins widened where the first or last one
    // would spill over the canvas's edge.
    let (mut left, mut right) = (frame.left, frame.right);
    let (mut plot_w, mut x_ticks) = (1.0, Vec::new());
    for _ in 0..3 {
        plot_w = (frame.width - left - right - y_area - y2_area).max(1.0);
        x_ticks = match &x.given {
            Some(given) => given.clone(),
            None => ticks::ticks(x.lo, x.hi, x.scale, x.format, plot_w, true, font),
        };
        if folded {
            x_ticks = fold_title(x_ticks, x, plot_w, font);
        }
        let (mut over_left, mut over_right) = (0.0f64, 0.0f64);
        for t in &x_ticks {
            let at = position(t.value, x.lo, x.hi, x.scale, plot_w);
            let half = text_width(&t.label, font) / 2.0 + font / 4.0;
            over_left = over_left.max(half - at - left - y_area);
            over_right = over_right.max(at + half - plot_w - right - y2_area);
        }
        if over_left <= 0.0 && over_right <= 0.0 {
            break;
        }
        left += over_left.max(0.0);
        right += over_right.max(0.0);
    }
    let plot = Rect {
        x: left + y_area,
        y: frame.top,
        w: plot_w,
        h: plot_h,
    };
    // Axis titles: the x one within the canvas, centred under the plot; the y ones along the
    // plot, and half the labels' distance from the axis beyond each end. Shrunk to 3/4 of
    // their size at most, then left out — but first a log axis's "(log scale)" says "(log)":
    // the moments lesson's ε chart at 1280 × 720 read "ε (log scal…".
    let fit = |text: &str, room: f64| -> (String, f64) {
        let short = text.replace(" (log scale)", " (log)");
        let text = match text_width(text, tf * 0.75) > room {
            true => short.as_str(),
            false => text,
        };
        // Too long even so: left out, not cut ("e…" and "…" stood along the plots of a low
        // clipping histogram and noise chart at Text: large, below the lesson's charts); the
        // chart's title says what it counts.
        if text_width(text, tf * 0.75) > room * (1.0 + 1e-9) {
            return (String::new(), tf);
        }
        let f = (room / text_width(text, 1.0).max(1e-9)).min(tf);
        (fit_text(text, room, f), f)
    };
    let centre = plot.x + plot.w / 2.0;
    let x_title = if folded { "" } else { x.title.as_str() };
    let (xt, xf) = fit(x_title, 2.0 * centre.min(frame.width - centre) - font);
    let along = plot_h + dist.min(frame.top);
    let (yt, yf) = fit(&y.title, along);
    let (y2t, y2f) = y2.map_or((String::new(), tf), |a| fit(&a.title, along));
    Layout {
        plot,
        left,
        right,
        x_area,
        y_area,
        y2_area,
        x: x_ticks,
        y: y_ticks,
        y2: y2_ticks,
        title_fonts: [xf.min(yf), y2f],
        titles: [xt, yt, y2t],
        frame: frame.clone(),
        specs: [
            x.clone(),
            y.clone(),
            y2.cloned().unwrap_or_else(|| y.clone()),
        ],
    }
}

/// The least share of its canvas's height a chart's plot keeps where reflowing can give it:
/// below it the x axis's title joins the tick row and the legend leaves the bottom (#53).
pub const MIN_PLOT_SHARE: f64 = 0.4;

/// The x ticks with the axis's title written after the last label ("10 epoch"), and before it
/// every k-th tick back from the last, for the least k whose nearest label the longer last one
/// leaves clear: the labels stay evenly spaced ("1 3 5 epoch", never "0 1 2 3 5 epoch").
fn fold_title(ticks: Vec<Tick>, x: &AxisSpec, plot_w: f64, font: f64) -> Vec<Tick> {
    let Some((last, before)) = ticks.split_last() else {
        return ticks;
    };
    let named = Tick {
        value: last.value,
        label: format!("{} {}", last.label, x.title),
    };
    let at = |t: &Tick| position(t.value, x.lo, x.hi, x.scale, plot_w);
    let start = at(&named) - text_width(&named.label, font) / 2.0;
    let gap = ticks::label_gap(font, true);
    let clear = |t: &Tick| at(t) + text_width(&t.label, font) / 2.0 + gap <= start;
    let n = before.len();
    let stride = (1..=n).find(|&k| clear(&before[n - k]));
    let mut out: Vec<Tick> = match stride {
        Some(k) => (0..n)
            .filter(|i| (n - i) % k == 0)
            .map(|i| before[i].clone())
            .collect(),
        None => Vec::new(),
    };
    out.push(named);
    out
}

/// The width a y axis takes beside the plot on `frame`: its labels (`widest` of them) twice the
/// tick length from the axis, a gap, and its title's line if `titled`.
pub fn label_area(frame: &Frame, widest: f64, titled: bool) -> f64 {
    let title = if titled {
        line_height(frame.title_font)
    } else {
        0.0
    };
    2.0 * frame.tick_len + widest + gap(frame.tick_font) + title
}

/// The space between a label and the next thing over.
fn gap(font: f64) -> f64 {
    font / 4.0
}

impl Layout {
    /// Where plotters draws each tick label and axis title, as plotters places them: x labels
    /// centred under their tick, twice the tick length below the axis; y labels right-aligned
    /// left of it (left-aligned right of the right axis), centred on their tick; the axis
    /// titles at the outer edges of the label areas. With each box's text.
    pub fn label_boxes(&self) -> Vec<(Rect, String)> {
        let (f, p) = (&self.frame, self.plot);
        let (font, dist) = (f.tick_font, 2.0 * f.tick_len);
        let lh = line_height(font);
        let [sx, sy, sy2] = &self.specs;
        let mut out = Vec::new();
        for t in &self.x {
            let (w, at) = (
                text_width(&t.label, font),
                position(t.value, sx.lo, sx.hi, sx.scale, p.w),
            );
            let r = Rect {
                x: p.x + at - w / 2.0,
                y: p.y + p.h + dist,
                w,
                h: lh,
            };
            out.push((r, t.label.clone()));
        }
        for (ticks, spec, left) in [(&self.y, sy, true), (&self.y2, sy2, false)] {
            for t in ticks {
                let w = text_width(&t.label, font);
                let at = p.y + p.h - position(t.value, spec.lo, spec.hi, spec.scale, p.h);
                let x = if left {
                    p.x - dist - w
                } else {
                    p.x + p.w + dist
                };
                out.push((
                    Rect {
                        x,
                        y: at - lh / 2.0,
                        w,
                        h: lh,
                    },
                    t.label.clone(),
                ));
            }
        }
        let [xf, y2f] = self.title_fonts;
        let [xt, yt, y2t] = &self.titles;
        if !xt.is_empty() {
            let w = text_width(xt, xf);
            let bottom = p.y + p.h + self.x_area;
            let r = Rect {
                x: p.x + p.w / 2.0 - w / 2.0,
                y: bottom - line_height(xf),
                w,
                h: line_height(xf),
            };
            out.push((r, xt.clone()));
        }
        for (text, font, x) in [
            (yt, xf, p.x - self.y_area),
            (y2t, y2f, p.x + p.w + self.y2_area - line_height(y2f)),
        ] {
            if !text.is_empty() {
                let len = text_width(text, font);
                let r = Rect {
                    x,
                    y: p.y + p.h / 2.0 - len / 2.0,
                    w: line_height(font),
                    h: len,
                };
                out.push((r, text.clone()));
            }
        }
        out
    }
}
