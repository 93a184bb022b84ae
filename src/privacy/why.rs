//! Why two accountants on the ε chart disagree by more than 2× (#53): one sentence each for the
//! two disagreements a class asks about, from the run's own mechanism — strong composition
//! above naive (its terms √(2T ln(1/δ))·ε′ and T·ε′(e^ε′ − 1) together past naive's T·ε′: a
//! large ε′ or few steps), and the moments accountant far above PLD (its tail bound, ε =
//! min over λ ≤ 32 of (T·α(λ) + ln(1/δ))/λ, can never go below ln(1/δ)/32) — and which of the
//! two is a valid bound.

use super::accountant::mechanism::Release;
use super::accountant::moments::LAMBDAS;
use super::accountant::Amplification;

/// The whole run's ε by the accountants the sentences compare (`None`: ∞ or not known yet).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WholeRun {
    pub naive: Option<f64>,
    pub strong: Option<f64>,
    pub moments: Option<f64>,
    pub pld: Option<f64>,
}

/// How far apart two accountants must be before the chart says why.
pub const APART: f64 = 2.0;

/// The sentences for the training release `step` made `steps` times at `delta`, naive and
/// strong composition in convention `amp`, the whole run's ε in `whole`: none when no two
/// are more than [`APART`] apart in the ways it explains. `poisson`: the lots were Poisson
/// samples, as every accountant assumes; of shuffled lots no accountant's ε is a bound, and
/// the sentences say so rather than "both are valid".
pub fn why_they_differ(
    step: &Release,
    steps: u64,
    delta: f64,
    amp: Amplification,
    poisson: bool,
    whole: WholeRun,
) -> Vec<String> {
    let shuffled = "With shuffled lots neither is a bound: the accountants assume Poisson \
                    sampling, and their ε is only indicative.";
    let mut out = Vec::new();
    let t = steps as f64;
    let usable = |v: Option<f64>| v.filter(|x| x.is_finite() && *x > 0.0);
    if let (Some(naive), Some(strong)) = (usable(whole.naive), usable(whole.strong)) {
        if strong > naive && step.q > 0.0 && step.sigma > 0.0 && steps > 0 {
            // Naive composition's per-step ε′: all of δ spread over the steps (naive.rs).
            let eps1 = amp.step_epsilon(step.q, step.sigma, (delta / (t * step.q)).min(1.0));
            let bound = if !poisson {
                shuffled
            } else if amp.is_valid_bound() {
                "Both are valid bounds: the smaller holds."
            } else {
                "In the paper's convention (q·ε₀: optimistic) neither is a bound."
            };
            // Strong's two terms as shares of naive's T·ε′ (about: each accountant splits δ
            // its own way): √(2T ln(1/δ))·ε′ is √(2 ln(1/δ)/T) of it, T·ε′(e^ε′ − 1) is e^ε′ − 1.
            let first = (2.0 * (1.0 / delta).ln() / t).sqrt();
            let second = eps1.exp_m1();
            out.push(format!(
                "Strong composition is above naive here. Against naive's T·ε′ (ε′ = {} a step, \
                 T = {} steps), its √(2T·ln(1/δ))·ε′ term is about {} of it and its \
                 T·ε′(e^ε′ − 1) term {}: more than all of it together. Strong composition is \
                 the smaller only while e^ε′ − 1 is small and T large; then it grows like √T. \
                 {bound}",
                short(eps1),
                crate::text::thousands(steps as usize),
                percent(first),
                percent(second)
            ));
        }
    }
    if let (Some(moments), Some(pld)) = (usable(whole.moments), usable(whole.pld)) {
        if moments > APART * pld {
            let floor = (1.0 / delta).ln() / f64::from(*LAMBDAS.end());
            let why = if moments < 1.5 * floor {
                format!(
                    "its tail bound over moment orders λ ≤ {} can never say less than \
                     ln(1/δ)/{} = {}, and this run is near that floor",
                    LAMBDAS.end(),
                    LAMBDAS.end(),
                    short(floor)
                )
            } else {
                "its conversion from the privacy loss's moments to (ε, δ), a tail bound at \
                 whole orders, is looser than composing the loss's distribution itself"
                    .to_string()
            };
            let bound = match poisson {
                true => {
                    "Both are valid upper bounds for this mechanism; PLD's, the smaller, is \
                         the tighter."
                }
                false => shuffled,
            };
            out.push(format!(
                "The moments accountant's ε is {}× PLD's: {why}. {bound}",
                short(moments / pld)
            ));
        }
    }
    out
}

