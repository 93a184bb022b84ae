//! The shipped and generated data sets train as the issue promises, the CSV parser never
//! panics on any bytes, and the CLI reports bad data in one line with exit status 2.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use dpsgd_lab::config::{Mode, ModelKind, RunConfig};
use dpsgd_lab::data::builtin::{builtin_files, load_builtin, BUILTIN};
use dpsgd_lab::data::csv::parse_csv;
use dpsgd_lab::train::Trainer;
use std::sync::Arc;

fn load(name: &str, seed: u64) -> Arc<dpsgd_lab::data::Dataset> {
    let files: Vec<Vec<u8>> = builtin_files(name)
        .iter()
        .map(|f| std::fs::read(common::repo_path(&format!("www/data/{f}"))).unwrap())
        .collect();
    let files: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    Arc::new(load_builtin(name, &files, seed, 0.1).unwrap())
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
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dpsgd"))
        .args(["train", "--csv", path.to_str().unwrap(), "--label", "y"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("row 3") && err.contains("2 fields"), "{err}");
    // A value beyond f32's range would become ∞ and NaN downstream: refused where it is.
    let big = dir.join("big.csv");
    std::fs::write(&big, "a,b,y\n1,2,0\n1e39,2,1\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dpsgd"))
        .args(["train", "--csv", big.to_str().unwrap(), "--label", "y"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("row 3, column 'a'")
            && err.contains("beyond the range")
            && err.lines().count() == 1,
        "{err}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dpsgd"))
        .args([
            "epsilon", "--q", "1.5", "--sigma", "1", "--epochs", "1", "--delta", "1e-5",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("--q = 1.5 must be in [0, 1]"));
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
                Err(e) => prop_assert!(!e.0.is_empty()),
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
