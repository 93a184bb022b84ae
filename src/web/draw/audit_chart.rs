//! The audit panel's two charts: the privacy region with each attack's ROC and its 95% band
//! (and an earlier audit's ROC beside it, #53 §4), and ε_lower against every accountant's ε on
//! one axis. They read the audit's report (`audit::summarize`) as the page holds it.

use super::chart_frame::{
    builder, draw_header, draw_mesh, draw_row_mesh, frame, keyed, plot_rect, record, record_plot,
    with_points, Fonts, Header,
};
use super::chart_kit::{open_canvas, Dash, BLUE, GREY, ORANGE, PURPLE, VERMILLION};
use super::legend::{LegendEntry, LegendSpot};
use crate::audit::Threat;
use crate::charts::wording::{
    could_show_wordings, epsilon_lower_names, epsilon_names, fit_wording, fit_wordings_together,
    place_wording,
};
use crate::charts::{layout, line_height, text_width, AxisSpec, Format, Scale, Tick};
use crate::config::fmt_num;
use crate::privacy::accountant::AccountantName;
use crate::web::js::{from_js, js_err};
use plotters::prelude::*;
use serde::Deserialize;
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// The fields of an audit report the charts read.
#[derive(Deserialize)]
struct Drawn {
    threat: Threat,
    roc: Vec<[f64; 2]>,
    region: DrawnRegion,
    theory: Vec<[f64; 2]>,
    theory_symmetric: Vec<[f64; 2]>,
    eps_lower: f64,
    /// ε per accountant name (∞: no bar).
    eps_upper: BTreeMap<String, Option<f64>>,
    #[serde(default)]
    one_run: Option<OneRunDrawn>,
    /// When ε_lower is 0: the most these runs could have proved (`region::WhatRunsCanShow`).
    #[serde(default)]
    could_show: Option<CouldShow>,
}

#[derive(Deserialize)]
struct CouldShow {
    most_provable: f64,
}

/// The ROC's 95% simultaneous band and the ε_lower threshold's box (`audit::region`).
#[derive(Deserialize)]
struct DrawnRegion {
    band_upper: Vec<[f64; 2]>,
    band_lower: Vec<[f64; 2]>,
    /// [fpr_lo, fpr_hi, tpr_lo, tpr_hi].
    evidence: [f64; 4],
}

#[derive(Deserialize)]
struct OneRunDrawn {
    eps_lower: f64,
}

fn threat_style(t: Threat) -> (RGBColor, &'static str) {
    match t {
        Threat::WorstCase => (VERMILLION, "worst-case attack"),
        Threat::Realistic => (BLUE, "realistic attack"),
    }
}

/// An audit of other settings kept beside the last one (#53 §4: σ = 0's beside σ = 2's): its
/// attacks' ROC curves, drawn dashed, and what it was of (`label`, "earlier audit, σ = 0").
#[derive(Deserialize)]
struct Earlier {
    label: String,
    results: Vec<EarlierRoc>,
}

#[derive(Deserialize)]
struct EarlierRoc {
    threat: Threat,
    roc: Vec<[f64; 2]>,
}

