//! The page's "QR code" button: the lab's link as a QR code's modules ([`crate::share`]), for
//! www/share/share.js to draw on a canvas with its quiet zone.

use crate::share::{qr_matrix, QrMatrix};
use wasm_bindgen::prelude::*;

/// A QR code's modules, as [`qr_modules`] returns them.
#[wasm_bindgen]
pub struct QrModules(QrMatrix);

#[wasm_bindgen]
impl QrModules {
    /// Modules on a side (17 + 4 · version), without the quiet zone.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        self.0.size as u32
    }

    /// The QR version (1 to 25).
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> u32 {
        self.0.version as u32
    }

    /// The error correction level: "M", or "L" for a link too long for M.
    #[wasm_bindgen(getter)]
    pub fn level(&self) -> String {
        self.0.level.to_string()
    }

    /// `size`² modules row by row: 1 dark, 0 light.
    #[wasm_bindgen(getter)]
    pub fn modules(&self) -> Vec<u8> {
        self.0.modules.clone()
    }
}

/// The QR code of `text` (the page's URL), or an error whose message says why there is none:
/// the link is too long for a code that can be scanned from across a room.
#[wasm_bindgen]
pub fn qr_modules(text: &str) -> Result<QrModules, JsError> {
    qr_matrix(text)
        .map(QrModules)
        .map_err(|e| JsError::new(&e.message))
}
