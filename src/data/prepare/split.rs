//! From a parsed table to a training-ready dataset.
//!
//! - Public benchmarks (breast cancer): a seeded 80/20 split (or a given test table), and the
//!   numeric features standardised on the training split — a convention of the benchmark,
//!   stated in docs/privacy.md, outside any ε.
//! - Private files (a user's own): nothing is fitted in the clear. Rows go to the test split
//!   by an independent coin each (20%), so adding or removing one row moves no other;
//!   numeric columns are clipped to stated or privately estimated ranges ([`super::bounds`])
//!   and scaled to [0, 1]; every example is divided by √(columns) so ‖x‖ ≤ 1, as for Adult.
//!   The file's column names, categories and classes are treated as public.

use super::bounds;
pub use super::refusal::{ColumnRange, PrepError, RangesNeeded};
use super::types::written_name;
use super::types::Range;
use crate::data::csv::Table;
use crate::data::{DataError, Dataset, Split};
use crate::privacy::accountant::mechanism::{Release, ReleaseKind};
use crate::text::shown;
use crate::Real;
use ndarray::{Array2, Axis};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

/// Whether numeric features are standardised (z-scores with the training split's mean and
/// standard deviation) or used exactly as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    Standard,
    None,
}

/// A random split of `table`: a fraction `test_fraction` of the rows (at least one) for testing,
/// chosen by a ChaCha8 shuffle with `seed`.
pub fn split_table(table: &Table, test_fraction: f64, seed: u64) -> (Split, Split) {
    let n = table.y.len();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let n_test = ((n as f64 * test_fraction).round() as usize).clamp(1.min(n - 1), n - 1);
    let take = |rows: &[usize]| Split {
        x: table.x.select(Axis(0), rows),
        y: rows.iter().map(|&i| table.y[i]).collect(),
    };
    (take(&idx[n_test..]), take(&idx[..n_test]))
}

/// Standardises the `numeric` columns of both splits with the training split's statistics
/// (a constant column is only centred).
pub fn standardise(train: &mut Split, test: &mut Split, numeric: &[bool]) {
    for (j, _) in numeric.iter().enumerate().filter(|(_, &is_num)| is_num) {
        let col = train.x.column(j);
        let n = col.len().max(1) as f64;
        let mean = col.iter().map(|&v| v as f64).sum::<f64>() / n;
        let var = col.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
        let sd = if var > 0.0 { var.sqrt() } else { 1.0 };
        for x in [&mut train.x, &mut test.x] {
            x.column_mut(j)
                .mapv_inplace(|v| ((v as f64 - mean) / sd) as Real);
        }
    }
}

/// A dataset from a training table and either a test table or a random split of the training
/// table (20% for testing, seeded).
pub fn dataset_from_tables(
    name: &str,
    train: Table,
    test: Option<Table>,
    scale: Scale,
    split_seed: u64,
) -> Dataset {
    let (mut tr, mut te) = match test {
        Some(t) => (
            Split {
                x: train.x.clone(),
                y: train.y.clone(),
            },
            Split { x: t.x, y: t.y },
        ),
        None => split_table(&train, 0.2, split_seed),
    };
    if scale == Scale::Standard {
        standardise(&mut tr, &mut te, &train.numeric);
    }
    Dataset {
        name: name.into(),
        feature_names: train.feature_names,
        class_names: train.class_names,
        train: tr,
        test: Arc::new(te),
        private: false,
        releases: Vec::new(),
    }
}

/// Fewest training rows a file of one's own may leave after the split: fewer cannot fill a
/// lot of any useful size, and a model fitted to them says nothing (a 2-row file trained on
/// one example). Ten rows rather than "two per class": the check stays independent of the
/// labels, and classes are already required to number at least two in the file.
pub const MIN_TRAIN: usize = 10;

/// Checks that a file of `total` rows split into `train` and `test` rows can be trained and
/// evaluated: at least [`MIN_TRAIN`] training rows and one test row.
pub fn check_rows(total: usize, train: usize, test: usize) -> Result<(), DataError> {
    if train < MIN_TRAIN || test == 0 {
        return Err(DataError::rows(format!(
            "{total} rows leave {train} for training and {test} for testing; the lab needs at \
             least {MIN_TRAIN} training rows and 1 test row"
        )));
    }
    Ok(())
}

