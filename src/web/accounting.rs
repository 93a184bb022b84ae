//! What the page and its accounting worker ask of the accountants. Every function takes the
//! run's settings (a `RunConfig` object) and the data's public facts (`DataFacts`, from the
//! training worker) and derives the run's mechanism with `RunConfig::mechanism` — the one place
//! q, the steps, σ_eff, DP-PCA's step and the private evaluations come from. The page sends
//! settings and receives numbers.

use super::{config_from_js, from_js, js_err, to_js};
use crate::config::{Mode, RunConfig};
use crate::data::DataFacts;
use crate::privacy::accountant::calibrate::{self, round_up};
use crate::privacy::accountant::mechanism::Release;
use crate::privacy::accountant::{
    compose, Accountant, AccountantName, Amplification, Epsilon, PerAccountant, SampledGaussian,
    MAX_STEPS,
};
use crate::text::format_eps;
use crate::train::ledger::Ledger;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// The defaults of every setting (`RunConfig::default()`): the page's controls start here.
#[wasm_bindgen]
pub fn run_defaults() -> Result<JsValue, JsError> {
    to_js(&RunConfig::default())
}

/// The accountants a report lists, in order: `[{name, label, choice}]` (the run log's
/// columns, the page's sentences about ε, the budget's choices).
#[wasm_bindgen]
pub fn accountants() -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    struct Shown {
        name: &'static str,
        label: &'static str,
        choice: &'static str,
    }
    let list: Vec<Shown> = AccountantName::ALL
        .iter()
        .map(|a| Shown {
            name: a.name(),
            label: a.label(),
            choice: a.choice(),
        })
        .collect();
    to_js(&list)
}

/// The accountants' names beside a run in the convention named `amplification` (the run log's
/// columns, the ε chart's words for a screen reader): `{accountants: [{name, label}], caveat}`,
/// naive and strong starred and `caveat` saying what the star means where they are no bound
/// for every σ, as the ε chart's badge does.
#[wasm_bindgen]
pub fn accountant_labels(amplification: &str) -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    struct Named {
        name: &'static str,
        label: String,
    }
    #[derive(Serialize)]
    struct Labels {
        accountants: Vec<Named>,
        caveat: Option<&'static str>,
    }
    let amp = Amplification::parse(amplification).map_err(js_err)?;
    to_js(&Labels {
        accountants: (AccountantName::ALL.iter())
            .map(|a| Named {
                name: a.name(),
                label: a.label_under(amp),
            })
            .collect(),
        caveat: amp.caveat(),
    })
}

/// The caveats a pinned run of these settings (a `RunConfig` object) carries beyond its reports'
/// notes ([`crate::train::pin_caveats`]): a pin named "DP-SGD" at σ = 0 has no guarantee.
#[wasm_bindgen]
pub fn pin_caveats(config: &JsValue) -> Result<Vec<String>, JsError> {
    Ok(crate::train::pin_caveats(&config_from_js(config)?))
}

/// The name the Pin button gives run `config` beside the pinned runs' `others` (RunConfig
/// objects): its σ, C and L, and what sets it apart from them ([`crate::config::pin_label`]).
#[wasm_bindgen]
pub fn pin_label(config: &JsValue, others: Vec<JsValue>) -> Result<String, JsError> {
    let others = (others.iter().map(config_from_js)).collect::<Result<Vec<_>, _>>()?;
    Ok(crate::config::pin_label(&config_from_js(config)?, &others))
}

/// The values the page's optional settings take when switched on (`RunConfig::suggested`):
/// only the fields that are optional, so the page shows them in their boxes without turning
/// them on.
#[wasm_bindgen]
pub fn suggested_settings() -> Result<JsValue, JsError> {
    let s = RunConfig::suggested();
    to_js(&serde_json::json!({ "pca": s.pca, "clip_quantile": s.clip_quantile }))
}

