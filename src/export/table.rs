//! A split of prepared examples as CSV: the feature names, then `label`; one row per example,
//! each feature as the shortest decimal that reads back as the same f32, then the class index.
//! What an exported script reads (`np.loadtxt(..., skiprows=1)`), and the DP-PCA basis beside it.

use crate::data::Split;
use crate::Real;
use ndarray::ArrayView2;
use std::fmt::Write;

/// A header field: a line break shown as `\n` (the script skips the header as one line:
/// a quoted line break would make it two), then quoted (quotes doubled) when it holds a comma
/// or a quote.
pub fn csv_field(name: &str) -> String {
    let name = name.replace('\r', "\\r").replace('\n', "\\n");
    if name.contains([',', '"']) {
        format!("\"{}\"", name.replace('"', "\"\""))
    } else {
        name
    }
}

/// `split` with a header of `feature_names` and `label`.
pub fn split_csv(split: &Split, feature_names: &[String]) -> String {
    let mut out = String::new();
    for name in feature_names {
        out.push_str(&csv_field(name));
        out.push(',');
    }
    out.push_str("label\n");
    for (row, label) in split.x.rows().into_iter().zip(&split.y) {
        for v in row {
            let _ = write!(out, "{v},");
        }
        let _ = writeln!(out, "{label}");
    }
    out
}

/// A matrix without a header, one row per line.
pub fn matrix_csv(m: ArrayView2<Real>) -> String {
    let mut out = String::new();
    for row in m.rows() {
        let cells: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn values_read_back_exactly_and_names_are_quoted() {
        let split = Split {
            x: array![[0.1f32, -3.25e-7], [1.0 / 3.0, 0.0]],
            y: vec![1, 0],
        };
        let text = split_csv(&split, &["a,b".into(), "say \"x\"\nnow".into()]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "\"a,b\",\"say \"\"x\"\"\\nnow\",label");
        assert_eq!(lines.len(), 1 + split.len(), "the header is one line");
        for (line, (row, y)) in lines[1..]
            .iter()
            .zip(split.x.rows().into_iter().zip(&split.y))
        {
            let cells: Vec<&str> = line.split(',').collect();
            let back: Vec<f32> = cells[..2].iter().map(|c| c.parse().unwrap()).collect();
            assert_eq!(back, row.to_vec());
            assert_eq!(cells[2], y.to_string());
        }
        assert_eq!(matrix_csv(split.x.view()).lines().count(), 2);
    }
}
