//! Privacy accounting for the page: ε curves, single ε values and σ calibration, under every
//! accountant. Pure functions of (q, σ, steps, δ), so the page can preview them before training.

use crate::bench;
use crate::privacy::accountant::calibrate::{sigma_for_epsilon_after, sigma_needed};
use crate::privacy::accountant::{
    compose, pld_curve, Accountant, Amplification, SampledGaussian, MAX_STEPS,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

fn amplification(name: &str) -> Result<Amplification, JsError> {
    match name {
        "paper" | "" => Ok(Amplification::Paper),
        "rigorous" => Ok(Amplification::Rigorous),
        other => Err(JsError::new(&format!(
            "amplification '{other}' must be paper or rigorous"
        ))),
    }
}

/// ε of one accountant ("naive", "strong", "moments", "rdp", "pld") after `steps` steps;
/// `Infinity` when σ = 0.
#[wasm_bindgen]
pub fn epsilon_for(
    accountant: &str,
    amp: &str,
    q: f64,
    sigma: f64,
    steps: f64,
    delta: f64,
) -> Result<f64, JsError> {
    let acc = Accountant::parse(accountant, amplification(amp)?).map_err(js_err)?;
    let mech = SampledGaussian::new(q, sigma, steps.max(0.0).round() as u64).map_err(js_err)?;
    acc.epsilon(&mech, delta).map_err(js_err)
}

/// DP-PCA's step (sampling rate `pca_q`, noise `pca_sigma`) as a mechanism run before
/// training, or none when `pca_q` is 0.
fn pca_prefix(pca_q: f64, pca_sigma: f64) -> Result<Vec<SampledGaussian>, JsError> {
    if pca_q > 0.0 {
        Ok(vec![
            SampledGaussian::new(pca_q, pca_sigma, 1).map_err(js_err)?
        ])
    } else {
        Ok(Vec::new())
    }
}

/// The smallest σ whose ε after `steps` steps (after a DP-PCA step when `pca_q` > 0) is at
/// most `target_eps` under `accountant`.
#[wasm_bindgen]
pub fn calibrate_sigma(
    accountant: &str,
    target_eps: f64,
    delta: f64,
    q: f64,
    steps: f64,
    pca_q: f64,
    pca_sigma: f64,
) -> Result<f64, JsError> {
    let acc = Accountant::parse(accountant, Amplification::Paper).map_err(js_err)?;
    sigma_for_epsilon_after(
        acc,
        target_eps,
        delta,
        &pca_prefix(pca_q, pca_sigma)?,
        q,
        steps.max(0.0).round() as u64,
        1e-6,
    )
    .map_err(js_err)
}

#[derive(Serialize)]
struct SigmaPoint {
    epoch: u32,
    naive: Option<f64>,
    strong: Option<f64>,
    moments: Option<f64>,
    rdp: Option<f64>,
}

/// How many epoch counts the σ-needed panel computes (log-spaced).
const SIGMA_PANEL_POINTS: u32 = 14;

/// About `points` whole epochs from 1 to `max_epochs`, evenly spaced on a log scale.
fn log_epochs(max_epochs: u32, points: u32) -> Vec<u32> {
    let max = max_epochs.max(1) as f64;
    let n = points.max(2);
    let mut grid: Vec<u32> = (0..n)
        .map(|i| max.powf(i as f64 / (n - 1) as f64).round() as u32)
        .collect();
    grid.dedup();
    grid
}

/// The panel "σ needed for a target ε versus T": for about 14 epoch counts E from 1 to
/// `max_epochs` (T = E · steps per epoch), the σ each analytic accountant needs for
/// `target_eps` at δ (JSON array of {epoch, naive, strong, moments, rdp}; `null` where no σ up
/// to 1e6 is enough), after a DP-PCA step when `pca_q` > 0 (as the run accounts it). Epochs
/// stop where T would pass the accountants' step limit. Calibrated to 0.2%, enough for a
/// chart; slow enough (RDP ≈ 0.5 ms per evaluation) that the page runs it in a worker.
#[wasm_bindgen]
pub fn sigma_needed_curve(
    target_eps: f64,
    delta: f64,
    q: f64,
    steps_per_epoch: f64,
    max_epochs: u32,
    pca_q: f64,
    pca_sigma: f64,
) -> Result<String, JsError> {
    let spe = steps_per_epoch.max(1.0).round() as u64;
    // Only as many epochs as the accountants take steps (T ≤ MAX_STEPS).
    let max_epochs = max_epochs.min((MAX_STEPS / spe).max(1) as u32);
    let epochs = log_epochs(max_epochs, SIGMA_PANEL_POINTS);
    let steps: Vec<u64> = epochs.iter().map(|&e| e as u64 * spe).collect();
    let prefix = pca_prefix(pca_q, pca_sigma)?;
    let curve = |name: &str| -> Result<Vec<Option<f64>>, JsError> {
        let acc = Accountant::parse(name, Amplification::Paper).map_err(js_err)?;
        sigma_needed(acc, target_eps, delta, &prefix, q, &steps, 2e-3).map_err(js_err)
    };
    let (naive, strong, moments, rdp) = (
        curve("naive")?,
        curve("strong")?,
        curve("moments")?,
        curve("rdp")?,
    );
    let points: Vec<SigmaPoint> = epochs
        .iter()
        .enumerate()
        .map(|(i, &epoch)| SigmaPoint {
            epoch,
            naive: naive[i],
            strong: strong[i],
            moments: moments[i],
            rdp: rdp[i],
        })
        .collect();
    Ok(serde_json::to_string(&points).expect("curve serialises"))
}

/// The PLD accountant's ε after each epoch 1..=epochs (JSON array, `null` for ∞), on a grid of
/// interval `h` (1e-3 is within about 1.5% of 1e-4 and ten times faster).
#[wasm_bindgen]
pub fn pld_epsilon_curve(
    q: f64,
    sigma: f64,
    steps_per_epoch: f64,
    epochs: u32,
    delta: f64,
    h: f64,
) -> Result<String, JsError> {
    SampledGaussian::new(q, sigma, 0).map_err(js_err)?;
    crate::privacy::accountant::check_delta(delta).map_err(js_err)?;
    if !(h > 0.0 && h <= 0.1) {
        return Err(JsError::new(&format!(
            "grid interval h = {h} must be in (0, 0.1]"
        )));
    }
    let curve = pld_curve::epsilon_curve(
        q,
        sigma,
        steps_per_epoch.max(1.0).round() as u64,
        epochs,
        delta,
        h,
    );
    let values: Vec<Option<f64>> = curve
        .into_iter()
        .map(|v| v.is_finite().then_some(v))
        .collect();
    Ok(serde_json::to_string(&values).expect("curve serialises"))
}

/// `performance.now()` (in a window or a worker), or `Date.now()` where there is none.
fn now_ms() -> f64 {
    let global = js_sys::global();
    let perf = js_sys::Reflect::get(&global, &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
    perf.map_or_else(js_sys::Date::now, |p| p.now())
}

fn json_lines<T: Serialize>(lines: &[T]) -> String {
    lines
        .iter()
        .map(|l| serde_json::to_string(l).expect("bench line serialises"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The accountant benchmark (see `crate::bench`); one JSON line per case.
#[wasm_bindgen]
pub fn bench_accountants() -> String {
    json_lines(&bench::accountant_curves("wasm", &now_ms))
}

/// The training-throughput benchmark (see `crate::bench`), about `budget_ms` per case; one
/// JSON line per case.
#[wasm_bindgen]
pub fn bench_training(budget_ms: f64) -> String {
    json_lines(&bench::training("wasm", &now_ms, budget_ms))
}

/// The matrix-product benchmark (see `crate::bench::kernels`); one JSON line per product.
#[wasm_bindgen]
pub fn bench_kernels(budget_ms: f64) -> String {
    json_lines(&bench::kernels("wasm", &now_ms, budget_ms))
}

#[derive(Serialize)]
struct CurvePoint {
    epoch: u32,
    naive: Option<f64>,
    strong: Option<f64>,
    moments: Option<f64>,
    rdp: Option<f64>,
}

/// ε after each epoch 1..=epochs for every accountant (JSON array; `null` for ∞), after a
/// DP-PCA step with sampling rate `pca_q` and noise `pca_sigma` when `pca_q` > 0 (so the curves
/// start above zero). It depends only on (q, σ, steps per epoch, δ), so the page previews it
/// before training.
#[wasm_bindgen]
pub fn epsilon_curve(
    q: f64,
    sigma: f64,
    steps_per_epoch: f64,
    epochs: u32,
    delta: f64,
    pca_q: f64,
    pca_sigma: f64,
) -> Result<String, JsError> {
    let finite = |v: f64| v.is_finite().then_some(v);
    let steps: Vec<u64> = (1..=epochs)
        .map(|e| (e as f64 * steps_per_epoch).round() as u64)
        .collect();
    let prefix = pca_prefix(pca_q, pca_sigma)?;
    let curve =
        compose::curve(&prefix, q, sigma, &steps, delta, Amplification::Paper).map_err(js_err)?;
    let points: Vec<CurvePoint> = curve
        .iter()
        .zip(1..)
        .map(|(r, epoch)| CurvePoint {
            epoch,
            naive: finite(r.naive),
            strong: finite(r.strong),
            moments: finite(r.moments),
            rdp: finite(r.rdp),
        })
        .collect();
    Ok(serde_json::to_string(&points).expect("curve serialises"))
}