/// The groupings (`groups`) data set `dataset` offers, by name: the page's Groups control
/// offers these and none (`GroupBy::offered`, held to what the data sets have by a test).
#[wasm_bindgen]
pub fn group_choices(dataset: &str) -> Vec<String> {
    crate::config::GroupBy::offered(dataset)
        .iter()
        .map(|g| g.name().to_string())
        .collect()
}

/// A run's settings from anywhere outside the page's own controls (a pinned run in a link, a
/// worker's start message), checked as the CLI checks its flags: missing fields take their
/// defaults, and a bad field is named with its valid range. The lot's upper bound N is checked
/// once the data set is known (a larger lot then shrinks to N).
#[wasm_bindgen]
pub fn check_run_config(config: JsValue) -> Result<JsValue, JsError> {
    let cfg = config_from_js(&config)?;
    cfg.validate(usize::MAX).map_err(js_err)?;
    to_js(&cfg)
}

/// Whether a run of these settings (missing fields their defaults: a lesson step's own) adds
/// noise to its steps (`RunConfig::adds_noise`): what a lesson may say of the noise.
#[wasm_bindgen]
pub fn adds_noise(config: JsValue) -> Result<bool, JsError> {
    Ok(config_from_js(&config)?.adds_noise())
}

pub(super) fn inputs(config: &JsValue, facts: JsValue) -> Result<(RunConfig, DataFacts), JsError> {
    Ok((config_from_js(config)?, from_js(facts, "data facts")?))
}

/// ε of one accountant (naive and strong under `amplification`) after `steps` steps of one
/// sampled Gaussian; `Infinity` when σ = 0.
#[wasm_bindgen]
pub fn epsilon_for(
    accountant: &str,
    amplification: &str,
    q: f64,
    sigma: f64,
    steps: f64,
    delta: f64,
) -> Result<f64, JsError> {
    let amp = Amplification::parse(amplification).map_err(js_err)?;
    let acc = Accountant::parse(accountant, amp).map_err(js_err)?;
    let mech = SampledGaussian::new(q, sigma, steps.max(0.0).round() as u64).map_err(js_err)?;
    acc.epsilon(&mech, delta).map_err(js_err)
}

#[derive(Serialize)]
struct PreviewPoint {
    epoch: u64,
    #[serde(flatten)]
    epsilon: PerAccountant<Option<f64>>,
}

/// ε after each epoch 1..=epochs of the run, under the four analytic accountants (naive and
/// strong in the run's convention): the ε chart's preview, computed before training. A few
/// milliseconds, so the page runs it itself.
#[wasm_bindgen]
pub fn epsilon_preview(config: JsValue, facts: JsValue) -> Result<JsValue, JsError> {
    let (cfg, facts) = inputs(&config, facts)?;
    let mech = cfg.mechanism(&facts);
    let curve =
        compose::report_curve(&mech, cfg.delta, cfg.amplification, false).map_err(js_err)?;
    let points: Vec<PreviewPoint> = curve
        .iter()
        .zip(1..)
        .map(|(&epsilon, epoch)| PreviewPoint { epoch, epsilon })
        .collect();
    to_js(&points)
}

/// The PLD accountant's ε after each epoch (h = 1e-4): milliseconds to seconds, so the page
/// asks its accounting worker.
#[wasm_bindgen]
pub fn pld_preview(config: JsValue, facts: JsValue) -> Result<JsValue, JsError> {
    let (cfg, facts) = inputs(&config, facts)?;
    let curve = compose::curve(
        Accountant::named(AccountantName::Pld),
        &cfg.mechanism(&facts),
        cfg.delta,
    )
    .map_err(js_err)?;
    to_js(&curve.into_iter().map(Epsilon).collect::<Vec<_>>())
}

