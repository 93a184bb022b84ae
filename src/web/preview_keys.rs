//! What the page's privacy previews depend on, as keys (#54 §3): which settings matter for
//! privacy is Rust's to say, never the page's. Each key is the run's mechanism
//! ([`crate::config::RunConfig::mechanism`], the one place that derives it) with δ, serialised:
//! moving C, η or the seed leaves it as it is, moving σ, L, the epochs or δ does not. Equal keys,
//! equal previews — so the page keeps a preview while its key stands and asks again when not.

use super::accounting::{inputs, with_sigma};
use super::{js_err, to_js};
use crate::privacy::accountant::mechanism::Mechanism;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// The previews' keys of one run.
#[derive(Serialize)]
struct PreviewKeys {
    /// The PLD accountant's curve ([`super::accounting::pld_preview`]): the run's mechanism
    /// and δ.
    pld: String,
    /// The "σ needed" panel ([`super::accounting::sigma_needed`]): the mechanism at σ = 1 —
    /// σ is what the panel solves for — and δ; the mechanism's epochs set the panel's grid.
    sigma_panel: String,
}

/// The keys of the previews of the run with `config` on data `facts` ({pld, sigma_panel}).
#[wasm_bindgen]
pub fn preview_keys(config: JsValue, facts: JsValue) -> Result<JsValue, JsError> {
    let (cfg, facts) = inputs(&config, facts)?;
    let key = |m: &Mechanism| serde_json::to_string(&(m, cfg.delta)).map_err(js_err);
    let at_one = with_sigma(&cfg, 1.0, cfg.epochs as u64);
    to_js(&PreviewKeys {
        pld: key(&cfg.mechanism(&facts))?,
        sigma_panel: key(&at_one.mechanism(&facts))?,
    })
}
