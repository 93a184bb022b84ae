//! The "Audit this run" panel's side of the core: [`AuditSession`], run in every audit worker
//! (each does the runs it is handed; their scores are combined by one of them), and the two
//! charts — the privacy region with each attack's ROC and band on top, and ε_lower against
//! every accountant's ε on one axis.

use super::chart_kit::{backend, legend, BLUE, GREY, ORANGE, PURPLE, VERMILLION};
use super::session::LabData;
use super::{config_from_js, from_js, js_err, to_js};
use crate::audit::{summarize, worker_bytes, AuditPlan, AuditSpec, RunScores, Threat};
use crate::data::DataFacts;
use crate::privacy::accountant::AccountantName;
use plotters::prelude::*;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// About how much memory one audit worker takes for a data set (`DataFacts`), in bytes, in a
/// multi-run audit (`one_run_canaries` = 0) or a one-run audit with that many canaries: the
/// page runs no more audit workers than fit in half the device's memory (www/cores.js).
#[wasm_bindgen]
pub fn audit_worker_bytes(facts: JsValue, one_run_canaries: u32) -> Result<f64, JsError> {
    let facts: DataFacts = from_js(facts, "data facts")?;
    Ok(worker_bytes(&facts, one_run_canaries as usize))
}

/// An audit of one run's settings (a JS object of `RunConfig` fields) on a data set, with
/// the audit's spec ({threat, runs, canaries, seed}): the same plan in every worker.
#[wasm_bindgen]
pub struct AuditSession {
    plan: AuditPlan,
}

#[wasm_bindgen]
impl AuditSession {
    #[wasm_bindgen(constructor)]
    pub fn new(data: &LabData, config: JsValue, spec: JsValue) -> Result<AuditSession, JsError> {
        let cfg = config_from_js(&config)?;
        let spec: AuditSpec = from_js(spec, "audit")?;
        let plan = AuditPlan::new(cfg, Arc::clone(data.dataset()), spec).map_err(js_err)?;
        Ok(AuditSession { plan })
    }

    /// Runs in all (2R, and one for the one-run audit).
    #[wasm_bindgen(js_name = totalRuns)]
    pub fn total_runs(&self) -> u32 {
        self.plan.total_runs() as u32
    }

    /// Run `index`: {index, member, scores}.
    pub fn run(&self, index: u32) -> Result<JsValue, JsError> {
        to_js(&self.plan.run(index as usize).map_err(js_err)?)
    }

    /// The audit's report from every run's scores (an array, any order).
    pub fn summarize(&self, runs: JsValue) -> Result<JsValue, JsError> {
        let runs: Vec<RunScores> = from_js(runs, "audit runs")?;
        if runs.len() != self.plan.total_runs() {
            return Err(JsError::new(&format!(
                "{} of {} audit runs",
                runs.len(),
                self.plan.total_runs()
            )));
        }
        to_js(&summarize(&self.plan, &runs))
    }
}

/// The fields of an audit report the charts read.
#[derive(Deserialize)]
struct Drawn {
    threat: Threat,
    roc: Vec<[f64; 2]>,
    roc_band: Vec<[f64; 3]>,
    theory: Vec<[f64; 2]>,
    theory_symmetric: Vec<[f64; 2]>,
    eps_lower: f64,
    /// ε per accountant name (∞: no bar).
    eps_upper: BTreeMap<String, Option<f64>>,
    #[serde(default)]
    one_run: Option<OneRunDrawn>,
}

#[derive(Deserialize)]
struct OneRunDrawn {
    eps_lower: f64,
}

fn threat_style(t: Threat) -> (RGBColor, &'static str) {
    match t {
        Threat::WorstCase => (VERMILLION, "worst case (gradient canary, every step)"),
        Threat::Realistic => (BLUE, "realistic (input canary, final model)"),
    }
}

