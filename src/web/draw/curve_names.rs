//! Names at the curves' right ends ([`super::legend::naming`]'s `Beside`): where they may
//! stand (below the header, stepping round an x label that reaches into the margin), the
//! chart laid out so they keep their room, and the names drawn, set smaller where a low chart
//! has no line for each.

use super::chart_kit::Area;
use super::legend::{LegendEntry, Naming};
use super::legend_sample::sample;
use crate::charts::{fit_text, line_height, text_width, Layout, Rect};
use crate::web::js::js_err;
use plotters::prelude::*;
use wasm_bindgen::prelude::*;

/// A chart laid out for `naming` (`lay_out`: its frame and layout for a right and a bottom
/// margin), laid out again with a wider margin where names at the curves' ends would step
/// right of an x label reaching into it ([`names_span`]'s `clear`) and lose that much of their
/// room: at 1280 × 720 the accuracy chart's "train (outside ε)" read "train (outsi…" beside
/// the folded "20 epoch". Returns the naming as widened, the frame and the layout.
pub(super) fn laid_out_clear<T>(
    naming: Naming,
    height: f64,
    font: f64,
    lay_out: impl Fn(f64, f64) -> (T, Layout),
) -> (Naming, T, Layout) {
    let (right, bottom) = naming.margins();
    let (mut frame, mut lay) = lay_out(right, bottom);
    let Naming::Beside(room) = naming else {
        return (naming, frame, lay);
    };
    let mut widened = room;
    let first_plot = lay.plot.w;
    // A narrower plot may move the last label: at most twice more. Never for a label that
    // would take half the plot (a folded x title's long line: the σ chart's plot went to 0).
    for _ in 0..2 {
        let Some((_, _, r)) = names_span(&lay, &lay.plot, height, font).clear else {
            break;
        };
        // As end_labels steps a name: from 3/7 of a font right of the curve's end to a third
        // of one right of the label's end.
        let ends = lay.plot.x + lay.plot.w + font * 3.0 / 7.0;
        let past = (f64::from(r) + font / 3.0 - ends + 1.0).ceil();
        if past <= widened - room || past > first_plot / 2.0 {
            break;
        }
        let (wider_frame, wider) = lay_out(room + past, bottom);
        if wider.plot.w < first_plot / 2.0 {
            break;
        }
        (widened, frame, lay) = (room + past, wider_frame, wider);
    }
    (Naming::Beside(widened), frame, lay)
}

/// Where a chart's curve names at their right ends may stand: from the plot's `top` down to
/// the canvas's `foot` (a projector's low plot has less height than six names, and the margin
/// they stand in is empty below it), but right of `clear`'s x where an x tick label reaches
/// into that margin (the last one, "10 epoch" when the x title is folded onto the tick row):
/// (its top, its bottom, its right end).
#[derive(Clone, Copy)]
pub(super) struct NamesSpan {
    pub top: i32,
    pub foot: i32,
    pub clear: Option<(i32, i32, i32)>,
}

/// The span of `lay`'s chart (its `plot`, on a canvas `height` high) for names at `font`.
pub(super) fn names_span(lay: &Layout, plot: &Rect, height: f64, font: f64) -> NamesSpan {
    let right = plot.x + plot.w;
    let clear = lay
        .label_boxes()
        .into_iter()
        .take(lay.x.len())
        .map(|(r, _)| r)
        .filter(|r| r.x + r.w > right)
        .max_by(|a, b| (a.x + a.w).total_cmp(&(b.x + b.w)))
        .map(|r| (r.y as i32, (r.y + r.h) as i32, (r.x + r.w) as i32));
    NamesSpan {
        top: plot.y as i32,
        foot: (height - line_height(font) / 2.0) as i32,
        clear,
    }
}

/// Names each curve at its right end, nudged apart vertically by at least a line so close
/// curves stay readable, kept within `span` (above its top is the header's note; an x label
/// in the margin is stepped round); each name cut to fit `room` pixels.
pub(super) fn end_labels(
    root: &Area,
    mut labels: Vec<(LegendEntry, (i32, i32))>,
    samples: bool,
    font: f64,
    room: f64,
    span: NamesSpan,
) -> Result<(), JsError> {
    // An x label reaching so far into the margin that a name stepped right of it would not
    // fit (the σ chart's folded x title, at Text: large) bounds the names above it instead.
    let canvas_width = root.dim_in_pixel().0 as i32;
    let widest = labels
        .iter()
        .map(|l| text_width(&l.0 .0, font))
        .fold(0.0, f64::max);
    let bottom = match span.clear {
        Some((top, _, right)) if f64::from(canvas_width - right) < widest + 2.0 * font => {
            top - (line_height(font) / 2.0) as i32
        }
        _ => span.foot,
    };
    // Names that would not stand a line apart between the plot's top and that foot are set
    // smaller, down to 3/5 of their size: on a low chart seven names (Compare's four runs off
    // the cost step, Text: normal) ran up over the chart's title.
    let height = f64::from(bottom - span.top);
    let n = labels.len() as f64;
    let font = match n * line_height(font).ceil() <= height {
        true => font,
        false => (height / n / line_height(1.0) - 0.5)
            .max(0.6 * font)
            .min(font),
    };
    let gap = line_height(font).ceil() as i32;
    labels.sort_by_key(|l| l.1 .1);
    if let Some(first) = labels.first_mut() {
        first.1 .1 = first.1 .1.max(span.top + gap / 2);
    }
    for i in 1..labels.len() {
        labels[i].1 .1 = labels[i].1 .1.max(labels[i - 1].1 .1 + gap);
    }
    if let Some(last) = labels.last_mut() {
        last.1 .1 = last.1 .1.min(bottom);
    }
    for i in (0..labels.len().saturating_sub(1)).rev() {
        labels[i].1 .1 = labels[i].1 .1.min(labels[i + 1].1 .1 - gap);
    }
    for ((text, color, dash), (x, y)) in labels {
        let mut x = x + (font * 3.0 / 7.0) as i32;
        let mut room = room - font * 3.0 / 7.0;
        let half = (font / 2.0) as i32;
        if let Some((_, _, right)) = span.clear.filter(|c| y + half > c.0 && y - half < c.1) {
            let past = right + (font / 3.0) as i32 - x;
            if past > 0 {
                x += past;
                room -= f64::from(past);
            }
        }
        if samples {
            let len = 1.4 * font;
            sample(root, (x, y), len, color, dash, font)?;
            x += (len + font * 0.4) as i32;
            room -= len + font * 0.4;
        }
        // A curve that ends inside the plot (this run at epoch 1 of pins' 10) has the rest of
        // the plot too: up to the canvas's edge (stepped right of "10 epoch" with only the
        // margin's room, its name was "…").
        let room = room.max(f64::from(canvas_width - x) - font / 3.0);
        let style = ("sans-serif", font).into_font().color(&color);
        let text = fit_text(&text, room, font);
        root.draw(&Text::new(text, (x, y - (font / 2.0) as i32), style))
            .map_err(js_err)?;
    }
    Ok(())
}
