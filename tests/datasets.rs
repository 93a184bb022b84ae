//! The shipped and generated data sets train as the issue promises, the CSV parser never
//! panics on any bytes, and the CLI reports bad data in one line with exit status 2.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use dpsgd_lab::config::{Mode, ModelKind, RunConfig};
use dpsgd_lab::data::builtin::BUILTIN;
use dpsgd_lab::data::csv::parse_csv;
use dpsgd_lab::model::Model;
use dpsgd_lab::train::Trainer;
use rand::SeedableRng;
use std::sync::Arc;

fn load(name: &str, seed: u64) -> Arc<dpsgd_lab::data::Dataset> {
    common::builtin(name, seed)
}

fn final_test_acc(cfg: RunConfig, data: Arc<dpsgd_lab::data::Dataset>) -> f64 {
    let mut t = Trainer::new(cfg, data).unwrap();
    std::iter::from_fn(|| t.run_epoch())
        .last()
        .unwrap()
        .test_acc
        .expect("a public test set's accuracy is reported")
}

#[test]
fn every_builtin_set_loads() {
    for name in BUILTIN {
        let d = load(name, 1);
        assert!(
            d.train.len() > 100 && !d.test.is_empty() && d.n_classes() >= 2,
            "{name}"
        );
        assert!(d.train.x.iter().all(|v| v.is_finite()), "{name}");
    }
    let bc = load("breast-cancer", 1);
    assert_eq!((bc.train.len() + bc.test.len(), bc.n_features()), (569, 30));
    let mnist = load("mnist", 1);
    assert_eq!(
        (
            mnist.train.len(),
            mnist.test.len(),
            mnist.n_features(),
            mnist.n_classes()
        ),
        (8000, 2000, 784, 10)
    );
    // Prepared by scripts/setup from Debian's package (the full set, as in the paper's MNIST).
    let fashion = load("fashion-mnist", 1);
    assert_eq!(
        (
            fashion.train.len(),
            fashion.test.len(),
            fashion.n_features(),
            fashion.class_names.clone()
        ),
        (
            60000,
            10000,
            784,
            [
                "T-shirt/top",
                "Trouser",
                "Pullover",
                "Dress",
                "Coat",
                "Sandal",
                "Shirt",
                "Sneaker",
                "Bag",
                "Ankle boot"
            ]
            .map(String::from)
            .to_vec()
        )
    );
    // Balanced: 6,000 training images of each class.
    assert!((0..10).all(|k| fashion.train.y.iter().filter(|&&c| c == k).count() == 6000));
    // Without its files the CLI says where they come from.
    let empty = std::env::temp_dir().join(format!("dpsgd-no-data-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let err = common::refused(&[
        "train",
        "--dataset",
        "fashion-mnist",
        "--data-dir",
        empty.to_str().unwrap(),
    ]);
    assert!(
        err.contains("fashion-mnist-train-images.idx3-ubyte.gz is missing")
            && err.contains("scripts/setup")
            && err.contains("dataset-fashion-mnist package"),
        "{err}"
    );
}

#[test]
fn breast_cancer_reaches_95_percent_non_private() {
    let cfg = RunConfig {
        mode: Mode::NonPrivate,
        lot_size: 32,
        lr: 0.5,
        epochs: 10,
        seed: Some(1),
        ..RunConfig::default()
    };
    let acc = final_test_acc(cfg, load("breast-cancer", 1));
    assert!(acc >= 0.95, "breast cancer test accuracy {acc}");
}

#[test]
fn xor_needs_the_hidden_layer() {
    let base = RunConfig {
        mode: Mode::NonPrivate,
        lot_size: 32,
        lr: 0.5,
        epochs: 30,
        seed: Some(1),
        ..RunConfig::default()
    };
    let linear = final_test_acc(base.clone(), load("xor", 1));
    let mlp = final_test_acc(
        RunConfig {
            model: ModelKind::Mlp,
            hidden: vec![32],
            ..base
        },
        load("xor", 1),
    );
    assert!(linear < 0.75 && mlp > 0.9, "logistic {linear}, MLP {mlp}");
}