/// The privacy region (shaded: every (FPR, TPR) a test can reach) with each audit's ROC and
/// its 95% band; the symmetric curve ε is reported from, dashed; and, when `earlier` is an
/// audit of other settings (`{label, results}`, or null), its ROC curves in long dashes.
#[wasm_bindgen]
pub fn draw_audit_region(
    canvas_id: &str,
    results: JsValue,
    earlier: JsValue,
    scale: f64,
) -> Result<(), JsError> {
    let results: Vec<Drawn> = from_js(results, "audit results")?;
    let earlier: Option<Earlier> = from_js(earlier, "earlier audit")?;
    let (root, px) = open_canvas(canvas_id, scale)?;
    let mut fonts = Fonts::new(scale);
    let mut legend: Vec<LegendEntry> = Vec::new();
    if !results.is_empty() {
        legend.push(("privacy region (PLD)".into(), GREY, Dash::Solid.into()));
        legend.push(("symmetric (ε from it)".into(), PURPLE, Dash::Short.into()));
    }
    for r in &results {
        let (color, name) = threat_style(r.threat);
        legend.push((name.to_string(), color, Dash::Solid.into()));
    }
    if let Some(e) = &earlier {
        legend.push((e.label.clone(), GREY, Dash::Long.into()));
    }
    let title = "What an attacker can tell: the privacy region";
    let top = draw_header(&root, &mut fonts, &Header::titled(title))?;
    let spot = LegendSpot::of(&root, &legend, fonts.legend, 6.0 * scale);
    let frame = frame(&root, &fonts, top, spot.right, spot.bottom);
    // FPR and TPR, as the panel's text, its caption and the lessons name them: on a projector's
    // low chart the x title joins the tick row, and "false-positive rate (out, guessed in)" ran
    // under the legend.
    let x_title = "FPR";
    let x = AxisSpec::new(0.0, 1.0, Scale::Linear, Format::Decimal, x_title);
    let y = AxisSpec::new(0.0, 1.0, Scale::Linear, Format::Decimal, "TPR");
    let lay = layout(&frame, &x, &y, None);
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(0.0..1.0, &lay.x, 0.0, 1.0, Scale::Linear),
            keyed(0.0..1.0, &lay.y, 0.0, 1.0, Scale::Linear),
        )
        .map_err(js_err)?;
    draw_mesh(&mut chart, &lay, &lay.x, &lay.y, &fonts, &frame)?;
    if let Some(first) = results.first() {
        // The region lies between the diagonal and the curve.
        let mut area: Vec<(f64, f64)> = first.theory.iter().map(|p| (p[0], p[1])).collect();
        area.push((1.0, 1.0));
        area.push((0.0, 0.0));
        chart
            .draw_series([Polygon::new(area, GREY.mix(0.18).filled())])
            .map_err(js_err)?;
        let line = ShapeStyle::from(&BLACK).stroke_width(px(2.0));
        chart
            .draw_series(LineSeries::new(
                first.theory.iter().map(|p| (p[0], p[1])),
                line,
            ))
            .map_err(js_err)?;
        let dashed = ShapeStyle::from(&PURPLE).stroke_width(px(1.5));
        chart
            .draw_series(DashedLineSeries::new(
                first.theory_symmetric.iter().map(|p| (p[0], p[1])),
                px(5.0),
                px(4.0),
                dashed,
            ))
            .map_err(js_err)?;
    }
    let chance = ShapeStyle::from(&GREY.mix(0.6)).stroke_width(px(1.0));
    chart
        .draw_series(LineSeries::new([(0.0, 0.0), (1.0, 1.0)], chance))
        .map_err(js_err)?;
    for r in &results {
        let (color, _) = threat_style(r.threat);
        // The union of the boxes every threshold's true (FPR, TPR) lies in, at once, with 95%
        // confidence: its upper-left corners, then its lower-right ones back.
        let band = &r.region;
        let mut area: Vec<(f64, f64)> = band.band_upper.iter().map(|p| (p[0], p[1])).collect();
        area.extend(band.band_lower.iter().rev().map(|p| (p[0], p[1])));
        chart
            .draw_series([Polygon::new(area, color.mix(0.18).filled())])
            .map_err(js_err)?;
        let [f_lo, f_hi, t_lo, t_hi] = band.evidence;
        let outline = ShapeStyle::from(&color).stroke_width(px(1.5));
        chart
            .draw_series([Rectangle::new([(f_lo, t_lo), (f_hi, t_hi)], outline)])
            .map_err(js_err)?;
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        chart
            .draw_series(LineSeries::new(r.roc.iter().map(|p| (p[0], p[1])), style))
            .map_err(js_err)?;
    }
    for r in earlier.iter().flat_map(|e| &e.results) {
        let (color, _) = threat_style(r.threat);
        let (on, off) = Dash::Long.pattern().unwrap_or((12.0, 6.0));
        let style = ShapeStyle::from(&color.mix(0.8)).stroke_width(px(2.0));
        chart
            .draw_series(DashedLineSeries::new(
                r.roc.iter().map(|p| (p[0], p[1])),
                px(on),
                px(off),
                style,
            ))
            .map_err(js_err)?;
    }
    let plot = plot_rect(chart.plotting_area());
    spot.draw(&root, &legend, fonts.legend, top, (&lay, &plot))?;
    record_plot(canvas_id, &root, chart.plotting_area(), fonts);
    root.present().map_err(js_err)
}

