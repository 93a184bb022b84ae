//! Reading a CSV file's records within bounds: the text (gzip, size, encoding and a BOM
//! checked first), the header (width, separator, duplicate names; names in NFC) and each data record with
//! its line number. Every pass is linear and allocates nothing per field beyond the record.

use super::{bad, MAX_BYTES, MAX_COLUMNS};
use crate::data::DataError;
use crate::text::shown;
use csv::StringRecord;
use std::collections::HashMap;

/// The file as text: refused when gzip-compressed, too large or not UTF-8; a UTF-8
/// byte-order mark (which spreadsheets write) removed so the first column keeps its name.
pub(super) fn text_of<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str, DataError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(bad(format!(
            "{what} is a gzip-compressed file: unpack it first (only an MNIST-style IDX pair \
             may stay gzipped, and it is loaded as two files, images and labels)"
        )));
    }
    if bytes.len() > MAX_BYTES {
        return Err(DataError::too_large(format!(
            "{what} is {:.1} MB; the limit is {} MB",
            bytes.len() as f64 / 1048576.0,
            MAX_BYTES / 1048576
        )));
    }
    let bom = if bytes.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    std::str::from_utf8(&bytes[bom..]).map_err(|e| {
        bad(format!(
            "{what} is not UTF-8 text (first bad byte at offset {})",
            bom + e.valid_up_to()
        ))
    })
}

/// The line and whether it is the header, of the first record with more than [`MAX_COLUMNS`]
/// fields: a scan with the csv reader's quoting rules (a field starting with '"' runs to the
/// next lone '"'; '""' inside is a quote) that allocates nothing.
fn first_too_wide(text: &str) -> Option<(usize, bool)> {
    #[derive(PartialEq)]
    enum State {
        Start,
        Unquoted,
        Quoted,
        AfterQuote,
    }
    let (mut line, mut start_line, mut fields, mut records) = (1, 1, 1, 0);
    let (mut state, mut in_record) = (State::Start, false);
    for &b in text.as_bytes() {
        let end = b == b'\n' || b == b'\r';
        if !in_record && !end {
            (in_record, start_line, records) = (true, line, records + 1);
        }
        state = match (state, b) {
            (State::Quoted, b'"') => State::AfterQuote,
            (State::Quoted, _) => State::Quoted,
            (State::AfterQuote | State::Start, b'"') => State::Quoted,
            (_, b',') => {
                fields += 1;
                if fields > MAX_COLUMNS {
                    return Some((start_line, records == 1));
                }
                State::Start
            }
            (_, _) if end => {
                (in_record, fields) = (false, 1);
                State::Start
            }
            _ => State::Unquoted,
        };
        if b == b'\n' {
            line += 1;
        }
    }
    None
}

fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

/// The header row: not empty, not a file with another separator, at most [`MAX_COLUMNS`]
/// columns (every record is checked), no name twice.
pub(super) fn read_header(text: &str, what: &str) -> Result<Vec<String>, DataError> {
    if let Some((row, header)) = first_too_wide(text) {
        return Err(DataError::too_large(if header {
            format!("{what}: the header has more than {MAX_COLUMNS} columns; the lab reads at most {MAX_COLUMNS}")
        } else {
            format!("{what}, row {row}: more than {MAX_COLUMNS} fields; the lab reads at most {MAX_COLUMNS} columns")
        }));
    }
    let header: Vec<String> = reader(text)
        .headers()
        .map_err(|e| bad(format!("{what}: cannot read the header row: {e}")))?
        .iter()
        .map(super::column_name)
        .collect();
    if header.iter().all(|h| h.is_empty()) {
        return Err(bad(format!(
            "{what} is empty: expected a header row and data rows"
        )));
    }
    if let [only] = header.as_slice() {
        for (sep, name) in [(';', "semicolon"), ('\t', "tab")] {
            if only.contains(sep) {
                return Err(bad(format!(
                    "{what} looks {name}-separated (its header is '{}'); the lab reads \
                     comma-separated files: save it as CSV with commas",
                    shown(only)
                )));
            }
        }
    }
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(header.len());
    for (i, h) in header.iter().enumerate() {
        if let Some(first) = seen.insert(h, i) {
            return Err(bad(format!(
                "{what}: column name '{}' appears twice in the header (columns {} and {})",
                shown(h),
                first + 1,
                i + 1
            ))
            .in_column(h));
        }
    }
    Ok(header)
}

/// The column names of a CSV file from its first `bytes` (the page reads at most
/// [`HEADER_PREFIX`] bytes for its label list): the same reading as the parser's — BOM removed,
/// names trimmed, quotes undone, the same refusals — so the list offers exactly the names the
/// file is parsed with, however long its header.
pub fn header_names(bytes: &[u8], whole_file: bool) -> Result<Vec<String>, DataError> {
    let what = "the CSV file";
    if !whole_file && !bytes.contains(&b'\n') {
        return Err(DataError::too_large(format!(
            "{what}: the header row is longer than {} MB",
            HEADER_PREFIX >> 20
        )));
    }
    // A prefix may end inside a character: keep the whole characters.
    let cut = match std::str::from_utf8(bytes) {
        Err(e) if !whole_file && e.error_len().is_none() => e.valid_up_to(),
        _ => bytes.len(),
    };
    let text = text_of(&bytes[..cut], what)?;
    let first_line = text.find('\n').map_or(text, |end| &text[..end]);
    read_header(first_line, what)
}

/// Most bytes the page reads of a CSV file to list its columns.
pub const HEADER_PREFIX: usize = 1 << 20;

/// Line numbers of byte offsets met in increasing order, counted as they go (linear).
#[derive(Default)]
struct Lines {
    pos: usize,
    line: usize,
}

impl Lines {
    /// The line of the first byte at or after `start` that is not a line end: where the record
    /// starting at `start` is (the csv reader's own count misses the '\n' of a "\r\n").
    fn line_of(&mut self, bytes: &[u8], start: usize) -> usize {
        let mut at = start.min(bytes.len());
        while at < bytes.len() && (bytes[at] == b'\n' || bytes[at] == b'\r') {
            at += 1;
        }
        let from = self.pos.min(at);
        self.line += bytes[from..at].iter().filter(|&&b| b == b'\n').count();
        self.pos = at;
        self.line + 1
    }
}

/// Calls `each(row, record)` for every data record of `text` (row = its line; the header is
/// row 1), blank lines skipped and each record checked to have `width` fields. Returns how
/// many records there were.
pub(super) fn for_each_row(
    text: &str,
    what: &str,
    width: usize,
    mut each: impl FnMut(usize, &StringRecord) -> Result<(), DataError>,
) -> Result<usize, DataError> {
    let mut reader = reader(text);
    let mut rec = StringRecord::new();
    let (mut n, mut lines) = (0, Lines::default());
    loop {
        match reader.read_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => return Ok(n),
            Err(e) => return Err(bad(format!("{what}: {e}"))),
        }
        let start = rec.position().map_or(0, |p| p.byte() as usize);
        let row = lines.line_of(text.as_bytes(), start);
        if rec.len() == 1 && rec[0].is_empty() {
            continue; // blank line
        }
        if rec.len() != width {
            return Err(bad(format!(
                "{what}, row {row}: {} fields, but the header has {width}",
                rec.len()
            )));
        }
        each(row, &rec)?;
        n += 1;
    }
}