#[test]
fn cli_reports_bad_csv_in_one_line_with_status_2() {
    let dir = std::env::temp_dir().join(format!("dpsgd-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.csv");
    std::fs::write(&path, "a,b,y\n1,2,0\n1,2\n").unwrap();
    let err = common::refused(&["train", "--csv", path.to_str().unwrap(), "--label", "y"]);
    assert!(err.contains("row 3") && err.contains("2 fields"), "{err}");
    // A value beyond f32's range would become ∞ and NaN downstream: refused where it is.
    let big = dir.join("big.csv");
    std::fs::write(&big, "a,b,y\n1,2,0\n1e39,2,1\n").unwrap();
    let err = common::refused(&["train", "--csv", big.to_str().unwrap(), "--label", "y"]);
    assert!(
        err.contains("row 3, column 'a'") && err.contains("beyond the range"),
        "{err}"
    );
    let err = common::refused(&[
        "epsilon", "--q", "1.5", "--sigma", "1", "--epochs", "1", "--delta", "1e-5",
    ]);
    assert!(err.contains("--q = 1.5 must be in [0, 1]"), "{err}");
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Corpus-free fuzz smoke test: any bytes give a table or an error, never a panic.
        #[test]
        fn csv_parser_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse_csv(&bytes, "y");
        }

        /// Any bytes as an IDX images or labels file: a split or an error, never a panic.
        #[test]
        fn idx_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200), labels in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = dpsgd_lab::data::idx::decode_idx(&bytes, "f");
            let _ = dpsgd_lab::data::idx::images_and_labels(&bytes, &labels);
        }

        /// IDX-shaped input: a valid header with arbitrary dimensions and data.
        #[test]
        fn idx_parser_checks_lengths(dims in proptest::collection::vec(0u32..6, 1..4), data in proptest::collection::vec(any::<u8>(), 0..100)) {
            let mut f = vec![0u8, 0, 8, dims.len() as u8];
            for d in &dims {
                f.extend_from_slice(&d.to_be_bytes());
            }
            f.extend_from_slice(&data);
            let want: usize = dims.iter().map(|&d| d as usize).product();
            prop_assert_eq!(dpsgd_lab::data::idx::decode_idx(&f, "f").is_ok(), want == data.len());
        }

        /// CSV-shaped text: the error, when there is one, says something.
        #[test]
        fn csv_parser_never_panics_on_csv_like_text(text in "[a-c0-9y,.\\-\\n\\\" ]{0,200}") {
            match parse_csv(text.as_bytes(), "y") {
                Ok(t) => prop_assert!(t.class_names.len() >= 2 && t.x.nrows() == t.y.len()),
                Err(e) => prop_assert!(!e.message.is_empty()),
            }
        }
    }
}

#[test]
fn mnist_mlp_learns_the_digits() {
    // Raw pixels (no PCA yet): 784 → 128 → 10, non-private, 5 epochs.
    let cfg = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![128],
        mode: Mode::NonPrivate,
        lot_size: 64,
        lr: 0.5,
        epochs: 5,
        seed: Some(1),
        ..RunConfig::default()
    };
    let acc = final_test_acc(cfg, load("mnist", 1));
    assert!(acc > 0.92, "MNIST test accuracy {acc}");
}

#[test]
fn mnist_with_pca_60_reaches_95_percent_non_private() {
    // The paper's model, PCA-60 → 1,000 ReLU → 10, on the 8,000 shipped training digits.
    let cfg = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![1000],
        pca: Some(60),
        mode: Mode::NonPrivate,
        lot_size: 32,
        lr: 0.5,
        epochs: 10,
        seed: Some(1),
        ..RunConfig::default()
    };
    let acc = final_test_acc(cfg, load("mnist", 1));
    assert!(acc >= 0.95, "MNIST PCA-60 test accuracy {acc}");
}

