//! Why a private file was refused, and what its preparation had released by then: the one
//! error of [`super::split::private_dataset`], with the columns a form of ranges needs when
//! ranges are what the file lacks.

use super::types::Range;
use crate::data::DataError;
use crate::privacy::accountant::mechanism::{Release, ReleaseKind};
use serde::Serialize;
use std::fmt;

/// A private file that could not be prepared, and what its preparation had released when it
/// failed: a range estimate's noisy histograms, which the verdict was read from. Spent all the
/// same, so a ledger of the file counts them (the page's does). When ranges are what is
/// missing, `ranges` lists every numeric column for the page's form.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepError {
    pub error: DataError,
    pub spent: Vec<Release>,
    /// Boxed: the refusal stays small to return (clippy::result_large_err).
    pub ranges: Option<Box<RangesNeeded>>,
}

impl From<DataError> for PrepError {
    fn from(error: DataError) -> Self {
        PrepError {
            error,
            spent: Vec::new(),
            ranges: None,
        }
    }
}

/// A file refused for want of ranges: every numeric column in the file's order with the range
/// stated for it (`None`: it needs one), the file's rows and how many the private estimate of
/// the columns without a range would need; `estimated`: whether that estimate was made (and
/// found nothing: its release is in [`PrepError::spent`]) or refused before any release.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RangesNeeded {
    pub columns: Vec<ColumnRange>,
    pub rows: usize,
    pub rows_needed: usize,
    pub estimated: bool,
}

/// A numeric column and its stated range, if any.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColumnRange {
    pub name: String,
    pub range: Option<Range>,
}

impl fmt::Display for PrepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        for r in &self.spent {
            match r.what {
                ReleaseKind::ReadOff => write!(
                    f,
                    ". This attempt already released the ranges you read off your file (no \
                     noise: ε = ∞), which counts toward what your file has released"
                )?,
                what => write!(
                    f,
                    ". This attempt already released {} (one Gaussian release, σ = {}), which \
                     counts toward what your file has released",
                    match what {
                        ReleaseKind::Bounds => "the noisy histograms of your columns' ranges",
                        _ => "a noisy release about your file",
                    },
                    crate::text::noise_in_words(r.sigma)
                )?,
            }
        }
        Ok(())
    }
}
