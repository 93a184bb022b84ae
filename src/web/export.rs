//! The page's "Export as Opacus script" (issue #41 §4, `crate::export`): the run's settings
//! as a download — the script alone, or a tar of it and the data it reads. A run that cannot
//! be exported exactly throws its one-line reason.

use super::{config_from_js, from_js, js_err, to_js, LabData};
use crate::data::DataFacts;
use crate::export::opacus::{reads_idx, refusal};
use crate::export::{download, export_opacus, export_run, ExportData, OpacusAccountant};
use crate::train::Trainer;
use std::sync::Arc;
use strum::IntoEnumIterator;
use wasm_bindgen::prelude::*;

/// A file for the browser to save.
#[wasm_bindgen]
pub struct OpacusDownload {
    name: String,
    bytes: Vec<u8>,
}

#[wasm_bindgen]
impl OpacusDownload {
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.name.clone()
    }

    #[wasm_bindgen(getter)]
    pub fn bytes(&self) -> Vec<u8> {
        self.bytes.clone()
    }
}

/// Why the run `config` cannot be exported to Opacus exactly, in one line; null when it can.
#[wasm_bindgen]
pub fn opacus_refusal(config: JsValue) -> Result<Option<String>, JsError> {
    Ok(refusal(&config_from_js(&config)?))
}

/// Whether exporting a run on built-in set `dataset` needs the set loaded (its prepared
/// features go beside the script), rather than only its facts.
#[wasm_bindgen]
pub fn opacus_export_needs_data(dataset: &str) -> bool {
    dataset != "own" && !reads_idx(dataset)
}

/// Why the page does not export a run on one's own file: the script repeats the run on the
/// file's prepared rows, which live in the training worker; the command line has the file.
pub const OWN_FILE_ON_THE_COMMAND_LINE: &str =
    "a run on a file of your own is exported by the command line, beside your file: \
     dpsgd export-opacus --csv YOUR_FILE.csv --label CLASS_COLUMN --out NEW_FOLDER (with the \
     run's settings as flags); it writes your prepared rows beside the script. It prepares \
     your file anew: another split into training and test rows, and, with ranges estimated \
     from the file, another release of ε that this page's total for the file does not count";

/// Opacus's accountants the export writes, for the page's choice: `[{name, label}]` in the
/// enum's order, the first the default. The page lists no accountant of its own (#54 §5).
#[wasm_bindgen]
pub fn opacus_accountants() -> Result<JsValue, JsError> {
    let list: Vec<serde_json::Value> = OpacusAccountant::iter()
        .map(|a| serde_json::json!({ "name": a.name(), "label": a.name().to_uppercase() }))
        .collect();
    to_js(&list)
}

/// The run `config` as an Opacus script with Opacus's `accountant` (one of
/// [`opacus_accountants`]' names). A
/// built-in set with prepared features (Adult, breast cancer, the 2-D sets) needs its `data`,
/// loaded as for training; an image set needs only the data's `facts` (null before a run has
/// loaded them), since the script reads its files itself. One's own file is refused
/// ([`OWN_FILE_ON_THE_COMMAND_LINE`]).
#[wasm_bindgen]
pub fn opacus_export(
    config: JsValue,
    facts: JsValue,
    data: Option<LabData>,
    accountant: &str,
) -> Result<OpacusDownload, JsError> {
    let cfg = config_from_js(&config)?;
    let accountant = OpacusAccountant::parse(accountant).map_err(js_err)?;
    if let Some(why) = refusal(&cfg) {
        return Err(JsError::new(&why));
    }
    if cfg.dataset == "own" {
        return Err(JsError::new(OWN_FILE_ON_THE_COMMAND_LINE));
    }
    // DP-PCA draws its noise from the run's seed: without one, the page would export a new
    // DP-PCA, not the run's (the command line exports the run it builds, whatever its seed).
    if cfg.pca.is_some() && cfg.seed.is_none() {
        return Err(JsError::new(
            "this run's DP-PCA was drawn from a seed the page does not keep: fix a seed \
             (Seed box) and run again, then export",
        ));
    }
    let files = if !opacus_export_needs_data(&cfg.dataset) {
        let facts: DataFacts = from_js::<Option<DataFacts>>(facts, "facts")?.ok_or_else(|| {
            JsError::new(
                "start a run on this data set first: the script needs its number of examples",
            )
        })?;
        if cfg.pca.is_some() {
            return Err(JsError::new(
                "DP-PCA on an image set is exported by the command line (dpsgd export-opacus): \
                 the page would run it on 60,000 images a second time",
            ));
        }
        let source = ExportData::Images {
            dataset: &cfg.dataset,
            projection: None,
        };
        export_opacus(&cfg, &facts, source, accountant)
    } else {
        let data = data.ok_or_else(|| JsError::new("the data set has not loaded yet"))?;
        let trainer = Trainer::new(cfg.clone(), Arc::clone(data.dataset())).map_err(js_err)?;
        export_run(&trainer, accountant)
    }
    .map_err(|e| JsError::new(&e))?;
    let (name, bytes) = download(&files, &cfg.dataset);
    Ok(OpacusDownload { name, bytes })
}
