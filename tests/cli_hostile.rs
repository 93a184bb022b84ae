//! Issue #13 "Hostile input" through the binary: every bad argument or file gives one line on
//! stderr and exit status 2, quickly and after reading a bounded number of bytes.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{dpsgd, dpsgd_os, refused, temp_file};
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

/// `--csv /dev/zero` read until memory ran out; now a device is read through a bound of
/// 100 MB + 1 bytes, and a regular file's size is checked before reading (a sparse 101 MB
/// file: nothing of it is read).
#[test]
fn files_are_read_with_a_bound() {
    let e = refused(&["train", "--csv", "/dev/zero", "--label", "y"]);
    assert!(
        e.contains("--csv: /dev/zero is larger than 100 MB; the lab reads at most 100 MB"),
        "{e}"
    );
    let good = temp_file("good.csv", b"a,y\n1,0\n2,1\n");
    let good = good.to_str().unwrap();
    let e = refused(&[
        "train",
        "--csv",
        good,
        "--test-csv",
        "/dev/zero",
        "--label",
        "y",
    ]);
    assert!(
        e.contains("--test-csv: /dev/zero is larger than 100 MB"),
        "{e}"
    );
    let big = temp_file("big.csv", b"");
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(101 << 20)
        .unwrap();
    let e = refused(&["train", "--csv", big.to_str().unwrap(), "--label", "y"]);
    assert!(e.contains("is larger than 100 MB (101.0 MB)"), "{e}");
    let e = refused(&["train", "--dataset", "mnist", "--data-dir", "/dev/zero"]);
    assert!(e.contains("--data-dir: cannot read"), "{e}");
}

/// `epsilon --q 1e-300 --epochs 1` said "steps = 18446744073709551615 must be at most
/// 10000000": epochs / q overflowed. Now the flags are named, as for every other value.
#[test]
fn accounting_flags_are_named_whatever_their_size() {
    let e = refused(&[
        "epsilon", "--q", "1e-300", "--sigma", "1", "--epochs", "1", "--delta", "1e-5",
    ]);
    assert!(
        e.contains("--epochs = 1 at --q = 1e-300 means more than 10000000 steps")
            && e.contains("(steps = epochs / q)")
            && !e.contains("18446744073709551615"),
        "{e}"
    );
    // (arguments, what the one line must say)
    let cases: [(&str, &str); 5] = [
        (
            "sigma --q 0.5 --epochs 1e300 --delta 1e-5 --target-epsilon 1",
            "--epochs = 1e300 at --q = 0.5 means more than",
        ),
        (
            "epsilon --q 0.01 --sigma 1 --steps 20000000 --delta 1e-5",
            "--steps = 20000000 must be at most 10000000",
        ),
        (
            "epsilon --q 0.01 --sigma -1 --steps 10 --delta 1e-5",
            "--sigma = -1 must be a finite number ≥ 0",
        ),
        (
            "epsilon --q 0.01 --sigma 1 --steps 10 --delta 1e-400",
            "--delta = 1e-400 must be strictly between 0 and 1",
        ),
        (
            "sigma --q 0.01 --steps 10 --delta 1e-5 --target-epsilon 1e999",
            "--target-epsilon = 1e999 must be a positive number",
        ),
    ];
    for (args, says) in cases {
        let e = refused(&args.split(' ').collect::<Vec<_>>());
        assert!(e.contains(says), "{args}: {e}");
    }
}