/// The privacy region (shaded: every (FPR, TPR) a test can reach) with each audit's ROC and
/// its 95% band; the symmetric curve ε is reported from, dashed.
#[wasm_bindgen]
pub fn draw_audit_region(canvas_id: &str, results: JsValue, scale: f64) -> Result<(), JsError> {
    let results: Vec<Drawn> = from_js(results, "audit results")?;
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .caption(
            "What an attacker can tell: the privacy region",
            ("sans-serif", px(17.0)),
        )
        .x_label_area_size(px(36.0))
        .y_label_area_size(px(48.0))
        .build_cartesian_2d(0f64..1f64, 0f64..1f64)
        .map_err(js_err)?;
    chart
        .configure_mesh()
        .x_desc("false-positive rate (out, guessed in)")
        .y_desc("true-positive rate")
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    if let Some(first) = results.first() {
        // The region lies between the diagonal and the curve.
        let mut area: Vec<(f64, f64)> = first.theory.iter().map(|p| (p[0], p[1])).collect();
        area.push((1.0, 1.0));
        area.push((0.0, 0.0));
        chart
            .draw_series([Polygon::new(area, GREY.mix(0.18).filled())])
            .map_err(js_err)?
            .label("privacy region (PLD accountant)")
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], GREY.mix(0.3).filled())
            });
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
            .map_err(js_err)?
            .label("symmetric curve (ε is reported from it)")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], dashed));
    }
    let chance = ShapeStyle::from(&GREY.mix(0.6)).stroke_width(px(1.0));
    chart
        .draw_series(LineSeries::new([(0.0, 0.0), (1.0, 1.0)], chance))
        .map_err(js_err)?;
    for r in &results {
        let (color, name) = threat_style(r.threat);
        let mut band: Vec<(f64, f64)> = r.roc_band.iter().map(|p| (p[0], p[2])).collect();
        band.extend(r.roc_band.iter().rev().map(|p| (p[0], p[1])));
        chart
            .draw_series([Polygon::new(band, color.mix(0.18).filled())])
            .map_err(js_err)?;
        let style = ShapeStyle::from(&color).stroke_width(px(2.5));
        chart
            .draw_series(LineSeries::new(r.roc.iter().map(|p| (p[0], p[1])), style))
            .map_err(js_err)?
            .label(format!("attack: {name}"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], style));
    }
    legend(&mut chart, SeriesLabelPosition::LowerRight, px(12.0))?;
    root.present().map_err(js_err)
}

/// ε_lower of each attack (multi-run, and one-run when done) against each accountant's ε, on
/// one horizontal axis.
#[wasm_bindgen]
pub fn draw_audit_epsilons(canvas_id: &str, results: JsValue, scale: f64) -> Result<(), JsError> {
    let results: Vec<Drawn> = from_js(results, "audit results")?;
    let root = backend(canvas_id)?.into_drawing_area();
    root.fill(&WHITE).map_err(js_err)?;
    let px = |v: f64| (v * scale).round() as u32;
    let mut rows: Vec<(String, f64, RGBColor)> = Vec::new();
    for r in &results {
        let (color, _) = threat_style(r.threat);
        let who = match r.threat {
            Threat::WorstCase => "worst case",
            Threat::Realistic => "realistic",
        };
        rows.push((format!("ε_lower, {who}"), r.eps_lower, color));
        if let Some(one) = &r.one_run {
            let lighter = if r.threat == Threat::WorstCase {
                ORANGE
            } else {
                PURPLE
            };
            rows.push((format!("ε_lower, {who}, one run"), one.eps_lower, lighter));
        }
    }
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
                rows.push((format!("ε, {}", a.label()), v, colour));
            }
        }
    }
    let max = rows
        .iter()
        .map(|r| r.1)
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.15;
    let n = rows.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .margin(px(10.0))
        .margin_right(px(24.0))
        .caption(
            "What the attack proved vs what the accountant promised",
            ("sans-serif", px(16.0)),
        )
        .x_label_area_size(px(32.0))
        .y_label_area_size(px(190.0))
        .build_cartesian_2d(0f64..max, (0..n - 1).into_segmented())
        .map_err(js_err)?;
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("ε")
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .label_style(("sans-serif", px(13.0)))
        .draw()
        .map_err(js_err)?;
    for (i, (_, v, color)) in rows.iter().enumerate() {
        let v = if v.is_finite() { *v } else { max };
        chart
            .draw_series([Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i)),
                    (v, SegmentValue::Exact(i + 1)),
                ],
                color.mix(0.75).filled(),
            )])
            .map_err(js_err)?;
    }
    root.present().map_err(js_err)
}