/// How a private file is prepared: stated bounds of numeric columns by name, the noise
/// multiplier of the private estimate of the others, and whether numeric columns are scaled
/// to their ranges and every example divided by √(columns) at all (not for pixels, already in
/// [0, 1], nor when asked to use the values as they are). `read_off`: the stated bounds were
/// read off this file rather than known publicly — a release without noise (ε = ∞), recorded
/// as one ([`ReleaseKind::ReadOff`]) so every ε and "What ε covers" says so.
#[derive(Clone, Debug)]
pub struct PrivatePrep {
    pub stated: Vec<(String, Range)>,
    pub bounds_noise: f64,
    pub scale: bool,
    pub read_off: bool,
}

impl Default for PrivatePrep {
    fn default() -> Self {
        PrivatePrep {
            stated: Vec::new(),
            bounds_noise: bounds::DEFAULT_BOUNDS_NOISE,
            scale: true,
            read_off: false,
        }
    }
}

/// The share of a private file's rows held out for testing, each by a coin of this bias.
pub const TEST_SHARE: f64 = 0.2;

/// Rows of `table` by an independent coin each: (training rows, test rows), 20% to the test
/// side in expectation.
fn coin_split<R: Rng + ?Sized>(table: &Table, rng: &mut R) -> (Split, Split) {
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for i in 0..table.y.len() {
        if rng.random::<f64>() < TEST_SHARE {
            test.push(i);
        } else {
            train.push(i);
        }
    }
    let take = |rows: &[usize]| Split {
        x: table.x.select(Axis(0), rows),
        y: rows.iter().map(|&i| table.y[i]).collect(),
    };
    (take(&train), take(&test))
}