/// `sigma` searches the σ a run accepts, 0.1 to 100: a target out of that reach is said at
/// once instead of a σ of 10^5 (or, for PLD, half a minute of searching), and a huge target
/// is met at σ = 0.1, said so (the PLD search down to σ = 0.03 took over a minute).
#[test]
fn sigma_beyond_what_a_run_accepts_is_refused_with_the_flag() {
    for acc in ["pld", "rdp", "moments", "naive"] {
        let e = refused(&[
            "sigma",
            "--accountant",
            acc,
            "--target-epsilon",
            "1e-300",
            "--q",
            "0.01",
            "--epochs",
            "10",
            "--delta",
            "1e-5",
        ]);
        assert!(
            e.contains("--target-epsilon: no σ up to 100 reaches ε = 1e-300")
                && e.contains(&format!("the {acc} accountant")),
            "{e}"
        );
    }
    let (code, out, err) = dpsgd(&[
        "sigma",
        "--accountant",
        "rdp",
        "--target-epsilon",
        "1e300",
        "--q",
        "0.01",
        "--epochs",
        "10",
        "--delta",
        "1e-5",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["sigma"], 0.1, "{out}");
    assert!(
        v["note"].as_str().unwrap().contains("the least searched"),
        "{out}"
    );
}

/// A newline in a flag's value split the error over two lines; a 10 kB value was shown whole.
#[test]
fn an_error_is_one_short_line_whatever_the_value() {
    let e = refused(&[
        "epsilon", "--q", "1\n2", "--sigma", "1", "--epochs", "1", "--delta", "1e-5",
    ]);
    assert!(e.contains("--q = '1\\n2' is not"), "{e}");
    let long = "9".repeat(10_000);
    let e = refused(&[
        "epsilon", "--q", &long, "--sigma", "1", "--epochs", "1", "--delta", "1e-5",
    ]);
    assert!(e.len() < 200 && e.contains('…'), "{e}");
    let e = refused(&["train", &format!("--x\r{long}"), "1"]);
    assert!(
        e.contains("unknown option --x\\r999") && e.len() < 1200,
        "{e}"
    );
}

/// A 2-row file trained on one example under `--scale standard`: the row check of private
/// files now holds on every path.
#[test]
fn too_few_rows_are_refused_on_every_path() {
    let two = temp_file("two.csv", b"a,y\n1,0\n2,1\n");
    let two = two.to_str().unwrap();
    for scale in ["bounds", "none", "standard"] {
        let e = refused(&[
            "train",
            "--csv",
            two,
            "--label",
            "y",
            "--scale",
            scale,
            "--report",
            "teaching",
            "--lot-size",
            "1",
            "--epochs",
            "1",
        ]);
        assert!(
            e.contains("2 rows leave") && e.contains("at least 10 training rows and 1 test row"),
            "{scale}: {e}"
        );
    }
}

/// A gzipped CSV is named as such, through the CLI too.
#[test]
fn a_gzipped_csv_is_named() {
    let gz = temp_file("data.csv.gz", &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2]);
    let e = refused(&["train", "--csv", gz.to_str().unwrap(), "--label", "y"]);
    assert!(e.contains("gzip-compressed file: unpack it first"), "{e}");
}

/// #40, 3.7: an argument that is not UTF-8 (a file name in Latin-1, say) panicked with exit
/// status 101 and a backtrace; now it is one line, status 2, wherever it stands.
#[test]
fn an_argument_that_is_not_utf8_is_one_line() {
    let latin1 = || OsString::from_vec(b"caf\xe9.csv".to_vec());
    let arg = |s: &str| OsString::from(s);
    let cases: [Vec<OsString>; 6] = [
        vec![latin1()],
        vec![arg("train"), arg("--sigma"), latin1()],
        vec![arg("train"), arg("--dataset"), latin1()],
        vec![
            arg("train"),
            arg("--csv"),
            latin1(),
            arg("--label"),
            arg("y"),
        ],
        vec![arg("train"), latin1()],
        vec![
            arg("epsilon"),
            OsString::from_vec(b"--q\xff".to_vec()),
            arg("1"),
        ],
    ];
    for args in cases {
        let (code, _, err) = dpsgd_os(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("dpsgd: ") && !err.contains("panicked") && err.contains("is not UTF-8"),
            "{args:?}: {err}"
        );
    }
}

/// #40, 3.8: `--one-run --one-run` said "unknown option"; a flag given twice is named as such.
#[test]
fn a_flag_given_twice_is_named() {
    for (args, flag) in [
        (
            vec!["audit", "--one-run", "--one-run", "--threat", "realistic"],
            "--one-run",
        ),
        (vec!["train", "--sigma", "1", "--sigma", "2"], "--sigma"),
        (vec!["train", "--csv", "a.csv", "--csv", "b.csv"], "--csv"),
    ] {
        let e = refused(&args);
        assert!(
            e.contains(&format!("{flag} is given twice")) && !e.contains("unknown option"),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn a_whole_number_too_large_is_echoed_in_its_digits() {
    let e = refused(&["train", "--seed", "18446744073709551616"]);
    assert!(
        e.contains("seed = 18446744073709551616 is too large"),
        "{e}"
    );
    let e = refused(&["train", "--seed", "1e300"]);
    assert!(e.contains("seed = 1e300 is too large"), "{e}");
}

#[test]
fn an_unknown_command_lists_every_command() {
    let (code, _, err) = dpsgd(&["exports-opacus"]);
    assert_eq!(code, Some(2), "{err}");
    for command in [
        "train",
        "coverage",
        "epsilon",
        "sigma",
        "audit",
        "bench",
        "export-opacus",
    ] {
        assert!(err.contains(command), "{command} in {err}");
    }
}
