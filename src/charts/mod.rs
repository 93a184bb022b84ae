//! The charts' arithmetic, pure and tested natively (the drawing itself, on plotters, is in
//! `web/`): how wide a label is at a font size, which ticks an axis gets so that no two labels
//! touch, where the plot goes once the labels and axis titles have their room, titles fitted
//! to the width, and the accuracy chart's range and the cost of privacy when runs are compared, and who pays for
//! it: the gap between groups.
//!
//! Sizes are in canvas pixels. Every text width is the estimate [`text_width`], the same one
//! the drawing uses to make room, so a layout that fits here fits on the canvas.

pub mod accuracy;
pub mod clipping;
pub mod groups;
pub mod layout;
pub mod row_labels;
#[cfg(test)]
mod tests;
pub mod ticks;
pub mod wording;

pub use layout::{layout, AxisSpec, Frame, Layout, Rect};
pub use ticks::{log_label, ticks, Format, Scale, Tick};

/// The width of `text` in sans-serif at `font_px`, estimated from per-character widths in ems
/// a little above those of the common sans-serif faces (Arial/Liberation Sans and the wider
/// DejaVu Sans), so that the estimate is never short of what the browser draws.
pub fn text_width(text: &str, font_px: f64) -> f64 {
    text.chars().map(char_em).sum::<f64>() * font_px
}

/// One character's estimated width, in ems.
fn char_em(c: char) -> f64 {
    match c {
        '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'i' | 'j' | 'l' | 'I' | '·' => 0.34,
        ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '/' | '-' => 0.42,
        'm' | 'w' | 'M' | 'W' | '%' | '…' | '@' | '∞' | '—' => 1.0,
        '0'..='9' => 0.64,
        'A'..='Z' => 0.8,
        _ => 0.66,
    }
}

/// The height of a line of text at `font_px` (ascent and descent).
pub fn line_height(font_px: f64) -> f64 {
    font_px * 1.2
}

/// `text` cut at the end with "…" so that it is at most `max_width` wide at `font_px`. A text
/// over by rounding alone (a font of exactly `max_width` ÷ its width at 1 px) is whole.
pub fn fit_text(text: &str, max_width: f64, font_px: f64) -> String {
    if text_width(text, font_px) <= max_width * (1.0 + 1e-9) {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if text_width(&out, font_px) + (char_em(c) + 1.0) * font_px > max_width {
            break;
        }
        out.push(c);
    }
    out.trim_end().to_string() + "…"
}

/// A title fitted to `max_width`: on one line at `font_px` if it fits, else shrunk down to
/// `min_font` at most, else wrapped at spaces onto as many lines as it needs at `min_font` (a
/// word wider than the width alone is cut with "…"). Returns the lines and their font size.
pub fn fit_title(text: &str, max_width: f64, font_px: f64, min_font: f64) -> (Vec<String>, f64) {
    let one_line = text_width(text, 1.0);
    if one_line * font_px <= max_width {
        return (vec![text.to_string()], font_px);
    }
    if one_line * min_font <= max_width {
        return (vec![text.to_string()], max_width / one_line);
    }
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), min_font) <= max_width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(fit_text(word, max_width, min_font)),
        }
    }
    (lines, min_font)
}
