use super::*;
use crate::config::{Mode, ReleaseLevel};
use crate::data::csv::parse_csv;
use crate::data::prepare::split::{private_dataset, PrivatePrep};
use crate::privacy::accountant::Amplification;
use crate::privacy::accountant::{AccountErrorKind, AccountantName};
use crate::train::Trainer;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

const ACCOUNTANTS: [Accountant; 4] = [
    Accountant::of(AccountantName::Naive, Amplification::Rigorous),
    Accountant::of(AccountantName::Strong, Amplification::Rigorous),
    Accountant::named(AccountantName::Moments),
    Accountant::named(AccountantName::Rdp),
];

/// A student's file as the worker prepares it: 1,000 training rows, a range estimate.
fn own_facts() -> DataFacts {
    DataFacts::own_for_tests()
}

fn cfg(sigma: f64) -> RunConfig {
    RunConfig {
        sigma,
        lot_size: 100,
        epochs: 4,
        dataset: "own".into(),
        report: ReleaseLevel::Private,
        pca: Some(2),
        ..RunConfig::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

#[test]
fn one_run_on_one_preparation_is_that_runs_own_epsilon() {
    let facts = own_facts();
    for steps in [0, 1, 10, 11, 40] {
        let mut l = Ledger::new();
        l.prepared(&facts.releases);
        l.ran(&cfg(1.1), &facts, steps).unwrap();
        let own = cfg(1.1).mechanism(&facts).after_steps(steps);
        for acc in ACCOUNTANTS {
            let (got, want) = (
                l.epsilon(acc).unwrap(),
                compose::epsilon(acc, &own, 1e-5).unwrap(),
            );
            assert!(close(got, want), "{acc:?} after {steps}: {got} vs {want}");
        }
    }
}

#[test]
fn runs_add_up_and_a_preparation_counts_once() {
    let facts = own_facts();
    let alone = |sigma: f64| {
        let mut l = Ledger::new();
        l.prepared(&facts.releases);
        l.ran(&cfg(sigma), &facts, 40).unwrap();
        l
    };
    let mut both = alone(1.1);
    both.ran(&cfg(2.0), &facts, 25).unwrap();
    let mut again = both.clone();
    again.prepared(&facts.releases); // a restarted worker prepared the file anew
    assert_eq!((both.runs(), both.steps(), both.preparations()), (2, 65, 1));
    for acc in ACCOUNTANTS {
        let e = |l: &Ledger| l.epsilon(acc).unwrap();
        assert!(e(&both) > e(&alone(1.1)), "{acc:?}");
        assert!(e(&both) > e(&alone(2.0)), "{acc:?}");
        assert!(
            e(&again) > e(&both),
            "{acc:?}: a second preparation is a second release"
        );
    }
    // The same settings twice, without preparation or evaluations: one run of the steps of both.
    let public = DataFacts {
        private: false,
        releases: vec![],
        ..own_facts()
    };
    let plain = RunConfig {
        pca: None,
        ..cfg(1.1)
    };
    let mut twice = Ledger::new();
    twice.ran(&plain, &public, 30).unwrap();
    twice.ran(&plain, &public, 10).unwrap();
    let step = plain.mechanism(&public).step;
    for acc in ACCOUNTANTS {
        let one = acc.epsilon(&step.times(40), 1e-5).unwrap();
        assert!(close(twice.epsilon(acc).unwrap(), one), "{acc:?}");
    }
}

#[test]
fn a_run_without_noise_that_showed_a_step_leaves_epsilon_infinite() {
    let facts = own_facts();
    let open = RunConfig {
        mode: Mode::ClipOnly,
        pca: None,
        ..cfg(1.1)
    };
    let mut l = Ledger::new();
    l.prepared(&facts.releases);
    l.ran(&cfg(1.1), &facts, 40).unwrap();
    l.ran(&open, &facts, 0).unwrap();
    assert!(
        l.epsilon(Accountant::named(AccountantName::Moments))
            .unwrap()
            .is_finite(),
        "nothing shown yet"
    );
    l.ran(&open, &facts, 1).unwrap();
    for acc in ACCOUNTANTS {
        assert_eq!(l.epsilon(acc).unwrap(), f64::INFINITY, "{acc:?}");
    }
    // With DP-PCA, a run without noise projects the data in the clear before its first step.
    let mut l = Ledger::new();
    l.ran(
        &RunConfig {
            pca: Some(2),
            ..open
        },
        &facts,
        0,
    )
    .unwrap();
    assert_eq!(
        l.epsilon(Accountant::named(AccountantName::Rdp)).unwrap(),
        f64::INFINITY
    );
    let cause = l.why_unbounded(f64::INFINITY).unwrap();
    assert!(cause.starts_with("A run without privacy"), "{cause}");
    assert_eq!(l.why_unbounded(1.0), None);
}

#[test]
fn ranges_read_off_the_file_are_the_cause_of_infinity_not_a_run() {
    // "Read off this file": the ranges released without noise, then a private run.
    let read_off = [Release {
        what: ReleaseKind::ReadOff,
        q: 1.0,
        sigma: 0.0,
    }];
    let mut l = Ledger::new();
    l.prepared(&read_off);
    l.ran(&cfg(1.1), &own_facts(), 40).unwrap();
    let eps = l
        .epsilon(Accountant::named(AccountantName::Moments))
        .unwrap();
    assert_eq!(eps, f64::INFINITY);
    let cause = l.why_unbounded(eps).unwrap();
    assert!(cause.contains("read off the file without noise"), "{cause}");
    assert!(!cause.contains("A run without privacy"), "{cause}");
}

#[test]
fn delta_is_the_smallest_of_the_runs_and_impossible_steps_are_refused() {
    let facts = own_facts();
    let mut l = Ledger::new();
    assert!(
        l.epsilon(Accountant::named(AccountantName::Rdp)).is_err(),
        "no run yet"
    );
    l.ran(&cfg(1.1), &facts, 5).unwrap();
    l.ran(
        &RunConfig {
            delta: 1e-7,
            ..cfg(1.1)
        },
        &facts,
        5,
    )
    .unwrap();
    l.ran(
        &RunConfig {
            delta: 1e-6,
            ..cfg(1.1)
        },
        &facts,
        5,
    )
    .unwrap();
    assert_eq!(l.delta(), Some(1e-7));
    let err = l.ran(&cfg(1.1), &facts, 41).unwrap_err();
    assert!(err.message.contains("40 steps"), "{err}");
    assert_eq!(err.kind, AccountErrorKind::NotSeen);
    assert_eq!(l.runs(), 3, "a refused run is not counted");
}

/// The ledger counts what the trainer's own reports count, on a file prepared as the worker
/// prepares it (a noisy range estimate) and trained with noisy evaluations.
#[test]
fn a_trained_runs_reported_epsilon_is_its_ledger() {
    let text: String = std::iter::once("age,colour,y\n".to_string())
        .chain((0..600).map(|i| format!("{},{},{}\n", 17 + i % 80, ["r", "g"][i % 2], i % 2)))
        .collect();
    let table = parse_csv(text.as_bytes(), "y").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let data = private_dataset("own", table, None, &PrivatePrep::default(), &mut rng).unwrap();
    assert_eq!(data.releases.len(), 1, "the ranges were estimated");
    let run = RunConfig {
        lot_size: 60,
        epochs: 2,
        seed: Some(1),
        pca: None,
        ..cfg(1.3)
    };
    let mut t = Trainer::new(run.clone(), Arc::new(data)).unwrap();
    let mut last = None;
    while let Some(r) = t.run_epoch() {
        last = Some(r);
    }
    let last = last.unwrap();
    let mut l = Ledger::new();
    l.prepared(&t.facts().releases);
    l.ran(&run, t.facts(), last.steps).unwrap();
    assert!(close(
        l.epsilon(Accountant::named(AccountantName::Moments))
            .unwrap(),
        last.epsilon.moments
    ));
    assert!(close(
        l.epsilon(Accountant::named(AccountantName::Rdp)).unwrap(),
        last.epsilon.rdp
    ));
}

/// What the composed ε leaves out is said by the ledger, each kind once, from the runs'
/// settings: nothing for private Poisson runs with a random seed.
#[test]
fn a_seeded_teaching_or_shuffled_run_is_a_caveat_of_the_whole() {
    let facts = own_facts();
    let mut l = Ledger::new();
    l.prepared(&facts.releases);
    l.ran(&cfg(1.1), &facts, 5).unwrap();
    assert!(l.caveats().is_empty(), "{:?}", l.caveats());
    let cases = [
        (
            RunConfig {
                seed: Some(7),
                ..cfg(1.1)
            },
            "fixed seed",
        ),
        (
            RunConfig {
                report: ReleaseLevel::Teaching,
                ..cfg(1.1)
            },
            "teaching level",
        ),
        (
            RunConfig {
                sampling: crate::config::Sampling::Shuffle,
                ..cfg(1.1)
            },
            "shuffled lots",
        ),
    ];
    for (i, (run, said)) in cases.iter().enumerate() {
        l.ran(run, &facts, 5).unwrap();
        l.ran(run, &facts, 5).unwrap();
        let caveats = l.caveats();
        assert_eq!(caveats.len(), i + 1, "{caveats:?}");
        assert!(caveats[i].contains(said), "{caveats:?}");
    }
    // A refused run leaves none.
    let mut l = Ledger::new();
    let seeded = RunConfig {
        seed: Some(7),
        ..cfg(1.1)
    };
    assert!(l.ran(&seeded, &facts, 41).is_err());
    assert!(l.caveats().is_empty());
}