/// When the run's lot L is at least its data's N training rows (`RunConfig::lot_at_least_n`):
/// what the run spends with every row in every step (q = 1), and a smaller lot with what it
/// would spend — the page's message when it changes L, or says it cannot; null while L < N.
#[wasm_bindgen]
pub fn lot_at_least_n(config: JsValue, facts: JsValue) -> Result<JsValue, JsError> {
    let (cfg, facts) = inputs(&config, facts)?;
    match cfg.lot_at_least_n(&facts).map_err(js_err)? {
        Some(at) => to_js(&at),
        None => Ok(JsValue::NULL),
    }
}

/// One run on a student's file, as the page remembers it: its settings, the facts of the
/// prepared file it ran on, and the training steps its last report showed.
#[derive(Deserialize)]
struct RunShown {
    config: serde_json::Value,
    facts: DataFacts,
    steps: u64,
}

#[derive(Serialize)]
struct FileLedger {
    runs: usize,
    steps: u64,
    preparations: usize,
    delta: f64,
    moments: Epsilon,
    rdp: Epsilon,
    /// Why ε = ∞ whatever later runs do, when it is ([`Ledger::why_unbounded`]); null else.
    unbounded: Option<&'static str>,
    /// What this ε does not cover ([`Ledger::caveats`]).
    caveats: Vec<&'static str>,
}

/// Everything the runs on a student's file released since it was loaded, composed
/// ([`Ledger`]): `preparations` the releases of each time a worker prepared the file (its range
/// estimate, once per preparation; a refused file's too), `runs` each run's {config, facts,
/// steps}. ε under the moments accountant and RDP at the smallest δ of the runs (hundreds of
/// runs: about 0.1 s natively).
#[wasm_bindgen]
pub fn file_ledger(preparations: JsValue, runs: JsValue) -> Result<JsValue, JsError> {
    let preparations: Vec<Vec<Release>> = from_js(preparations, "preparations")?;
    let runs: Vec<RunShown> = from_js(runs, "runs")?;
    let mut ledger = Ledger::new();
    for releases in &preparations {
        ledger.prepared(releases);
    }
    for run in &runs {
        let cfg = RunConfig::from_json(&run.config.to_string()).map_err(js_err)?;
        cfg.validate(run.facts.n_train).map_err(js_err)?;
        ledger.ran(&cfg, &run.facts, run.steps).map_err(js_err)?;
    }
    let moments = ledger
        .epsilon(Accountant::named(AccountantName::Moments))
        .map_err(js_err)?;
    let rdp = ledger
        .epsilon(Accountant::named(AccountantName::Rdp))
        .map_err(js_err)?;
    to_js(&FileLedger {
        runs: ledger.runs(),
        steps: ledger.steps(),
        preparations: ledger.preparations(),
        delta: ledger
            .delta()
            .ok_or_else(|| js_err("no run on the file yet"))?,
        moments: Epsilon(moments),
        rdp: Epsilon(rdp),
        unbounded: ledger.why_unbounded(moments),
        caveats: ledger.caveats(),
    })
}

/// The run with noise multiplier σ and `epochs` epochs, as a private run (calibration and the
/// σ panel are about the DP mode whatever mode the page shows).
pub(super) fn with_sigma(cfg: &RunConfig, sigma: f64, epochs: u64) -> RunConfig {
    RunConfig {
        sigma,
        mode: Mode::Dp,
        epochs: epochs as usize,
        ..cfg.clone()
    }
}

#[derive(Serialize)]
struct Calibrated {
    /// The smallest σ, rounded up to 4 decimals (as the slider applies it).
    sigma: f64,
    /// ε at that σ under the accountant: never above the target.
    epsilon: Epsilon,
    accountant: &'static str,
}

