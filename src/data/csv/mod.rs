//! A student's own CSV: a header row, one column chosen as the label, numeric columns used as
//! they are (to be scaled later), other columns one-hot encoded. Every problem is reported in
//! one line with the row and column it is in, and nothing panics on any input (fuzzed in the
//! tests).
//!
//! Hostile input is refused before it costs time or memory: gzip and non-UTF-8 bytes by their
//! first bytes; more than [`MAX_COLUMNS`] fields in any record by a scan that allocates nothing
//! (the csv reader would hold 8 bytes per field); more than [`MAX_CATEGORIES`] values of one
//! text column, and more than [`MAX_CELLS`] encoded values in all, while counting — before the
//! matrix is allocated. The file is read twice (once to plan the encoding, once to fill the
//! matrix) rather than held as strings, which took ~50 bytes per cell. Lookups are hash maps,
//! so every pass is linear in the file.

mod encoding;
mod records;

use super::DataError;
use crate::text::shown;
use crate::Real;
use encoding::{encode, plan, too_many_cells, Encoding};
use ndarray::Array2;
use records::{for_each_row, read_header, text_of};
pub use records::{header_names, HEADER_PREFIX};
use unicode_normalization::UnicodeNormalization;

/// A column's name as the lab compares it: in Unicode's composed form (NFC), so a header
/// written decomposed (`a` + U+0302) and a name typed composed (`â`) are one name. The header's
/// names, the label and stated bounds all go through it.
pub fn column_name(name: &str) -> String {
    name.nfc().collect()
}

/// Largest file accepted.
pub const MAX_BYTES: usize = 100 * 1024 * 1024;
/// Most classes a label column may have.
pub const MAX_CLASSES: usize = 100;
/// Most columns (fields of any record) a file may have.
pub const MAX_COLUMNS: usize = 10_000;
/// Most distinct values of a one-hot encoded column: each becomes a feature, so more is an ID
/// or free text, which a model cannot learn from anyway.
pub const MAX_CATEGORIES: usize = 1000;
/// Most encoded values, rows × features of the training and test files together: 50 million
/// f32, 200 MB.
pub const MAX_CELLS: usize = 50_000_000;

/// A parsed table: encoded features and class labels, before any split or scaling.
#[derive(Clone, Debug)]
pub struct Table {
    pub feature_names: Vec<String>,
    /// Whether each feature is a numeric column (the others are one-hot indicators).
    pub numeric: Vec<bool>,
    /// Feature columns of the file (a one-hot column's indicators count once).
    pub columns: usize,
    pub class_names: Vec<String>,
    pub x: Array2<Real>,
    pub y: Vec<usize>,
}

/// The file is not a table the lab reads.
pub(super) fn bad(msg: impl Into<String>) -> DataError {
    DataError::format(msg)
}

/// Parses a CSV file with `label` as the class column. Columns whose first value is a number
/// are numeric (a later non-number is an error); the others are one-hot encoded.
pub fn parse_csv(bytes: &[u8], label: &str) -> Result<Table, DataError> {
    parse_csv_pair(bytes, None, label).map(|(t, _)| t)
}

/// The header's names for a message: the first 20, then how many there are.
fn list_columns(header: &[String]) -> String {
    let mut names: Vec<String> = header.iter().take(20).map(|h| shown(h)).collect();
    if header.len() > 20 {
        names.push(format!("… ({} columns)", header.len()));
    }
    names.join(", ")
}

/// Parses a training file and optionally a test file with the same columns, so both are
/// encoded alike (categories and classes from the training file; an unseen category in the
/// test file encodes as all zeros, an unseen class is an error).
pub fn parse_csv_pair(
    train: &[u8],
    test: Option<&[u8]>,
    label: &str,
) -> Result<(Table, Option<Table>), DataError> {
    let (what, test_what) = ("the CSV file", "the test CSV file");
    let text = text_of(train, what)?;
    let header = read_header(text, what)?;
    let test_text = match test {
        Some(t) => {
            let t = text_of(t, test_what)?;
            let test_header = read_header(t, test_what)?;
            if test_header != header {
                return Err(bad(header_difference(&header, &test_header)));
            }
            Some(t)
        }
        None => None,
    };
    let label = column_name(label);
    let label = label.as_str();
    let label_col = header.iter().position(|h| h == label).ok_or_else(|| {
        DataError::unknown_name(format!(
            "label column '{}' not found; the columns are: {}",
            shown(label),
            list_columns(&header)
        ))
        .in_column(label)
    })?;
    if header.len() < 2 {
        return Err(bad(
            "the CSV file needs at least one feature column besides the label",
        ));
    }
    let plan = plan(text, &header, label_col)?;
    if plan.classes.list.len() < 2 {
        return Err(DataError::rows(format!(
            "label column '{}' has only one class ('{}'); a classifier needs at least two",
            shown(label),
            shown(&plan.classes.list[0])
        ))
        .in_column(label));
    }
    let test_rows = match test_text {
        Some(t) => {
            let n = for_each_row(t, test_what, header.len(), |_, _| Ok(()))?;
            if n == 0 {
                return Err(DataError::rows(format!(
                    "{test_what} has a header but no data rows"
                )));
            }
            let rows = plan.rows + n;
            if rows
                .checked_mul(plan.features)
                .is_none_or(|c| c > MAX_CELLS)
            {
                return Err(too_many_cells("the two CSV files", rows, plan.features));
            }
            n
        }
        None => 0,
    };
    let mut names = Vec::with_capacity(plan.features);
    let mut numeric = Vec::with_capacity(plan.features);
    for (c, enc) in &plan.encodings {
        match enc {
            Encoding::Numeric => {
                names.push(header[*c].clone());
                numeric.push(true);
            }
            Encoding::OneHot(cats) => {
                names.extend(
                    cats.values
                        .list
                        .iter()
                        .map(|v| format!("{}={v}", header[*c])),
                );
                numeric.extend(cats.values.list.iter().map(|_| false));
            }
        }
    }
    let table = |(x, y): (Array2<Real>, Vec<usize>)| Table {
        feature_names: names.clone(),
        numeric: numeric.clone(),
        columns: plan.encodings.len(),
        class_names: plan.classes.list.clone(),
        x,
        y,
    };
    let train_table = table(encode(text, what, &header, &plan, plan.rows)?);
    let test_table = match test_text {
        Some(t) => Some(table(encode(t, test_what, &header, &plan, test_rows)?)),
        None => None,
    };
    Ok((train_table, test_table))
}

/// Where the test file's header differs from the training file's, in words.
fn header_difference(train: &[String], test: &[String]) -> String {
    match train.iter().zip(test).position(|(a, b)| a != b) {
        Some(i) => format!(
            "the test CSV file's column {} is '{}' where the training file's is '{}'",
            i + 1,
            shown(&test[i]),
            shown(&train[i])
        ),
        None => format!(
            "the test CSV file has {} columns, the training file {}",
            test.len(),
            train.len()
        ),
    }
}

#[cfg(test)]
mod tests;
