//! From a parsed table to a training-ready dataset: a seeded train/test split (or a given test
//! table) and standardisation of the numeric features on the training split.

use super::csv::Table;
use super::{Dataset, Split};
use crate::Real;
use ndarray::Axis;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

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
        test: te,
    }
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
}
