//! The columns of tests/fixtures/reference/accountants.csv: how each is computed here, and the
//! relative tolerance it must match to. Shared by the native and the wasm reference tests.
//!
//! The `*_rigorous` columns are the textbook composition with Dwork & Roth's ε0 and the valid
//! amplification — our `classical` convention; our `rigorous` one uses the exact Gaussian ε0
//! (Balle & Wang) instead and is tested against PLD (tests/accountant_properties.rs). The
//! `rdp` column is dp_accounting's default order list; our RDP minimises over more orders and
//! must never come out above it.
#![allow(dead_code)]

use dpsgd_lab::privacy::accountant::rdp::{epsilon_with_orders, reference_orders};
use dpsgd_lab::privacy::accountant::AccountantName;
use dpsgd_lab::privacy::accountant::{Accountant, Amplification, SampledGaussian};

/// How a reference column is computed here.
#[derive(Clone, Copy, Debug)]
pub enum Ours {
    Accountant(Accountant),
    /// RDP over the reference table's orders only.
    RdpReferenceOrders,
}

impl Ours {
    pub fn epsilon(self, m: &SampledGaussian, delta: f64) -> f64 {
        match self {
            Ours::Accountant(acc) => acc.epsilon(m, delta).unwrap(),
            Ours::RdpReferenceOrders => epsilon_with_orders(m, delta, &reference_orders()),
        }
    }
}

pub const COLUMNS: [(&str, Ours, f64); 7] = [
    (
        "naive_paper",
        Ours::Accountant(Accountant::of(AccountantName::Naive, Amplification::Paper)),
        0.005,
    ),
    (
        "naive_rigorous",
        Ours::Accountant(Accountant::of(
            AccountantName::Naive,
            Amplification::Classical,
        )),
        0.005,
    ),
    (
        "strong_paper",
        Ours::Accountant(Accountant::of(AccountantName::Strong, Amplification::Paper)),
        0.005,
    ),
    (
        "strong_rigorous",
        Ours::Accountant(Accountant::of(
            AccountantName::Strong,
            Amplification::Classical,
        )),
        0.005,
    ),
    (
        "moments",
        Ours::Accountant(Accountant::named(AccountantName::Moments)),
        0.001,
    ),
    ("rdp", Ours::RdpReferenceOrders, 0.005),
    // PLD with h = 1e-4, connect-the-dots: its discretisation error is far below 2%.
    (
        "pld",
        Ours::Accountant(Accountant::named(AccountantName::Pld)),
        0.02,
    ),
];
