//! The two live charts, drawn with plotters on a canvas of the page from the reports the
//! worker posted: accuracy (train and test) against epochs, and ε against epochs, each with
//! the pinned runs faded behind. The views
//! of the mechanism (clipping, noise) are in `views.rs`.

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

/// The part of an epoch report the accuracy chart reads.
#[derive(Deserialize)]
struct AccuracyPoint {
    epoch: f64,
    train_acc: f64,
    test_acc: f64,
}

/// One epoch's ε per accountant; `null` (∞) or missing is skipped.
#[derive(Deserialize)]
struct EpsilonPoint {
    epoch: f64,
    naive: Option<f64>,
    strong: Option<f64>,
    moments: Option<f64>,
    rdp: Option<f64>,
    /// The PLD accountant's ε: only in the preview, when the page's accounting worker has
    /// computed it (it takes tens of milliseconds).
    #[serde(default)]
    pld: Option<f64>,
}

pub(super) fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

pub(super) fn parse<T: for<'a> Deserialize<'a>>(json: &str, what: &str) -> Result<T, JsError> {
    serde_json::from_str(json).map_err(|e| JsError::new(&format!("{what}: {e}")))
}

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

/// Log axis labels: only 1, 2 and 5 times a power of ten, so the ticks between stay unlabelled.
pub(super) fn log_label(v: &f64) -> String {
    let mantissa = v / 10f64.powf(v.log10().floor());
    if [1.0, 2.0, 5.0].iter().any(|m| (mantissa - m).abs() < 1e-6) {
        format!("{v:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        String::new()
    }
}

/// Colours of pinned runs (the rest of the Okabe–Ito palette, then grey).
const PIN_COLORS: [RGBColor; 4] = [
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(204, 121, 167),
    RGBColor(150, 150, 150),
];

/// A pinned run: its label and its epoch reports.
#[derive(Deserialize)]
pub(super) struct Pinned {
    label: String,
    history: Vec<serde_json::Value>,
}

impl Pinned {
    /// (epoch, value) for a field of the reports (`path` of keys, e.g. ["epsilon", "moments"]).
    fn series(&self, path: &[&str]) -> Vec<(f64, f64)> {
        self.history
            .iter()
            .filter_map(|r| {
                let v = path.iter().try_fold(r, |v, k| v.get(k))?.as_f64()?;
                Some((r.get("epoch")?.as_f64()?, v))
            })
            .collect()
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

/// Draws train and test accuracy for the finished epochs (`history_json`: array of epoch
/// reports) on an x axis of `epochs` epochs, with the test accuracy of pinned runs
/// (`pinned_json`: array of {label, history}) faded behind. `scale` is the device pixel ratio.
#[wasm_bindgen]
pub fn draw_accuracy_chart(
    canvas_id: &str,
    history_json: &str,
    pinned_json: &str,
    epochs: u32,
    scale: f64,
) -> Result<(), JsError> {
    let points: Vec<AccuracyPoint> = parse(history_json, "accuracy history")?;
    let pinned: Vec<Pinned> = parse(pinned_json, "pinned runs")?;
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
    let pinned_accs: Vec<f64> = pinned
        .iter()
        .flat_map(|p| p.series(&["test_acc"]))
        .map(|(_, v)| v)
        .collect();
    let accs = points
        .iter()
        .flat_map(|p| [p.train_acc, p.test_acc])
        .chain(pinned_accs)
        .filter(|v| v.is_finite());
    let lo = accs.fold(1.0f64, f64::min);
    let lo = ((lo - 0.02) * 20.0).floor() / 20.0; // to the 0.05 below, with a margin
    let lo = lo.clamp(0.0, 0.9);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .caption("Accuracy", ("sans-serif", px(18.0)))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(48.0))
        .build_cartesian_2d(0f64..(epochs.max(1) as f64), lo..1.0)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("accuracy")
        .x_label_formatter(&epoch_label)
        .y_labels(8)
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    for (pin, color) in pinned.iter().zip(PIN_COLORS) {
        let style = ShapeStyle::from(&color.mix(0.6)).stroke_width(px(2.0));
        chart
            .draw_series(LineSeries::new(pin.series(&["test_acc"]), style))
            .map_err(js_err)?
            .label(format!("{} (test)", pin.label))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    for (name, color, get) in [
        (
            "train",
            BLUE,
            (|p: &AccuracyPoint| p.train_acc) as fn(&AccuracyPoint) -> f64,
        ),
        ("test", ORANGE, |p: &AccuracyPoint| p.test_acc),
    ] {
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        let series = points
            .iter()
            .map(|p| (p.epoch, get(p)))
            .filter(|(_, v)| v.is_finite());
        chart
            .draw_series(LineSeries::new(series.clone(), style))
            .map_err(js_err)?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        chart
            .draw_series(series.map(|p| Circle::new(p, px(3.0), color.filled())))
            .map_err(js_err)?;
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight, px(14.0))?;
    root.present().map_err(js_err)
}

/// Draws ε (log scale) against epochs for each accountant: the whole predicted curve
/// (`preview_json`, from `epsilon_curve`) thin, and the epochs trained so far (`history_json`,
/// epoch reports) thick with markers. When every ε is ∞ (σ = 0) it says "∞ — no privacy".
#[wasm_bindgen]
pub fn draw_epsilon_chart(
    canvas_id: &str,
    preview_json: &str,
    history_json: &str,
    pinned_json: &str,
    epochs: u32,
    log_log: bool,
    scale: f64,
) -> Result<(), JsError> {
    let preview: Vec<EpsilonPoint> = parse(preview_json, "epsilon preview")?;
    let pinned: Vec<Pinned> = parse(pinned_json, "pinned runs")?;
    // Log-log view: x is log10(epoch) on a linear axis, labelled in epochs, so each accountant's
    // growth shows as a slope (naive 1, strong about ½, the moments accountant much flatter).
    let ex = |e: f64| if log_log { e.max(1.0).log10() } else { e };
    #[derive(Deserialize)]
    struct Report {
        epoch: f64,
        epsilon: serde_json::Value,
    }
    let history: Vec<Report> = parse(history_json, "epsilon history")?;
    let done: Vec<EpsilonPoint> = history
        .iter()
        .map(|r| {
            let get = |k: &str| r.epsilon.get(k).and_then(|v| v.as_f64());
            EpsilonPoint {
                epoch: r.epoch,
                naive: get("naive"),
                strong: get("strong"),
                moments: get("moments"),
                rdp: get("rdp"),
                pld: None,
            }
        })
        .collect();
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
    let all = preview
        .iter()
        .chain(&done)
        .flat_map(|p| [p.naive, p.strong, p.moments, p.rdp, p.pld])
        .flatten();
    let positive: Vec<f64> = all.filter(|v| v.is_finite() && *v > 0.0).collect();
    if positive.is_empty() {
        let (w, h) = root.dim_in_pixel();
        let style = ("sans-serif", px(22.0)).into_font().color(&VERMILLION);
        root.draw(&Text::new(
            "ε = ∞ — no privacy (σ = 0)",
            (w as i32 / 6, h as i32 / 2),
            style,
        ))
        .map_err(js_err)?;
        return root.present().map_err(js_err);
    }
    let lo = positive.iter().cloned().fold(f64::INFINITY, f64::min) * 0.8;
    let hi = positive.iter().cloned().fold(0.0, f64::max) * 1.5;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_right(px(if log_log { 170.0 } else { 118.0 })) // room for the curves' names
        .caption("Privacy spent ε (δ fixed)", ("sans-serif", px(18.0)))
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(56.0))
        .build_cartesian_2d(
            if log_log {
                0.0..ex(epochs.max(2) as f64)
            } else {
                0f64..(epochs.max(1) as f64)
            },
            (lo..hi).log_scale(),
        )
        .map_err(js_err)?;
    let log_epoch_label = |v: &f64| log_label(&10f64.powf(*v));
    chart
        .configure_mesh()
        .x_desc(if log_log {
            "epoch (log scale)"
        } else {
            "epoch"
        })
        .y_desc("ε (log scale)")
        .x_label_formatter(if log_log {
            &log_epoch_label
        } else {
            &epoch_label
        })
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", px(13.0)))
        .y_label_formatter(&log_label)
        .draw()
        .map_err(js_err)?;
    type Get = fn(&EpsilonPoint) -> Option<f64>;
    let accountants: [(&str, RGBColor, Get); 5] = [
        ("naive", VERMILLION, |p| p.naive),
        ("strong", PURPLE, |p| p.strong),
        ("moments", BLUE, |p| p.moments),
        ("RDP", GREEN, |p| p.rdp),
        ("PLD", ORANGE, |p| p.pld),
    ];
    let mut labels: Vec<(String, RGBColor, (i32, i32))> = Vec::new();
    for (name, color, get) in accountants {
        let series = |pts: &[EpsilonPoint]| -> Vec<(f64, f64)> {
            pts.iter()
                .filter_map(|p| get(p).filter(|v| *v > 0.0).map(|v| (ex(p.epoch), v)))
                .collect()
        };
        let thin = ShapeStyle::from(&color.mix(0.45)).stroke_width(px(1.5));
        let whole = series(&preview);
        chart
            .draw_series(LineSeries::new(whole.clone(), thin))
            .map_err(js_err)?;
        let thick = ShapeStyle::from(&color).stroke_width(px(3.0));
        let trained = series(&done);
        chart
            .draw_series(LineSeries::new(trained.clone(), thick))
            .map_err(js_err)?;
        chart
            .draw_series(
                trained
                    .iter()
                    .map(|&p| Circle::new(p, px(3.0), color.filled())),
            )
            .map_err(js_err)?;
        if let Some(&(x, y)) = whole.last().or(trained.last()) {
            let at = chart.backend_coord(&(x, y));
            let slope = match (log_log, whole.first()) {
                // Growth exponent over the second half of the run: d ln ε / d ln E.
                (true, Some(_)) if whole.len() >= 4 => {
                    let (x0, y0) = whole[whole.len() / 2];
                    format!(
                        " (slope {:.2})",
                        (y.ln() - y0.ln()) / ((x - x0) * std::f64::consts::LN_10)
                    )
                }
                _ => String::new(),
            };
            labels.push((format!("{name} {}{slope}", format_eps(y)), color, at));
        }
    }
    for (pin, color) in pinned.iter().zip(PIN_COLORS) {
        let pts: Vec<(f64, f64)> = pin
            .series(&["epsilon", "moments"])
            .into_iter()
            .filter(|p| p.1 > 0.0)
            .map(|(e, v)| (ex(e), v))
            .collect();
        let style = ShapeStyle::from(&color.mix(0.6)).stroke_width(px(2.0));
        chart
            .draw_series(LineSeries::new(pts.clone(), style))
            .map_err(js_err)?;
        if let Some(&(x, y)) = pts.last() {
            let at = chart.backend_coord(&(x, y.clamp(lo, hi)));
            labels.push((format!("{} {}", pin.label, format_eps(y)), color, at));
        }
    }
    end_labels(&root, labels, px(16.0) as i32, px(14.0))?;
    root.present().map_err(js_err)
}

/// ε with three significant digits (as the run log shows it).
fn format_eps(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.0}")
    }
}
