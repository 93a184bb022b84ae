//! The command line's plumbing: the one-line error exit, `--name value` pairs, and reading a
//! file the user names with a bound on its size.

use dpsgd_lab::data::csv::{shown, shown_up_to};
use std::collections::HashMap;
use std::io::Read;
use std::process::exit;

pub const USAGE: &str =
    "usage: dpsgd train|coverage|epsilon|sigma|audit|bench [--name value ...] (see the README)";

/// Longest message printed, in characters: values in messages are already cut to 40, this
/// only guards against a message that lists too much.
const MAX_MESSAGE: usize = 1000;

/// Largest file the CLI reads: the CSV parser's and the IDX decoder's limit.
pub const MAX_FILE: u64 = dpsgd_lab::data::csv::MAX_BYTES as u64;

/// `msg` as one line: control characters (a newline in a flag's value, say) escaped as `\n`,
/// and at most [`MAX_MESSAGE`] characters, so a script reading stderr sees one line.
pub fn one_line(msg: &str) -> String {
    shown_up_to(msg, MAX_MESSAGE)
}

/// Prints one line and exits with status 2 (bad usage).
pub fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("dpsgd: {}", one_line(&msg.to_string()));
    exit(2)
}

/// A path for a message: its last 40 characters when longer (the file's name is the end).
pub fn shown_path(path: &str) -> String {
    let n = path.chars().count();
    if n <= 40 {
        shown(path)
    } else {
        let tail: String = path.chars().skip(n - 40).collect();
        format!("…{}", shown(&tail))
    }
}

/// The bytes of the file at `path` (named by `--flag`), at most [`MAX_FILE`]: a regular
/// file's size is checked before reading, and any file — a device such as /dev/zero, a pipe —
/// is read through a bound of MAX_FILE + 1 bytes, so nothing is read without end.
pub fn read_file(path: &str, flag: &str) -> Vec<u8> {
    let p = shown_path(path);
    let mb = MAX_FILE >> 20;
    let file = std::fs::File::open(path)
        .unwrap_or_else(|e| fail(format!("--{flag}: cannot read {p}: {e}")));
    if let Ok(meta) = file.metadata() {
        if meta.is_dir() {
            fail(format!("--{flag}: {p} is a directory, not a file"));
        }
        if meta.is_file() && meta.len() > MAX_FILE {
            fail(format!(
                "--{flag}: {p} is larger than {mb} MB ({:.1} MB); the lab reads at most {mb} MB",
                meta.len() as f64 / 1048576.0
            ));
        }
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .unwrap_or_else(|e| fail(format!("--{flag}: cannot read {p}: {e}")));
    if bytes.len() as u64 > MAX_FILE {
        fail(format!(
            "--{flag}: {p} is larger than {mb} MB; the lab reads at most {mb} MB"
        ));
    }
    bytes
}

/// `--name value` pairs, each name at most once.
pub struct Args(pub HashMap<String, String>);

impl Args {
    pub fn parse(raw: &[String], allowed: &[&str]) -> Args {
        let mut map = HashMap::new();
        let mut it = raw.iter();
        while let Some(flag) = it.next() {
            let name = flag
                .strip_prefix("--")
                .unwrap_or_else(|| fail(format!("unexpected argument '{}'; {USAGE}", shown(flag))));
            if !allowed.contains(&name) {
                fail(format!(
                    "unknown option --{}; this command takes --{}",
                    shown(name),
                    allowed.join(", --")
                ));
            }
            let value = it
                .next()
                .unwrap_or_else(|| fail(format!("--{name} needs a value")));
            if map.insert(name.to_string(), value.clone()).is_some() {
                fail(format!("--{name} given twice"));
            }
        }
        Args(map)
    }

    /// The value of `--name` as given, cut for a message.
    pub fn shown(&self, name: &str) -> String {
        self.0.get(name).map_or_else(String::new, |v| shown(v))
    }

    pub fn get<T: std::str::FromStr>(&self, name: &str, what: &str) -> Option<T> {
        self.0.get(name).map(|v| {
            v.parse()
                .unwrap_or_else(|_| fail(format!("--{name} = '{}' is not {what}", shown(v))))
        })
    }

    pub fn need<T: std::str::FromStr>(&self, name: &str, what: &str) -> T {
        self.get(name, what)
            .unwrap_or_else(|| fail(format!("--{name} is required ({what})")))
    }
}
