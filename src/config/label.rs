//! A pinned run's name (the page's Pin button): its mode, σ, C and L — Algorithm 1's inputs a
//! class moves — and every other setting in which it differs from a run pinned beside it. Two
//! pins that differ only in the data set, the epochs, δ or DP-PCA had one name ("σ=1 C=1 L=256"
//! twice) and different ε curves: a student could take one curve for the other's guarantee.

use super::{name_of, Clipping, Mode, ModelKind, RunConfig, Sampling};
use crate::text::{delta_in_words, fmt_num, noise_in_words, three_digits};

/// The settings a pin's name adds when they set it apart, each as its words in a run: what it
/// trains on and how, and what its ε is of (δ, DP-PCA's release, a budget that stops it, the
/// convention naive and strong composition are drawn with). In the order they are written.
const SET_APART: [fn(&RunConfig) -> String; 12] = [
    |c| c.dataset.clone(),
    |c| match c.model {
        ModelKind::Logistic => "logistic".into(),
        ModelKind::Mlp => format!("MLP {}", hidden_widths(&c.hidden)),
    },
    |c| format!("epochs={}", c.epochs),
    |c| format!("δ={}", delta_in_words(c.delta)),
    |c| format!("η={}", three_digits(c.lr)),
    |c| match c.clipping {
        Clipping::Flat => "C on the whole gradient".into(),
        Clipping::PerLayer => "C per layer".into(),
    },
    |c| match c.sampling {
        Sampling::Poisson => "Poisson lots".into(),
        Sampling::Shuffle => "shuffled lots".into(),
    },
    |c| match c.pca {
        Some(k) => format!("DP-PCA {k} (σp={})", noise_in_words(c.pca_sigma)),
        None => "no DP-PCA".into(),
    },
    |c| match c.clip_quantile {
        Some(q) => format!("adaptive C (quantile {})", three_digits(q)),
        None => "fixed C".into(),
    },
    |c| match c.budget_epsilon {
        Some(b) => format!("ε budget {}", fmt_num(b)),
        None => "no ε budget".into(),
    },
    |c| format!("{} convention", name_of(c.amplification)),
    |c| match c.seed {
        Some(s) => format!("seed={s}"),
        None => "a random seed".into(),
    },
];

fn hidden_widths(hidden: &[usize]) -> String {
    let widths: Vec<String> = hidden.iter().map(|w| w.to_string()).collect();
    widths.join("-")
}

/// The name the Pin button gives run `cfg` beside the runs pinned already (`others`): its mode
/// (but DP-SGD's), σ (rounded down, as the reports write it), C and L, then each setting of
/// [`SET_APART`] whose words differ from any other's.
pub fn pin_label(cfg: &RunConfig, others: &[RunConfig]) -> String {
    let mode = match cfg.mode {
        Mode::Dp => String::new(),
        m => format!("{} ", name_of(m)),
    };
    let mut label = format!(
        "{mode}σ={} C={} L={}",
        noise_in_words(cfg.sigma),
        three_digits(cfg.clip),
        cfg.lot_size
    );
    for words in SET_APART {
        let own = words(cfg);
        if others.iter().any(|o| words(o) != own) {
            label.push_str(", ");
            label.push_str(&own);
        }
    }
    label
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alike_but_for_sigma_the_name_is_sigma_c_and_l() {
        let one = RunConfig::default();
        let two = RunConfig {
            sigma: 4.0,
            ..one.clone()
        };
        assert_eq!(pin_label(&one, &[]), "σ=1 C=1 L=256");
        assert_eq!(pin_label(&two, std::slice::from_ref(&one)), "σ=4 C=1 L=256");
        let clip_only = RunConfig {
            mode: Mode::ClipOnly,
            ..one.clone()
        };
        assert_eq!(pin_label(&clip_only, &[one]), "clip-only σ=1 C=1 L=256");
    }

    #[test]
    fn a_setting_that_sets_it_apart_from_a_pin_is_named() {
        let pinned = RunConfig::default();
        let other = RunConfig {
            dataset: "mnist".into(),
            epochs: 5,
            delta: 1e-6,
            pca: Some(60),
            model: ModelKind::Mlp,
            hidden: vec![1000],
            ..pinned.clone()
        };
        assert_eq!(
            pin_label(&other, std::slice::from_ref(&pinned)),
            "σ=1 C=1 L=256, mnist, MLP 1000, epochs=5, δ=1e-6, DP-PCA 60 (σp=7)"
        );
        // and each pin set apart from the other
        assert_eq!(
            pin_label(&pinned, &[other]),
            "σ=1 C=1 L=256, adult, logistic, epochs=20, δ=1e-5, no DP-PCA"
        );
    }

    #[test]
    fn a_budget_adaptive_clipping_the_convention_and_seeds_are_named_when_they_differ() {
        let a = RunConfig {
            seed: Some(1),
            ..RunConfig::default()
        };
        let b = RunConfig {
            seed: Some(2),
            budget_epsilon: Some(2.0),
            clip_quantile: Some(0.9),
            amplification: crate::privacy::accountant::Amplification::Paper,
            ..a.clone()
        };
        assert_eq!(
            pin_label(&b, &[a]),
            "σ=1 C=1 L=256, adaptive C (quantile 0.9), ε budget 2, paper convention, seed=2"
        );
        // σ as the reports write it: rounded down, never more noise than the run had
        let odd = RunConfig {
            sigma: 1.23456,
            ..RunConfig::default()
        };
        assert_eq!(pin_label(&odd, &[]), "σ=1.23 C=1 L=256");
    }
}
