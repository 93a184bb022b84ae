use super::*;
use crate::config::{Mode, ReleaseLevel, Sampling};
use crate::train::report::NOT_PRIVATE_IN_WORDS;

/// A student's file as the worker prepares it: private, with its range estimate.
fn own() -> DataFacts {
    DataFacts::own_for_tests()
}

/// A built-in, public set.
fn builtin() -> DataFacts {
    DataFacts {
        private: false,
        releases: Vec::new(),
        majority_share: Some(0.5),
        ..own()
    }
}

fn dp() -> RunConfig {
    RunConfig {
        sigma: 1.1,
        lot_size: 100,
        epochs: 4,
        report: ReleaseLevel::Private,
        ..RunConfig::default()
    }
}

fn of(cfg: &RunConfig, facts: &DataFacts) -> Coverage {
    Coverage::of(cfg, &cfg.mechanism(facts), facts, Shown::default())
}

fn has(list: &[String], part: &str) -> bool {
    list.iter().any(|s| s.contains(part))
}

#[test]
fn numbers_round_toward_the_side_that_never_flatters() {
    assert_eq!(noise(0.99951), "0.999");
    assert_eq!(rate(0.99951), "1.00");
    assert_eq!(rate(600.0 / 76_277.0), "0.00787"); // 0.0078660…
    assert_eq!(noise(600.0 / 76_277.0), "0.00786");
    assert_eq!(rate(1.0 / 6000.0), "0.000167");
    assert_eq!(noise(1.23456), "1.23");
    assert_eq!(noise(12.3456), "12.3");
    assert_eq!(noise(4.0), "4");
    assert_eq!(rate(1.0), "1");
    assert_eq!(noise(0.0), "0");
    // What the slider shows, exactly (0.7 / 0.001 is 699.999… in floating point).
    for (v, shown) in [(0.7, "0.7"), (4.1, "4.1"), (1.13, "1.13"), (0.35, "0.35")] {
        assert_eq!(noise(v), shown);
        assert_eq!(rate(v), shown);
    }
    // Every two-decimal σ the sliders can set reads as set.
    for hundredths in 1..500 {
        let v = f64::from(hundredths) / 100.0;
        let shown: f64 = noise(v).parse().unwrap();
        assert_eq!(shown, v, "{v} shows as {}", noise(v));
    }
}

/// Every noisy release of the mechanism has its covered sentence: a release kind added
/// without one fails here.
#[test]
fn every_noisy_release_is_covered_by_name_and_numbers() {
    let cfg = RunConfig {
        pca: Some(2),
        pca_sigma: 7.0,
        clip_quantile: Some(0.5),
        ..dp()
    };
    let facts = own();
    let mech = cfg.mechanism(&facts);
    let c = of(&cfg, &facts);
    assert_eq!(
        c.covered.len(),
        1 + mech.before.len() + mech.per_epoch.len(),
        "{c:?}"
    );
    assert!(has(
        &c.covered,
        &format!("each of the (up to) {} training steps", mech.total_steps())
    ));
    assert!(has(&c.covered, &format!("(q = {})", rate(mech.step.q))));
    assert!(has(
        &c.covered,
        &format!("σ = {} (with the noisy count", noise(mech.step.sigma))
    ));
    assert!(has(
        &c.covered,
        "DP-PCA's projection: one Gaussian release (σ_p = 7)"
    ));
    assert!(has(&c.covered, "ranges of your numeric columns"));
    assert!(has(&c.covered, "test accuracy after each epoch"));
    // A count released without adapting C (--count-noise alone) is named too.
    let counted = RunConfig {
        count_noise: Some(12.8),
        ..dp()
    };
    let c = of(&counted, &facts);
    assert!(
        has(&c.covered, "noisy count of unclipped examples it releases"),
        "{c:?}"
    );
    assert!(!has(&of(&dp(), &facts).covered, "noisy count"));
    // A public test set is not a release of the training data.
    let public = of(&dp(), &builtin());
    assert_eq!(public.covered.len(), 2, "{public:?}");
    assert!(has(&public.covered, "held-out test set: public data"));
    let blobs = RunConfig {
        dataset: "blobs".into(),
        ..dp()
    };
    assert!(!has(&of(&blobs, &builtin()).outside, "scaled"));
    for (set, scaled) in [
        ("adult", "public bounds"),
        ("breast-cancer", "standardised on its training split"),
    ] {
        let c = of(
            &RunConfig {
                dataset: set.into(),
                ..dp()
            },
            &builtin(),
        );
        assert!(has(&c.outside, scaled), "{set}: {c:?}");
    }
    assert!(!has(&public.outside, "Your file"));
}