#[test]
fn dp_pca_cost_is_in_every_accountant_from_the_start() {
    let base = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![16],
        sigma: 4.0,
        lot_size: 600,
        epochs: 1,
        seed: Some(2),
        ..RunConfig::default()
    };
    let with = Trainer::new(
        RunConfig {
            pca: Some(20),
            ..base.clone()
        },
        load("mnist", 1),
    )
    .unwrap();
    let without = Trainer::new(base, load("mnist", 1)).unwrap();
    let (start, plain) = (with.epsilon_after(0), without.epsilon_after(0));
    for (name, a, b) in [
        ("naive", start.naive, plain.naive),
        ("strong", start.strong, plain.strong),
        ("moments", start.moments, plain.moments),
        ("rdp", start.rdp, plain.rdp),
    ] {
        assert!(a > 0.0 && b == 0.0, "{name}: with PCA {a}, without {b}");
    }
    assert!(with.epsilon_after(100).rdp > without.epsilon_after(100).rdp);
    assert_eq!(
        with.model().sizes()[0],
        20,
        "the network sees the 20 projected features"
    );
    let too_many = Trainer::new(
        RunConfig {
            pca: Some(1000),
            ..RunConfig::default()
        },
        load("adult", 1),
    );
    assert_eq!(too_many.err().unwrap().field, "pca");
}

/// The accuracy chart's baseline is the majority class's share of a public test set — for
/// Adult about 76% answer "<=50K", the accuracy of a model that learned nothing — counted
/// here from the class names, and private data reveals none (its test rows are private).
#[test]
fn the_majority_baseline_is_public_only() {
    let adult = load("adult", 1);
    let poor = adult
        .class_names
        .iter()
        .position(|c| c.contains("<=50K"))
        .expect("a <=50K class");
    let share =
        adult.test.y.iter().filter(|&&c| c == poor).count() as f64 / adult.test.len() as f64;
    let facts = adult.facts();
    assert_eq!(facts.majority_share, Some(share));
    assert!((0.74..0.78).contains(&share), "{share}");

    let text: String = std::iter::once("a,b,y\n".to_string())
        .chain((0..200).map(|i| format!("{},{},{}\n", i % 7, i % 3, i % 4 == 0)))
        .collect();
    let table = parse_csv(text.as_bytes(), "y").unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let own = dpsgd_lab::data::prepare::split::private_dataset(
        "own",
        table,
        None,
        &Default::default(),
        &mut rng,
    )
    .unwrap();
    assert_eq!(own.facts().majority_share, None);
    assert!(own.test.majority_share().is_some(), "the test rows exist");
}

