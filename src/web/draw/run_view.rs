//! What the charts draw of one run, held in wasm once: its x axis and ε convention (read from
//! the run's own settings, not the page's controls), its epoch reports as the charts read
//! them — each report deserialised once, when it arrives, not on every redraw — its ε preview
//! with the PLD curve, and the runs pinned behind it. The page keeps one per run.

use super::chart_kit::{finite, Epsilons, Pinned, Point};
use super::noise_chart::NormPoint;
use crate::charts::accuracy::{privacy_cost_ends, privacy_cost_points, RunEnd};
use crate::charts::groups::{compare, summary, GroupsCompared, RunGroups};
use crate::config::Mode;
use crate::privacy::accountant::{AccountantName, Amplification};
use crate::train::gap::accuracy_gap;
use crate::train::verdict::{holding_back, learned, verdict, EpochOutcome};
use crate::web::js::from_js;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

/// One epoch's ε per accountant, finite or `None` (∞, or not known): what the ε chart draws.
pub(super) struct EpsilonPoint {
    pub epoch: f64,
    pub eps: Epsilons,
}

impl EpsilonPoint {
    pub fn new(epoch: f64, e: &Epsilons) -> EpsilonPoint {
        EpsilonPoint {
            epoch,
            eps: finite(e),
        }
    }
}

/// A curve's points: (epoch, ε).
pub(super) type Curve = Vec<(f64, f64)>;

/// A preview point as `epsilon_preview` gives it: its epoch and ε by each accountant but PLD.
#[derive(Deserialize)]
struct PreviewPoint {
    epoch: f64,
    #[serde(flatten)]
    epsilon: Epsilons,
}

/// What the charts read of a run's settings.
#[derive(Deserialize)]
struct Axis {
    epochs: u32,
    #[serde(default)]
    amplification: Amplification,
    #[serde(default)]
    mode: Option<Mode>,
    #[serde(default)]
    sigma: Option<f64>,
}

/// One run as the accuracy, ε and noise charts draw it.
#[wasm_bindgen]
pub struct RunView {
    pub(super) epochs: u32,
    /// The convention of naive and strong: the paper's and the classical are starred on the ε
    /// chart, its badge saying what they are ([`RunView::convention_badge`]).
    pub(super) amplification: Amplification,
    /// What the run's sanitizer does (for the cost of privacy against the pins, and why ε = ∞).
    pub(super) mode: Option<Mode>,
    /// The noise multiplier σ (the ε chart names σ = 0 only when it is 0).
    pub(super) sigma: Option<f64>,
    /// The run's settings, which the comparisons hold pins to ([`RunView::compared_modes`]).
    pub(super) cfg: Option<serde_json::Value>,
    pub(super) points: Vec<Point>,
    pub(super) norms: Vec<NormPoint>,
    pub(super) preview: Vec<EpsilonPoint>,
    pub(super) pinned: Vec<Pinned>,
    /// What the verdict on the run reads of each report.
    pub(super) outcomes: Vec<EpochOutcome>,
}

