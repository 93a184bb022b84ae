//! `dpsgd export-opacus` (issue #41 §4): the script it writes compiles (`python3 -m
//! py_compile`; Opacus itself is not installed here), its settings read back by Python are the
//! run's own, its data sits beside it, and a run Opacus cannot express is refused in one line.

mod common;
use common::dpsgd;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The settings the script assigns, as Python evaluates them (by `ast`, without importing
/// torch or Opacus), as JSON.
const READ_SETTINGS: &str = r#"
import ast, json, sys
tree = ast.parse(open(sys.argv[1], encoding="utf-8").read())
out = {}
for node in tree.body:
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
        try:
            out[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError:
            pass
print(json.dumps(out))
"#;

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dpsgd-opacus-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Exports the run `args` describe into a fresh directory; returns it and the script's settings.
fn export(name: &str, args: &[&str]) -> (PathBuf, serde_json::Value) {
    let dir = out_dir(name);
    let mut all = vec!["export-opacus", "--out", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let (code, out, err) = dpsgd(&all);
    assert_eq!(code, Some(0), "{name}: {err}");
    assert!(out.contains("train_opacus.py"), "{out}");
    let script = dir.join("train_opacus.py");
    let compiled = Command::new("python3")
        .args(["-m", "py_compile"])
        .arg(&script)
        .output()
        .expect("python3 runs");
    assert!(
        compiled.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let read = Command::new("python3")
        .args(["-c", READ_SETTINGS])
        .arg(&script)
        .output()
        .unwrap();
    let settings = serde_json::from_slice(&read.stdout).expect("settings as JSON");
    (dir, settings)
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

#[test]
fn adult_by_default_with_its_prepared_features() {
    let (dir, s) = export(
        "adult",
        &["--seed", "4", "--sigma", "1.3", "--lot-size", "300"],
    );
    let (_, report, _) = dpsgd(&[
        "train",
        "--seed",
        "4",
        "--sigma",
        "1.3",
        "--lot-size",
        "300",
        "--epochs",
        "1",
    ]);
    let report: serde_json::Value = serde_json::from_str(report.lines().next().unwrap()).unwrap();
    let n = lines(&dir.join("train.csv")) - 1;
    assert_eq!(s["N_TRAIN"], n);
    assert_eq!(s["SIGMA"], 1.3);
    assert_eq!(s["NOISE_MULTIPLIER"], report["accounted_sigma"]);
    assert_eq!(s["LOT_SIZE"], 300);
    assert_eq!(s["SAMPLE_RATE"].as_f64().unwrap(), 300.0 / n as f64);
    assert_eq!(s["STEPS_PER_EPOCH"], report["steps"]);
    assert_eq!(s["SEED"], 4);
    assert_eq!(s["ACCOUNTANT"], "rdp");
    assert_eq!(s["DATA"], "csv");
    assert!(lines(&dir.join("test.csv")) > 1000);
}

#[test]
fn breast_cancer_mlp_per_layer_with_prv() {
    let (dir, s) = export(
        "breast",
        &[
            "--dataset",
            "breast-cancer",
            "--model",
            "mlp",
            "--hidden",
            "32,16",
            "--clipping",
            "per-layer",
            "--clip",
            "3",
            "--lr",
            "0.5",
            "--lr-end",
            "0.1",
            "--lr-decay-epochs",
            "4",
            "--epochs",
            "9",
            "--delta",
            "1e-6",
            "--accountant",
            "prv",
        ],
    );
    assert_eq!(s["HIDDEN"], serde_json::json!([32, 16]));
    assert_eq!(s["CLIPPING"], "per_layer");
    let each = 3.0 / 3f64.sqrt();
    assert_eq!(s["LAYER_CLIPS"], serde_json::json!([each, each, each]));
    assert!((s["NOISE_MULTIPLIER"].as_f64().unwrap() - 1.0 / 3f64.sqrt()).abs() < 1e-12);
    assert_eq!(
        (s["LR"].as_f64(), s["LR_END"].as_f64()),
        (Some(0.5), Some(0.1))
    );
    assert_eq!(
        (s["LR_DECAY_EPOCHS"].as_u64(), s["EPOCHS"].as_u64()),
        (Some(4), Some(9))
    );
    assert_eq!(s["DELTA"], 1e-6);
    assert_eq!(s["ACCOUNTANT"], "prv");
    assert_eq!(s["SEED"], serde_json::Value::Null);
    assert_eq!(
        lines(&dir.join("train.csv")) - 1,
        s["N_TRAIN"].as_u64().unwrap() as usize
    );
}

#[test]
fn mnist_with_dp_pca_reads_its_idx_files_and_the_basis() {
    let (dir, s) = export(
        "mnist",
        &["--dataset", "mnist", "--pca", "20", "--seed", "1"],
    );
    assert_eq!(s["DATA"], "idx");
    assert_eq!(s["PCA_BASIS"], "pca_basis.csv");
    assert_eq!(lines(&dir.join("pca_basis.csv")), 784);
    let script = std::fs::read_to_string(dir.join("train_opacus.py")).unwrap();
    assert!(script.contains("DP-PCA") && script.contains("epsilon = "));
    // Each named ε is its release's alone at δ: added up they hold at the sum of the δs.
    assert!(script.contains("at the sum of their deltas (basic composition)"));
}

#[test]
fn a_run_opacus_cannot_express_is_refused_in_one_line() {
    for args in [
        &["--clip-quantile", "0.9"][..],
        &["--mode", "non-private"],
        &["--sampling", "shuffle"],
        &[
            "--model",
            "mlp",
            "--clipping",
            "per-layer",
            "--layer-clips",
            "1,2",
        ],
    ] {
        let dir = out_dir("refused");
        let mut all = vec!["export-opacus", "--out", dir.to_str().unwrap()];
        all.extend_from_slice(args);
        let (code, _, err) = dpsgd(&all);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.starts_with("dpsgd: export-opacus: "), "{err}");
        assert!(!dir.exists(), "nothing written for {args:?}");
    }
    let (code, _, err) = dpsgd(&["export-opacus"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--out"), "{err}");
}

/// `--out` writes only new files: a folder holding a file of the export's names is refused
/// with every byte of it kept, a link is never written through, and an empty path is no folder.
#[test]
fn out_never_overwrites_follows_a_link_or_takes_an_empty_path() {
    let args = |dir: &Path| -> Vec<String> {
        [
            "export-opacus",
            "--dataset",
            "blobs",
            "--out",
            dir.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let run = |dir: &Path| {
        let a = args(dir);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        dpsgd(&a)
    };
    // A folder that holds train.csv (and a file of its own): refused, both byte-equal.
    let dir = out_dir("taken");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("train.csv"), b"mine, not the lab's\n").unwrap();
    std::fs::write(dir.join("notes.txt"), b"keep me").unwrap();
    let (code, _, err) = run(&dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("already holds train.csv"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(
        std::fs::read(dir.join("train.csv")).unwrap(),
        b"mine, not the lab's\n"
    );
    assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), b"keep me");
    assert!(!dir.join("train_opacus.py").exists(), "nothing written");

    // A link named like a file of the export, pointing at another file: not written through.
    let dir = out_dir("link");
    std::fs::create_dir_all(&dir).unwrap();
    let target = out_dir("link-target");
    std::fs::write(&target, b"elsewhere").unwrap();
    std::os::unix::fs::symlink(&target, dir.join("train_opacus.py")).unwrap();
    let (code, _, err) = run(&dir);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(std::fs::read(&target).unwrap(), b"elsewhere");
    // A dangling link too (the file it names would be created through it).
    let dangling = out_dir("dangling-target");
    std::fs::remove_file(dir.join("train_opacus.py")).unwrap();
    std::os::unix::fs::symlink(&dangling, dir.join("test.csv")).unwrap();
    let (code, _, err) = run(&dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(!dangling.exists(), "no file made through a dangling link");

    // --out itself a link to a folder: refused, the folder untouched.
    let real = out_dir("real");
    std::fs::create_dir_all(&real).unwrap();
    let link = out_dir("to-real");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let (code, _, err) = run(&link);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);
    // The same link named with a trailing slash (which the system resolves through the link).
    let (code, _, err) = run(&PathBuf::from(format!("{}/", link.display())));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_dir(&real).unwrap().count(), 0);

    // Standardising one's own file fits it without noise: no export claims an ε for it.
    let csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/data/breast_cancer.csv");
    let out = out_dir("standard");
    let (code, _, err) = dpsgd(&[
        "export-opacus",
        "--csv",
        csv.to_str().unwrap(),
        "--label",
        "diagnosis",
        "--scale",
        "standard",
        "--report",
        "teaching",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no ε covers the exported run"), "{err}");
    assert!(!out.exists(), "nothing written");

    // An empty path (or blanks) is no folder: nothing lands in the current one.
    for empty in ["", "  "] {
        let (code, _, err) = dpsgd(&["export-opacus", "--dataset", "blobs", "--out", empty]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("empty path"), "{err}");
    }
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("train_opacus.py")
        .exists());

    // A new folder, and an existing empty one: written.
    for dir in [out_dir("new").join("deeper"), real] {
        let (code, _, err) = run(&dir);
        assert_eq!(code, Some(0), "{err}");
        assert!(dir.join("train_opacus.py").is_file());
    }
    let _ = std::fs::remove_file(&link);
}
