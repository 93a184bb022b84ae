//! "Export as Opacus script" (issue #41 §4): a run's settings as a self-contained Python script
//! that trains the same model with Opacus (Yousefpour et al. 2021) — Poisson lots with
//! q = L/N and the lab's steps per epoch, per-example clipping (flat, or per layer where that
//! maps one to one), the noise multiplier, the learning-rate schedule, the epochs (or the
//! budget's steps) and δ — and reports Opacus's ε (`rdp`, or `prv`) each epoch.
//!
//! Every number in the script is read from the config and the run's [`Mechanism`] (q, the
//! steps, the accounted σ): nothing is derived a second time. What Opacus cannot express
//! exactly is refused in one line; releases before training (DP-PCA, a private range
//! estimate) are named in the script with their ε, since Opacus accounts the training alone.

use super::opacus_words::{before_in_words, data_in_words, run_in_words};
use super::table::{matrix_csv, split_csv};
use super::ExportFile;
use crate::config::{name_of, names_of, Clipping, Mode, ModelKind, RunConfig, Sampling};
use crate::data::builtin::builtin_files;
use crate::data::pca::Projection;
use crate::data::{DataFacts, Dataset};
use crate::privacy::accountant::rdp::default_orders;
use crate::privacy::accountant::AccountError;
use crate::train::{budget_step_limit, Trainer};
use serde::Serialize;
use strum::{EnumIter, IntoEnumIterator};

/// The Opacus release the script is written for (the one `pip install opacus` gave when the
/// export was last run for real: docs/opacus.md).
pub const OPACUS_VERSION: &str = "1.6.0";

/// The error bound Opacus's PRV accountant adds to its ε estimate (`eps_error`; its default
/// 0.01 is 8% of an ε of 0.12). Finer costs time: 1.7 s per ε after 10,000 steps at 1e-3.
pub const PRV_EPS_ERROR: f64 = 1e-3;

/// The script's file name inside the export.
pub const SCRIPT_NAME: &str = "train_opacus.py";

const TEMPLATE: &str = include_str!("opacus_script.py");

/// Opacus's accountant the script reports ε with.
/// Its names (serde's, lowercase) are the CLI's `--accountant` values and
/// the script's `ACCOUNTANT`, listed from the enum (`names_of`), never by hand (#54 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum OpacusAccountant {
    /// Rényi DP (Mironov 2017), Opacus's default: compare with the lab's RDP ε.
    Rdp,
    /// Privacy random variables (Gopi et al. 2021): compare with the lab's PLD ε.
    Prv,
}

impl OpacusAccountant {
    /// The accountant named `name`, or an [`AccountError`] of kind `UnknownName` on the
    /// argument `accountant` saying which the export writes.
    pub fn parse(name: &str) -> Result<OpacusAccountant, AccountError> {
        OpacusAccountant::iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                AccountError::unknown_name(
                    "accountant",
                    format!(
                        "'{}' is not an Opacus accountant the export writes: {}",
                        crate::text::shown(name),
                        names_of::<OpacusAccountant>().join(" or ")
                    ),
                )
            })
    }

    /// Its name in Opacus (`"rdp"`, `"prv"`).
    pub fn name(self) -> String {
        name_of(self)
    }
}

/// Where the script's examples come from.
pub enum ExportData<'a> {
    /// The examples the run trains on, after the lab's preparation and any DP-PCA (Adult,
    /// breast cancer, the 2-D sets, and one's own file — its rows exactly as the lab prepared
    /// and split them, so the script repeats the run, not an approximation of it): written as
    /// CSV beside the script.
    Prepared(&'a Dataset),
    /// A built-in image set: the script reads the same IDX files and divides by 255 as the lab
    /// does, then projects onto the run's DP-PCA basis (written beside it) when there is one.
    Images {
        dataset: &'a str,
        projection: Option<&'a Projection>,
    },
}

/// Whether the script reads built-in set `dataset` from its own files (the IDX image sets)
/// rather than from a CSV of its prepared features.
pub fn reads_idx(dataset: &str) -> bool {
    builtin_files(dataset).iter().any(|f| f.contains(".idx"))
}

