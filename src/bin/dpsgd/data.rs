//! `dpsgd`'s data: a CSV of one's own (private: ranges clipped to stated or privately
//! estimated bounds) or a built-in set read from `--data-dir`.

use crate::args::{fail, read_file, shown_path, Args};
use dpsgd_lab::config::{ReleaseLevel, RunConfig};
use dpsgd_lab::data::bounds::{parse_stated, DEFAULT_BOUNDS_NOISE};
use dpsgd_lab::data::builtin::{builtin_files, load_builtin, not_shipped_note};
use dpsgd_lab::data::csv::{parse_csv_pair, shown};
use dpsgd_lab::data::split::{
    check_rows, dataset_from_tables, private_dataset, PrivatePrep, Scale,
};
use dpsgd_lab::data::Dataset;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;

/// The options of `train` (and of the run `audit` audits).
pub const DATA_FLAGS: [&str; 7] = [
    "data-dir",
    "csv",
    "test-csv",
    "label",
    "scale",
    "bounds",
    "bounds-noise",
];

/// The training data: a CSV of one's own (`--csv`, `--label`, optional `--test-csv` and
/// `--scale`) or a built-in set (`--dataset`, files under `--data-dir`, default www/data).
pub fn load_data(a: &Args, cfg: &RunConfig) -> Dataset {
    if let Some(path) = a.0.get("csv") {
        if a.0.contains_key("dataset") {
            fail("give --dataset or --csv, not both");
        }
        let label =
            a.0.get("label")
                .unwrap_or_else(|| fail("--csv needs --label COLUMN (the class column)"));
        let at = shown_path(path);
        let test_bytes = a.0.get("test-csv").map(|p| read_file(p, "test-csv"));
        let (train, test) = parse_csv_pair(&read_file(path, "csv"), test_bytes.as_deref(), label)
            .unwrap_or_else(|e| fail(format!("{at}: {e}")));
        if cfg.seed.is_some() {
            eprintln!(
                "dpsgd: warning: --seed makes the run's noise reproducible; anyone who knows the \
                 seed can subtract it. Leave it out for a private run of your own data."
            );
        }
        let mut rng = match cfg.seed {
            Some(seed) => ChaCha8Rng::seed_from_u64(seed ^ 0xda7a_da7a),
            None => ChaCha8Rng::from_os_rng(),
        };
        let private = cfg.report == ReleaseLevel::Private;
        return match a.0.get("scale").map(String::as_str) {
            None | Some("bounds") => {
                let prep = PrivatePrep {
                    stated: a
                        .0
                        .get("bounds")
                        .map(|b| parse_stated(b).unwrap_or_else(|e| fail(format!("--bounds: {e}"))))
                        .unwrap_or_default(),
                    bounds_noise: a
                        .get("bounds-noise", "a positive number")
                        .unwrap_or(DEFAULT_BOUNDS_NOISE),
                    ..PrivatePrep::default()
                };
                private_dataset(path, train, test, &prep, &mut rng)
                    .unwrap_or_else(|e| fail(format!("{at}: {e}")))
            }
            Some(other @ ("standard" | "none")) => {
                for flag in ["bounds", "bounds-noise"] {
                    if a.0.contains_key(flag) {
                        fail(format!("--{flag} goes with --scale bounds"));
                    }
                }
                if other == "none" {
                    let prep = PrivatePrep {
                        scale: false,
                        ..PrivatePrep::default()
                    };
                    return private_dataset(path, train, test, &prep, &mut rng)
                        .unwrap_or_else(|e| fail(format!("{at}: {e}")));
                }
                if private {
                    fail("--scale standard fits the mean and spread of your data without noise, \
                          which ε does not cover; use --scale bounds (the default) or --report teaching");
                }
                let rows = train.y.len();
                let mut d = dataset_from_tables(path, train, test, Scale::Standard, rand::random());
                check_rows(rows, d.train.len(), d.test.len())
                    .unwrap_or_else(|e| fail(format!("{at}: {e}")));
                eprintln!(
                    "dpsgd: warning: --scale standard fits your data's mean and spread without \
                     noise; ε does not cover it"
                );
                d.private = true;
                d
            }
            Some(o) => fail(format!(
                "--scale = '{}' must be bounds, standard or none",
                shown(o)
            )),
        };
    }
    for flag in ["label", "test-csv", "scale", "bounds", "bounds-noise"] {
        if a.0.contains_key(flag) {
            fail(format!("--{flag} goes with --csv"));
        }
    }
    let name = cfg.dataset.as_str();
    let files: Vec<Vec<u8>> = builtin_files(name)
        .iter()
        .map(|file| {
            let path = data_dir(a).join(file);
            if !path.exists() && !not_shipped_note(name).is_empty() {
                fail(format!(
                    "--dataset {name}: {} is missing. {}",
                    shown_path(&path.to_string_lossy()),
                    not_shipped_note(name)
                ));
            }
            read_file(&path.to_string_lossy(), "data-dir")
        })
        .collect();
    let files: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    load_builtin(name, &files, cfg.seed.unwrap_or(0), cfg.data_noise).unwrap_or_else(|e| fail(e))
}

fn data_dir(a: &Args) -> PathBuf {
    if let Some(d) = a.0.get("data-dir") {
        return PathBuf::from(d);
    }
    let local = PathBuf::from("www/data");
    if local.is_dir() {
        local
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/data")
    }
}