/// ε_lower of each attack (multi-run, and one-run when done) against each accountant's ε, on
/// one horizontal axis.
#[wasm_bindgen]
pub fn draw_audit_epsilons(canvas_id: &str, results: JsValue, scale: f64) -> Result<(), JsError> {
    let results: Vec<Drawn> = from_js(results, "audit results")?;
    let (root, _) = open_canvas(canvas_id, scale)?;
    // Each bar: its name, value and colour, and for an ε_lower of 0 the most its runs could
    // have proved (drawn as an empty outline and said, not left as a missing bar).
    let mut rows: Vec<(Vec<String>, f64, RGBColor, Option<f64>)> = Vec::new();
    for r in &results {
        let (color, _) = threat_style(r.threat);
        let who = match r.threat {
            Threat::WorstCase => "worst case",
            Threat::Realistic => "realistic",
        };
        let most = r.could_show.as_ref().map(|c| c.most_provable);
        let could = most.filter(|_| r.eps_lower == 0.0);
        rows.push((epsilon_lower_names(who, false), r.eps_lower, color, could));
        if let Some(one) = &r.one_run {
            let lighter = if r.threat == Threat::WorstCase {
                ORANGE
            } else {
                PURPLE
            };
            rows.push((epsilon_lower_names(who, true), one.eps_lower, lighter, None));
        }
    }
    let mut promised = false;
    if let Some(first) = results.first() {
        // The tight accountant, then the two that bound it from above.
        for a in [
            AccountantName::Pld,
            AccountantName::Rdp,
            AccountantName::Moments,
        ] {
            let eps = first.eps_upper.get(a.name()).copied().flatten();
            if let Some(v) = eps.filter(|v| v.is_finite()) {
                let colour = if a == AccountantName::Pld {
                    BLACK
                } else {
                    GREY
                };
                rows.push((epsilon_names(a.label()), v, colour, None));
                promised = true;
            }
        }
    }
    let max = rows
        .iter()
        .map(|r| r.1)
        .chain(rows.iter().filter_map(|r| r.3))
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.15;
    let n = rows.len().max(1);
    let mut fonts = Fonts::new(scale);
    // One line on a projector's half-width chart: a second would take the bars' height.
    let title = "ε: proved by the attack vs promised";
    // No accountant bounds these runs (σ = 0, a mode without noise): its bars would be ∞, so
    // the promise is said, not left out as if the chart compared it.
    let header = Header {
        title,
        badge: None,
        note: (!promised && !results.is_empty()).then(|| "promised: ε = ∞, no guarantee".into()),
    };
    let top = draw_header(&root, &mut fonts, &header)?;
    let frame = frame(&root, &fonts, top, 24.0 * scale, 0.0);
    // One row per bar, its name as the row's tick label: the longest wording that fits.
    let width = root.dim_in_pixel().0 as f64;
    let lists: Vec<Vec<String>> = rows.iter().map(|r| r.0.clone()).collect();
    let names = fit_wordings_together(&lists, 0.45 * width, fonts.tick)
        .into_iter()
        .enumerate()
        .map(|(i, label)| Tick {
            value: i as f64 + 0.5,
            label,
        })
        .collect();
    // No axis title: the chart's title and each row's name say ε, and its line is the rows'.
    let x = AxisSpec::new(0.0, max, Scale::Linear, Format::Decimal, "");
    let y = AxisSpec::new(0.0, n as f64, Scale::Linear, Format::Decimal, "").with_ticks(names);
    let lay = layout(&frame, &x, &y, None);
    let mut chart = builder(&root, &frame, &lay)
        .build_cartesian_2d(
            keyed(0.0..max, &lay.x, 0.0, max, Scale::Linear),
            with_points(
                0.0..n as f64,
                lay.y.iter().map(|t| t.value).collect(),
                Vec::new(),
            ),
        )
        .map_err(js_err)?;
    draw_row_mesh(&mut chart, &lay, &fonts, &frame, false)?;
    for (i, (_, v, color, _)) in rows.iter().enumerate() {
        let v = if v.is_finite() { *v } else { max };
        let (bottom, top) = (i as f64 + 0.1, i as f64 + 0.9);
        chart
            .draw_series([Rectangle::new(
                [(0.0, bottom), (v, top)],
                color.mix(0.75).filled(),
            )])
            .map_err(js_err)?;
    }
    // ε_lower = 0: the outline of what the runs could have proved at most, and a few words.
    for (i, row) in rows.iter().enumerate() {
        let Some(most) = row.3.filter(|m| m.is_finite()) else {
            continue;
        };
        let (bottom, top) = (i as f64 + 0.1, i as f64 + 0.9);
        let outline = ShapeStyle::from(&row.2).stroke_width((1.5 * scale).round() as u32);
        chart
            .draw_series([Rectangle::new([(0.0, bottom), (most, top)], outline)])
            .map_err(js_err)?;
        // The words beside the outline, or inside it where the plot has no room beside it,
        // else across the row from its start (its bar is 0 wide: the row is empty), on white
        // where they cross the outline's edge.
        let plot = plot_rect(chart.plotting_area());
        let (x0, _) = chart.backend_coord(&(0.0, i as f64 + 0.5));
        let (x, y) = chart.backend_coord(&(most, i as f64 + 0.5));
        let words = could_show_wordings(&fmt_num((most * 100.0).floor() / 100.0));
        let pad = fonts.tick / 2.0;
        let beside = plot.x + plot.w - x as f64 - fonts.tick;
        let inside = (x - x0) as f64 - fonts.tick;
        let across = plot.x + plot.w - x0 as f64 - fonts.tick;
        let (at, text) = place_wording(&words, &[beside, inside], fonts.tick)
            .unwrap_or_else(|| (2, fit_wording(&words, across, fonts.tick)));
        let left = if at == 0 { x } else { x0 } as f64 + pad;
        if at == 2 {
            let (w, h) = (text_width(&text, fonts.tick), line_height(fonts.tick));
            let corner = |dx: f64, dy: f64| ((left + dx) as i32, (y as f64 + dy) as i32);
            root.draw(&Rectangle::new(
                [corner(-pad / 2.0, -h / 2.0), corner(w + pad / 2.0, h / 2.0)],
                WHITE.filled(),
            ))
            .map_err(js_err)?;
        }
        let style = ("sans-serif", fonts.tick).into_font().color(&GREY);
        let at = (left as i32, (y as f64 - fonts.tick / 2.0) as i32);
        root.draw(&Text::new(text, at, style)).map_err(js_err)?;
    }
    // Each row's name a line apart (as the groups chart's rows): the presenter layout gives the
    // chart that height, or at a projector's largest Text the names stood on one another.
    let rows_need = n as f64 * 1.15 * line_height(fonts.tick);
    let plot = plot_rect(chart.plotting_area());
    record(canvas_id, &root, Some(plot), fonts, rows_need);
    root.present().map_err(js_err)
}
