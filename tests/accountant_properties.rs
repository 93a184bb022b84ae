//! Properties every accountant must have, over random mechanisms: ε never decreases with more
//! steps or a higher sampling rate, never increases with more noise; calibration round-trips.

#![cfg(not(target_arch = "wasm32"))]

use dpsgd_lab::privacy::accountant::calibrate::sigma_for_epsilon;
use dpsgd_lab::privacy::accountant::AccountantName;
use dpsgd_lab::privacy::accountant::{Accountant, Amplification, SampledGaussian};
use proptest::prelude::*;

const ANALYTIC: [Accountant; 6] = [
    Accountant::of(AccountantName::Naive, Amplification::Paper),
    Accountant::of(AccountantName::Naive, Amplification::Rigorous),
    Accountant::of(AccountantName::Strong, Amplification::Paper),
    Accountant::of(AccountantName::Strong, Amplification::Rigorous),
    Accountant::named(AccountantName::Moments),
    Accountant::named(AccountantName::Rdp),
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
        for acc in [Accountant::named(AccountantName::Moments), Accountant::named(AccountantName::Rdp), Accountant::of(AccountantName::Strong, Amplification::Paper)] {
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
        let base = eps(Accountant::named(AccountantName::Pld), q, sigma, t, delta);
        prop_assert!(le(base, eps(Accountant::named(AccountantName::Pld), q, sigma, 2 * t, delta), 1e-6));
        prop_assert!(le(eps(Accountant::named(AccountantName::Pld), q, sigma * 1.5, t, delta), base, 1e-6));
        // The tight accountant is never above the RDP bound.
        prop_assert!(le(base, eps(Accountant::named(AccountantName::Rdp), q, sigma, t, delta), 1e-6));
    }
}

/// The seed note's comparison: σ needed for ε = 2 (δ = 1e-5, q = 0.01) as the number of steps
/// grows. Every entry meets the target, and the growth exponents d ln σ / d ln T show the
/// three regimes: naive composition about 1, strong composition and the moments bound about ½,
/// the moments accountant needing far less noise than either.
#[test]
fn sigma_needed_grows_as_each_composition_predicts() {
    use dpsgd_lab::privacy::accountant::calibrate::sigma_needed;
    let (q, target, delta) = (0.01, 2.0, 1e-5);
    let steps = [1_000u64, 4_000, 16_000, 64_000];
    let plain = |sigma: f64, t: u64| vec![SampledGaussian { q, sigma, steps: t }];
    let curve = |acc| sigma_needed(acc, target, delta, &plain, &steps, 1e-4).unwrap();
    let naive = curve(Accountant::of(
        AccountantName::Naive,
        Amplification::Rigorous,
    ));
    let strong = curve(Accountant::of(
        AccountantName::Strong,
        Amplification::Rigorous,
    ));
    let moments = curve(Accountant::named(AccountantName::Moments));
    let rdp = curve(Accountant::named(AccountantName::Rdp));
    let exponent =
        |c: &[Option<f64>], i: usize| (c[i + 1].unwrap() / c[i].unwrap()).ln() / 4f64.ln();
    for (name, acc, c) in [
        (
            "naive",
            Accountant::of(AccountantName::Naive, Amplification::Rigorous),
            &naive,
        ),
        (
            "strong",
            Accountant::of(AccountantName::Strong, Amplification::Rigorous),
            &strong,
        ),
        (
            "moments",
            Accountant::named(AccountantName::Moments),
            &moments,
        ),
        ("rdp", Accountant::named(AccountantName::Rdp), &rdp),
    ] {
        for (&t, s) in steps.iter().zip(c.iter()) {
            let s = s.unwrap_or_else(|| panic!("{name}: no σ for T = {t}"));
            assert!(
                eps(acc, q, s, t, delta) <= target,
                "{name} T = {t}: σ = {s} misses ε = {target}"
            );
        }
        assert!(
            c.windows(2).all(|w| w[0] <= w[1]),
            "{name}: σ needed must not fall with T: {c:?}"
        );
        println!(
            "{name}: {c:?}, exponents {:.3} {:.3} {:.3}",
            exponent(c, 0),
            exponent(c, 1),
            exponent(c, 2)
        );
    }
    let last = steps.len() - 2;
    assert!(
        (0.9..1.1).contains(&exponent(&naive, last)),
        "naive {naive:?}"
    );
    assert!(
        (0.4..0.6).contains(&exponent(&strong, last)),
        "strong {strong:?}"
    );
    assert!(
        (0.4..0.6).contains(&exponent(&moments, last)),
        "moments {moments:?}"
    );
    for i in 0..steps.len() {
        let (n, s, m, r) = (
            naive[i].unwrap(),
            strong[i].unwrap(),
            moments[i].unwrap(),
            rdp[i].unwrap(),
        );
        assert!(
            m < s && s < n && r <= m * 1.01,
            "T = {}: naive {n}, strong {s}, moments {m}, rdp {r}",
            steps[i]
        );
    }
    // Bad input is an error, not a curve of Nones.
    let moments = Accountant::named(AccountantName::Moments);
    assert!(sigma_needed(moments, 0.0, delta, &plain, &steps, 1e-3).is_err());
    assert!(sigma_needed(moments, 2.0, 1.5, &plain, &steps, 1e-3).is_err());
    assert!(sigma_needed(moments, 2.0, delta, &plain, &[20_000_000], 1e-3).is_err());
    // A DP-PCA step first (paper Section 4): every σ meets the target for the composition,
    // is larger than without it, and a target the PCA step alone exceeds is out of reach.
    let pca = [SampledGaussian::new(1.0, 7.0, 1).unwrap()];
    let after_pca = |sigma: f64, t: u64| vec![pca[0], SampledGaussian { q, sigma, steps: t }];
    let with_pca = sigma_needed(
        Accountant::named(AccountantName::Rdp),
        target,
        delta,
        &after_pca,
        &steps,
        1e-4,
    )
    .unwrap();
    for (i, (&t, s)) in steps.iter().zip(&with_pca).enumerate() {
        let s = s.unwrap();
        let parts = [pca[0], SampledGaussian::new(q, s, t).unwrap()];
        let composed = dpsgd_lab::privacy::accountant::compose::epsilon(
            Accountant::named(AccountantName::Rdp),
            &parts,
            delta,
        )
        .unwrap();
        assert!(
            composed <= target && s > rdp[i].unwrap(),
            "T = {t}: σ {s}, ε {composed}"
        );
    }
    let pca_eps = Accountant::named(AccountantName::Rdp)
        .epsilon(&pca[0], delta)
        .unwrap();
    let unreachable = sigma_needed(
        Accountant::named(AccountantName::Rdp),
        pca_eps * 0.9,
        delta,
        &after_pca,
        &steps,
        1e-3,
    )
    .unwrap();
    assert!(unreachable.iter().all(Option::is_none), "{unreachable:?}");
}
