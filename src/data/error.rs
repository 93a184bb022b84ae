//! Why a data set could not be read or prepared (#54 §3), as [`AccountError`] says why the
//! accountants refused: its kind, the column at fault when one is, and the sentence that says
//! so with what to do (what `Display` prints, word for word what the page and the CLI show).
//!
//! [`AccountError`]: crate::privacy::accountant::AccountError

use std::fmt;

/// A data set refused: what kind of fault, in which column if one, and the sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct DataError {
    pub kind: DataErrorKind,
    /// The column at fault, as the file names it, when one column is.
    pub column: Option<String>,
    pub message: String,
}

/// What a [`DataError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataErrorKind {
    /// Bytes not in the file's format: a packed data set, IDX, gzip, CSV text, a value that is
    /// not a number, a header that differs.
    Format,
    /// A file, a header or a table larger than the lab reads.
    TooLarge,
    /// Too few rows for what was asked (a split, a test set, a private estimate), or rows
    /// that do not match (images and labels).
    Rows,
    /// A column's range: stated badly, twice, empty, or not to be found privately.
    Range,
    /// A name that is not one of its kind's (a built-in data set, a synthetic shape, a column).
    UnknownName,
    /// A parameter outside its valid range (a synthetic data set's size or noise).
    OutOfRange,
}

impl DataError {
    pub fn new(kind: DataErrorKind, message: impl Into<String>) -> Self {
        DataError {
            kind,
            column: None,
            message: message.into(),
        }
    }

    /// Bytes not in the file's format.
    pub fn format(message: impl Into<String>) -> Self {
        Self::new(DataErrorKind::Format, message)
    }

    /// More than the lab reads.
    pub fn too_large(message: impl Into<String>) -> Self {
        Self::new(DataErrorKind::TooLarge, message)
    }

    /// Too few rows, or rows that do not match.
    pub fn rows(message: impl Into<String>) -> Self {
        Self::new(DataErrorKind::Rows, message)
    }

    /// Column `column`'s range, said by `message`.
    pub fn range(column: &str, message: impl Into<String>) -> Self {
        Self::new(DataErrorKind::Range, message).in_column(column)
    }

    /// A name that names nothing of its kind.
    pub fn unknown_name(message: impl Into<String>) -> Self {
        Self::new(DataErrorKind::UnknownName, message)
    }

    /// A parameter outside its range.
    pub fn out_of_range(message: impl Into<String>) -> Self {
        Self::new(DataErrorKind::OutOfRange, message)
    }

    /// The same error, at fault in `column`.
    pub fn in_column(mut self, column: &str) -> Self {
        self.column = Some(column.to_string());
        self
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DataError {}
