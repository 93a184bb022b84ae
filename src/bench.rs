//! Benchmarks shared by the native CLI (`dpsgd bench`) and the browser (the wasm facade), so
//! the two measure the same code. The clock is passed in: `Instant` natively,
//! `performance.now()` in the browser. Each case is one JSON line.

use crate::privacy::accountant::{
    moments, naive, pld, rdp, strong, Amplification, SampledGaussian,
};
use serde::Serialize;

/// One benchmark figure.
#[derive(Clone, Debug, Serialize)]
pub struct BenchLine {
    #[serde(rename = "impl")]
    pub implementation: String,
    pub case: String,
    pub what: String,
    pub ms: f64,
    /// The last value computed (so the work cannot be optimised away, and for a sanity check).
    pub value: f64,
}

/// Time to compute the ε-versus-epoch curve for epochs 1..=400 of the paper's setting
/// (q = 0.01, σ = 4, 100 steps per epoch, δ = 1e-5), per accountant.
pub fn accountant_curves(implementation: &str, now_ms: &dyn Fn() -> f64) -> Vec<BenchLine> {
    let (q, sigma, spe, epochs, delta) = (0.01, 4.0, 100u64, 400u32, 1e-5);
    let mechs: Vec<SampledGaussian> = (1..=epochs as u64)
        .map(|e| SampledGaussian {
            q,
            sigma,
            steps: e * spe,
        })
        .collect();
    let mut lines = Vec::new();
    // The best of three runs (the first also pays for warm-up, e.g. wasm tier-up).
    let mut time = |what: &str, f: &dyn Fn() -> f64| {
        let (mut best, mut value) = (f64::INFINITY, 0.0);
        for _ in 0..3 {
            let t0 = now_ms();
            value = f();
            best = best.min(now_ms() - t0);
        }
        lines.push(BenchLine {
            implementation: implementation.into(),
            case: "epsilon_curve_400_epochs".into(),
            what: what.into(),
            ms: best,
            value,
        });
    };
    let amp = Amplification::Paper;
    time("naive", &|| {
        mechs
            .iter()
            .map(|m| naive::epsilon(m, delta, amp))
            .fold(0.0, |_, v| v)
    });
    time("strong", &|| {
        mechs
            .iter()
            .map(|m| strong::epsilon(m, delta, amp))
            .fold(0.0, |_, v| v)
    });
    time("moments", &|| {
        *moments::epsilon_curve(&mechs, delta)
            .unwrap()
            .last()
            .unwrap()
    });
    time("rdp", &|| {
        *rdp::epsilon_curve(&mechs, delta).unwrap().last().unwrap()
    });
    time("pld_h1e-3", &|| {
        *pld::epsilon_curve(q, sigma, spe, epochs, delta, 1e-3)
            .last()
            .unwrap()
    });
    time("pld_h1e-4", &|| {
        *pld::epsilon_curve(q, sigma, spe, epochs, delta, 1e-4)
            .last()
            .unwrap()
    });
    lines
}