/// The run a trainer was set up for (its data loaded, prepared and projected), exported: its
/// prepared features (one's own file's too), or for the built-in image sets their DP-PCA basis.
pub fn export_run(
    trainer: &Trainer,
    accountant: OpacusAccountant,
) -> Result<Vec<ExportFile>, String> {
    let cfg = trainer.config();
    let data = if reads_idx(&cfg.dataset) && !trainer.data().private {
        ExportData::Images {
            dataset: &cfg.dataset,
            projection: trainer.projection(),
        }
    } else {
        ExportData::Prepared(trainer.data())
    };
    export_opacus(cfg, trainer.facts(), data, accountant)
}

/// Why a run cannot be exported exactly, in one line; `None` when it can.
pub fn refusal(cfg: &RunConfig) -> Option<String> {
    let why = match cfg.mode {
        Mode::Dp => None,
        Mode::NonPrivate => Some("a non-private run has no Opacus mechanism to export"),
        Mode::ClipOnly | Mode::NoiseOnly => Some(
            "Opacus clips and adds noise together: a run with only one of them cannot be exported",
        ),
    };
    if let Some(why) = why {
        return Some(why.into());
    }
    if cfg.sigma == 0.0 {
        return Some("σ = 0 adds no noise: there is nothing for Opacus to account".into());
    }
    if cfg.sampling == Sampling::Shuffle {
        return Some(
            "shuffled fixed-size lots are not Poisson sampling, which Opacus's accountants assume: \
             export with Poisson lots"
                .into(),
        );
    }
    if cfg.adaptive_clipping() {
        return Some(
            "adaptive clipping cannot be exported exactly: Opacus's AdaClipDPOptimizer clamps C \
             between bounds and releases an uncentred count, unlike the lab's"
                .into(),
        );
    }
    if cfg.count_noise_std().is_some() {
        return Some("a released noisy clipped count has no Opacus counterpart".into());
    }
    let bounds = cfg.clip_bounds();
    if cfg.clipping == Clipping::PerLayer && bounds.iter().any(|&c| c != bounds[0]) {
        return Some(
            "per-layer bounds that differ cannot be exported: Opacus adds noise σ·‖(C_1…C_k)‖ \
             to every layer, the lab σ·C_l to layer l (the same only when the bounds are equal)"
                .into(),
        );
    }
    None
}

/// The script (first) and the files it reads, for the run `cfg` on data with `facts`; or the
/// one line that says why the run cannot be exported exactly.
pub fn export_opacus(
    cfg: &RunConfig,
    facts: &DataFacts,
    data: ExportData<'_>,
    accountant: OpacusAccountant,
) -> Result<Vec<ExportFile>, String> {
    if let Some(why) = refusal(cfg) {
        return Err(why);
    }
    cfg.validate(facts.n_train).map_err(|e| e.to_string())?;
    let mechanism = cfg.mechanism(facts);
    let planned = budget_step_limit(cfg, &mechanism).map_err(|e| e.to_string())?;
    let total_steps = planned.map_or(mechanism.total_steps(), |t| t.min(mechanism.total_steps()));
    let mut files = Vec::new();
    let (kind, idx_files, basis) = match &data {
        ExportData::Prepared(d) => {
            files.push(file("train.csv", split_csv(&d.train, &d.feature_names)));
            files.push(file("test.csv", split_csv(&d.test, &d.feature_names)));
            ("csv", Vec::new(), None)
        }
        ExportData::Images {
            dataset,
            projection,
        } => {
            let basis = projection.map(|p| {
                files.push(file("pca_basis.csv", matrix_csv(p.basis.view())));
                "pca_basis.csv"
            });
            ("idx", builtin_files(dataset).to_vec(), basis)
        }
    };
    // A file of one's own is no built-in set (the config keeps its default name): "own".
    let dataset = match &data {
        ExportData::Prepared(d) if d.private => "own",
        _ => cfg.dataset.as_str(),
    };
    let classes = match &data {
        ExportData::Prepared(d) => py_list(&d.class_names, |c| py_str(c)),
        ExportData::Images { .. } => "None".into(),
    };
    let layer_clips = match cfg.clipping {
        Clipping::Flat => "None".to_string(),
        Clipping::PerLayer => py_list(&cfg.clip_bounds(), |&c| py_float(c)),
    };
    let values: Vec<(&str, String)> = vec![
        ("OPACUS_VERSION", OPACUS_VERSION.into()),
        ("SCRIPT_NAME", SCRIPT_NAME.into()),
        ("USAGE_ARGS", usage_args(&data).into()),
        (
            "RUN_IN_WORDS",
            run_in_words(cfg, &mechanism, facts, total_steps),
        ),
        (
            "DATA_IN_WORDS",
            data_in_words(&data, dataset, cfg.pca.is_some()),
        ),
        ("BEFORE_IN_WORDS", before_in_words(cfg, &mechanism)),
        ("ACCOUNTANT", accountant.name().to_uppercase()),
        ("DATA_KIND", py_str(kind)),
        ("DATASET", py_str(dataset)),
        ("IDX_FILES", py_list(&idx_files, |f| py_str(f))),
        ("PCA_BASIS", basis.map_or("None".into(), py_str)),
        ("MODEL", py_str(model_name(cfg.model))),
        ("HIDDEN", py_list(&cfg.hidden, |h| h.to_string())),
        ("N_TRAIN", facts.n_train.to_string()),
        ("LOT_SIZE", cfg.lot_size.to_string()),
        ("SAMPLE_RATE", py_float(mechanism.step.q)),
        ("STEPS_PER_EPOCH", mechanism.steps_per_epoch.to_string()),
        ("EPOCHS", cfg.epochs.to_string()),
        ("TOTAL_STEPS", total_steps.to_string()),
        ("SIGMA", py_float(cfg.sigma)),
        ("CLIPPING", py_str(clipping_name(cfg.clipping))),
        ("CLIP", py_float(cfg.clip)),
        ("LAYER_CLIPS", layer_clips),
        ("NOISE_MULTIPLIER", py_float(mechanism.step.sigma)),
        ("LR", py_float(cfg.lr)),
        ("LR_END", cfg.lr_end.map_or("None".into(), py_float)),
        ("LR_DECAY_EPOCHS", cfg.lr_decay_epochs.to_string()),
        ("DELTA", py_float(cfg.delta)),
        ("ACCOUNTANT_NAME", py_str(&accountant.name())),
        ("RDP_ORDERS", py_list(&default_orders(), |&a| py_float(a))),
        ("PRV_EPS_ERROR", py_float(PRV_EPS_ERROR)),
        ("SEED", cfg.seed.map_or("None".into(), |s| s.to_string())),
        ("CLASSES", classes),
    ];
    let script = fill(TEMPLATE, &values);
    files.insert(0, file(SCRIPT_NAME, script));
    Ok(files)
}

