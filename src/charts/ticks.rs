//! An axis's ticks: round values (1, 2 or 5 times a power of ten; whole numbers on an epoch
//! axis; 1, 2 and 5 per decade on a log axis, then fewer), as many as fit the axis's length
//! in pixels at the label font without two labels touching, and how each is written.

use super::{line_height, text_width};

/// How values map to positions along an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Evenly, any round value a tick.
    Linear,
    /// Evenly, ticks at whole numbers only (epochs).
    Integer,
    /// Logarithmically (values > 0).
    Log,
}

/// How a tick's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// As a decimal with the digits the tick spacing needs ("0.25", "3", "2e8").
    Decimal,
    /// A fraction as a percentage ("95%", "92.5%").
    Percent,
    /// Log-axis style: 1, 2, 5 times a power of ten, "5e-4" or "2e8" outside 0.01..10⁴.
    Log,
}

/// A tick: its value and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub value: f64,
    pub label: String,
}

/// At most this many ticks along an axis, however long (more is clutter, not information).
const MAX_TICKS: usize = 11;

/// The ticks of an axis from `lo` to `hi` that is `length` pixels long, across the canvas
/// (`horizontal`: labels side by side) or up it (labels stacked), labelled at `font` px: the
/// densest round set whose labels all keep [`label_gap`] apart (one tick when none does).
pub fn ticks(
    lo: f64,
    hi: f64,
    scale: Scale,
    format: Format,
    length: f64,
    horizontal: bool,
    font: f64,
) -> Vec<Tick> {
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    if !(lo.is_finite() && hi.is_finite()) || (scale == Scale::Log && lo <= 0.0) {
        return Vec::new();
    }
    let label = |v: f64, step: f64| Tick {
        value: v,
        label: write(v, step, format),
    };
    let fit = |set: &[Tick]| fits(set, lo, hi, scale, length, horizontal, font);
    let mut last: Vec<Tick> = Vec::new();
    for (values, step) in candidates(lo, hi, scale) {
        if values.is_empty() || values.len() > MAX_TICKS {
            continue;
        }
        let set: Vec<Tick> = values.iter().map(|&v| label(v, step)).collect();
        // One label says nothing of the scale (5–85% at a 50% step: "50%" alone): every 2nd,
        // 3rd… label of the denser set that did not fit, where two or more of them do.
        if set.len() < 2 && last.len() >= 2 {
            if let Some(thin) = thinned(&last, &fit) {
                return thin;
            }
        }
        if fit(&set) {
            return set;
        }
        last = set;
    }
    // Not even two fit: two or more evenly spaced ones of the last set, or its middle one.
    thinned(&last, &fit).unwrap_or_else(|| last.get(last.len() / 2).cloned().into_iter().collect())
}

/// Every k-th tick of `set` (k = 2, 3, …, each offset tried), the densest with two or more
/// ticks that `fit`s, if any: the labels stay evenly spaced.
fn thinned(set: &[Tick], fit: &dyn Fn(&[Tick]) -> bool) -> Option<Vec<Tick>> {
    (2..set.len()).find_map(|k| {
        (0..k).find_map(|offset| {
            let thin: Vec<Tick> = set.iter().skip(offset).step_by(k).cloned().collect();
            (thin.len() >= 2 && fit(&thin)).then_some(thin)
        })
    })
}

/// The space between two neighbouring labels, at the least: an em side by side (so that
/// numbers never run together), 0.6 em stacked (on top of the line height).
pub fn label_gap(font: f64, horizontal: bool) -> f64 {
    if horizontal {
        font
    } else {
        font * 0.6
    }
}

/// Whole-number ticks for counts from 0 to `top` on a vertical axis from 0 to `hi` that is
/// `length` px long: steps of 1, 2 or 5 × 10ᵏ, at most six ticks, and no two labels closer than
/// a label and its gap (at a projector's largest Text a histogram's plot can be 100 px high, and
/// six labels of 24 px stood on one another there); 0 alone where not even 0 and `top` fit.
pub fn whole_ticks(top: u64, hi: f64, length: f64, font: f64) -> Vec<Tick> {
    let apart = extent("0", font, false) + label_gap(font, false);
    let fits = |step: u64| top / step <= 5 && step as f64 / hi * length >= apart;
    let step = (0..19)
        .flat_map(|k| [1, 2, 5].map(|m| m * 10u64.pow(k)))
        .find(|&s| fits(s) || s > top)
        .unwrap_or(top)
        .max(1);
    (0..=top)
        .step_by(step as usize)
        .map(|c| Tick {
            value: c as f64,
            label: c.to_string(),
        })
        .collect()
}

/// How much of the axis a label takes along it: its width side by side, its height stacked.
pub fn extent(label: &str, font: f64, horizontal: bool) -> f64 {
    if horizontal {
        text_width(label, font)
    } else {
        line_height(font)
    }
}

/// Where `v` is along an axis from `lo` to `hi` that is `length` pixels long.
pub fn position(v: f64, lo: f64, hi: f64, scale: Scale, length: f64) -> f64 {
    let f = |x: f64| if scale == Scale::Log { x.ln() } else { x };
    if hi <= lo {
        return 0.0;
    }
    (f(v) - f(lo)) / (f(hi) - f(lo)) * length
}

/// Whether no two labels of `set` come closer than [`label_gap`].
fn fits(set: &[Tick], lo: f64, hi: f64, scale: Scale, length: f64, horiz: bool, font: f64) -> bool {
    let mut spans: Vec<(f64, f64)> = set
        .iter()
        .map(|t| {
            let p = position(t.value, lo, hi, scale, length);
            let half = extent(&t.label, font, horiz) / 2.0;
            (p - half, p + half)
        })
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    spans
        .windows(2)
        .all(|w| w[1].0 - w[0].1 >= label_gap(font, horiz))
}