#[test]
fn a_release_without_noise_leaves_nothing_covered() {
    for mode in [Mode::NonPrivate, Mode::ClipOnly, Mode::NoiseOnly] {
        let c = of(&RunConfig { mode, ..dp() }, &builtin());
        assert!(c.covered.is_empty(), "{mode:?}: {c:?}");
        assert_eq!(
            c.outside[0],
            "Everything: this run does not both clip and add noise, so ε = ∞."
        );
        assert_eq!(
            c.open.as_deref(),
            Some("this run does not both clip and add noise, so ε = ∞.")
        );
    }
    assert_eq!(of(&dp(), &builtin()).open, None, "a private run: no cause");
    let bare_pca = RunConfig {
        pca: Some(2),
        pca_sigma: 0.0,
        ..dp()
    };
    let c = of(&bare_pca, &own());
    assert!(c.covered.is_empty(), "{c:?}");
    assert_eq!(
        c.outside[0],
        "Everything: DP-PCA's projection (σ_p = 0) has no noise, so ε = ∞."
    );
    assert_eq!(
        c.open.as_deref(),
        Some("DP-PCA's projection (σ_p = 0) has no noise, so ε = ∞.")
    );
}

#[test]
fn shuffled_lots_are_not_claimed_as_covered() {
    let c = of(
        &RunConfig {
            sampling: Sampling::Shuffle,
            ..dp()
        },
        &builtin(),
    );
    assert!(!has(&c.covered, "training steps"), "{c:?}");
    assert!(has(
        &c.outside,
        "not the Poisson sample the accountants assume"
    ));
}

#[test]
fn the_teaching_level_names_every_measurement_it_shows() {
    let cfg = RunConfig {
        report: ReleaseLevel::Teaching,
        ..dp()
    };
    let facts = own();
    let shown = Shown {
        training_points: true,
        file_ledger: true,
    };
    let c = Coverage::of(&cfg, &cfg.mechanism(&facts), &facts, shown);
    let teaching = c
        .outside
        .iter()
        .find(|s| s.contains("not private"))
        .unwrap();
    assert!(
        teaching.starts_with("Train accuracy and loss, "),
        "{teaching}"
    );
    for (words, _) in NOT_PRIVATE_IN_WORDS.iter().skip(1) {
        assert!(teaching.contains(words), "{words} in {teaching}");
    }
    assert!(teaching.contains("and the training points of the decision-boundary view:"));
    assert!(has(
        &c.outside,
        "exact test accuracy and loss of your held-out rows"
    ));
    assert!(has(&c.outside, "composed under the status line"));
    // #40, 3.8: two tabs on one file each counted "1 run"; the count is said to be the tab's.
    assert!(has(&c.outside, "each tab counts only its own runs"));
    // The private level shows none of them.
    let private = of(&dp(), &facts);
    assert!(!has(&private.outside, "not private"), "{private:?}");
}

#[test]
fn conventions_seeds_and_other_runs_are_said() {
    let paper = of(
        &RunConfig {
            amplification: Amplification::Paper,
            ..dp()
        },
        &builtin(),
    );
    assert!(has(
        &paper.outside,
        "paper's convention (q·ε₀): optimistic, not a bound"
    ));
    let classical = of(
        &RunConfig {
            amplification: Amplification::Classical,
            ..dp()
        },
        &builtin(),
    );
    assert!(has(
        &classical.outside,
        "classical convention: a bound only while"
    ));
    assert!(!has(&of(&dp(), &builtin()).outside, "Naive and strong"));

    let seeded = of(
        &RunConfig {
            seed: Some(7),
            ..dp()
        },
        &own(),
    );
    assert!(has(&seeded.outside, "The fixed seed you chose"));
    assert!(!has(&of(&dp(), &own()).outside, "fixed seed"));
    // Without the page's ledger (the CLI), runs are said to add up, not to be composed.
    assert!(has(
        &of(&dp(), &own()).outside,
        "their ε add up over the runs"
    ));
    // The held-out rows' count (the noisy accuracy's denominator) is named as public too.
    assert!(has(&seeded.outside, "and of your held-out rows"));
    assert!(!has(&paper.outside, "held-out rows ("));
    for c in [seeded, paper, classical] {
        assert!(has(&c.outside, "number of examples N"));
        assert!(has(&c.outside, "floating point"));
    }
}

#[test]
fn ranges_read_off_the_file_leave_no_guarantee_and_say_so() {
    let facts = DataFacts {
        releases: vec![crate::privacy::accountant::mechanism::Release {
            what: ReleaseKind::ReadOff,
            q: 1.0,
            sigma: 0.0,
        }],
        ..own()
    };
    let cfg = dp();
    let mech = cfg.mechanism(&facts);
    assert!(mech.is_open(), "a release without noise: ε = ∞");
    let c = of(&cfg, &facts);
    assert!(c.covered.is_empty(), "{c:?}");
    assert!(
        has(
            &c.outside,
            "Everything: the release of the column ranges you read off your file has no noise, so ε = ∞."
        ),
        "{:?}",
        c.outside
    );
}
