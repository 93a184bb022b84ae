//! The data sets the lab ships (under `www/data/`) or generates, by name — one table for the
//! CLI, the worker and the tests.

use super::csv::parse_csv;
use super::idx::images_and_labels;
use super::split::{dataset_from_tables, Scale};
use super::synthetic::{two_d, SHAPES};
use super::{decode_packed, DataError, Dataset};

/// Names of the built-in data sets.
pub const BUILTIN: [&str; 7] = [
    "adult",
    "mnist",
    "breast-cancer",
    "blobs",
    "circle",
    "xor",
    "spiral",
];

/// The breast-cancer set's fixed train/test split (the same for every run).
const BREAST_CANCER_SPLIT_SEED: u64 = 20160101;
/// Training points of the generated 2-D sets.
const TWO_D_POINTS: usize = 600;

/// The files under `www/data/` a built-in set is read from, in order; none for generated sets.
pub fn builtin_files(name: &str) -> &'static [&'static str] {
    match name {
        "adult" => &["adult.bin"],
        "breast-cancer" => &["breast_cancer.csv"],
        "mnist" => &[
            "mnist-train-images.idx3-ubyte.gz",
            "mnist-train-labels.idx1-ubyte.gz",
            "mnist-test-images.idx3-ubyte.gz",
            "mnist-test-labels.idx1-ubyte.gz",
        ],
        _ => &[],
    }
}

/// Builds the built-in set `name` from its files' bytes, in the order of [`builtin_files`]
/// (none for generated sets, which are drawn from `seed` with coordinate noise `noise`).
pub fn load_builtin(
    name: &str,
    files: &[&[u8]],
    seed: u64,
    noise: f64,
) -> Result<Dataset, DataError> {
    let want = builtin_files(name).len();
    if files.len() != want {
        return Err(DataError(format!(
            "'{name}' needs {want} data files, {} were given",
            files.len()
        )));
    }
    match name {
        "adult" => decode_packed(files[0]),
        "breast-cancer" => {
            let table = parse_csv(files[0], "diagnosis")?;
            Ok(dataset_from_tables(
                "breast-cancer",
                table,
                None,
                Scale::Standard,
                BREAST_CANCER_SPLIT_SEED,
            ))
        }
        "mnist" => {
            let (train, k1) = images_and_labels(files[0], files[1])?;
            let (test, k2) = images_and_labels(files[2], files[3])?;
            if train.n_features() != test.n_features() {
                return Err(DataError(
                    "MNIST train and test images differ in size".into(),
                ));
            }
            Ok(Dataset {
                name: "mnist".into(),
                feature_names: (0..train.n_features())
                    .map(|j| format!("px{}_{}", j / 28, j % 28))
                    .collect(),
                class_names: (0..k1.max(k2)).map(|k| k.to_string()).collect(),
                train,
                test,
                private: false,
                releases: Vec::new(),
            })
        }
        shape if SHAPES.contains(&shape) => two_d(shape, TWO_D_POINTS, noise, seed),
        other => Err(DataError(format!(
            "unknown data set '{other}'; the lab has: {}",
            BUILTIN.join(", ")
        ))),
    }
}
