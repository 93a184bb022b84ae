//! `dpsgd export-opacus`: the run the train options describe as an Opacus script, with the
//! data it reads, written into a directory (issue #41 §4; `dpsgd_lab::export`).

use crate::args::{choice, choice_help, fail, say, shown_path};
use crate::cli::RunArgs;
use crate::data::load_data;
use crate::options::flag_of;
use dpsgd_lab::export::{export_run, ExportFile, OpacusAccountant};
use dpsgd_lab::train::Trainer;
use std::fs::OpenOptions;
use std::io::{ErrorKind, Write as _};
use std::path::Path;
use std::sync::Arc;

/// `dpsgd export-opacus`'s options, and the run it exports.
#[derive(clap::Args, Clone, Debug)]
pub struct ExportArgs {
    /// The directory the script and its data are written into (required; made if missing;
    /// refused when it already holds a file of the export's names, or is a symbolic link)
    #[arg(long, value_name = "DIR")]
    pub out: Option<String>,
    #[arg(
        long,
        value_name = "NAME",
        help = choice_help("Opacus's accountant in the script", OpacusAccountant::Rdp)
    )]
    pub accountant: Option<String>,
    #[command(flatten)]
    pub options: RunArgs,
}

/// Writes the script and its files into `--out`, and prints what it wrote as one JSON object
/// (`{"dir", "files": [...]}`); a run Opacus cannot express exactly is refused in one line.
pub fn export(a: &ExportArgs) {
    let out = a
        .out
        .as_deref()
        .unwrap_or_else(|| fail("--out DIR is required (where the script is written)"));
    if out.trim().is_empty() {
        fail("--out: an empty path names no folder: give the folder to write into");
    }
    if out == "-" {
        // Not standard output, as `-` means elsewhere: it would make a folder named "-".
        fail(
            "--out -: the export is a folder of files, not a stream: give the folder to write into",
        );
    }
    let accountant = choice("accountant", a.accountant.as_deref(), OpacusAccountant::Rdp);
    let RunArgs { run, data } = &a.options;
    let own_file = data.csv.is_some();
    let cfg = run.config(own_file);
    if let Some(why) = dpsgd_lab::export::opacus::refusal(&cfg) {
        fail(format!("export-opacus: {why}"));
    }
    if own_file && data.scale.as_deref() == Some("standard") {
        // The script would print Opacus's ε for a run no ε covers (train marks it so).
        fail(
            "export-opacus: --scale standard fits your data's mean and spread without noise, so \
             no ε covers the exported run; use --scale bounds (the default)",
        );
    }
    let dataset = Arc::new(load_data(data, run, &cfg));
    let trainer = Trainer::new(cfg, dataset)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    let files = export_run(&trainer, accountant)
        .unwrap_or_else(|why| fail(format!("export-opacus: {why}")));
    write_new_files(Path::new(out), &files, own_file)
        .unwrap_or_else(|why| fail(format!("--out {}: {why}", shown_path(out))));
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    say(serde_json::json!({ "dir": out, "files": names }));
}

/// Writes `files` into `dir` without touching anything already there: `dir` is made when
/// missing (with its parents) and refused when it is a symbolic link or not a folder; every
/// file is created new (`create_new`: an existing file, or a link of that name, even a
/// dangling one, is never written through), and all names are checked before the first is
/// written. When a write fails half-way, the files written here (and a folder made here) are
/// removed again; nothing else is. The folder itself is made by a create that fails if it
/// exists, so a link planted under its name after the check is refused, not written through.
/// `private` (a file of one's own: its rows are in the export): the folder made here and the
/// files are for the user alone (0700, 0600 on Unix), whatever the umask lets others read.
fn write_new_files(dir: &Path, files: &[ExportFile], private: bool) -> Result<(), OutRefusal> {
    // Without a trailing slash: "link/" would be looked up through the link it names.
    let dir: &Path = &dir.components().collect::<std::path::PathBuf>();
    let made = match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => return Err(OutRefusal::Link),
        Ok(m) if !m.is_dir() => return Err(OutRefusal::NotAFolder),
        Ok(_) => false,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let io = |error| OutRefusal::Io { file: None, error };
            // "fresh/.." names no new folder (it made `fresh`, then found its parent there).
            if !matches!(
                dir.components().next_back(),
                Some(std::path::Component::Normal(_))
            ) {
                return Err(OutRefusal::NotANewName);
            }
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(io)?;
            }
            // Where there are no Unix modes (the wasm32 test build compiles this too), the
            // folder is made as the platform makes it.
            #[cfg_attr(not(unix), allow(unused_mut))]
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(not(unix))]
            let _ = private;
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(
                &mut builder,
                if private { 0o700 } else { 0o777 },
            );
            builder.create(dir).map_err(|e| match e.kind() {
                ErrorKind::AlreadyExists => OutRefusal::Appeared,
                _ => io(e),
            })?;
            true
        }
        Err(error) => return Err(OutRefusal::Io { file: None, error }),
    };
    let taken: Vec<&str> = files
        .iter()
        .filter(|f| std::fs::symlink_metadata(dir.join(&f.name)).is_ok())
        .map(|f| f.name.as_str())
        .collect();
    if !taken.is_empty() {
        return Err(OutRefusal::Taken(taken.join(", ")));
    }
    let mut written = Vec::new();
    for f in files {
        let path = dir.join(&f.name);
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, if private { 0o600 } else { 0o666 });
        let result = options.open(&path).and_then(|mut file| {
            written.push(path.clone());
            file.write_all(&f.bytes)
        });
        if let Err(e) = result {
            for p in &written {
                let _ = std::fs::remove_file(p);
            }
            if made {
                let _ = std::fs::remove_dir(dir);
            }
            let file = Some(f.name.clone());
            return Err(OutRefusal::Io { file, error: e });
        }
    }
    Ok(())
}

/// Why `--out` was not written (nothing of the export is left in it): a link, a file, a
/// folder that already holds one of its files, or a write the system refused.
#[derive(Debug)]
enum OutRefusal {
    Link,
    NotAFolder,
    /// Something of its name appeared between the check and the folder's making.
    Appeared,
    /// A missing path whose last part is `..` or `.`: no folder's own name.
    NotANewName,
    /// The export's files already there, by name.
    Taken(String),
    /// The file being written when it failed, if one was.
    Io {
        file: Option<String>,
        error: std::io::Error,
    },
}

impl std::fmt::Display for OutRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutRefusal::Link => f.write_str("is a symbolic link: name the folder itself"),
            OutRefusal::NotAFolder => f.write_str("is a file, not a folder"),
            OutRefusal::NotANewName => f.write_str(
                "ends in '..' or '.' under a folder that does not exist: name the folder",
            ),
            OutRefusal::Appeared => {
                f.write_str("appeared while the export was being made: nothing was written")
            }
            OutRefusal::Taken(names) => write!(
                f,
                "already holds {names}: nothing was written (choose a new folder, or move them \
                 away)"
            ),
            OutRefusal::Io { file: None, error } => write!(f, "{error}"),
            OutRefusal::Io {
                file: Some(name),
                error,
            } => write!(f, "{name}: {error}"),
        }
    }
}
