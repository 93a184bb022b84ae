//! The columns of ../shared/reference/accountants.csv: which accountant each is, and the
//! relative tolerance it must match to. Shared by the native and the wasm reference tests.

use dpsgd_lab::privacy::accountant::{Accountant, Amplification};

pub const COLUMNS: [(&str, Accountant, f64); 7] = [
    (
        "naive_paper",
        Accountant::Naive(Amplification::Paper),
        0.005,
    ),
    (
        "naive_rigorous",
        Accountant::Naive(Amplification::Rigorous),
        0.005,
    ),
    (
        "strong_paper",
        Accountant::Strong(Amplification::Paper),
        0.005,
    ),
    (
        "strong_rigorous",
        Accountant::Strong(Amplification::Rigorous),
        0.005,
    ),
    ("moments", Accountant::Moments, 0.001),
    ("rdp", Accountant::Rdp, 0.005),
    // PLD with h = 1e-4, connect-the-dots: its discretisation error is far below 2%.
    ("pld", Accountant::Pld, 0.02),
];
