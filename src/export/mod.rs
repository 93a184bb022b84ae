//! Taking a run out of the lab: a self-contained Opacus script that trains the same model
//! with the same mechanism (issue #41 §4, [`opacus`]), the prepared features it reads
//! ([`table`]), and one archive of them all for the page's download ([`tar`]).

pub mod opacus;
mod opacus_words;
pub mod table;
pub mod tar;

pub use opacus::{export_opacus, export_run, ExportData, OpacusAccountant, OPACUS_VERSION};

/// One file of an export: its name (no directories) and its contents.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What the page downloads: the script alone, or, with data beside it, one tar of them all
/// under `dpsgd-opacus-DATASET/` — as (file name, bytes).
pub fn download(files: &[ExportFile], dataset: &str) -> (String, Vec<u8>) {
    match files {
        [only] => (only.name.clone(), only.bytes.clone()),
        _ => {
            let safe: String = dataset
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let dir = format!("dpsgd-opacus-{safe}");
            (format!("{dir}.tar"), tar::tar(&dir, files))
        }
    }
}
