//! `dpsgd export-opacus`: the run the train options describe as an Opacus script, with the
//! data it reads, written into a directory (issue #41 §4; `dpsgd_lab::export`).

use crate::args::{fail, shown_path};
use crate::cli::RunArgs;
use crate::data::load_data;
use crate::options::flag_of;
use dpsgd_lab::export::{export_run, OpacusAccountant};
use dpsgd_lab::train::Trainer;
use std::path::Path;
use std::sync::Arc;

/// `dpsgd export-opacus`'s options, and the run it exports.
#[derive(clap::Args, Clone, Debug)]
pub struct ExportArgs {
    /// The directory the script and its data are written into (required; made if missing)
    #[arg(long, value_name = "DIR")]
    pub out: Option<String>,
    /// Opacus's accountant in the script [default: rdp] [possible values: rdp, prv]
    #[arg(long, value_name = "NAME")]
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
    let accountant = OpacusAccountant::parse(a.accountant.as_deref().unwrap_or("rdp"))
        .unwrap_or_else(|e| fail(format!("--accountant: {e}")));
    let RunArgs { run, data } = &a.options;
    let own_file = data.csv.is_some();
    let cfg = run.config(own_file);
    if let Some(why) = dpsgd_lab::export::opacus::refusal(&cfg) {
        fail(format!("export-opacus: {why}"));
    }
    let dataset = Arc::new(load_data(data, run, &cfg));
    let trainer = Trainer::new(cfg, dataset)
        .unwrap_or_else(|e| fail(format!("--{}: {}", flag_of(e.field), e.message)));
    let label = data.label.as_deref().filter(|_| own_file);
    let files = export_run(&trainer, label, accountant)
        .unwrap_or_else(|why| fail(format!("export-opacus: {why}")));
    let dir = Path::new(out);
    std::fs::create_dir_all(dir)
        .unwrap_or_else(|e| fail(format!("--out {}: {e}", shown_path(out))));
    for f in &files {
        std::fs::write(dir.join(&f.name), &f.bytes)
            .unwrap_or_else(|e| fail(format!("--out {}: {e}", shown_path(out))));
    }
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    println!("{}", serde_json::json!({ "dir": out, "files": names }));
}
