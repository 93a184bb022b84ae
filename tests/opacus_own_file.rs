//! `dpsgd export-opacus` on a file of one's own (issue #52 §5): the script repeats the lab's
//! run on the file's rows exactly as the lab prepared and split them (train.csv, test.csv
//! beside it), whatever the file looks like — text columns, a byte-order mark with the class
//! column first, a class column named in another Unicode normal form, padded header names,
//! a test file of its own, column names that spell the template's placeholders. Each export
//! compiles, holds the lab's N rows with the lab's features and class indices, and, where a
//! Python with Opacus is named by `DPSGD_OPACUS_PYTHON`, trains one epoch in Opacus.

mod common;
use common::{dpsgd, temp_file};
use std::path::{Path, PathBuf};
use std::process::Command;

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dpsgd-own-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A CSV of `n` rows: a numeric column `x`, a text column `city`, and the class column.
fn csv(header: &str, n: usize, bom: bool) -> Vec<u8> {
    let mut s = String::new();
    if bom {
        s.push('\u{feff}');
    }
    s.push_str(header);
    s.push('\n');
    let cities = ["Paris", "Lyon", "São Paulo"];
    for i in 0..n {
        let class = if (i * 7) % 3 == 0 { "yes" } else { "no" };
        let (x, city) = (i % 17, cities[i % 3]);
        let row = header
            .split(',')
            .map(|h| match h.trim().trim_start_matches('\u{feff}') {
                "x" => x.to_string(),
                "city" => city.to_string(),
                _ => class.to_string(),
            })
            .collect::<Vec<_>>()
            .join(",");
        s.push_str(&row);
        s.push('\n');
    }
    s.into_bytes()
}

/// (the lines of a CSV the export wrote, without its header; its header's fields)
fn table(path: &Path) -> (Vec<Vec<f64>>, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse::<f64>().unwrap()).collect())
        .collect();
    (rows, header)
}

