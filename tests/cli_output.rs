//! What the binary writes and where, off the usual path: a reader that closes the pipe, an
//! export of one's own rows (for the user alone), `--out -`, and refusals said before a file is
//! read (`audit --csv`) or with the flag's range (`--bounds-noise`).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{dpsgd, refused, temp_file};
use std::process::{Command, Stdio};

/// A small CSV of one's own: a number, a text column and a class.
fn own_csv(name: &str) -> std::path::PathBuf {
    let mut s = String::from("x,city,y\n");
    for i in 0..400 {
        let class = if (i * 7) % 3 == 0 { "yes" } else { "no" };
        s.push_str(&format!(
            "{},{},{class}\n",
            i % 17,
            ["Paris", "Lyon"][i % 2]
        ));
    }
    temp_file(name, s.as_bytes())
}

/// `dpsgd train | head -c 10`: the reader gone, the tool ends quietly (it panicked with
/// "failed printing to stdout: Broken pipe", status 101).
#[test]
fn a_reader_that_closes_the_pipe_ends_the_run_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dpsgd"))
        .args(["train", "--dataset", "blobs", "--epochs", "3"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // closed before the first epoch's line
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// An export of one's own file holds its rows: the folder made for it and every file in it
/// are the user's alone, whatever the umask lets others read (they came out rw-r--r--).
#[test]
fn an_export_of_ones_own_rows_is_for_the_user_alone() {
    use std::os::unix::fs::PermissionsExt;
    let file = own_csv("own-perm.csv");
    let dir = file.with_file_name("own-perm-export").join("inner");
    let (code, _, err) = dpsgd(&[
        "export-opacus",
        "--csv",
        file.to_str().unwrap(),
        "--label",
        "y",
        "--epochs",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700, "the folder");
    for name in ["train.csv", "test.csv", "train_opacus.py"] {
        assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
    }
    // A built-in data set's export is public: the umask's modes, as a file made here has.
    let public = file.with_file_name("public-export");
    let made_here = file.with_file_name("made-here");
    std::fs::write(&made_here, b"").unwrap();
    let (code, _, err) = dpsgd(&[
        "export-opacus",
        "--dataset",
        "blobs",
        "--out",
        public.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(mode(&public.join("train_opacus.py")), mode(&made_here));
}

/// `--out -` made a folder named "-" (`-` means standard output elsewhere): refused, nothing made.
#[test]
fn out_dash_is_refused_and_makes_no_folder() {
    let e = refused(&["export-opacus", "--dataset", "blobs", "--out", "-"]);
    assert!(
        e.contains("--out -: the export is a folder of files, not a stream"),
        "{e}"
    );
    assert!(!std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("-")
        .exists());
    // "fresh/.." under a folder that does not exist names no folder: refused, not "appeared".
    let fresh = temp_file("fresh-anchor", b"").with_file_name("fresh-missing");
    let dotdot = format!("{}/..", fresh.display());
    let e = refused(&["export-opacus", "--dataset", "blobs", "--out", &dotdot]);
    assert!(e.contains("ends in '..' or '.'"), "{e}");
    assert!(!fresh.exists(), "the folder before '..' is not left behind");
}

/// `audit --csv` blamed `--dataset`, after reading and privately preparing the file: now the
/// flag given, before anything is read (a file that does not exist is not even opened).
#[test]
fn the_audit_refuses_a_file_of_ones_own_by_its_flag_before_reading_it() {
    let args = ["audit", "--threat", "realistic", "--runs", "2"];
    let e = refused(&[&args[..], &["--csv", "/no/such/file.csv", "--label", "y"]].concat());
    assert!(
        e.starts_with("dpsgd: --csv: the audit runs on the built-in data sets only"),
        "{e}"
    );
}

/// `--bounds-noise` at ∞ asked for 18446744073709551615 rows, at 1e-300 trained with ε = ∞
/// and no word: a value outside its range is refused with the range.
#[test]
fn the_range_estimates_noise_is_refused_outside_its_range() {
    // Checked before the file is read: a file that does not exist is not even opened.
    for v in ["inf", "1e300", "1e-300", "0.01"] {
        let args = [
            "train",
            "--csv",
            "/no/such/file.csv",
            "--label",
            "y",
            "--epochs",
            "1",
        ];
        let e = refused(&[&args[..], &["--bounds-noise", v]].concat());
        assert!(
            e.contains("--bounds-noise = ") && e.contains("must be from 0.1 to 1000"),
            "{v}: {e}"
        );
    }
}
