//! Datasets: feature matrices with labels, split into train and test, and the decoders of the
//! files the lab ships under `www/data/`.

pub mod builtin;
pub mod csv;
pub mod idx;
mod packed;
pub mod pca;
pub mod split;
pub mod synthetic;

pub use packed::{decode_packed, DataError};

use crate::Real;
use ndarray::Array2;

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
    pub test: Split,
}

impl Dataset {
    pub fn n_classes(&self) -> usize {
        self.class_names.len()
    }

    pub fn n_features(&self) -> usize {
        self.feature_names.len()
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
