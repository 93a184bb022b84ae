//! The "QR code" button's binding: `qr_modules` hands the page a code's modules with its size
//! and version, and refuses a link too long to scan with a message.

use dpsgd_lab::web::qr_modules;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn qr_modules_gives_a_square_of_modules_or_says_why_not() {
    let qr = qr_modules("http://127.0.0.1:8000/#v=1&lesson=clipping&big=1").unwrap();
    assert_eq!(qr.size(), 17 + 4 * qr.version());
    assert_eq!(qr.level(), "M");
    let modules = qr.modules();
    assert_eq!(modules.len() as u32, qr.size() * qr.size());
    assert!(modules.iter().all(|&m| m <= 1) && modules.contains(&1) && modules.contains(&0));
    assert!(qr_modules(&"x".repeat(1400)).is_err());
}
