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

mod records;

use super::DataError;
use crate::Real;
use ndarray::Array2;
use records::{for_each_row, read_header, text_of};
pub use records::{header_names, shown, shown_up_to, HEADER_PREFIX};
use std::collections::HashMap;

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

fn bad(msg: impl Into<String>) -> DataError {
    DataError(msg.into())
}

/// Whether `v` is a number written with a comma: a thousands separator ("1,234") or a decimal
/// comma ("3,5", "1.234,5").
fn written_with_comma(v: &str) -> bool {
    let digits = v.strip_prefix(|c| c == '+' || c == '-').unwrap_or(v);
    digits.contains(',')
        && digits.starts_with(|c: char| c.is_ascii_digit())
        && digits.ends_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
}

const COMMA_HINT: &str = "write numbers without thousands separators and with a decimal point \
                          (1234.5, not 1,234.5 or 1234,5)";

/// A numeric cell as the models' f32: a finite number within f32's range (±3.4e38), or why
/// not — a value beyond it would become infinite and break the sanitizer's bound.
fn parse_number(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(n) if n.is_finite() && n.abs() <= f32::MAX as f64 => Ok(n),
        Ok(n) if n.is_nan() => Err(format!("'{}' is not a number", shown(v))),
        Ok(_) => Err(format!(
            "'{}' is beyond the range of the lab's numbers (±3.4e38)",
            shown(v)
        )),
        Err(_) if written_with_comma(v) => Err(format!("'{}': {COMMA_HINT}", shown(v))),
        Err(_) => Err(format!("expected a number, found '{}'", shown(v))),
    }
}

fn is_number(v: &str) -> bool {
    v.parse::<f64>().is_ok_and(f64::is_finite)
}

/// Values in order of first appearance, with a map from value to index.
#[derive(Default)]
struct Values {
    list: Vec<String>,
    index: HashMap<String, usize>,
}

impl Values {
    /// Adds `v` if new; whether it was new.
    fn add(&mut self, v: &str) -> bool {
        if self.index.contains_key(v) {
            return false;
        }
        self.index.insert(v.to_string(), self.list.len());
        self.list.push(v.to_string());
        true
    }
}

/// A one-hot column's categories, and whether they all look like numbers (plain, empty, or
/// written with a comma), with the first written with a comma (row, value).
struct Categories {
    values: Values,
    numbers_only: bool,
    first_comma: Option<(usize, String)>,
}

/// How one feature column is encoded: as a number, or one-hot over its categories.
enum Encoding {
    Numeric,
    OneHot(Categories),
}

/// The encoding decided from the training file: classes, each feature column's encoding
/// (by column index), and the number of encoded features and of rows.
struct Plan {
    label_col: usize,
    classes: Values,
    encodings: Vec<(usize, Encoding)>,
    features: usize,
    rows: usize,
}

fn too_many_cells(what: &str, rows: usize, features: usize) -> DataError {
    bad(format!(
        "{what} would encode to more than {MAX_CELLS} values ({rows} rows × {features} \
         features); the lab holds at most {MAX_CELLS} (200 MB): use fewer rows, or fewer or \
         less varied text columns"
    ))
}