impl RunView {
    /// The latest non-private and DP-SGD runs on the chart (pins and this run) side by side.
    pub(super) fn groups_compared(&self) -> Option<GroupsCompared> {
        fn of(mode: Option<Mode>, history: &[Point]) -> RunGroups<'_> {
            RunGroups {
                mode,
                epochs: history.iter().map(|p| p.groups.as_deref()).collect(),
            }
        }
        let runs: Vec<RunGroups> = (self.compared().into_iter())
            .map(|(history, mode)| of(mode, history))
            .collect();
        compare(&runs)
    }

    /// The mode of each run on the chart (pins oldest first, this run last) as the comparisons
    /// of a non-private and a DP-SGD run read it (the cost of privacy, who pays for it): `None`
    /// for a run they must not compare. A DP-SGD run counts only while its ε is finite (σ = 0
    /// in the DP-SGD mode is no private run), and the latest one that counts is compared only
    /// with runs alike in every setting but the mode and budget (Compare's four runs), never a
    /// pin of another data set, σ or η.
    fn compared_modes(&self) -> Vec<Option<Mode>> {
        let runs: Vec<(Option<Mode>, Option<&serde_json::Value>, &[Point])> = (self.pinned.iter())
            .map(|p| (p.mode, p.cfg.as_ref(), &p.history[..]))
            .chain([(self.mode, self.cfg.as_ref(), &self.points[..])])
            .collect();
        let private = |h: &[Point]| {
            h.last().is_some_and(|p| {
                let eps = finite(&p.epsilon);
                AccountantName::ALL.iter().any(|&a| eps.get(a).is_some())
            })
        };
        let dp = runs
            .iter()
            .rposition(|&(mode, _, h)| mode == Some(Mode::Dp) && private(h));
        let settings = dp.and_then(|i| runs[i].1).and_then(but_the_mode);
        (runs.iter().enumerate())
            .map(|(i, &(mode, cfg, _))| match mode {
                Some(Mode::Dp) if Some(i) != dp => None,
                Some(Mode::Dp) => mode,
                _ if settings.is_some() && cfg.and_then(but_the_mode) == settings => mode,
                _ => None,
            })
            .collect()
    }

    /// Whether `pin` is this run (pinned as it is: the same test accuracies at the same
    /// epochs); the charts draw it once, as this run under the pin's name.
    pub(super) fn is_this_run(&self, pin: &Pinned) -> bool {
        let curve = |h: &[Point]| -> Vec<(f64, Option<f64>)> {
            h.iter().map(|p| (p.epoch, p.test())).collect()
        };
        !self.points.is_empty() && curve(&pin.history) == curve(&self.points)
    }

    /// The whole run's ε per epoch as the ε chart draws it: the preview — ending before the
    /// epoch the run stopped in early, when it did (its ε budget spent, or the model diverged:
    /// epochs it never trained spent nothing).
    pub(super) fn whole_run(&self) -> Vec<&EpsilonPoint> {
        let stop = self.early_stop();
        (self.preview.iter())
            .filter(|p| stop.is_none_or(|e| p.epoch < e))
            .collect()
    }

    /// The epoch the run stopped in before its planned end (its last report's), if it did:
    /// its ε budget spent, or its model diverged (`train::run_is_over`'s other two ends).
    pub(super) fn early_stop(&self) -> Option<f64> {
        (self.points.last())
            .filter(|p| p.stopped_by_budget || p.divergence.is_some())
            .map(|p| p.epoch)
    }

    /// The δ the run's ε is reported at, from its settings.
    pub(super) fn delta(&self) -> Option<f64> {
        self.cfg.as_ref()?.get("delta")?.as_f64()
    }

    /// The last epoch any pinned run drew: the charts' x axis reaches it, so a pin longer than
    /// this run is drawn, not piled up at the axis's end (plotters moves points past the range
    /// onto its edge).
    pub(super) fn pins_last_epoch(&self) -> f64 {
        (self.pinned.iter())
            .filter_map(|p| p.history.last().map(|q| q.epoch))
            .filter(|e| e.is_finite())
            .fold(0.0, f64::max)
    }

    /// Accountant `a`'s ε by epoch where known and above 0: of the whole run
    /// ([`RunView::whole_run`]) and of the epochs trained.
    pub(super) fn epsilon_series(&self, a: AccountantName) -> (Curve, Curve) {
        let known = |e: f64, eps: &Epsilons| eps.get(a).filter(|v| *v > 0.0).map(|v| (e, v));
        let whole = (self.whole_run().into_iter())
            .filter_map(|p| known(p.epoch, &p.eps))
            .collect();
        let trained = (self.points.iter())
            .filter_map(|p| known(p.epoch, &finite(&p.epsilon)))
            .collect();
        (whole, trained)
    }

    /// Where the ε chart names a curve of [`RunView::epsilon_series`]: the whole run's end — or,
    /// once the run stopped early (budget spent, diverged), where it stopped, not what it would
    /// have spent.
    pub(super) fn named_at(
        &self,
        whole: &[(f64, f64)],
        trained: &[(f64, f64)],
    ) -> Option<(f64, f64)> {
        match self.early_stop() {
            Some(_) => trained.last().or(whole.last()).copied(),
            None => whole.last().or(trained.last()).copied(),
        }
    }

    /// Each run on the chart (pins oldest first, this run last): its reports and its mode as
    /// the comparisons read it ([`RunView::compared_modes`]).
    fn compared(&self) -> Vec<(&[Point], Option<Mode>)> {
        let histories = self.pinned.iter().map(|p| &p.history[..]);
        (histories.chain([&self.points[..]]))
            .zip(self.compared_modes())
            .collect()
    }

    /// Each run's end as the cost of privacy reads it: its final exact test accuracy once the
    /// run is over (all its epochs, its budget spent or diverged), none while it trains, was
    /// paused or was pinned part-way — a cost is two runs' ends, never an end against an
    /// epoch — and none from a noisy count (a student's own file at the private release level),
    /// whose noise the cost's ± (sampling alone) would leave out (at the default count noise,
    /// 17 points on 114 test rows).
    fn run_ends(&self) -> Vec<RunEnd> {
        let epochs = (self.pinned.iter())
            .map(|p| p.cfg.as_ref().and_then(|c| c.get("epochs")?.as_u64()))
            .chain([Some(u64::from(self.epochs))]);
        (self.compared().into_iter().zip(epochs))
            .map(|((history, mode), epochs)| RunEnd {
                mode,
                final_test: history
                    .last()
                    .filter(|p| epochs.is_some_and(|e| p.ends_run(e as usize)))
                    .and_then(|p| p.test_acc),
            })
            .collect()
    }
}

