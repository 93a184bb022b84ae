//! The encoding of a file's columns: the plan read once from the training file (its classes,
//! which columns are numeric and the categories of the others, every bound checked as it
//! grows), and each file's records encoded by that plan into the feature matrix and labels.
//! Numbers written with a comma are refused with a hint rather than one-hot encoded.

use super::records::for_each_row;
use super::{bad, MAX_CATEGORIES, MAX_CELLS, MAX_CLASSES};
use crate::data::DataError;
use crate::text::shown;
use crate::Real;
use ndarray::Array2;
use std::collections::HashMap;

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
pub(super) struct Values {
    pub(super) list: Vec<String>,
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
pub(super) struct Categories {
    pub(super) values: Values,
    numbers_only: bool,
    first_comma: Option<(usize, String)>,
}

/// How one feature column is encoded: as a number, or one-hot over its categories.
pub(super) enum Encoding {
    Numeric,
    OneHot(Categories),
}

/// The encoding decided from the training file: classes, each feature column's encoding
/// (by column index), and the number of encoded features and of rows.
pub(super) struct Plan {
    label_col: usize,
    pub(super) classes: Values,
    pub(super) encodings: Vec<(usize, Encoding)>,
    pub(super) features: usize,
    pub(super) rows: usize,
}

pub(super) fn too_many_cells(what: &str, rows: usize, features: usize) -> DataError {
    DataError::too_large(format!(
        "{what} would encode to more than {MAX_CELLS} values ({rows} rows × {features} \
         features); the lab holds at most {MAX_CELLS} (200 MB): use fewer rows, or fewer or \
         less varied text columns"
    ))
}

/// Reads the training file once: its classes, which columns are numeric (those whose first
/// value is a number) and the categories of the others, every bound checked as it grows.
pub(super) fn plan(text: &str, header: &[String], label_col: usize) -> Result<Plan, DataError> {
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
            return Err(DataError::too_large(format!(
                "{what}, row {row}: label column '{}' has more than {MAX_CLASSES} classes",
                shown(&header[label_col])
            ))
            .in_column(&header[label_col]));
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
                    DataError::too_large(format!(
                        "{what}, row {row}: column '{}' has more than {MAX_CATEGORIES} distinct \
                         values; one-hot encoding it would add a feature per value — drop an \
                         ID or free-text column, or make it numeric",
                        shown(&header[*c])
                    ))
                    .in_column(&header[*c])
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
        return Err(DataError::rows(format!(
            "{what} has a header but no data rows"
        )));
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
    let said = format!(
        "{what}, row {row}, column '{}': '{}' looks like a number with a thousands separator \
         or a decimal comma; {COMMA_HINT}",
        shown(name),
        shown(v)
    );
    Some(bad(said).in_column(name))
}

/// Encodes the `rows` records of a file as the plan says (an unseen category as all zeros, an
/// unseen class as an error).
pub(super) fn encode(
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
                        .in_column(&header[*c])
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
            .in_column(&header[plan.label_col])
        })?;
        y.push(*class);
        Ok(())
    })?;
    Ok((x, y))
}
