//! Datasets: feature matrices with labels, split into train and test, and the decoders of the
//! files the lab ships under `www/data/`.

pub mod builtin;
pub mod csv;
mod error;
pub mod idx;
mod packed;
pub mod pca;
pub mod prepare;
pub mod synthetic;

pub use error::{DataError, DataErrorKind};
pub use packed::decode_packed;

use crate::privacy::accountant::mechanism::Release;
use crate::Real;
use ndarray::Array2;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Examples of one split: one row of `x` per example, `y` holds class indices.
#[derive(Clone, Debug)]
pub struct Split {
    pub x: Array2<Real>,
    pub y: Vec<usize>,
}

impl Split {
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// The share of the most common class, or `None` when empty.
    pub fn majority_share(&self) -> Option<f64> {
        let mut counts = std::collections::HashMap::new();
        for &c in &self.y {
            *counts.entry(c).or_insert(0usize) += 1;
        }
        let most = counts.values().max()?;
        Some(*most as f64 / self.len() as f64)
    }

    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    pub fn n_features(&self) -> usize {
        self.x.ncols()
    }
}

/// A classification dataset ready for training: encoded features, train/test split.
#[derive(Clone, Debug)]
pub struct Dataset {
    pub name: String,
    pub feature_names: Vec<String>,
    pub class_names: Vec<String>,
    pub train: Split,
    /// Shared: a data set with examples added to its training rows (`with_training_rows`)
    /// holds the same test split, not a copy.
    pub test: Arc<Split>,
    /// Whether the examples are private — a file of one's own — so that the test split is
    /// protected too and nothing may be fitted on the data without noise. The built-in sets
    /// are public benchmarks whose preprocessing is fixed from their documentation.
    pub private: bool,
    /// Releases made while preparing the data that ε must cover (a private estimate of the
    /// columns' ranges).
    pub releases: Vec<Release>,
}

/// What the rest of the lab may know of a data set without looking at its examples: its
/// sizes (N is treated as public, as in the paper), whether it is private, and what its
/// preparation released. The page's previews of ε are computed from these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DataFacts {
    pub n_train: usize,
    pub n_test: usize,
    pub n_features: usize,
    pub n_classes: usize,
    pub private: bool,
    pub releases: Vec<Release>,
    /// The most common class's share of a public test set: the accuracy of a model that learned
    /// nothing and always answers that class (the accuracy chart's baseline). `None` for
    /// private data, whose test rows are private too.
    #[serde(default)]
    pub majority_share: Option<f64>,
}

#[cfg(test)]
impl DataFacts {
    /// For tests: a student's file as the worker prepares it — private, 1,000 training rows and
    /// 250 held out, with its range estimate (one Gaussian release, σ = 5).
    pub(crate) fn own_for_tests() -> Self {
        DataFacts {
            n_train: 1000,
            n_test: 250,
            n_features: 3,
            n_classes: 2,
            private: true,
            releases: vec![Release {
                what: crate::privacy::accountant::mechanism::ReleaseKind::Bounds,
                q: 1.0,
                sigma: 5.0,
            }],
            majority_share: None,
        }
    }
}

impl Dataset {
    pub fn facts(&self) -> DataFacts {
        DataFacts {
            n_train: self.train.len(),
            n_test: self.test.len(),
            n_features: self.n_features(),
            n_classes: self.n_classes(),
            private: self.private,
            releases: self.releases.clone(),
            majority_share: (!self.private)
                .then(|| self.test.majority_share())
                .flatten(),
        }
    }

    /// The first non-finite feature value, as (split, row, feature name), if any: the
    /// sanitizer's bound on one example's influence needs finite inputs.
    pub fn first_non_finite(&self) -> Option<(&'static str, usize, &str)> {
        for (what, split) in [("training", &self.train), ("test", &self.test)] {
            for (i, row) in split.x.rows().into_iter().enumerate() {
                if let Some(j) = row.iter().position(|v| !v.is_finite()) {
                    let name = self.feature_names.get(j).map_or("?", String::as_str);
                    return Some((what, i, name));
                }
            }
        }
        None
    }

    pub fn n_classes(&self) -> usize {
        self.class_names.len()
    }

    pub fn n_features(&self) -> usize {
        self.feature_names.len()
    }

    /// This data set's name, classes and releases with other examples (`..self.clone()` would
    /// copy both splits first, only to drop them).
    fn with_splits(&self, feature_names: Vec<String>, train: Split, test: Arc<Split>) -> Dataset {
        Dataset {
            name: self.name.clone(),
            feature_names,
            class_names: self.class_names.clone(),
            train,
            test,
            private: self.private,
            releases: self.releases.clone(),
        }
    }

    /// The same data with these examples added to the training set; the test split is shared,
    /// not copied. (The audit's member canaries are not copied in this way but read after the
    /// training rows in place, `train::Rows`; its tests compare the two.)
    pub fn with_training_rows(&self, x: &Array2<Real>, y: &[usize]) -> Dataset {
        // One allocation of the final size, and no clone of the training split but this one:
        // on Fashion-MNIST (188 MB of training rows) growing a copy row by row and cloning the
        // whole set besides held three copies at once, and wasm memory never shrinks.
        let train = Split {
            x: ndarray::concatenate(ndarray::Axis(0), &[self.train.x.view(), x.view()])
                .expect("a canary has the data's features"),
            y: self.train.y.iter().chain(y).copied().collect(),
        };
        self.with_splits(self.feature_names.clone(), train, Arc::clone(&self.test))
    }

    /// Largest L2 norm of any example's feature vector (train and test).
    pub fn max_feature_norm(&self) -> Real {
        self.train
            .x
            .rows()
            .into_iter()
            .chain(self.test.x.rows())
            .map(|r| r.dot(&r).sqrt())
            .fold(0.0, Real::max)
    }
}
