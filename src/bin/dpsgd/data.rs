//! `dpsgd`'s data: a CSV of one's own (private: ranges clipped to stated or privately
//! estimated bounds) or a built-in set read from `--data-dir`.

use crate::args::{choice, choice_help, fail, read, read_file, shown_path, Given};
use crate::options::RunOptions;
use dpsgd_lab::config::{ReleaseLevel, RunConfig};
use dpsgd_lab::data::builtin::{builtin_files, load_builtin, not_shipped_note};
use dpsgd_lab::data::csv::parse_csv_pair;
use dpsgd_lab::data::prepare::bounds::{BOUNDS_NOISE_RANGE, DEFAULT_BOUNDS_NOISE};
use dpsgd_lab::data::prepare::split::{
    check_rows, dataset_from_tables, private_dataset, PrivatePrep, Scale,
};
use dpsgd_lab::data::prepare::stated::parse_stated;
use dpsgd_lab::data::Dataset;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::path::PathBuf;
use strum::EnumIter;

/// The data options of `train` (and of the run `coverage` and `audit` describe).
#[derive(clap::Args, Clone, Debug)]
#[command(next_help_heading = "Data options")]
pub struct DataOptions {
    /// Where the built-in sets' files are [default: www/data]
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<String>,
    /// A CSV file of one's own to train on instead of --dataset; private data: the report is
    /// private unless --report says otherwise, the seed random unless given
    #[arg(long, value_name = "PATH")]
    pub csv: Option<String>,
    /// Test rows of one's own, with --csv [default: rows held out of --csv]
    #[arg(long, value_name = "PATH")]
    pub test_csv: Option<String>,
    /// The class column of --csv (required with --csv)
    #[arg(long, value_name = "COLUMN")]
    pub label: Option<String>,
    #[arg(
        long,
        value_name = "NAME",
        help = choice_help("How --csv's numeric columns are scaled", CsvScale::Bounds)
    )]
    pub scale: Option<String>,
    /// Stated ranges of --csv's numeric columns, as age=17:90,hours=0:100 (with --scale bounds;
    /// a name holding a comma, semicolon, quote or = in double quotes: '"e,f"=0:1'); the other
    /// columns' ranges are estimated privately
    #[arg(long, value_name = "LIST")]
    pub bounds: Option<String>,
    #[arg(
        long,
        value_name = "NUMBER",
        value_parser = read::<f64>("a positive number"),
        help = format!(
            "Noise multiplier of the private range estimate (with --scale bounds) \
             [default: {DEFAULT_BOUNDS_NOISE}] [range: {} to {}]",
            BOUNDS_NOISE_RANGE.0,
            BOUNDS_NOISE_RANGE.1
        )
    )]
    pub bounds_noise: Option<Given<f64>>,
}

/// How a file of one's own has its numeric columns scaled (`--scale`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum CsvScale {
    /// Clipped to stated or privately estimated ranges, then scaled to them (private).
    Bounds,
    /// Centred and scaled by the data's mean and spread, without noise (teaching only).
    Standard,
    /// As given.
    #[serde(rename = "none")]
    Unscaled,
}

impl DataOptions {
    /// The flags that only go with --csv, and whether each was given.
    fn csv_only(&self) -> [(&'static str, bool); 5] {
        [
            ("label", self.label.is_some()),
            ("test-csv", self.test_csv.is_some()),
            ("scale", self.scale.is_some()),
            ("bounds", self.bounds.is_some()),
            ("bounds-noise", self.bounds_noise.is_some()),
        ]
    }
}

/// The training data: a CSV of one's own (`--csv`, `--label`, optional `--test-csv` and
/// `--scale`) or a built-in set (`--dataset`, files under `--data-dir`, default www/data).
pub fn load_data(a: &DataOptions, run: &RunOptions, cfg: &RunConfig) -> Dataset {
    if let Some(path) = &a.csv {
        if run.get("dataset").is_some() {
            fail("give --dataset or --csv, not both");
        }
        let label = a
            .label
            .as_deref()
            .unwrap_or_else(|| fail("--csv needs --label COLUMN (the class column)"));
        // Checked before the file is read (up to 100 MB) and prepared.
        let bounds_noise = a.bounds_noise.as_ref().map_or(DEFAULT_BOUNDS_NOISE, |g| {
            let (lo, hi) = BOUNDS_NOISE_RANGE;
            if !(lo..=hi).contains(&g.value) {
                fail(format!(
                    "--bounds-noise = {} must be from {lo} to {hi}",
                    g.shown()
                ));
            }
            g.value
        });
        let at = shown_path(path);
        let test_bytes = a.test_csv.as_ref().map(|p| read_file(p, "test-csv"));
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
        return match choice("scale", a.scale.as_deref(), CsvScale::Bounds) {
            CsvScale::Bounds => {
                let prep = PrivatePrep {
                    stated: a
                        .bounds
                        .as_ref()
                        .map(|b| parse_stated(b).unwrap_or_else(|e| fail(format!("--bounds: {e}"))))
                        .unwrap_or_default(),
                    bounds_noise,
                    ..PrivatePrep::default()
                };
                private_dataset(path, train, test, &prep, &mut rng)
                    .unwrap_or_else(|e| fail(format!("{at}: {e}")))
            }
            other @ (CsvScale::Standard | CsvScale::Unscaled) => {
                for (flag, given) in &a.csv_only()[3..] {
                    if *given {
                        fail(format!("--{flag} goes with --scale bounds"));
                    }
                }
                if other == CsvScale::Unscaled {
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
        };
    }
    for (flag, given) in a.csv_only() {
        if given {
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

fn data_dir(a: &DataOptions) -> PathBuf {
    if let Some(d) = &a.data_dir {
        return PathBuf::from(d);
    }
    let local = PathBuf::from("www/data");
    if local.is_dir() {
        local
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("www/data")
    }
}
