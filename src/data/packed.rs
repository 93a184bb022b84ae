//! Decoder of the lab's packed dataset files (written by `scripts/prepare_adult.py`; the format
//! is documented there): raw integers and category indices, column-major, with a JSON header.
//!
//! Encoding, as a teacher would expect for logistic regression: categorical columns one-hot,
//! numeric columns (after an optional log1p) scaled to [0, 1] between the public bounds the
//! file declares (from the data's documentation, never from its records: for Adult, age
//! 17–90, hours 1–99, …; see `scripts/prepare_adult.py`), and the whole vector divided by
//! sqrt(#columns) so every example has ||x||₂ ≤ 1 — a bounded norm keeps per-example
//! gradients comparable to C.

use super::{DataError, Dataset, Split};
use crate::Real;
use ndarray::Array2;
use serde::Deserialize;
use std::sync::Arc;

const MAGIC: &[u8] = b"DPSGDDATA1\n";

#[derive(Deserialize)]
struct Header {
    name: String,
    n_train: usize,
    n_test: usize,
    label: Column,
    columns: Vec<Column>,
}

#[derive(Deserialize)]
struct Column {
    name: String,
    kind: String,
    width: usize,
    #[serde(default)]
    values: Vec<String>,
    #[serde(default)]
    transform: Option<String>,
    /// Public bounds [min, max] of a numeric column, before the transform.
    #[serde(default)]
    bounds: Option<[f64; 2]>,
}