/// The smallest σ, rounded up to 4 decimals, whose run (these settings, every release of the
/// mechanism included) spends at most `target` ε under `accountant` (naive and strong
/// rigorous: calibration decides something).
#[wasm_bindgen]
pub fn calibrate(
    config: JsValue,
    facts: JsValue,
    accountant: &str,
    target: f64,
) -> Result<JsValue, JsError> {
    let (cfg, facts) = inputs(&config, facts)?;
    let acc = Accountant::parse(accountant, Amplification::Rigorous).map_err(js_err)?;
    let epochs = cfg.epochs as u64;
    let event = |sigma: f64| {
        with_sigma(&cfg, sigma, epochs)
            .mechanism(&facts)
            .after_epochs(epochs)
    };
    let exact = calibrate::calibrate(acc, target, cfg.delta, &event, 1e-6).map_err(js_err)?;
    let sigma = round_up(exact, 4);
    let epsilon = compose::epsilon(acc, &event(sigma), cfg.delta).map_err(js_err)?;
    to_js(&Calibrated {
        sigma,
        epsilon: Epsilon(epsilon),
        accountant: acc.name(),
    })
}

/// One epoch count's σ per accountant; left out where no σ up to 1e6 reaches the target.
#[derive(Serialize)]
struct SigmaPoint {
    epoch: u32,
    #[serde(flatten)]
    sigma: PerAccountant<Option<f64>>,
}

/// How many epoch counts the σ-needed panel computes (log-spaced), and its least range.
const SIGMA_PANEL_POINTS: u32 = 14;
const SIGMA_PANEL_EPOCHS: u64 = 400;

/// About `points` whole epochs from 1 to `max_epochs`, evenly spaced on a log scale.
fn log_epochs(max_epochs: u64, points: u32) -> Vec<u64> {
    let max = max_epochs.max(1) as f64;
    let n = points.max(2);
    let mut grid: Vec<u64> = (0..n)
        .map(|i| max.powf(i as f64 / (n - 1) as f64).round() as u64)
        .collect();
    grid.dedup();
    grid
}

/// The panel "σ needed for a target ε versus T": for about 14 epoch counts E from 1 to
/// max(400, the run's epochs), the σ each analytic accountant (naive and strong rigorous)
/// needs so that the run — every release of its mechanism included — spends `target` ε;
/// `null` where no σ up to 1e6 is enough. Epochs stop where T would pass the accountants'
/// step limit. Calibrated to 0.2%, enough for a chart; hundreds of ε evaluations, so the page
/// runs it in its accounting worker.
#[wasm_bindgen]
pub fn sigma_needed(config: JsValue, facts: JsValue, target: f64) -> Result<JsValue, JsError> {
    let (cfg, facts) = inputs(&config, facts)?;
    let spe = cfg.steps_per_epoch(facts.n_train);
    let max_epochs = SIGMA_PANEL_EPOCHS
        .max(cfg.epochs as u64)
        .min((MAX_STEPS / spe).max(1));
    let epochs = log_epochs(max_epochs, SIGMA_PANEL_POINTS);
    let event = |sigma: f64, e: u64| -> Vec<SampledGaussian> {
        with_sigma(&cfg, sigma, e).mechanism(&facts).after_epochs(e)
    };
    // σ for each analytic accountant (naive and strong rigorous); not PLD: seconds per σ.
    let curves = PerAccountant::try_from_fn(|a| match a {
        AccountantName::Pld => Ok(None),
        _ => {
            let acc = Accountant::of(a, Amplification::Rigorous);
            calibrate::sigma_needed(acc, target, cfg.delta, &event, &epochs, 2e-3).map(Some)
        }
    })
    .map_err(js_err)?;
    let points: Vec<SigmaPoint> = epochs
        .iter()
        .enumerate()
        .map(|(i, &epoch)| SigmaPoint {
            epoch: epoch as u32,
            sigma: curves.map(|_, c| c.as_ref().and_then(|c| c[i])),
        })
        .collect();
    to_js(&points)
}

/// ε for people: three decimals below 10, one below 100, none above, always rounded up — a
/// shown ε is never below the true one — and "∞" for no guarantee (a report's "inf", or any
/// non-number).
#[wasm_bindgen]
pub fn format_epsilon(v: JsValue) -> String {
    match v.as_f64() {
        Some(e) if e.is_finite() && e >= 0.0 => format_eps(e),
        _ => "∞".into(),
    }
}
