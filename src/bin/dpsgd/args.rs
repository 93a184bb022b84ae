//! The command line's plumbing: the one-line error exit (ours, and for what clap refuses),
//! reading a flag's value with our own message, and reading a file the user names with a
//! bound on its size.

use clap::builder::TypedValueParser;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use dpsgd_lab::config::{name_of, names_of};
use dpsgd_lab::text::{shown, shown_up_to};
use serde::Serialize;
use std::ffi::OsStr;
use std::io::Read as _;
use std::marker::PhantomData;
use std::process::exit;
use std::str::FromStr;
use strum::IntoEnumIterator;

pub const USAGE: &str =
    "usage: dpsgd train|coverage|epsilon|sigma|audit|bench|export-opacus [--name value ...]; dpsgd --help lists the commands, dpsgd COMMAND --help their options";

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

/// A flag that names one of the choices `T` (an enum whose serde names are its names, its
/// variants listed by strum): the choice named `given`, `default` when not given; another name
/// exits naming the flag and every choice. With [`choice_help`], the choices are written once,
/// in the enum (#54 §5).
pub fn choice<T>(flag: &str, given: Option<&str>, default: T) -> T
where
    T: IntoEnumIterator + Serialize + Copy,
{
    let Some(given) = given else { return default };
    T::iter().find(|c| name_of(*c) == given).unwrap_or_else(|| {
        fail(format!(
            "--{flag} = '{}' must be one of {}",
            shown(given),
            names_of::<T>().join(", ")
        ))
    })
}

/// The help of a [`choice`] flag: what it is, its default and its possible values, from `T`.
pub fn choice_help<T: IntoEnumIterator + Serialize>(what: &str, default: T) -> String {
    format!(
        "{what} [default: {}] [possible values: {}]",
        name_of(default),
        names_of::<T>().join(", ")
    )
}

/// Prints one line and exits with status 2 (bad usage).
pub fn fail(msg: impl std::fmt::Display) -> ! {
    eprintln!("dpsgd: {}", one_line(&msg.to_string()));
    exit(2)
}

/// Prints `line` and a newline on standard output. A reader gone before the end (`dpsgd train
/// | head -1`) ends the program quietly, as a closed pipe ends a Unix tool, not in a panic with
/// a backtrace; any other write error is one line, as every refusal is.
pub fn say(line: impl std::fmt::Display) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}").and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            exit(0)
        }
        eprintln!("dpsgd: standard output: {}", one_line(&e.to_string()));
        exit(1)
    }
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

/// A flag's value as read, with the text it was read from (messages show what was typed).
#[derive(Clone, Debug)]
pub struct Given<T> {
    pub value: T,
    pub text: String,
}

impl<T> Given<T> {
    /// The typed text, cut and escaped for a message.
    pub fn shown(&self) -> String {
        shown(&self.text)
    }
}

/// clap's reader of a flag's value as a `T`, refusing with "--flag = 'text' is not {what}".
#[derive(Clone)]
pub struct Read<T> {
    what: &'static str,
    read: PhantomData<fn() -> T>,
}

/// Reads a flag's value as a `T` described as `what` ("a sampling rate in [0, 1]").
pub fn read<T>(what: &'static str) -> Read<T> {
    Read {
        what,
        read: PhantomData,
    }
}

impl<T: FromStr + Clone + Send + Sync + 'static> TypedValueParser for Read<T> {
    type Value = Given<T>;

    fn parse_ref(
        &self,
        _: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Given<T>, clap::Error> {
        let flag = arg.and_then(clap::Arg::get_long).unwrap_or("value");
        let text = value.to_string_lossy();
        match text.parse() {
            Ok(value) => Ok(Given {
                value,
                text: text.into_owned(),
            }),
            Err(_) => Err(clap::Error::raw(
                ErrorKind::ValueValidation,
                format!("--{flag} = '{}' is not {}", shown(&text), self.what),
            )),
        }
    }
}

/// Exits for a command line clap did not accept. `--help` and `--version` print on stdout
/// with status 0; anything else is one line on stderr with status 2: an unknown option or
/// command with clap's suggestion, a value with our own message, the rest in clap's words.
/// `command` is the command given, for the pointer to its help.
pub fn refuse(e: clap::Error, command: Option<&str>) -> ! {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        exit(0);
    }
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(s)) => s.first().cloned(),
        _ => None,
    };
    let help = match command {
        Some(c) => format!("dpsgd {c} --help lists its options"),
        None => "dpsgd --help lists the commands".into(),
    };
    fail(match e.kind() {
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            USAGE.to_string()
        }
        ErrorKind::InvalidSubcommand => {
            let given = context(ContextKind::InvalidSubcommand).unwrap_or_default();
            let mut m = format!("unknown command '{}'", shown(&given));
            if let Some(s) = context(ContextKind::SuggestedSubcommand) {
                m += &format!(" (did you mean '{s}'?)");
            }
            format!("{m}; {USAGE}")
        }
        ErrorKind::UnknownArgument => {
            let given = context(ContextKind::InvalidArg).unwrap_or_default();
            let mut m = if given.starts_with('-') {
                format!("unknown option {}", shown(&given))
            } else {
                format!("unexpected argument '{}'", shown(&given))
            };
            if let Some(s) = context(ContextKind::SuggestedArg) {
                m += &format!(" (did you mean {s}?)");
            }
            format!("{m}; {help}")
        }
        // A flag given twice: clap calls it a conflict with itself.
        ErrorKind::ArgumentConflict => match given_twice(&e) {
            Some(flag) => format!("{flag} is given twice: give it once; {help}"),
            None => format!("{}; {help}", collapsed(&e)),
        },
        ErrorKind::ValueValidation => collapsed(&e),
        _ => format!("{}; {help}", collapsed(&e)),
    })
}

/// The flag of a conflict clap found between a flag and itself (`--one-run --one-run`), as
/// `--one-run`; None for a conflict between two flags.
fn given_twice(e: &clap::Error) -> Option<String> {
    let flag = |v: Option<&ContextValue>| match v {
        Some(ContextValue::String(s)) => s.split_whitespace().next().map(String::from),
        Some(ContextValue::Strings(s)) => s.first()?.split_whitespace().next().map(String::from),
        _ => None,
    };
    let given = flag(e.get(ContextKind::InvalidArg))?;
    (flag(e.get(ContextKind::PriorArg)).as_deref() == Some(given.as_str())).then(|| shown(&given))
}

/// clap's message on one line: its lines joined, without "error: ", the usage and the pointer
/// to `--help` (which [`refuse`] gives once, naming the command).
fn collapsed(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .collect();
    lines.join("; ")
}