/// Reads the training file once: its classes, which columns are numeric (those whose first
/// value is a number) and the categories of the others, every bound checked as it grows.
fn plan(text: &str, header: &[String], label_col: usize) -> Result<Plan, DataError> {
    let what = "the CSV file";
    let mut p = Plan {
        label_col,
        classes: Values::default(),
        encodings: Vec::new(),
        features: 0,
        rows: 0,
    };
    let rows = for_each_row(text, what, header.len(), |row, rec| {
        if p.rows == 0 {
            for (c, v) in rec.iter().enumerate().filter(|&(c, _)| c != label_col) {
                let enc = if is_number(v) {
                    p.features += 1;
                    Encoding::Numeric
                } else {
                    Encoding::OneHot(Categories {
                        values: Values::default(),
                        numbers_only: true,
                        first_comma: None,
                    })
                };
                p.encodings.push((c, enc));
            }
        }
        if p.classes.add(&rec[label_col]) && p.classes.list.len() > MAX_CLASSES {
            return Err(bad(format!(
                "{what}, row {row}: label column '{}' has more than {MAX_CLASSES} classes",
                shown(&header[label_col])
            )));
        }
        for (c, enc) in &mut p.encodings {
            let (Encoding::OneHot(cats), v) = (enc, &rec[*c]) else {
                continue;
            };
            if !cats.values.add(v) {
                continue;
            }
            p.features += 1;
            let comma = written_with_comma(v);
            cats.numbers_only &= comma || v.is_empty() || is_number(v);
            if comma && cats.first_comma.is_none() {
                cats.first_comma = Some((row, v.to_string()));
            }
            if cats.values.list.len() > MAX_CATEGORIES {
                return Err(comma_error(what, &header[*c], cats).unwrap_or_else(|| {
                    bad(format!(
                        "{what}, row {row}: column '{}' has more than {MAX_CATEGORIES} distinct \
                         values; one-hot encoding it would add a feature per value — drop an \
                         ID or free-text column, or make it numeric",
                        shown(&header[*c])
                    ))
                }));
            }
        }
        p.rows += 1;
        match p.rows.checked_mul(p.features) {
            Some(cells) if cells <= MAX_CELLS => Ok(()),
            _ => Err(too_many_cells(what, p.rows, p.features)),
        }
    })?;
    if rows == 0 {
        return Err(bad(format!("{what} has a header but no data rows")));
    }
    if let Some(e) = p.encodings.iter().find_map(|(c, enc)| match enc {
        Encoding::OneHot(cats) => comma_error(what, &header[*c], cats),
        Encoding::Numeric => None,
    }) {
        return Err(e);
    }
    Ok(p)
}

/// The error for a text column whose values are all numbers, some written with a comma: it
/// would be one-hot encoded by mistake.
fn comma_error(what: &str, name: &str, cats: &Categories) -> Option<DataError> {
    let (row, v) = cats.first_comma.as_ref().filter(|_| cats.numbers_only)?;
    Some(bad(format!(
        "{what}, row {row}, column '{}': '{}' looks like a number with a thousands separator \
         or a decimal comma; {COMMA_HINT}",
        shown(name),
        shown(v)
    )))
}

/// Encodes the `rows` records of a file as the plan says (an unseen category as all zeros, an
/// unseen class as an error).
fn encode(
    text: &str,
    what: &str,
    header: &[String],
    plan: &Plan,
    rows: usize,
) -> Result<(Array2<Real>, Vec<usize>), DataError> {
    let mut x = Array2::<Real>::zeros((rows, plan.features));
    let mut y = Vec::with_capacity(rows);
    for_each_row(text, what, header.len(), |row, rec| {
        let i = y.len();
        if i >= rows {
            return Err(bad(format!("{what} changed while it was read")));
        }
        let mut j = 0;
        for (c, enc) in &plan.encodings {
            let v = &rec[*c];
            match enc {
                Encoding::Numeric => {
                    let num = parse_number(v).map_err(|why| {
                        bad(format!(
                            "{what}, row {row}, column '{}': {why}",
                            shown(&header[*c])
                        ))
                    })?;
                    x[[i, j]] = num as Real;
                    j += 1;
                }
                Encoding::OneHot(cats) => {
                    if let Some(&k) = cats.values.index.get(v) {
                        x[[i, j + k]] = 1.0;
                    }
                    j += cats.values.list.len();
                }
            }
        }
        let label = &rec[plan.label_col];
        let class = plan.classes.index.get(label).ok_or_else(|| {
            bad(format!(
                "{what}, row {row}: class '{}' does not occur in the training file",
                shown(label)
            ))
        })?;
        y.push(*class);
        Ok(())
    })?;
    Ok((x, y))
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
    let label_col = header.iter().position(|h| h == label).ok_or_else(|| {
        bad(format!(
            "label column '{}' not found; the columns are: {}",
            shown(label),
            list_columns(&header)
        ))
    })?;
    if header.len() < 2 {
        return Err(bad(
            "the CSV file needs at least one feature column besides the label",
        ));
    }
    let plan = plan(text, &header, label_col)?;
    if plan.classes.list.len() < 2 {
        return Err(bad(format!(
            "label column '{}' has only one class ('{}'); a classifier needs at least two",
            shown(label),
            shown(&plan.classes.list[0])
        )));
    }
    let test_rows = match test_text {
        Some(t) => {
            let n = for_each_row(t, test_what, header.len(), |_, _| Ok(()))?;
            if n == 0 {
                return Err(bad(format!("{test_what} has a header but no data rows")));
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