/// Without clipping, too large a step makes the MLP's weights overflow within a few epochs;
/// its loss and accuracy then freeze at constants that look like a run that stopped learning.
/// The run stops at the epoch it happens and says why, on the report and from the CLI.
#[test]
fn a_diverging_run_stops_and_says_so() {
    let cfg = |lr| RunConfig {
        mode: Mode::NonPrivate,
        model: ModelKind::Mlp,
        lr,
        epochs: 30,
        seed: Some(1),
        ..RunConfig::default()
    };
    let data = load("breast-cancer", 1);
    let mut t = Trainer::new(cfg(100.0), data.clone()).unwrap();
    let reports: Vec<_> = std::iter::from_fn(|| t.run_epoch()).collect();
    let last = reports.last().unwrap();
    let why = last
        .divergence
        .as_deref()
        .expect("the last report says why");
    assert!(
        why.contains(&format!("diverged in epoch {}", last.epoch)) && why.contains("η = 100"),
        "{why}"
    );
    assert!(reports.len() < 30 && t.is_finished());
    assert!(reports[..reports.len() - 1]
        .iter()
        .all(|r| r.divergence.is_none()));
    assert!(t.model().params().iter().any(|v| !v.is_finite()));
    // A step that fits trains all its epochs with finite weights and no such message.
    let mut fine = Trainer::new(cfg(0.5), data).unwrap();
    let reports: Vec<_> = std::iter::from_fn(|| fine.run_epoch()).collect();
    assert!(reports.len() == 30 && reports.iter().all(|r| r.divergence.is_none()));

    let (code, out, err) = common::dpsgd(&[
        "train",
        "--dataset",
        "breast-cancer",
        "--model",
        "mlp",
        "--mode",
        "non-private",
        "--lr",
        "100",
        "--epochs",
        "30",
        "--seed",
        "1",
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out.lines().count(), last.epoch, "one report per epoch run");
    assert!(out
        .lines()
        .last()
        .unwrap()
        .contains("\"divergence\":\"the model diverged"));
    assert!(
        err.starts_with("dpsgd: the model diverged") && err.lines().count() == 1,
        "{err}"
    );
}

/// The audit's copies of a data set with canaries added: the rows appended in order after the
/// training set's, the test split shared (one copy in memory however many runs build theirs).
#[test]
fn canaries_join_the_training_rows_and_the_test_split_is_shared() {
    let data = load("adult", 1);
    let canaries = data.train.x.slice(ndarray::s![..2, ..]).to_owned();
    let with = data.with_training_rows(&canaries, &[1, 0]);
    let n = data.train.len();
    assert_eq!(with.train.len(), n + 2);
    assert_eq!(with.train.x.slice(ndarray::s![..n, ..]), data.train.x);
    assert_eq!(with.train.x.slice(ndarray::s![n.., ..]), canaries);
    assert_eq!(&with.train.y[n..], &[1, 0]);
    assert!(Arc::ptr_eq(&with.test, &data.test));
}

/// A refused data set names the kind of fault and, where one column is at fault, that column
/// (#54 §3), beside the sentence the page and the CLI show.
#[test]
fn a_refusal_names_its_kind_and_its_column() {
    use dpsgd_lab::data::builtin::load_builtin;
    use dpsgd_lab::data::csv::header_names;
    use dpsgd_lab::data::prepare::stated::parse_stated;
    use dpsgd_lab::data::synthetic::two_d;
    use dpsgd_lab::data::{decode_packed, DataError, DataErrorKind as K};
    let csv = |text: &str, label: &str| parse_csv(text.as_bytes(), label).unwrap_err();
    let cases: Vec<(DataError, K, Option<&str>)> = vec![
        (
            decode_packed(b"not a data set").unwrap_err(),
            K::Format,
            None,
        ),
        (csv("a,y\n1,p\nx,q\n", "y"), K::Format, Some("a")),
        (csv("a,a,y\n1,2,p\n", "y"), K::Format, Some("a")),
        (
            header_names(b"a,b,y", false).unwrap_err(),
            K::TooLarge,
            None,
        ),
        (csv("a,y\n1,p\n2,p\n", "y"), K::Rows, Some("y")),
        (csv("a,y\n", "y"), K::Rows, None),
        (
            csv("a,y\n1,p\n2,q\n", "label"),
            K::UnknownName,
            Some("label"),
        ),
        (parse_stated("x=3:1").unwrap_err(), K::Range, Some("x")),
        (
            parse_stated("x=1:2, x=2:3").unwrap_err(),
            K::Range,
            Some("x"),
        ),
        (parse_stated("x=1-2").unwrap_err(), K::Range, None),
        (
            two_d("square", 10, 0.1, 1).unwrap_err(),
            K::UnknownName,
            None,
        ),
        (two_d("blobs", 10, 2.0, 1).unwrap_err(), K::OutOfRange, None),
        (
            load_builtin("nope", &[], 1, 0.1).unwrap_err(),
            K::UnknownName,
            None,
        ),
    ];
    for (e, kind, column) in cases {
        assert_eq!((e.kind, e.column.as_deref()), (kind, column), "{e}");
        assert_eq!(e.to_string(), e.message, "the sentence is what it prints");
    }
}