/// The template with every `@NAME@` replaced by its value, in one pass over the template:
/// a value is written once and never read again, so a value holding `@SEED@` (a column named
/// so) stays as it is. An `@` that does not open a known name (Python's matrix product) is
/// kept. Every name must be in the template and every placeholder in `values`.
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 4096);
    let mut used = vec![false; values.len()];
    let mut rest = template;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
            .unwrap_or(after.len());
        let known = after[name_len..]
            .starts_with('@')
            .then(|| values.iter().position(|(n, _)| *n == &after[..name_len]))
            .flatten();
        match known {
            Some(i) => {
                out.push_str(&values[i].1);
                used[i] = true;
                rest = &after[name_len + 1..];
            }
            None => {
                assert!(
                    name_len == 0 || !after[name_len..].starts_with('@'),
                    "the template names @{}@, which has no value",
                    &after[..name_len]
                );
                out.push('@');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if let Some(i) = used.iter().position(|u| !u) {
        panic!("@{}@ is not in the template", values[i].0);
    }
    out
}

fn file(name: &str, text: String) -> ExportFile {
    ExportFile {
        name: name.into(),
        bytes: text.into_bytes(),
    }
}

/// A float as a Python literal that reads back as the same f64 (Rust's shortest round trip).
fn py_float(x: f64) -> String {
    format!("{x:?}")
}

/// A string as a Python literal (a JSON string is one).
fn py_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

fn py_list<T>(items: &[T], each: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = items.iter().map(each).collect();
    format!("[{}]", parts.join(", "))
}

fn model_name(m: ModelKind) -> &'static str {
    match m {
        ModelKind::Logistic => "logistic",
        ModelKind::Mlp => "mlp",
    }
}

fn clipping_name(c: Clipping) -> &'static str {
    match c {
        Clipping::Flat => "flat",
        Clipping::PerLayer => "per_layer",
    }
}

fn usage_args(data: &ExportData<'_>) -> &'static str {
    match data {
        ExportData::Prepared(_) => "",
        ExportData::Images { .. } => " DIR_OF_THE_IDX_FILES",
    }
}

#[cfg(test)]
#[path = "opacus_tests.rs"]
mod tests;
