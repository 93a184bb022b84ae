//! Properties every accountant must have, over random mechanisms: ε never decreases with more
//! steps or a higher sampling rate, never increases with more noise; calibration round-trips.

#![cfg(not(target_arch = "wasm32"))]

use dpsgd_lab::privacy::accountant::calibrate::sigma_for_epsilon;
use dpsgd_lab::privacy::accountant::{Accountant, Amplification, SampledGaussian};
use proptest::prelude::*;

const ANALYTIC: [Accountant; 6] = [
    Accountant::Naive(Amplification::Paper),
    Accountant::Naive(Amplification::Rigorous),
    Accountant::Strong(Amplification::Paper),
    Accountant::Strong(Amplification::Rigorous),
    Accountant::Moments,
    Accountant::Rdp,
];

fn eps(acc: Accountant, q: f64, sigma: f64, steps: u64, delta: f64) -> f64 {
    acc.epsilon(&SampledGaussian::new(q, sigma, steps).unwrap(), delta)
        .unwrap()
}

/// a ≤ b up to the accountant's numerical slack (relative).
fn le(a: f64, b: f64, slack: f64) -> bool {
    a <= b * (1.0 + slack) + 1e-12
}

fn mechanism() -> impl Strategy<Value = (f64, f64, u64, f64)> {
    (-4.0f64..0.0, 0.3f64..100.0, 1u64..100_000, -10.0f64..-2.0)
        .prop_map(|(lq, s, t, ld)| (10f64.powf(lq), s, t, 10f64.powf(ld)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn analytic_accountants_are_monotone((q, sigma, t, delta) in mechanism(), f in 1.0f64..3.0) {
        for acc in ANALYTIC {
            let base = eps(acc, q, sigma, t, delta);
            prop_assert!(base.is_finite() && base >= 0.0, "{acc:?}: {base}");
            let more_steps = eps(acc, q, sigma, (t as f64 * f).ceil() as u64, delta);
            prop_assert!(le(base, more_steps, 1e-9), "{acc:?} in T: {base} > {more_steps}");
            let higher_q = eps(acc, (q * f).min(1.0), sigma, t, delta);
            prop_assert!(le(base, higher_q, 1e-9), "{acc:?} in q: {base} > {higher_q}");
            let more_noise = eps(acc, q, sigma * f, t, delta);
            prop_assert!(le(more_noise, base, 1e-9), "{acc:?} in σ: {more_noise} > {base}");
        }
    }

    #[test]
    fn calibration_round_trips(lq in -3.0f64..-1.0, t in 10u64..20_000, target in 0.2f64..8.0) {
        let (q, delta) = (10f64.powf(lq), 1e-5);
        for acc in [Accountant::Moments, Accountant::Rdp, Accountant::Strong(Amplification::Paper)] {
            let Ok(s) = sigma_for_epsilon(acc, target, delta, q, t, 1e-6) else {
                // Only when no noise can reach the target: the moments accountant's λ ≤ 32
                // floors ε at ln(1/δ)/32.
                let floor = eps(acc, q, 1e6, t, delta);
                prop_assert!(floor > target, "{acc:?}: calibration failed though ε(σ=1e6) = {floor}");
                continue;
            };
            let at = eps(acc, q, s, t, delta);
            prop_assert!(at <= target, "{acc:?}: ε(σ*) = {at} > {target}");
            if s > 1e-3 {
                let below = eps(acc, q, s * (1.0 - 1e-5), t, delta);
                prop_assert!(below > target * (1.0 - 1e-3), "{acc:?}: σ* = {s} is not the smallest: {below}");
            }
        }
    }
}

proptest! {
    // PLD costs milliseconds per call: fewer cases, moderate runs.
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn pld_is_monotone_and_tightest(lq in -3.0f64..-1.0, sigma in 0.7f64..8.0, t in 1u64..5_000) {
        let (q, delta) = (10f64.powf(lq), 1e-5);
        let base = eps(Accountant::Pld, q, sigma, t, delta);
        prop_assert!(le(base, eps(Accountant::Pld, q, sigma, 2 * t, delta), 1e-6));
        prop_assert!(le(eps(Accountant::Pld, q, sigma * 1.5, t, delta), base, 1e-6));
        // The tight accountant is never above the RDP bound.
        prop_assert!(le(base, eps(Accountant::Rdp, q, sigma, t, delta), 1e-6));
    }
}
