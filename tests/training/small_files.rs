//! A student's small file, end to end in Rust: 200 rows of the shipped breast cancer data are
//! too few for the private range estimate of its 30 columns, which is decided before anything
//! is released; with public ranges the file loads, a lot of 256 is said to be at least its N
//! (with what q = 1 would spend), and the noisy test accuracy of its few held-out rows carries
//! its standard deviation and says it is too noisy to measure.

use crate::common;
use dpsgd_lab::config::{ReleaseLevel, RunConfig};
use dpsgd_lab::data::csv::parse_csv;
use dpsgd_lab::data::prepare::split::{private_dataset, PrivatePrep};
use dpsgd_lab::data::prepare::Range;
use dpsgd_lab::train::Trainer;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// The header and the first `rows` rows of the shipped breast cancer CSV.
fn breast_cancer(rows: usize) -> String {
    let text = std::fs::read_to_string(common::repo_path("www/data/breast_cancer.csv")).unwrap();
    text.lines()
        .take(rows + 1)
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Each numeric column's range over all 569 rows (standing in for public knowledge).
fn public_ranges() -> Vec<(String, Range)> {
    let t = parse_csv(breast_cancer(569).as_bytes(), "diagnosis").unwrap();
    (0..t.feature_names.len())
        .map(|j| {
            let col = t.x.column(j);
            let lo = col.iter().fold(f32::INFINITY, |a, &b| a.min(b)) as f64;
            let hi = col.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) as f64;
            (
                t.feature_names[j].clone(),
                Range {
                    lo,
                    hi: hi.max(lo + 1e-6),
                },
            )
        })
        .collect()
}

#[test]
fn two_hundred_rows_are_refused_unspent_then_train_with_public_ranges_and_say_how_noisy() {
    let table = parse_csv(breast_cancer(200).as_bytes(), "diagnosis").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let e = private_dataset(
        "own",
        table.clone(),
        None,
        &PrivatePrep::default(),
        &mut rng,
    )
    .unwrap_err();
    assert!(e.spent.is_empty(), "refused before any release: {e}");
    let needs = e.ranges.as_ref().unwrap();
    assert_eq!(needs.columns.len(), 30, "every column, in one refusal");
    assert!(e.to_string().contains("Nothing was released"), "{e}");

    let prep = PrivatePrep {
        stated: public_ranges(),
        ..PrivatePrep::default()
    };
    let data = Arc::new(private_dataset("own", table, None, &prep, &mut rng).unwrap());
    assert!(data.releases.is_empty(), "public ranges cost nothing");
    let facts = data.facts();
    let cfg = RunConfig {
        report: ReleaseLevel::Private,
        epochs: 3,
        ..RunConfig::default()
    };
    let at = cfg.lot_at_least_n(&facts).unwrap().expect("L = 256 ≥ N");
    assert_eq!(at.suggested_lot, RunConfig::lot_for(facts.n_train));
    assert!(at.epsilon.0 > at.suggested_epsilon.0);
    // The suggested lot: no note on q; the noisy accuracy's sd is σ / (held-out rows).
    let run = RunConfig {
        lot_size: at.suggested_lot,
        ..cfg.clone()
    };
    let mut t = Trainer::new(run, Arc::clone(&data)).unwrap();
    let last = std::iter::from_fn(|| t.run_epoch()).last().unwrap();
    let acc = last.private_test_acc.unwrap();
    let noise = last.private_test_acc_noise.clone().unwrap();
    assert!((0.0..=1.0).contains(&acc));
    assert_eq!(noise.held_out, facts.n_test);
    assert!(
        (noise.sd - 20.0 / facts.n_test as f64).abs() < 1e-12,
        "{noise:?}"
    );
    assert!(noise.too_noisy, "σ = 20 over about 40 rows: {noise:?}");
    if let Some(raw) = noise.clamped_from {
        assert!(!(0.0..=1.0).contains(&raw) && acc == raw.clamp(0.0, 1.0));
    }
    assert!(
        last.notes.iter().all(|n| !n.contains("q = 1")),
        "{:?}",
        last.notes
    );
    // L = N: the run says every step uses every row.
    let all = RunConfig {
        lot_size: facts.n_train,
        ..cfg
    };
    let mut t = Trainer::new(all, data).unwrap();
    let first = t.run_epoch().unwrap();
    assert!(
        first
            .notes
            .iter()
            .any(|n| n.contains("the lot is every training row") && n.contains("q = 1")),
        "{:?}",
        first.notes
    );
}