/// Three significant digits.
fn short(v: f64) -> String {
    crate::text::three_digits(v)
}

/// A share as a whole percentage ("73%"; "over 1000%" past that).
fn percent(share: f64) -> String {
    if share > 10.0 {
        "over 1000%".into()
    } else {
        format!("{:.0}%", 100.0 * share)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::accountant::mechanism::ReleaseKind;

    fn training(q: f64, sigma: f64) -> Release {
        Release {
            what: ReleaseKind::Training,
            q,
            sigma,
        }
    }

    #[test]
    fn strong_above_naive_is_explained_by_a_large_per_step_epsilon() {
        // σ = 1, q = 0.0079 (L = 256 of Adult), 10 epochs: the first screen's 2618 against 1997.
        let step = training(256.0 / 32_561.0, 1.0);
        let whole = WholeRun {
            naive: Some(1997.0),
            strong: Some(2618.0),
            ..WholeRun::default()
        };
        let said = why_they_differ(&step, 1272, 1e-5, Amplification::Rigorous, true, whole);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].starts_with("Strong composition is above naive here."),
            "{}",
            said[0]
        );
        assert!(said[0].ends_with("Both are valid bounds: the smaller holds."));
        // Its two shares, as the sentence gives them, add up to more than naive's whole.
        let eps1 = Amplification::Rigorous.step_epsilon(step.q, 1.0, 1e-5 / (1272.0 * step.q));
        let (first, second) = ((2.0 * 1e5f64.ln() / 1272.0).sqrt(), eps1.exp_m1());
        assert!(
            first + second > 1.0,
            "the premise holds: {first} + {second}"
        );
        let steps = format!("ε′ = {} a step, T = 1,272 steps", short(eps1));
        assert!(said[0].contains(&steps), "{}", said[0]);
        assert!(
            said[0].contains(&format!("about {} of it", percent(first))),
            "{}",
            said[0]
        );
        let paper = why_they_differ(&step, 1272, 1e-5, Amplification::Paper, true, whole);
        assert!(paper[0].ends_with("neither is a bound."), "{}", paper[0]);
        // Strong below naive: nothing to explain.
        let usual = WholeRun {
            naive: Some(144.0),
            strong: Some(9.4),
            ..WholeRun::default()
        };
        assert!(
            why_they_differ(&step, 1272, 1e-5, Amplification::Rigorous, true, usual).is_empty()
        );
    }

    #[test]
    fn moments_far_above_pld_names_its_floor_or_its_looser_conversion() {
        let step = training(0.0079, 8.0);
        let near_floor = WholeRun {
            moments: Some(0.363),
            pld: Some(0.037),
            ..WholeRun::default()
        };
        let said = why_they_differ(&step, 100, 1e-5, Amplification::Rigorous, true, near_floor);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("9.81× PLD's"), "{}", said[0]);
        assert!(said[0].contains("ln(1/δ)/32 = 0.36"), "{}", said[0]);
        let loose = WholeRun {
            moments: Some(3.0),
            pld: Some(1.2),
            ..WholeRun::default()
        };
        let said = why_they_differ(&step, 100, 1e-5, Amplification::Rigorous, true, loose);
        assert!(said[0].contains("looser than composing"), "{}", said[0]);
        // Within 2×, or PLD not known yet (∞ or computing): nothing.
        let close = WholeRun {
            moments: Some(1.26),
            pld: Some(0.95),
            ..WholeRun::default()
        };
        assert!(why_they_differ(&step, 100, 1e-5, Amplification::Rigorous, true, close).is_empty());
        let unknown = WholeRun {
            moments: Some(1.26),
            ..WholeRun::default()
        };
        assert!(
            why_they_differ(&step, 100, 1e-5, Amplification::Rigorous, true, unknown).is_empty()
        );
    }

    /// A run of shuffled lots: the accountants assume Poisson sampling, so neither sentence
    /// calls an ε a bound.
    #[test]
    fn of_shuffled_lots_no_epsilon_is_called_a_bound() {
        let step = training(0.01, 0.6);
        let whole = WholeRun {
            naive: Some(5.0),
            strong: Some(12.0),
            moments: Some(3.0),
            pld: Some(1.0),
        };
        let said = why_they_differ(&step, 100, 1e-5, Amplification::Rigorous, false, whole);
        assert_eq!(said.len(), 2, "{said:?}");
        for s in &said {
            assert!(!s.contains("valid"), "{s}");
            assert!(s.ends_with("their ε is only indicative."), "{s}");
        }
    }
}
