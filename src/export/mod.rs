//! Taking a run out of the lab: a self-contained Opacus script that trains the same model
//! with the same mechanism (issue #41 §4, [`opacus`]), the prepared features it reads
//! ([`table`]), and one archive of them all for the page's download ([`tar`]).

pub mod opacus;
pub mod table;
pub mod tar;

pub use opacus::{export_opacus, ExportData, OpacusAccountant, OPACUS_VERSION};

/// One file of an export: its name (no directories) and its contents.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportFile {
    pub name: String,
    pub bytes: Vec<u8>,
}