/// Decodes a packed dataset file into encoded train and test splits.
pub fn decode_packed(bytes: &[u8]) -> Result<Dataset, DataError> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| DataError::format("not a packed dataset file (bad magic bytes)"))?;
    if rest.len() < 4 {
        return Err(DataError::format(
            "packed dataset truncated before its header",
        ));
    }
    let header_len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
    let rest = &rest[4..];
    if rest.len() < header_len {
        return Err(DataError::format(
            "packed dataset truncated inside its header",
        ));
    }
    let header: Header = serde_json::from_slice(&rest[..header_len])
        .map_err(|e| DataError::format(format!("packed dataset header is not valid: {e}")))?;
    let mut body = &rest[header_len..];
    let n = header.n_train + header.n_test;

    let mut read_column = |col: &Column| -> Result<Vec<u32>, DataError> {
        if ![1, 2, 4].contains(&col.width) {
            return Err(DataError::format(format!(
                "column {}: width {} is not 1, 2 or 4",
                col.name, col.width
            ))
            .in_column(&col.name));
        }
        let len = n * col.width;
        if body.len() < len {
            return Err(DataError::format(format!(
                "packed dataset truncated in column {}",
                col.name
            ))
            .in_column(&col.name));
        }
        let (raw, tail) = body.split_at(len);
        body = tail;
        Ok(raw
            .chunks_exact(col.width)
            .map(|c| c.iter().rev().fold(0u32, |acc, &b| (acc << 8) | b as u32))
            .collect())
    };

    // Each column becomes a block of encoded features with values in [0, 1].
    let mut names = Vec::new();
    let mut blocks: Vec<Vec<(usize, Real)>> = vec![Vec::new(); n]; // (feature index, value)
    for col in &header.columns {
        let raw = read_column(col)?;
        match col.kind.as_str() {
            "numeric" => {
                let log = col.transform.as_deref() == Some("log1p");
                let f = |v: f64| if log { v.ln_1p() } else { v };
                let [lo, hi] = col
                    .bounds
                    .filter(|[a, b]| a < b && *a >= 0.0)
                    .ok_or_else(|| {
                        DataError::range(
                            &col.name,
                            format!(
                                "column {}: a numeric column needs public bounds [min, max]",
                                col.name
                            ),
                        )
                    })?;
                let (lo, hi) = (f(lo), f(hi));
                let span = hi - lo;
                let vals: Vec<f64> = raw.iter().map(|&v| f(v as f64)).collect();
                let j = names.len();
                names.push(col.name.clone());
                for (i, v) in vals.iter().enumerate() {
                    blocks[i].push((j, ((v - lo) / span).clamp(0.0, 1.0) as Real));
                }
            }
            "categorical" => {
                let base = names.len();
                names.extend(col.values.iter().map(|v| format!("{}={}", col.name, v)));
                for (i, &v) in raw.iter().enumerate() {
                    if v as usize >= col.values.len() {
                        return Err(DataError::format(format!(
                            "column {}: category {v} out of range",
                            col.name
                        ))
                        .in_column(&col.name));
                    }
                    blocks[i].push((base + v as usize, 1.0));
                }
            }
            other => {
                let said = format!("column {}: unknown kind {other}", col.name);
                return Err(DataError::format(said).in_column(&col.name));
            }
        }
    }
    let labels = read_column(&header.label)?;
    let n_classes = header.label.values.len();
    if let Some(&l) = labels.iter().find(|&&l| l as usize >= n_classes) {
        return Err(DataError::format(format!(
            "label {l} out of range for {n_classes} classes"
        )));
    }

    // ||x|| ≤ sqrt(#columns) before this scale, ≤ 1 after.
    let scale = 1.0 / (header.columns.len().max(1) as Real).sqrt();
    let d = names.len();
    let build = |range: std::ops::Range<usize>| {
        let mut x = Array2::<Real>::zeros((range.len(), d));
        for (r, i) in range.clone().enumerate() {
            for &(j, v) in &blocks[i] {
                x[[r, j]] = v * scale;
            }
        }
        Split {
            x,
            y: labels[range].iter().map(|&l| l as usize).collect(),
        }
    };
    Ok(Dataset {
        name: header.name,
        feature_names: names,
        class_names: header.label.values,
        train: build(0..header.n_train),
        test: Arc::new(build(header.n_train..n)),
        private: false,
        releases: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_garbage_and_truncation_with_messages() {
        assert!(decode_packed(b"hello")
            .unwrap_err()
            .message
            .contains("magic"));
        let mut f = MAGIC.to_vec();
        f.extend_from_slice(&100u32.to_le_bytes());
        f.extend_from_slice(b"{}");
        assert!(decode_packed(&f).unwrap_err().message.contains("truncated"));
    }

    #[test]
    fn decodes_a_tiny_file() {
        let header = br#"{"name":"t","n_train":2,"n_test":1,"label":{"name":"y","kind":"categorical","width":1,"values":["a","b"]},"columns":[{"name":"n","kind":"numeric","width":2,"transform":"identity","bounds":[10,20]},{"name":"c","kind":"categorical","width":1,"values":["u","v","w"]}]}"#;
        let mut f = MAGIC.to_vec();
        f.extend_from_slice(&(header.len() as u32).to_le_bytes());
        f.extend_from_slice(header);
        for v in [10u16, 20, 30] {
            f.extend_from_slice(&v.to_le_bytes());
        }
        f.extend_from_slice(&[2, 0, 1]); // categories
        f.extend_from_slice(&[1, 0, 1]); // labels
        let d = decode_packed(&f).unwrap();
        assert_eq!(d.feature_names, ["n", "c=u", "c=v", "c=w"]);
        assert_eq!(d.train.y, [1, 0]);
        assert_eq!(d.test.y, [1]);
        let s = 1.0 / (2.0 as Real).sqrt();
        assert_eq!(d.train.x.row(0).to_vec(), [0.0, 0.0, 0.0, s]);
        assert_eq!(d.train.x.row(1).to_vec(), [s, s, 0.0, 0.0]);
        assert_eq!(
            d.test.x.row(0).to_vec(),
            [s, 0.0, s, 0.0],
            "clamped to the public bounds"
        );
        // No public bounds: refused, never fitted on the records.
        let text =
            String::from_utf8(f[MAGIC.len() + 4..MAGIC.len() + 4 + header.len()].to_vec()).unwrap();
        let unbounded = text.replace(r#","bounds":[10,20]"#, "");
        let mut g = MAGIC.to_vec();
        g.extend_from_slice(&(unbounded.len() as u32).to_le_bytes());
        g.extend_from_slice(unbounded.as_bytes());
        g.extend_from_slice(&f[MAGIC.len() + 4 + header.len()..]);
        assert!(decode_packed(&g)
            .unwrap_err()
            .message
            .contains("public bounds"));
    }
}
