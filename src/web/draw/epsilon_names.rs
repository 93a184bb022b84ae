//! What the ε chart writes of a run: its title (the δ its ε is at), its badge for naive and
//! strong in an optimistic convention, each pin's name (with its δ where another), and the ε
//! it names each accountant's curve with, and why two of those disagree (under the chart).

use super::chart_kit::Pinned;
use super::run_view::RunView;
use crate::config::{RunConfig, Sampling};
use crate::data::DataFacts;
use crate::privacy::accountant::AccountantName;
use crate::privacy::why::{why_they_differ, WholeRun};
use crate::text::{delta_in_words, format_eps, same_delta};
use crate::web::js::{from_js, js_err};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
impl RunView {
    /// The ε chart's badge when naive and strong are not the rigorous bound: what their star
    /// means, in the chart itself (a saved image keeps it), not in a name per curve that
    /// squeezed the plot to a sixth of the chart on a projector.
    pub(super) fn convention_badge(&self) -> Option<String> {
        (self.amplification.caveat()).map(|c| format!("naive*, strong*: {c}"))
    }

    /// The ε chart's title: the δ its ε is at (the run's; a pin at another says so).
    pub(super) fn epsilon_title(&self) -> String {
        match self.delta() {
            Some(d) => format!("Privacy spent ε at δ = {}", delta_in_words(d)),
            None => "Privacy spent ε (δ fixed)".to_string(),
        }
    }

    /// A pin's name on the ε chart: its label, its last moments ε, and its δ where that is not
    /// this run's (its ε is not comparable at the title's δ).
    pub(super) fn pin_epsilon_name(&self, pin: &Pinned, eps: f64) -> String {
        let delta = pin.cfg.as_ref().and_then(|c| c.get("delta")?.as_f64());
        let other = match (delta, self.delta()) {
            (Some(d), Some(own)) if !same_delta(d, own) => format!(" at δ = {}", delta_in_words(d)),
            _ => String::new(),
        };
        format!("{} {}{other}", pin.label, format_eps(eps))
    }

    /// The ε chart's title, its badge if any, and the names of the pins it draws (each pin's
    /// last finite moments ε), as [`crate::web::draw_epsilon_chart`] writes them.
    #[wasm_bindgen(js_name = epsilonTexts)]
    pub fn epsilon_texts(&self) -> Vec<String> {
        let pins = (self.pinned.iter())
            .filter(|p| !self.is_this_run(p))
            .filter_map(|p| Some(self.pin_epsilon_name(p, pin_moments(p).last()?.1)));
        let badge = self.convention_badge();
        (std::iter::once(self.epsilon_title())
            .chain(badge)
            .chain(pins))
        .collect()
    }

    /// The ε the ε chart names each accountant's curve with ([`RunView::named_at`]), by
    /// accountant name (absent: not drawn).
    #[wasm_bindgen(js_name = epsilonNamed)]
    pub fn epsilon_named(&self) -> Result<JsValue, JsError> {
        let named: std::collections::BTreeMap<&str, f64> = (AccountantName::ALL.into_iter())
            .filter_map(|a| {
                let (whole, trained) = self.epsilon_series(a);
                Some((a.name(), self.named_at(&whole, &trained)?.1))
            })
            .collect();
        crate::web::js::to_js(&named)
    }

    /// Why two accountants on the ε chart disagree by more than 2× (`privacy::why`), for the ε
    /// the chart names them with: the whole run's — or, once the run stopped early (its budget
    /// spent, or diverged), the steps it trained and the ε it spent in them, not the plan's.
    /// `facts`: the data set's. Empty when they agree within 2×.
    #[wasm_bindgen(js_name = epsilonWhy)]
    pub fn epsilon_why(&self, facts: JsValue) -> Result<Vec<String>, JsError> {
        let Some(cfg) = self.cfg.clone() else {
            return Ok(Vec::new());
        };
        let cfg: RunConfig = serde_json::from_value(cfg).map_err(js_err)?;
        let facts: DataFacts = from_js(facts, "data facts")?;
        let mech = cfg.mechanism(&facts);
        // While it trains, the whole run's alone (PLD waits for its curve, never the ε spent so
        // far beside the others' whole-run ε); once it stopped early, where the chart names it.
        let stopped = self.early_stop().is_some();
        let at = |a: AccountantName| {
            let (whole, trained) = self.epsilon_series(a);
            let end = match stopped {
                true => self.named_at(&whole, &trained),
                false => whole.last().copied(),
            };
            end.map(|(_, v)| v)
        };
        let ends = WholeRun {
            naive: at(AccountantName::Naive),
            strong: at(AccountantName::Strong),
            moments: at(AccountantName::Moments),
            pld: at(AccountantName::Pld),
        };
        // The steps it trained, as its last report counts them (a budget stops mid-epoch).
        let steps = match (stopped, self.points.last()) {
            (true, Some(last)) => last.steps.unwrap_or_else(|| {
                mech.steps_per_epoch
                    .saturating_mul(last.epoch.max(0.0) as u64)
            }),
            _ => mech.total_steps(),
        };
        Ok(why_they_differ(
            &mech.step,
            steps,
            cfg.delta,
            cfg.amplification,
            cfg.sampling == Sampling::Poisson,
            ends,
        ))
    }
}

/// A pin's moments ε by epoch where finite and above 0: the curve the ε chart draws for it and
/// names with its last value.
pub(super) fn pin_moments(pin: &Pinned) -> Vec<(f64, f64)> {
    (pin.history.iter())
        .filter_map(|p| {
            Some((
                p.epoch,
                p.epsilon.moments.filter(|v| v.is_finite() && *v > 0.0)?,
            ))
        })
        .collect()
}
