//! The data sets the lab ships (under `www/data/`) or generates, by name — one table for the
//! CLI, the worker and the tests.

use super::csv::parse_csv;
use super::split::{dataset_from_tables, Scale};
use super::synthetic::{two_d, SHAPES};
use super::{decode_packed, DataError, Dataset};

/// Names of the built-in data sets.
pub const BUILTIN: [&str; 6] = ["adult", "breast-cancer", "blobs", "circle", "xor", "spiral"];

/// The breast-cancer set's fixed train/test split (the same for every run).
const BREAST_CANCER_SPLIT_SEED: u64 = 20160101;
/// Training points of the generated 2-D sets.
const TWO_D_POINTS: usize = 600;

/// The file under `www/data/` a built-in set is read from; `None` for generated sets.
pub fn builtin_file(name: &str) -> Option<&'static str> {
    match name {
        "adult" => Some("adult.bin"),
        "breast-cancer" => Some("breast_cancer.csv"),
        _ => None,
    }
}

/// Builds the built-in set `name` from its file's bytes (`None` for generated sets, which are
/// drawn from `seed` with coordinate noise `noise`).
pub fn load_builtin(
    name: &str,
    bytes: Option<&[u8]>,
    seed: u64,
    noise: f64,
) -> Result<Dataset, DataError> {
    let need =
        || bytes.ok_or_else(|| DataError(format!("the data file of '{name}' was not given")));
    match name {
        "adult" => decode_packed(need()?),
        "breast-cancer" => {
            let table = parse_csv(need()?, "diagnosis")?;
            Ok(dataset_from_tables(
                "breast-cancer",
                table,
                None,
                Scale::Standard,
                BREAST_CANCER_SPLIT_SEED,
            ))
        }
        shape if SHAPES.contains(&shape) => two_d(shape, TWO_D_POINTS, noise, seed),
        other => Err(DataError(format!(
            "unknown data set '{other}'; the lab has: {}",
            BUILTIN.join(", ")
        ))),
    }
}
