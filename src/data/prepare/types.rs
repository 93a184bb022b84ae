//! The words a private file's preparation shares (#54 §3): a column's range, and how a column
//! name is written in a list of stated ranges. A leaf: every file of `prepare` may use it, and
//! it uses none of them (before, `bounds`, `split`, `stated` and `refusal` imported each other's
//! types in a circle).

use serde::Serialize;

/// A numeric column's public or privately estimated range.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Range {
    pub lo: f64,
    pub hi: f64,
}

/// What separates one stated range from the next.
pub const SEPARATORS: [char; 3] = [',', ';', '\n'];

/// `name` as stated bounds must write it: as it is, or quoted when it holds a separator, a
/// quote or `=`, or starts with a quote (what [`parse_stated`] reads back as `name`).
pub fn written_name(name: &str) -> String {
    if name.contains(|c: char| SEPARATORS.contains(&c) || c == '"' || c == '=' || c == '\r') {
        format!("\"{}\"", name.replace('"', "\"\""))
    } else {
        name.to_string()
    }
}