/// A run's settings but its mode and budget: what Compare's four runs share.
fn but_the_mode(cfg: &serde_json::Value) -> Option<serde_json::Value> {
    let mut settings = cfg.as_object()?.clone();
    settings.remove("mode");
    settings.remove("budget_epsilon");
    Some(serde_json::Value::Object(settings))
}

#[wasm_bindgen]
impl RunView {
    /// A view of the run with settings `config` (a RunConfig: its epochs and amplification).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<RunView, JsError> {
        let axis: Axis = from_js(config.clone(), "the run's settings")?;
        Ok(RunView {
            epochs: axis.epochs,
            amplification: axis.amplification,
            mode: axis.mode,
            sigma: axis.sigma,
            cfg: from_js(config, "the run's settings").ok(),
            points: Vec::new(),
            norms: Vec::new(),
            preview: Vec::new(),
            pinned: Vec::new(),
            outcomes: Vec::new(),
        })
    }

    /// Adds the run's next epoch report.
    pub fn push(&mut self, report: JsValue) -> Result<(), JsError> {
        let point: Point = from_js(report.clone(), "epoch report")?;
        let norms: NormPoint = from_js(report.clone(), "epoch report")?;
        self.outcomes.push(from_js(report, "epoch report")?);
        self.points.push(point);
        self.norms.push(norms);
        Ok(())
    }

    /// The whole run's ε before training: `preview` from `epsilon_preview`, and `pld`, the PLD
    /// accountant's ε per epoch (numbers or "inf"), or null while it is computed.
    #[wasm_bindgen(js_name = setPreview)]
    pub fn set_preview(&mut self, preview: JsValue, pld: JsValue) -> Result<(), JsError> {
        let read: Vec<PreviewPoint> = from_js(preview, "epsilon preview")?;
        let mut preview: Vec<EpsilonPoint> = read
            .iter()
            .map(|p| EpsilonPoint::new(p.epoch, &p.epsilon))
            .collect();
        if !pld.is_null() && !pld.is_undefined() {
            let pld: Vec<serde_json::Value> = from_js(pld, "PLD curve")?;
            if pld.len() == preview.len() {
                for (p, v) in preview.iter_mut().zip(&pld) {
                    p.eps.pld = v.as_f64();
                }
            }
        }
        self.preview = preview;
        Ok(())
    }

    /// The pinned runs drawn behind this one ([{label, history}]), when they change.
    #[wasm_bindgen(js_name = setPinned)]
    pub fn set_pinned(&mut self, pinned: JsValue) -> Result<(), JsError> {
        self.pinned = from_js(pinned, "pinned runs")?;
        Ok(())
    }

    /// Whether the run's test accuracy shows it learned ([`learned`]): true, false (it learned
    /// nothing), or undefined (too early, within chance of the majority share, or no exact test
    /// accuracy). A lesson says "above the majority line" only on true.
    pub fn learned(&self, majority: Option<f64>, n_test: Option<usize>) -> Option<bool> {
        learned(&self.outcomes, majority, n_test)
    }

    /// Whether the run learned nothing or diverged, and why, in words ({kind, say}: see
    /// `train::verdict`), or undefined while it learns. `majority`: the majority class's share
    /// of its `n_test` test examples (unknown for a student's private file: no verdict).
    pub fn verdict(
        &self,
        majority: Option<f64>,
        n_test: Option<usize>,
    ) -> Result<JsValue, JsError> {
        match verdict(&self.outcomes, majority, n_test) {
            Some(v) => crate::web::js::to_js(&v),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// What holds the run back now and what to move ({cause, say}: `train::verdict`'s
    /// `holding_back`, the hint its verdict says), from the last epoch report; undefined before
    /// one. A lesson that says why a run learned nothing names this cause, as the status does.
    #[wasm_bindgen(js_name = holdingBack)]
    pub fn holding_back(&self) -> Result<JsValue, JsError> {
        match self.outcomes.last() {
            Some(r) => crate::web::js::to_js(&holding_back(r)),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The cost of privacy the accuracy chart writes, in percentage points: the final test
    /// accuracy of the latest non-private run on the chart minus that of the latest DP-SGD run
    /// (this run or a pin; pins carry their `mode`). `undefined` unless both are on the chart
    /// and over ([`RunView::run_ends`]).
    #[wasm_bindgen(js_name = privacyCostPoints)]
    pub fn privacy_cost_points(&self) -> Option<f64> {
        privacy_cost_points(&self.run_ends())
    }

    /// The cost of privacy's ± in points (two standard errors of the difference of the two
    /// final accuracies on `n_test` test examples: `train::gap`), where both runs and the test
    /// set's size are known.
    pub(super) fn privacy_cost_margin(&self, n_test: Option<usize>) -> Option<f64> {
        let (non_private, dp) = privacy_cost_ends(&self.run_ends())?;
        Some(accuracy_gap(dp, non_private, n_test?)?.margin)
    }

    /// Who pays for privacy, in numbers (`crate::charts::groups`): this run's latest groups
    /// summarised (`gap` in points, the `worst` group, the `rarest` in training) and, when a
    /// non-private and a DP-SGD run are on the chart, `compared`: both read at the same epoch.
    /// `undefined` while the run has no groups. The groups chart writes the same numbers.
    pub fn groups(&self) -> Result<JsValue, JsError> {
        let Some(summary) = self
            .points
            .last()
            .and_then(|p| summary(p.groups.as_deref()?))
        else {
            return Ok(JsValue::UNDEFINED);
        };
        crate::web::js::to_js(&serde_json::json!({
            "summary": summary,
            "compared": self.groups_compared(),
        }))
    }

    /// How many epoch reports the view holds.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    #[wasm_bindgen(js_name = isEmpty)]
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }
}