/// A private data set from a user's table (and optional test table), prepared as the module
/// says with randomness from `rng` (the split and the estimate's noise). Errors name what is
/// wrong: too few rows, bounds for an unknown column, too few rows for the private estimate of
/// the columns without a stated range — decided before the estimate, from the row count, so
/// nothing is released ([`bounds::rows_needed`]) — or a column too sparse for the estimate
/// made (its release spent all the same). A noise multiplier for the estimate outside
/// [`bounds::BOUNDS_NOISE_RANGE`] is refused first, for every caller (the CLI says so before it
/// reads the file).
pub fn private_dataset<R: Rng + ?Sized>(
    name: &str,
    table: Table,
    test: Option<Table>,
    prep: &PrivatePrep,
    rng: &mut R,
) -> Result<Dataset, PrepError> {
    let (lo, hi) = bounds::BOUNDS_NOISE_RANGE;
    if !(lo..=hi).contains(&prep.bounds_noise) {
        return Err(DataError::out_of_range(format!(
            "the noise multiplier of the ranges' estimate is {}; it must be from {lo} to {hi}",
            prep.bounds_noise
        ))
        .into());
    }
    let rows = table.y.len();
    // The training rows to expect, from public numbers only: the file's whole when a test file
    // is given, else its share after the coins (deterministic, so a file near the line gets
    // the same answer every time it is loaded).
    let whole = test.is_some();
    let expected_train = if whole {
        rows
    } else {
        (rows as f64 * (1.0 - TEST_SHARE)).floor() as usize
    };
    let (mut tr, mut te) = match test {
        Some(t) => (
            Split {
                x: table.x.clone(),
                y: table.y.clone(),
            },
            Split { x: t.x, y: t.y },
        ),
        None => coin_split(&table, rng),
    };
    check_rows(rows, tr.len(), te.len())?;
    let numeric: Vec<usize> = (0..table.numeric.len())
        .filter(|&j| table.numeric[j] && prep.scale)
        .collect();
    // By name: thousands of columns stay linear.
    let stated_by_name: HashMap<&str, Range> =
        prep.stated.iter().map(|(n, r)| (n.as_str(), *r)).collect();
    let numeric_names: std::collections::HashSet<&str> = numeric
        .iter()
        .map(|&j| table.feature_names[j].as_str())
        .collect();
    if let Some((unknown, _)) = prep
        .stated
        .iter()
        .find(|(n, _)| !numeric_names.contains(n.as_str()))
    {
        let names: Vec<&str> = numeric
            .iter()
            .map(|&j| table.feature_names[j].as_str())
            .collect();
        return Err(DataError::unknown_name(format!(
            "bounds are given for '{}', which is not a numeric column; the numeric columns are: {}",
            shown(unknown),
            if names.is_empty() {
                "none".to_string()
            } else {
                bounds::named(&names)
            }
        ))
        .in_column(unknown)
        .into());
    }
    let stated = |j: usize| stated_by_name.get(table.feature_names[j].as_str()).copied();
    let unstated: Vec<usize> = numeric
        .iter()
        .copied()
        .filter(|&j| stated(j).is_none())
        .collect();
    let needed = bounds::rows_needed(unstated.len(), prep.bounds_noise);
    let ranges_needed = |estimated: bool| RangesNeeded {
        columns: numeric
            .iter()
            .map(|&j| ColumnRange {
                name: table.feature_names[j].clone(),
                range: stated(j),
            })
            .collect(),
        rows,
        rows_needed: file_rows(needed, whole),
        estimated,
    };
    if expected_train < needed {
        let names: Vec<&str> = unstated
            .iter()
            .map(|&j| table.feature_names[j].as_str())
            .collect();
        let k = unstated.len();
        return Err(PrepError {
            error: DataError::rows(format!(
                "{rows} rows (about {expected_train} for training) are too few to estimate the \
                 ranges of {k} numeric column{s} privately: estimated together, a range is found \
                 where about {per_bin} training rows share a power of two, so the estimate needs \
                 at least {needed} training rows ({file} rows in the file). Nothing was released. \
                 State the range (min and max) of {each}: {list}; e.g. {example}=0:100",
                s = if k == 1 { "" } else { "s" },
                per_bin = bounds::rows_per_bin(k, prep.bounds_noise),
                file = file_rows(needed, whole),
                each = if k == 1 {
                    "this column"
                } else {
                    "each of these columns"
                },
                list = bounds::named(&names),
                example = written_name(&shown(names.first().copied().unwrap_or("age"))),
            )),
            spent: Vec::new(),
            ranges: Some(Box::new(ranges_needed(false))),
        });
    }
    let mut releases = Vec::new();
    if prep.read_off && !prep.stated.is_empty() {
        releases.push(Release {
            what: ReleaseKind::ReadOff,
            q: 1.0,
            sigma: 0.0,
        });
    }
    let mut ranges: Vec<(usize, Range)> = numeric
        .iter()
        .filter_map(|&j| stated(j).map(|r| (j, r)))
        .collect();
    if !unstated.is_empty() {
        let columns: Vec<(&str, Vec<f64>)> = unstated
            .iter()
            .map(|&j| {
                let values = tr.x.column(j).iter().map(|&v| v as f64).collect();
                (table.feature_names[j].as_str(), values)
            })
            .collect();
        let (estimated, release) =
            bounds::estimate(&columns, prep.bounds_noise, rng).map_err(|e| PrepError {
                // What the preparation had released before the estimate (ranges read off the
                // file) is spent too.
                spent: releases.iter().chain(&e.spent).copied().collect(),
                ranges: Some(Box::new(ranges_needed(true))),
                ..e
            })?;
        ranges.extend(unstated.iter().copied().zip(estimated));
        releases.push(release);
    }
    let norm = if prep.scale {
        1.0 / (table.columns.max(1) as f64).sqrt()
    } else {
        1.0
    };
    for x in [&mut tr.x, &mut te.x] {
        scale_columns(x, &ranges, norm);
    }
    Ok(Dataset {
        name: name.into(),
        feature_names: table.feature_names,
        class_names: table.class_names,
        train: tr,
        test: Arc::new(te),
        private: true,
        releases,
    })
}

/// The rows a file needs for `train` training rows: as many (`whole`: a test file is given),
/// else enough that the coins leave them in expectation.
fn file_rows(train: usize, whole: bool) -> usize {
    if whole {
        train
    } else {
        (train as f64 / (1.0 - TEST_SHARE)).ceil() as usize
    }
}

/// Clips and scales the ranged columns to [0, 1], then multiplies everything by `norm`.
fn scale_columns(x: &mut Array2<Real>, ranges: &[(usize, Range)], norm: f64) {
    for &(j, r) in ranges {
        x.column_mut(j)
            .mapv_inplace(|v| bounds::scale(v as f64, r) as Real);
    }
    x.mapv_inplace(|v| v * norm as Real);
}

/// A private data set of pixels already in [0, 1] (a user's IDX pair): split by coins, no
/// ranges to estimate, no scaling.
pub fn private_images<R: Rng + ?Sized>(
    name: &str,
    table: Table,
    rng: &mut R,
) -> Result<Dataset, DataError> {
    let prep = PrivatePrep {
        scale: false,
        ..PrivatePrep::default()
    };
    // Unscaled: no range is estimated, so a refusal has released nothing.
    private_dataset(name, table, None, &prep, rng).map_err(|e| e.error)
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod tests;
