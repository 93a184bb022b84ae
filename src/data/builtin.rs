//! The data sets the lab ships (under `www/data/`) or generates, by name — one table for the
//! CLI, the worker and the tests. Fashion-MNIST is not shipped: `scripts/setup` prepares its
//! files from Debian's `dataset-fashion-mnist` package (31 MB).

use super::csv::parse_csv;
use super::idx::images_and_labels;
use super::prepare::split::{dataset_from_tables, Scale};
use super::synthetic::{two_d, SHAPES};
use super::{decode_packed, DataError, Dataset};
use std::sync::Arc;

/// Names of the built-in data sets.
pub const BUILTIN: [&str; 8] = [
    "adult",
    "mnist",
    "fashion-mnist",
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

/// How built-in set `name` was scaled, when that is a choice outside the guarantee ("What ε
/// covers"): Adult's public bounds, breast cancer's standardisation on its training split.
/// None for pixels (divided by 255) and the generated sets.
pub fn scaling_outside(name: &str) -> Option<&'static str> {
    match name {
        "adult" => Some(
            "How Adult's numeric columns were scaled: between public bounds from its \
             documentation, not the training split's range.",
        ),
        "breast-cancer" => Some(
            "How breast cancer was scaled: standardised on its training split without noise \
             (a benchmark convention).",
        ),
        _ => None,
    }
}

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
        "fashion-mnist" => &[
            "fashion-mnist-train-images.idx3-ubyte.gz",
            "fashion-mnist-train-labels.idx1-ubyte.gz",
            "fashion-mnist-test-images.idx3-ubyte.gz",
            "fashion-mnist-test-labels.idx1-ubyte.gz",
        ],
        _ => &[],
    }
}

/// Why a built-in set's files may be missing, for the message that says so ("" when they are
/// shipped).
pub fn not_shipped_note(name: &str) -> &'static str {
    match name {
        "fashion-mnist" => {
            "Fashion-MNIST is not shipped with the lab: scripts/setup (run by `make serve` and \
             `make test`) prepares it from Debian's dataset-fashion-mnist package"
        }
        _ => "",
    }
}

/// Fashion-MNIST's classes, in label order (Xiao, Rasul and Vollgraf 2017).
const FASHION_CLASSES: [&str; 10] = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
];

/// A set of 28×28 images from IDX files (train images, train labels, test images, test
/// labels), with `class_name(k)` naming label k.
fn image_set(
    name: &str,
    files: &[&[u8]],
    class_name: impl Fn(usize) -> String,
) -> Result<Dataset, DataError> {
    let (train, k1) = images_and_labels(files[0], files[1])?;
    let (test, k2) = images_and_labels(files[2], files[3])?;
    if train.n_features() != test.n_features() {
        return Err(DataError::format(format!(
            "{name}: the train and test images differ in size"
        )));
    }
    Ok(Dataset {
        name: name.into(),
        feature_names: (0..train.n_features())
            .map(|j| format!("px{}_{}", j / 28, j % 28))
            .collect(),
        class_names: (0..k1.max(k2)).map(class_name).collect(),
        train,
        test: Arc::new(test),
        private: false,
        releases: Vec::new(),
    })
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
        return Err(DataError::format(format!(
            "'{}' needs {want} data files, {} were given",
            crate::text::shown(name),
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
        "mnist" => image_set("mnist", files, |k| k.to_string()),
        "fashion-mnist" => image_set("fashion-mnist", files, |k| {
            FASHION_CLASSES
                .get(k)
                .map_or(k.to_string(), |c| c.to_string())
        }),
        shape if SHAPES.contains(&shape) => two_d(shape, TWO_D_POINTS, noise, seed),
        other => Err(DataError::unknown_name(format!(
            "unknown data set '{}'; the lab has: {}",
            crate::text::shown(other),
            BUILTIN.join(", ")
        ))),
    }
}
