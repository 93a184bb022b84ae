//! Values across the wasm boundary: a Rust error as a JS one, a Rust value as a plain JS object
//! and back (serde-wasm-bindgen, ∞ as "inf" where the types say so). The bottom of `web`: the
//! charts (`draw`) and the entry points both use it, and it uses neither (`tests/layers.rs`).

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// A Rust error as a JS `Error` with its message.
pub(crate) fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// A Rust value as a plain JS object (maps as objects, `None` as null).
pub(crate) fn to_js<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_err)
}

/// A JS value as a Rust value; the error names `what` was malformed.
pub(crate) fn from_js<T: DeserializeOwned>(v: JsValue, what: &str) -> Result<T, JsError> {
    serde_wasm_bindgen::from_value(v).map_err(|e| JsError::new(&format!("{what}: {e}")))
}
