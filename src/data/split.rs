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

use super::bounds::{self, Range};
use super::csv::Table;
use super::{DataError, Dataset, Split};
use crate::privacy::mechanism::{Release, ReleaseKind};
use crate::Real;
use ndarray::{Array2, Axis};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A private file that could not be prepared, and what its preparation had released when it
/// failed: a range estimate's noisy histograms, which the verdict was read from. Spent all the
/// same, so a ledger of the file counts them (the page's does).
#[derive(Clone, Debug, PartialEq)]
pub struct PrepError {
    pub error: DataError,
    pub spent: Vec<Release>,
}

impl From<DataError> for PrepError {
    fn from(error: DataError) -> Self {
        PrepError {
            error,
            spent: Vec::new(),
        }
    }
}

impl fmt::Display for PrepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        for r in &self.spent {
            write!(
                f,
                ". This attempt already released {} (one Gaussian release, σ = {}), which \
                 counts toward what your file has released",
                match r.what {
                    ReleaseKind::Bounds => "the noisy histograms of your columns' ranges",
                    _ => "a noisy release about your file",
                },
                crate::train::noise_in_words(r.sigma)
            )?;
        }
        Ok(())
    }
}

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
        return Err(DataError(format!(
            "{total} rows leave {train} for training and {test} for testing; the lab needs at \
             least {MIN_TRAIN} training rows and 1 test row"
        )));
    }
    Ok(())
}

/// How a private file is prepared: stated bounds of numeric columns by name, the noise
/// multiplier of the private estimate of the others, and whether numeric columns are scaled
/// to their ranges and every example divided by √(columns) at all (not for pixels, already in
/// [0, 1], nor when asked to use the values as they are).
#[derive(Clone, Debug)]
pub struct PrivatePrep {
    pub stated: Vec<(String, Range)>,
    pub bounds_noise: f64,
    pub scale: bool,
}

impl Default for PrivatePrep {
    fn default() -> Self {
        PrivatePrep {
            stated: Vec::new(),
            bounds_noise: bounds::DEFAULT_BOUNDS_NOISE,
            scale: true,
        }
    }
}