/// Candidate tick sets, densest first, each with its spacing (for the labels' digits).
fn candidates(lo: f64, hi: f64, scale: Scale) -> Vec<(Vec<f64>, f64)> {
    match scale {
        Scale::Linear => linear(lo, hi, false),
        Scale::Integer => linear(lo, hi, true),
        Scale::Log => {
            let sets = log_sets(lo, hi);
            if sets.first().is_some_and(|s| s.0.len() >= 2) {
                sets
            } else {
                // A narrow log range (no two of 1, 2, 5 per decade in it): round values.
                linear(lo, hi, false)
            }
        }
    }
}

/// Multiples of 1, 2, 5 × 10^k in [lo, hi], for spacings from a hundredth of the range up.
fn linear(lo: f64, hi: f64, whole: bool) -> Vec<(Vec<f64>, f64)> {
    let span = hi - lo;
    if span <= 0.0 {
        return vec![(vec![lo], 1.0)];
    }
    let mut out = Vec::new();
    let first = (span / 100.0).log10().floor() as i32;
    for exp in first..first + 5 {
        for m in [1.0, 2.0, 5.0] {
            let step = m * 10f64.powi(exp);
            if whole && step < 1.0 {
                continue;
            }
            let (k0, k1) = ((lo / step - 1e-9).ceil(), (hi / step + 1e-9).floor());
            if k1 - k0 > 200.0 {
                continue;
            }
            let values: Vec<f64> = (k0 as i64..=k1 as i64)
                .map(|k| k as f64 * step)
                .map(|v| if v.abs() < step * 1e-9 { 0.0 } else { v })
                .collect();
            out.push((values, step));
        }
    }
    out
}

/// On a log axis: 1, 2 and 5 in each decade, then 1 and 5 (every other label), then powers
/// of ten only, then every 2nd, 3rd, 5th, 10th… power.
fn log_sets(lo: f64, hi: f64) -> Vec<(Vec<f64>, f64)> {
    let (d0, d1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let per_decade = |ms: &[f64]| -> Vec<f64> {
        (d0..=d1)
            .flat_map(|d| ms.iter().map(move |m| m * 10f64.powi(d)))
            .filter(inside)
            .collect()
    };
    let mut sets = vec![
        (per_decade(&[1.0, 2.0, 5.0]), 1.0),
        (per_decade(&[1.0, 5.0]), 1.0),
    ];
    for every in [1, 2, 3, 5, 10, 20, 50, 100] {
        let powers: Vec<f64> = (d0..=d1)
            .filter(|d| d.rem_euclid(every) == 0)
            .map(|d| 10f64.powi(d))
            .filter(inside)
            .collect();
        sets.push((powers, 1.0));
    }
    sets
}

/// `v` written as `format` says, with the digits a spacing of `step` needs; never "-0".
pub fn write(v: f64, step: f64, format: Format) -> String {
    let text = match format {
        Format::Decimal => decimal(v, step),
        Format::Percent => decimal(v * 100.0, step * 100.0) + "%",
        Format::Log => match log_label(&v) {
            l if l.is_empty() => decimal(v, step),
            l => l,
        },
    };
    // A value that rounds to zero is written without a sign.
    let digits = text.trim_start_matches('-');
    if digits.chars().all(|c| matches!(c, '0' | '.' | '%')) {
        digits.to_string()
    } else {
        text
    }
}

/// A decimal with as many digits as `step` needs; 10⁵ and up, or below 10⁻⁴, as "2.5e8".
fn decimal(v: f64, step: f64) -> String {
    let digits = |s: f64| (-(s.abs().log10() + 1e-9).floor()).clamp(0.0, 12.0) as usize;
    if v.abs() < step.abs() * 1e-6 {
        return "0".into();
    }
    if v.abs() >= 1e5 || v.abs() < 1e-4 {
        let exp = v.abs().log10().floor();
        let m = v / 10f64.powf(exp);
        let text = format!("{m:.*}", digits(step / 10f64.powf(exp)).min(4));
        return format!("{}e{exp}", trim_zeros(&text));
    }
    format!("{v:.*}", digits(step))
}

/// "2.50" → "2.5", "3.0" → "3".
fn trim_zeros(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
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

/// Unlabelled grid lines between `set`'s ticks: a fifth (a quarter after a 2) of their spacing
/// on an even axis, 1–9 per decade on a log axis spanning at most a dozen decades.
pub fn light_points(set: &[Tick], lo: f64, hi: f64, scale: Scale) -> Vec<f64> {
    let inside = |v: &f64| *v >= lo && *v <= hi;
    if scale == Scale::Log {
        let (d0, d1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        if d1 - d0 > 12 {
            return Vec::new();
        }
        return (d0..=d1)
            .flat_map(|d| (1..10).map(move |m| m as f64 * 10f64.powi(d)))
            .filter(inside)
            .collect();
    }
    let Some(step) = set.windows(2).map(|w| w[1].value - w[0].value).next() else {
        return Vec::new();
    };
    let mantissa = step / 10f64.powf(step.log10().floor());
    let sub = step
        / if (mantissa - 2.0).abs() < 1e-6 {
            4.0
        } else {
            5.0
        };
    let (k0, k1) = ((lo / sub).ceil() as i64, (hi / sub).floor() as i64);
    if k1 - k0 > 120 {
        return Vec::new();
    }
    (k0..=k1).map(|k| k as f64 * sub).collect()
}
