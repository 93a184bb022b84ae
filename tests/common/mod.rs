//! Helpers shared by the native integration tests.
#![allow(dead_code)]

pub mod reference;

use dpsgd_lab::data::{decode_packed, Dataset};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The shipped Adult data, decoded once per test binary.
pub fn adult() -> Arc<Dataset> {
    static DATA: OnceLock<Arc<Dataset>> = OnceLock::new();
    DATA.get_or_init(|| {
        let bytes = std::fs::read(repo_path("www/data/adult.bin"))
            .expect("www/data/adult.bin is missing: run scripts/prepare_adult.py");
        Arc::new(decode_packed(&bytes).expect("adult.bin decodes"))
    })
    .clone()
}

/// A built-in data set read from www/data (the split drawn from `seed`, data noise 0.1).
pub fn builtin(name: &str, seed: u64) -> Arc<Dataset> {
    use dpsgd_lab::data::builtin::{builtin_files, load_builtin};
    let files: Vec<Vec<u8>> = builtin_files(name)
        .iter()
        .map(|f| {
            std::fs::read(repo_path(&format!("www/data/{f}")))
                .unwrap_or_else(|e| panic!("www/data/{f}: {e}"))
        })
        .collect();
    let files: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    Arc::new(load_builtin(name, &files, seed, 0.1).expect("a built-in data set"))
}

/// Rows of a CSV file with a header, as (header, rows of fields).
pub fn read_csv(rel: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let path = repo_path(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); it is part of the repository",
            path.display()
        )
    });
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines
        .next()
        .expect("header")
        .split(',')
        .map(String::from)
        .collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

/// Runs the `dpsgd` binary with `args` from the repository's root: (exit status, stdout,
/// stderr).
pub fn dpsgd(args: &[&str]) -> (Option<i32>, String, String) {
    let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
    dpsgd_os(&args)
}

/// [`dpsgd`] with arguments that need not be UTF-8: (exit status, stdout, stderr).
pub fn dpsgd_os(args: &[std::ffi::OsString]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dpsgd"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A file of `bytes` in this test binary's own temporary folder.
pub fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dpsgd-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The one error line of a refused command, after checking it is one line and status 2.
pub fn refused(args: &[&str]) -> String {
    let (code, _, err) = dpsgd(args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    err
}
