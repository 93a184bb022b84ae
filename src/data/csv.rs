//! A student's own CSV: a header row, one column chosen as the label, numeric columns used as
//! they are (to be scaled later), other columns one-hot encoded. Every problem is reported with
//! the row and column it is in, and nothing panics on any input (fuzzed in the tests).

use super::DataError;
use crate::Real;
use ndarray::Array2;

/// Largest file accepted.
pub const MAX_BYTES: usize = 100 * 1024 * 1024;
/// Most classes a label column may have.
pub const MAX_CLASSES: usize = 100;

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

/// Raw rows of a CSV file: its header and records, all of the header's length.
struct Raw {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn read_raw(bytes: &[u8], what: &str) -> Result<Raw, DataError> {
    if bytes.len() > MAX_BYTES {
        return Err(bad(format!(
            "{what} is {:.1} MB; the limit is {} MB",
            bytes.len() as f64 / 1048576.0,
            MAX_BYTES / 1048576
        )));
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(bad(format!(
            "{what} is not UTF-8 text (first bad byte at offset {})",
            e.valid_up_to()
        )));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| bad(format!("{what}: cannot read the header row: {e}")))?
        .iter()
        .map(String::from)
        .collect();
    if header.iter().all(|h| h.is_empty()) {
        return Err(bad(format!(
            "{what} is empty: expected a header row and data rows"
        )));
    }
    if let Some(dup) = header
        .iter()
        .enumerate()
        .find(|(i, h)| header[..*i].contains(h))
    {
        return Err(bad(format!(
            "{what}: column name '{}' appears twice in the header",
            dup.1
        )));
    }
    let mut rows = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        let row = i + 2; // the header is row 1
        let rec = rec.map_err(|e| bad(format!("{what}, row {row}: {e}")))?;
        if rec.len() == 1 && rec[0].is_empty() {
            continue; // blank line
        }
        if rec.len() != header.len() {
            return Err(bad(format!(
                "{what}, row {row}: {} fields, but the header has {}",
                rec.len(),
                header.len()
            )));
        }
        rows.push(rec.iter().map(String::from).collect());
    }
    if rows.is_empty() {
        return Err(bad(format!("{what} has a header but no data rows")));
    }
    Ok(Raw { header, rows })
}

/// A numeric cell as the models' f32: a finite number within f32's range (±3.4e38), or why
/// not — a value beyond it would become infinite and break the sanitizer's bound.
fn parse_number(v: &str) -> Result<f64, String> {
    let shown = || v.chars().take(40).collect::<String>();
    match v.parse::<f64>() {
        Ok(n) if n.is_finite() && n.abs() <= f32::MAX as f64 => Ok(n),
        Ok(n) if n.is_nan() => Err(format!("'{}' is not a number", shown())),
        Ok(_) => Err(format!(
            "'{}' is beyond the range of the lab's numbers (±3.4e38)",
            shown()
        )),
        Err(_) => Err(format!("expected a number, found '{}'", shown())),
    }
}

/// How one feature column is encoded: as a number, or one-hot over its categories.
enum Encoding {
    Numeric,
    OneHot(Vec<String>),
}

/// Parses a CSV file with `label` as the class column. Columns whose first value is a number
/// are numeric (a later non-number is an error); the others are one-hot encoded.
pub fn parse_csv(bytes: &[u8], label: &str) -> Result<Table, DataError> {
    parse_csv_pair(bytes, None, label).map(|(t, _)| t)
}