/// Exports the run on `file` (class column `label`); checks the script compiles and names
/// its data, and that its CSVs hold the lab's rows. Returns the folder.
fn export_own(name: &str, file: &Path, label: &str, extra: &[&str]) -> PathBuf {
    let dir = out_dir(name);
    let f = file.to_str().unwrap();
    let mut args = vec![
        "export-opacus",
        "--out",
        dir.to_str().unwrap(),
        "--csv",
        f,
        "--label",
        label,
        "--epochs",
        "1",
        "--seed",
        "5",
        "--lot-size",
        "40",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = dpsgd(&args);
    assert_eq!(code, Some(0), "{name}: {err}");
    assert!(
        out.contains("train.csv") && out.contains("test.csv"),
        "{name}: {out}"
    );
    let script = compiles(name, &dir);
    assert!(script.contains("DATA = \"csv\""), "{name}");
    assert!(
        script.contains("your private data itself"),
        "{name}: the header says so"
    );

    // The lab's own run on the same file: its N and its number of features.
    let mut train = vec![
        "train", "--csv", f, "--label", label, "--epochs", "1", "--seed", "5",
    ];
    train.extend_from_slice(&["--lot-size", "40"]);
    train.extend_from_slice(extra);
    let (code, report, err) = dpsgd(&train);
    assert_eq!(code, Some(0), "{name}: {err}");
    let report: serde_json::Value = serde_json::from_str(report.lines().next().unwrap()).unwrap();
    let n_train = script
        .lines()
        .find_map(|l| l.strip_prefix("N_TRAIN = "))
        .and_then(|v| v.split_whitespace().next())
        .unwrap()
        .parse::<usize>()
        .unwrap();
    let (rows, header) = table(&dir.join("train.csv"));
    assert_eq!(
        rows.len(),
        n_train,
        "{name}: train.csv holds the lab's N rows"
    );
    let features = header.split(',').count() - 1;
    assert!(features > 2, "{name}: the city is one-hot ({header})");
    for row in &rows {
        assert_eq!(row.len(), features + 1, "{name}");
        assert!(
            row[features] == 0.0 || row[features] == 1.0,
            "{name}: a class index"
        );
    }
    let (test, _) = table(&dir.join("test.csv"));
    assert!(!test.is_empty(), "{name}: the lab's held-out rows");
    assert!(report["steps"].as_u64().unwrap() > 0, "{name}");
    run_in_opacus(name, &dir);
    dir
}

/// Trains the exported run in Opacus, when a Python with it is named (`DPSGD_OPACUS_PYTHON`;
/// Opacus and PyTorch are gigabytes, so `make test` does not install them).
fn run_in_opacus(name: &str, dir: &Path) {
    let Ok(python) = std::env::var("DPSGD_OPACUS_PYTHON") else {
        return;
    };
    let out = Command::new(python)
        .arg(dir.join("train_opacus.py"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success()
            && stdout.contains("\"epsilon\"")
            && stdout.contains("\"delta\"")
            && stdout.contains("\"not_private\": [\"test_acc\"]"),
        "{name}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_text_column_is_one_hot_in_the_rows_the_script_reads() {
    let file = temp_file("own-text.csv", &csv("x,city,class", 300, false));
    export_own("text", &file, "class", &[]);
}

#[test]
fn a_byte_order_mark_with_the_class_column_first() {
    let file = temp_file("own-bom.csv", &csv("class,x,city", 300, true));
    export_own("bom", &file, "class", &[]);
}

#[test]
fn a_class_column_in_another_normal_form_and_padded_header_names() {
    // "classé" written decomposed (e + U+0301) in the file, asked for composed (é).
    let file = temp_file("own-nfd.csv", &csv(" x , city ,classe\u{301} ", 300, false));
    export_own("nfd", &file, "class\u{e9}", &[]);
}

#[test]
fn a_test_file_of_its_own_becomes_test_csv() {
    let file = temp_file("own-train.csv", &csv("x,city,class", 300, false));
    let test = temp_file("own-test.csv", &csv("x,city,class", 90, false));
    let dir = export_own(
        "test-csv",
        &file,
        "class",
        &["--test-csv", test.to_str().unwrap()],
    );
    let (rows, _) = table(&dir.join("test.csv"));
    assert_eq!(rows.len(), 90, "every row of the test file");
}

#[test]
fn column_names_that_spell_placeholders_stay_names() {
    let header = "@MODEL@,@SEED@,@CLIPPING@";
    let mut text = String::from(header);
    text.push('\n');
    for i in 0..300 {
        text.push_str(&format!(
            "{},{},{}\n",
            i % 13,
            i % 7,
            if i % 4 == 0 { "a" } else { "b" }
        ));
    }
    let file = temp_file("own-placeholders.csv", text.as_bytes());
    let dir = export_own_numeric(&file, "@CLIPPING@");
    let script = std::fs::read_to_string(dir.join("train_opacus.py")).unwrap();
    assert!(
        script.contains("MODEL = \"logistic\""),
        "the model is the model"
    );
    assert!(script.contains("SEED = 5"), "the seed is the seed");
    assert!(script.contains("CLASSES = [\"a\", \"b\"]"), "{script}");
    let (_, header) = table(&dir.join("train.csv"));
    assert!(
        header.contains("@MODEL@") && header.contains("@SEED@"),
        "{header}"
    );
}

fn export_own_numeric(file: &Path, label: &str) -> PathBuf {
    let dir = out_dir("placeholders");
    let (code, _, err) = dpsgd(&[
        "export-opacus",
        "--out",
        dir.to_str().unwrap(),
        "--csv",
        file.to_str().unwrap(),
        "--label",
        label,
        "--epochs",
        "1",
        "--seed",
        "5",
        "--lot-size",
        "40",
    ]);
    assert_eq!(code, Some(0), "{err}");
    compiles("placeholders", &dir);
    run_in_opacus("placeholders", &dir);
    dir
}

/// The script in `dir`, after checking that Python compiles it.
fn compiles(name: &str, dir: &Path) -> String {
    let compiled = Command::new("python3")
        .args(["-m", "py_compile"])
        .arg(dir.join("train_opacus.py"))
        .output()
        .unwrap();
    assert!(
        compiled.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    std::fs::read_to_string(dir.join("train_opacus.py")).unwrap()
}