/// Rows of `table` by an independent coin each: (training rows, test rows), 20% to the test
/// side in expectation.
fn coin_split<R: Rng + ?Sized>(table: &Table, rng: &mut R) -> (Split, Split) {
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for i in 0..table.y.len() {
        if rng.random::<f64>() < 0.2 {
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
/// wrong: too few rows, bounds for an unknown column, a column too sparse to estimate.
pub fn private_dataset<R: Rng + ?Sized>(
    name: &str,
    table: Table,
    test: Option<Table>,
    prep: &PrivatePrep,
    rng: &mut R,
) -> Result<Dataset, PrepError> {
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
    check_rows(table.y.len(), tr.len(), te.len())?;
    let numeric: Vec<usize> = (0..table.numeric.len())
        .filter(|&j| table.numeric[j] && prep.scale)
        .collect();
    if let Some((unknown, _)) = prep
        .stated
        .iter()
        .find(|(n, _)| !numeric.iter().any(|&j| table.feature_names[j] == *n))
    {
        let names: Vec<&str> = numeric
            .iter()
            .map(|&j| table.feature_names[j].as_str())
            .collect();
        return Err(DataError(format!(
            "bounds are given for '{unknown}', which is not a numeric column; the numeric columns are: {}",
            if names.is_empty() { "none".to_string() } else { names.join(", ") }
        ))
        .into());
    }
    let stated = |j: usize| {
        prep.stated
            .iter()
            .find(|(n, _)| *n == table.feature_names[j])
            .map(|(_, r)| *r)
    };
    let unstated: Vec<usize> = numeric
        .iter()
        .copied()
        .filter(|&j| stated(j).is_none())
        .collect();
    let mut releases = Vec::new();
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
        let (estimated, release) = bounds::estimate(&columns, prep.bounds_noise, rng)?;
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
mod tests {
    use super::*;
    use crate::data::csv::parse_csv;

    #[test]
    fn split_is_seeded_and_disjoint_and_scaling_uses_train_statistics() {
        let text: String = std::iter::once("a,c,y\n".to_string())
            .chain(
                (0..50)
                    .map(|i| format!("{},{},{}\n", i, if i % 2 == 0 { "u" } else { "v" }, i % 3)),
            )
            .collect();
        let t = parse_csv(text.as_bytes(), "y").unwrap();
        let (tr, te) = split_table(&t, 0.2, 7);
        assert_eq!((tr.len(), te.len()), (40, 10));
        let (tr2, _) = split_table(&t, 0.2, 7);
        assert_eq!(tr.x, tr2.x, "same seed, same split");
        let mut all: Vec<Real> =
            tr.x.column(0)
                .iter()
                .chain(te.x.column(0).iter())
                .cloned()
                .collect();
        all.sort_by(|a, b| a.total_cmp(b));
        assert_eq!(
            all,
            (0..50).map(|i| i as Real).collect::<Vec<_>>(),
            "disjoint and complete"
        );
        let d = dataset_from_tables("t", t, None, Scale::Standard, 7);
        let col = d.train.x.column(0);
        let mean = col.sum() / col.len() as Real;
        let var = col.mapv(|v| (v - mean).powi(2)).sum() / col.len() as Real;
        assert!(
            mean.abs() < 1e-5 && (var - 1.0).abs() < 1e-4,
            "mean {mean} var {var}"
        );
        assert!(
            d.train.x.column(1).iter().all(|&v| v == 0.0 || v == 1.0),
            "one-hot untouched"
        );
    }

    #[test]
    fn a_private_file_is_split_by_coins_clipped_to_its_bounds_and_never_standardised() {
        let text: String = std::iter::once("age,colour,y\n".to_string())
            .chain((0..500).map(|i| format!("{},{},{}\n", 17 + i % 80, ["r", "g"][i % 2], i % 3)))
            .collect();
        let t = parse_csv(text.as_bytes(), "y").unwrap();
        assert_eq!(t.columns, 2);
        let prep = PrivatePrep {
            stated: vec![("age".into(), Range { lo: 20.0, hi: 60.0 })],
            ..PrivatePrep::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let d = private_dataset("own", t.clone(), None, &prep, &mut rng).unwrap();
        assert!(
            d.private && d.releases.is_empty(),
            "stated bounds cost nothing"
        );
        let n = d.train.len() as f64;
        assert!((n / 500.0 - 0.8).abs() < 0.06, "{n} training rows");
        let s = 1.0 / (2.0 as Real).sqrt();
        // Ages below 20 clip to 0, above 60 to 1 (times 1/√2); one-hot stays 0 or 1/√2.
        assert!(d
            .train
            .x
            .column(0)
            .iter()
            .all(|&v| (0.0..=s + 1e-6).contains(&v)));
        assert!(d.train.x.iter().all(|&v| v.is_finite()));
        let norms_ok = d
            .train
            .x
            .rows()
            .into_iter()
            .all(|r| r.dot(&r) <= 1.0 + 1e-5);
        assert!(norms_ok, "every example has norm at most 1");
        // Without stated bounds the range is estimated, and that release is recorded.
        let d = private_dataset("own", t.clone(), None, &PrivatePrep::default(), &mut rng).unwrap();
        assert_eq!(d.releases.len(), 1);
        let bad = PrivatePrep {
            stated: vec![("colour".into(), Range { lo: 0.0, hi: 1.0 })],
            ..PrivatePrep::default()
        };
        let e = private_dataset("own", t, None, &bad, &mut rng)
            .unwrap_err()
            .error
            .0;
        assert!(
            e.contains("'colour', which is not a numeric column") && e.contains("age"),
            "{e}"
        );
        let tiny = parse_csv(b"a,y\n1,0\n2,1\n", "y").unwrap();
        let e = private_dataset("own", tiny, None, &PrivatePrep::default(), &mut rng)
            .unwrap_err()
            .error
            .0;
        assert!(e.contains("at least 10"), "{e}");
    }
}
