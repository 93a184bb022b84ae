//! Ranges a user states for a private file's numeric columns: the text field's (and
//! `--bounds`') "name=min:max, name=min:max", and the page's form of ranges. A name holding a
//! separator (`,` `;` a line end), a quote or `=` is written between double quotes, a quote in
//! it doubled, as in a CSV file: `"e,f"=0:1`. Names are compared in Unicode's composed form
//! (NFC), as the file's header is read ([`column_name`]).

use super::types::{Range, SEPARATORS};
use crate::data::csv::column_name;
use crate::data::{DataError, DataErrorKind};
use crate::text::shown;
use std::collections::{HashMap, HashSet};

/// How stated ranges are written, for a message.
const HOW: &str = "write name=min:max, e.g. age=0:120 (a name with a comma, a semicolon, a quote \
                   or = in double quotes, a quote in it doubled: \"e,f\"=0:1)";

/// A quoted name's text after its opening quote: the name (`""` read as one quote) and what
/// follows its closing quote; None when the quote is never closed.
fn unquoted(text: &str) -> Option<(String, &str)> {
    let mut name = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '"' {
            name.push(c);
        } else if chars.next_if(|&(_, n)| n == '"').is_some() {
            name.push('"');
        } else {
            return Some((name, &text[i + 1..]));
        }
    }
    None
}

/// Parses stated bounds "name=lo:hi, name=lo:hi" (names as in the file's header; quoted as
/// [`written_name`] writes them).
pub fn parse_stated(text: &str) -> Result<Vec<(String, Range)>, DataError> {
    let mut out: Vec<(String, Range)> = Vec::new();
    let mut seen = HashSet::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || SEPARATORS.contains(&c));
        if rest.is_empty() {
            return Ok(out);
        }
        let (name, after_name) = match rest.strip_prefix('"') {
            Some(quoted) => unquoted(quoted).ok_or_else(|| {
                DataError::new(
                    DataErrorKind::Range,
                    format!(
                        "bounds '{}': the quote before the name is never closed; {HOW}",
                        shown(rest)
                    ),
                )
            })?,
            None => {
                let end = rest.find(SEPARATORS).unwrap_or(rest.len());
                match rest[..end].rsplit_once('=') {
                    Some((name, _)) => (name.to_string(), &rest[name.len()..]),
                    None => (String::new(), &rest[end..]),
                }
            }
        };
        let end = after_name.find(SEPARATORS).unwrap_or(after_name.len());
        let item = &rest[..rest.len() - after_name.len() + end];
        let said = format!("bounds '{}': {HOW}", shown(item.trim()));
        let bad = || DataError::new(DataErrorKind::Range, said.clone());
        let span = after_name[..end].trim().strip_prefix('=').ok_or_else(bad)?;
        let (lo, hi) = span.split_once(':').ok_or_else(bad)?;
        let (lo, hi): (f64, f64) = (
            lo.trim().parse().map_err(|_| bad())?,
            hi.trim().parse().map_err(|_| bad())?,
        );
        let name = column_name(name.trim());
        let range = checked(&name, lo, hi)?;
        if !seen.insert(name.clone()) {
            return Err(twice(&name));
        }
        out.push((name, range));
        rest = &after_name[end..];
    }
}

fn twice(name: &str) -> DataError {
    DataError::range(name, format!("bounds of '{}' are given twice", shown(name)))
}

/// The ranges stated in `text` (the text field) and in `given` (the page's form of ranges:
/// (column, min, max) each), the form's the later word on a column both name.
pub fn stated_with(
    text: &str,
    given: &[(String, f64, f64)],
) -> Result<Vec<(String, Range)>, DataError> {
    let mut out = parse_stated(text)?;
    // By name, so thousands of columns stay linear (a hash map, as the CSV parser's lookups).
    let mut at: HashMap<String, usize> = out
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), i))
        .collect();
    let mut seen = HashSet::new();
    for (name, lo, hi) in given {
        let name = column_name(name);
        if !seen.insert(name.clone()) {
            return Err(twice(&name));
        }
        let range = checked(&name, *lo, *hi)?;
        match at.get(&name) {
            Some(&i) => out[i].1 = range,
            None => {
                at.insert(name.clone(), out.len());
                out.push((name, range));
            }
        }
    }
    Ok(out)
}

/// The range [lo, hi] of column `name` (a stated one: from the text field or the page's form
/// of ranges), or why it cannot be one: not numbers, beyond the lab's numbers (f32, as the
/// features are), or min not below max.
pub fn checked(name: &str, lo: f64, hi: f64) -> Result<Range, DataError> {
    let of = || format!("bounds of '{}'", shown(name));
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(DataError::range(
            name,
            format!("{}: min and max must be finite numbers", of()),
        ));
    }
    if let Some((end, v)) = [("min", lo), ("max", hi)]
        .into_iter()
        .find(|(_, v)| v.abs() > f32::MAX as f64)
    {
        return Err(DataError::range(
            name,
            format!(
                "{}: {end} = {v:e} is beyond the range of the lab's numbers (32-bit floats: \
                 ±3.4e38)",
                of()
            ),
        ));
    }
    if lo >= hi {
        return Err(DataError::range(
            name,
            format!("{}: min must be below max", of()),
        ));
    }
    Ok(Range { lo, hi })
}

#[cfg(test)]
#[path = "stated_tests.rs"]
mod tests;
