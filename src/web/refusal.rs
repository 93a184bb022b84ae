//! A student's file refused, as the page receives it: an Error whose message says what ε the
//! attempt spent when its preparation released something, with the releases (`spent`, for
//! the page's ledger of the file) and the columns that need ranges (`ranges`, for its form).

use super::to_js;
use crate::data::prepare::split::PrepError;
use crate::privacy::accountant::{compose, Accountant, AccountantName};
use crate::text::format_eps;
use wasm_bindgen::prelude::*;

/// A refused file as an Error: its message, then — when its preparation released something —
/// the ε that spent (moments accountant, at `delta`) and `spent`, those releases, for the
/// page's ledger of the file; `ranges` when ranges are what it lacks (the page's form).
pub(super) fn refused(e: PrepError, delta: f64) -> JsValue {
    let mut text = e.to_string();
    if !e.spent.is_empty() {
        let parts: Vec<_> = e.spent.iter().map(|r| r.times(1)).collect();
        if let Ok(eps) = compose::epsilon(Accountant::named(AccountantName::Moments), &parts, delta)
        {
            text.push_str(&format!(
                ": ε = {} (moments accountant, δ = {}) spent by this attempt alone",
                if eps.is_finite() {
                    format_eps(eps)
                } else {
                    "∞".into()
                },
                crate::text::delta_in_words(delta)
            ));
        }
    }
    let error = js_sys::Error::new(&text);
    // Setting a property on a fresh Error object cannot fail.
    if !e.spent.is_empty() {
        if let Ok(spent) = to_js(&e.spent) {
            let _ = js_sys::Reflect::set(&error, &"spent".into(), &spent);
        }
    }
    if let Some(ranges) = e.ranges.as_ref().and_then(|r| to_js(r).ok()) {
        let _ = js_sys::Reflect::set(&error, &"ranges".into(), &ranges);
    }
    error.into()
}
