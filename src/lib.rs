//! DP-SGD Lab: differentially private SGD (Abadi et al. 2016, "Deep Learning with Differential
//! Privacy") and its privacy accountants, as a pure-Rust core that builds natively (the `dpsgd`
//! CLI) and for wasm32 (the browser lab, through the thin `web` facade).
//!
//! Data flows one way: `web` and the CLI drive [`train`], which uses [`privacy`], [`model`] and
//! [`data`]; the accountants in [`privacy::accountant`] depend on nothing but maths. Each room
//! uses only the rooms below it (ARCHITECTURE.md's layers; `tests/layers.rs` holds them).

pub mod audit;
pub mod bench;
pub mod charts;
pub mod config;
pub mod data;
pub mod export;
pub mod linalg;
pub mod model;
pub mod privacy;
pub mod share;
pub mod text;
pub mod train;

#[cfg(target_arch = "wasm32")]
pub mod web;

/// The floating-point type of model parameters and features. Accounting is always `f64`.
pub type Real = f32;