/// Parses a training file and optionally a test file with the same columns, so both are
/// encoded alike (categories and classes from the training file; an unseen category in the
/// test file encodes as all zeros, an unseen class is an error).
pub fn parse_csv_pair(
    train: &[u8],
    test: Option<&[u8]>,
    label: &str,
) -> Result<(Table, Option<Table>), DataError> {
    let raw = read_raw(train, "the CSV file")?;
    let test_raw = test.map(|t| read_raw(t, "the test CSV file")).transpose()?;
    if let Some(t) = &test_raw {
        if t.header != raw.header {
            return Err(bad(
                "the test CSV file's header differs from the training file's",
            ));
        }
    }
    let label_col = raw.header.iter().position(|h| h == label).ok_or_else(|| {
        bad(format!(
            "label column '{label}' not found; the columns are: {}",
            raw.header.join(", ")
        ))
    })?;
    if raw.header.len() < 2 {
        return Err(bad(
            "the CSV file needs at least one feature column besides the label",
        ));
    }
    // Classes, in order of first appearance.
    let mut classes: Vec<String> = Vec::new();
    for row in &raw.rows {
        if !classes.contains(&row[label_col]) {
            classes.push(row[label_col].clone());
            if classes.len() > MAX_CLASSES {
                return Err(bad(format!(
                    "label column '{label}' has more than {MAX_CLASSES} classes"
                )));
            }
        }
    }
    if classes.len() < 2 {
        return Err(bad(format!(
            "label column '{label}' has only one class ('{}'); a classifier needs at least two",
            classes[0]
        )));
    }
    // Decide each feature column's encoding from the training file.
    let mut encodings = Vec::new();
    let mut names = Vec::new();
    let mut numeric = Vec::new();
    for (c, name) in raw.header.iter().enumerate() {
        if c == label_col {
            continue;
        }
        if raw.rows[0][c].parse::<f64>().is_ok_and(f64::is_finite) {
            encodings.push((c, Encoding::Numeric));
            names.push(name.clone());
            numeric.push(true);
        } else {
            let mut cats: Vec<String> = Vec::new();
            for row in &raw.rows {
                if !cats.contains(&row[c]) {
                    cats.push(row[c].clone());
                }
            }
            names.extend(cats.iter().map(|v| format!("{name}={v}")));
            numeric.extend(cats.iter().map(|_| false));
            encodings.push((c, Encoding::OneHot(cats)));
        }
    }
    let encode = |raw: &Raw, what: &str| -> Result<Table, DataError> {
        let mut x = Array2::<Real>::zeros((raw.rows.len(), names.len()));
        let mut y = Vec::with_capacity(raw.rows.len());
        for (i, row) in raw.rows.iter().enumerate() {
            let mut j = 0;
            for (c, enc) in &encodings {
                let v = &row[*c];
                match enc {
                    Encoding::Numeric => {
                        let num = parse_number(v).map_err(|why| {
                            bad(format!(
                                "{what}, row {}, column '{}': {why}",
                                i + 2,
                                raw.header[*c]
                            ))
                        })?;
                        x[[i, j]] = num as Real;
                        j += 1;
                    }
                    Encoding::OneHot(cats) => {
                        if let Some(k) = cats.iter().position(|cat| cat == v) {
                            x[[i, j + k]] = 1.0;
                        }
                        j += cats.len();
                    }
                }
            }
            let class = classes
                .iter()
                .position(|cl| *cl == row[label_col])
                .ok_or_else(|| {
                    bad(format!(
                        "{what}, row {}: class '{}' does not occur in the training file",
                        i + 2,
                        row[label_col]
                    ))
                })?;
            y.push(class);
        }
        Ok(Table {
            feature_names: names.clone(),
            numeric: numeric.clone(),
            columns: encodings.len(),
            class_names: classes.clone(),
            x,
            y,
        })
    };
    let train_table = encode(&raw, "the CSV file")?;
    let test_table = test_raw
        .as_ref()
        .map(|t| encode(t, "the test CSV file"))
        .transpose()?;
    Ok((train_table, test_table))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_csv(text.as_bytes(), "y").unwrap_err().0
    }

    #[test]
    fn parses_numbers_and_one_hot_categories() {
        let t = parse_csv(b"a, colour ,y\n1.5,red,yes\n-2,blue,no\n3,red,no\n", "y").unwrap();
        assert_eq!(t.feature_names, ["a", "colour=red", "colour=blue"]);
        assert_eq!(t.class_names, ["yes", "no"]);
        assert_eq!(t.y, [0, 1, 1]);
        assert_eq!(t.x.row(1).to_vec(), [-2.0, 0.0, 1.0]);
    }

    #[test]
    fn every_bad_input_names_where_and_what() {
        assert!(err("").contains("empty"));
        assert!(err("a,y\n").contains("no data rows"));
        assert!(err("a,b\n1,2\n").contains("label column 'y' not found; the columns are: a, b"));
        assert!(err("a,y\n1,0\n2,0\n").contains("only one class ('0')"));
        let e = err("a,b,y\n1,2,0\n1,2\n");
        assert!(
            e.contains("row 3") && e.contains("2 fields") && e.contains("header has 3"),
            "{e}"
        );
        let e = err("a,y\n1,0\nseven,1\n");
        assert!(
            e.contains("row 3, column 'a': expected a number, found 'seven'"),
            "{e}"
        );
        let many: String = std::iter::once("a,y\n".to_string())
            .chain((0..101).map(|i| format!("1,c{i}\n")))
            .collect();
        assert!(err(&many).contains("more than 100 classes"));
        assert!(parse_csv(&[b'a', b',', b'y', b'\n', 0xff, b'\n'], "y")
            .unwrap_err()
            .0
            .contains("UTF-8"));
        assert!(err("a,a,y\n1,2,0\n").contains("appears twice"));
    }

    #[test]
    fn test_file_is_encoded_like_the_training_file() {
        let (tr, te) = parse_csv_pair(b"c,y\nu,0\nv,1\n", Some(b"c,y\nw,1\nu,0\n"), "y").unwrap();
        let te = te.unwrap();
        assert_eq!(tr.feature_names, ["c=u", "c=v"]);
        assert_eq!(
            te.x.row(0).to_vec(),
            [0.0, 0.0],
            "unseen category: all zeros"
        );
        assert_eq!(te.y, [1, 0]);
        let e = parse_csv_pair(b"c,y\nu,0\nv,1\n", Some(b"c,y\nu,2\n"), "y")
            .unwrap_err()
            .0;
        assert!(e.contains("test CSV file, row 2: class '2'"), "{e}");
    }
}
