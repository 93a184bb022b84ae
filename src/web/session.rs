//! The training worker's side of the core: data sets ([`LabData`]) and one run in progress
//! ([`Session`]), advanced a few steps at a time so the worker stays responsive. Reports cross
//! as JS objects at the run's release level.

use super::refusal::refused;
use super::{config_from_js, from_js, js_err, to_js};
use crate::config::{ReleaseLevel, RunConfig};
use crate::data::builtin::{builtin_files, load_builtin, not_shipped_note};
use crate::data::csv::{header_names, parse_csv, Table, HEADER_PREFIX, MAX_BYTES};
use crate::data::idx::{decode_idx, images_and_labels};
use crate::data::prepare::split::{private_dataset, private_images, PrivatePrep};
use crate::data::prepare::stated::stated_with;
use crate::data::{decode_packed, Dataset};
use crate::model::Model;
use crate::train::part::LotParts;
use crate::train::{Shown, Trainer};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// A decoded dataset, shared by the sessions trained on it.
#[wasm_bindgen]
pub struct LabData {
    inner: Arc<Dataset>,
}

/// Randomness for preparing a private file (its split, its range estimate): the browser's
/// cryptographic source, never a seed anyone can see.
fn private_rng() -> ChaCha8Rng {
    ChaCha8Rng::from_os_rng()
}

#[wasm_bindgen]
impl LabData {
    /// Decodes a packed dataset file (`www/data/*.bin`).
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<LabData, JsError> {
        let inner = decode_packed(bytes).map_err(js_err)?;
        Ok(LabData {
            inner: Arc::new(inner),
        })
    }

    /// A built-in data set (see `data::builtin`) from its files' bytes (an array of
    /// Uint8Array, in the order of `filesOf`); generated sets take an empty array and are drawn
    /// from `seed` with coordinate noise `noise`.
    pub fn builtin(
        name: &str,
        files: js_sys::Array,
        seed: f64,
        noise: f64,
    ) -> Result<LabData, JsError> {
        let files: Vec<Vec<u8>> = files
            .iter()
            .map(|f| js_sys::Uint8Array::new(&f).to_vec())
            .collect();
        let files: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
        let seed = if seed.is_finite() && seed >= 0.0 {
            seed as u64
        } else {
            0
        };
        let inner = load_builtin(name, &files, seed, noise).map_err(js_err)?;
        Ok(LabData {
            inner: Arc::new(inner),
        })
    }

    /// The decoded data (for the audit's sessions).
    pub(crate) fn dataset(&self) -> &Arc<Dataset> {
        &self.inner
    }

    /// The column names of a CSV file for the label list, from its first bytes (`whole`: they
    /// are the whole file), read as the parser reads them.
    #[wasm_bindgen(js_name = csvColumns)]
    pub fn csv_columns(prefix: &[u8], whole: bool) -> Result<Vec<String>, JsError> {
        header_names(prefix, whole).map_err(js_err)
    }

    /// How many bytes of a CSV file the page reads for [`LabData::csv_columns`].
    #[wasm_bindgen(js_name = csvHeaderPrefix)]
    pub fn csv_header_prefix() -> usize {
        HEADER_PREFIX
    }

    /// The largest file the lab reads (CSV or IDX), checked by the page before a file is read.
    #[wasm_bindgen(js_name = maxFileBytes)]
    pub fn max_file_bytes() -> usize {
        MAX_BYTES
    }

    /// The files under `www/data/` the built-in set `name` is read from (none when generated).
    #[wasm_bindgen(js_name = filesOf)]
    pub fn files_of(name: &str) -> Vec<String> {
        builtin_files(name).iter().map(|f| f.to_string()).collect()
    }

    /// Why the set's files may be missing from the server ("" when they are shipped).
    #[wasm_bindgen(js_name = notShippedNote)]
    pub fn not_shipped(name: &str) -> String {
        not_shipped_note(name).to_string()
    }

    /// A student's own CSV with `label` as the class column — private data: rows split by a
    /// coin each, numeric columns clipped to the ranges stated — in the text field's `bounds`
    /// ("age=17:90, …") and the page's form (`ranges`: [[column, min, max], …], the later word)
    /// — or to ranges estimated with an accounted Gaussian release, nothing fitted in the
    /// clear. `read_off`: the stated ranges were read off this file, not known publicly (a
    /// release without noise: ε = ∞). Errors name the row and column; a refusal for want of
    /// ranges carries `ranges` (`RangesNeeded`: every numeric column, for the page's form), and
    /// one after a release carries `spent` and says what ε it spent, at `delta`.
    #[wasm_bindgen(js_name = fromCsv)]
    pub fn from_csv(
        bytes: &[u8],
        label: &str,
        bounds: &str,
        ranges: JsValue,
        read_off: bool,
        delta: f64,
    ) -> Result<LabData, JsValue> {
        let table = parse_csv(bytes, label).map_err(js_err)?;
        let given: Vec<(String, f64, f64)> = if ranges.is_null() || ranges.is_undefined() {
            Vec::new()
        } else {
            from_js(ranges, "the form's ranges")?
        };
        let prep = PrivatePrep {
            stated: stated_with(bounds, &given).map_err(js_err)?,
            read_off,
            ..PrivatePrep::default()
        };
        let inner = private_dataset("csv", table, None, &prep, &mut private_rng())
            .map_err(|e| refused(e, delta))?;
        Ok(LabData {
            inner: Arc::new(inner),
        })
    }

    /// A student's own MNIST-style IDX pair (images n × …, labels n; gzip accepted), in
    /// either order: pixels scaled to [0, 1] (public bounds), rows split by a coin each.
    #[wasm_bindgen(js_name = fromIdx)]
    pub fn from_idx(first: &[u8], second: &[u8]) -> Result<LabData, JsError> {
        let first_dims = decode_idx(first, "the first file")
            .map_err(js_err)?
            .dims
            .len();
        let (images, labels) = if first_dims == 1 {
            (second, first)
        } else {
            (first, second)
        };
        let (split, classes) = images_and_labels(images, labels).map_err(js_err)?;
        let table = Table {
            feature_names: (0..split.n_features()).map(|j| format!("px{j}")).collect(),
            numeric: vec![false; split.n_features()], // pixels stay in [0, 1]
            columns: split.n_features(),
            class_names: (0..classes).map(|k| k.to_string()).collect(),
            x: split.x,
            y: split.y,
        };
        let inner = private_images("idx", table, &mut private_rng()).map_err(js_err)?;
        Ok(LabData {
            inner: Arc::new(inner),
        })
    }

    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// Sizes, privacy and preparation releases (`DataFacts`): what the page's previews need.
    pub fn facts(&self) -> Result<JsValue, JsError> {
        to_js(&self.inner.facts())
    }

    /// A key for the contents of a student's file(s) (`second` empty for a CSV): the page's
    /// file ledger counts runs per contents, so a renamed or re-saved copy of the same rows
    /// keeps its count — and an IDX pair picked in either order (labels first) one key, as
    /// [`LabData::from_idx`] reads either. Not a cryptographic digest: a collision only merges
    /// two counts (more ε, never less).
    #[wasm_bindgen(js_name = contentKey)]
    pub fn content_key(first: &[u8], second: &[u8]) -> String {
        use std::hash::{Hash, Hasher};
        let digest = |bytes: &[u8]| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            h.finish()
        };
        let (a, b) = (digest(first), digest(second));
        let (lo, hi) = (a.min(b), a.max(b));
        format!("{lo:016x}{hi:016x}:{}", first.len() + second.len())
    }
}

/// The plane of the decision-boundary view: its bounds, the points drawn on it, and why the
/// view is not private when it is not (the page's badge on it says this).
#[derive(Serialize)]
struct Plane {
    bounds: [f32; 4],
    points: Vec<f32>,
    /// Whether `points` are the training rows, in order (the "Alice" view picks one by a click).
    training_points: bool,
    not_private: Option<&'static str>,
}

/// Why the view of a run is not private: its points are the training data, or its model has
/// no guarantee (a release without noise: ε = ∞), which the regions it draws then show.
fn plane_not_private(training_points: bool, open: bool) -> Option<&'static str> {
    match (training_points, open) {
        (true, _) => Some("the training points are the training data itself"),
        (false, true) => {
            Some("this run has no privacy guarantee (ε = ∞): its model, drawn here, is not private")
        }
        (false, false) => None,
    }
}

/// The plane's bounds [x_min, x_max, y_min, y_max]: two (low, high) ranges widened by a tenth.
fn padded(ranges: impl IntoIterator<Item = (f32, f32)>) -> [f32; 4] {
    let mut bounds = [0.0f32; 4];
    for (j, (lo, hi)) in ranges.into_iter().take(2).enumerate() {
        let pad = 0.1 * (hi - lo).max(1e-3);
        bounds[2 * j] = lo - pad;
        bounds[2 * j + 1] = hi + pad;
    }
    bounds
}

/// Up to 600 points of `split` as [x, y, label, …], and their range with a margin.
fn plane_of(split: &crate::data::Split) -> ([f32; 4], Vec<f32>) {
    let bounds = padded(split.x.columns().into_iter().map(|col| {
        col.iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            })
    }));
    let points = split
        .x
        .rows()
        .into_iter()
        .zip(&split.y)
        .take(600)
        .flat_map(|(r, &y)| [r[0], r[1], y as f32])
        .collect();
    (bounds, points)
}

/// One DP-SGD run, advanced a few steps at a time so the worker stays responsive.
#[wasm_bindgen]
pub struct Session {
    pub(super) trainer: Trainer,
    /// Lots end without reports (the benchmark's session: `bench::bench_session`).
    pub(super) unreported: bool,
    /// The lot whose parts are being summed over messages (`parallel.rs`).
    pub(super) lot: LotParts,
}

/// A run's settings, parsed and checked once when a run starts (every field named and in range,
/// before any data is loaded); the worker reads them as a plain object (`toJs`) and the
/// [`Session`] takes them as they are, so a start parses its settings once.
#[wasm_bindgen]
pub struct RunSettings {
    cfg: RunConfig,
}

#[wasm_bindgen]
impl RunSettings {
    /// Parses and checks `config` (a JS object of `RunConfig` fields; missing ones take their
    /// defaults). The lot's upper bound N is checked by the session, against the data.
    pub fn check(config: JsValue) -> Result<RunSettings, JsError> {
        let cfg = config_from_js(&config)?;
        cfg.validate(usize::MAX).map_err(js_err)?;
        Ok(RunSettings { cfg })
    }

    /// The settings as a plain object, every field filled in.
    #[wasm_bindgen(js_name = toJs)]
    pub fn to_js(&self) -> Result<JsValue, JsError> {
        to_js(&self.cfg)
    }
}

#[wasm_bindgen]
impl Session {
    /// A run of `settings` on `data` (the settings checked against the data's size).
    #[wasm_bindgen(constructor)]
    pub fn new(data: &LabData, settings: &RunSettings) -> Result<Session, JsError> {
        let cfg = settings.cfg.clone();
        let trainer = Trainer::new(cfg, Arc::clone(&data.inner)).map_err(js_err)?;
        Ok(Session {
            trainer,
            unreported: false,
            lot: LotParts::default(),
        })
    }

    /// Runs at most `max_steps` lots; returns the epoch's report when an epoch ended, else
    /// null.
    pub fn advance(&mut self, max_steps: u32) -> Result<JsValue, JsError> {
        match self.trainer.advance(max_steps as u64) {
            Some(report) => to_js(&report),
            None => Ok(JsValue::NULL),
        }
    }

    pub fn is_finished(&self) -> bool {
        self.trainer.is_finished()
    }

    /// "What ε covers" for this run, in sentences (`train::Coverage`), naming what the page
    /// shows beside the reports: the plane's training points, and the file's ledger.
    pub fn coverage(&self) -> Result<JsValue, JsError> {
        to_js(&self.trainer.coverage(Shown {
            training_points: self.shows_training_points(),
            file_ledger: true,
        }))
    }

    /// The decision-boundary plane for 2-D data (null otherwise). At the teaching level: the
    /// training points and their range (marked not private on the page). At the private level:
    /// the public test points of a built-in set, or — for private data — no points and the public
    /// square [0, 1]² every private example is scaled into (its image under DP-PCA's released
    /// basis when the run projects more columns onto two).
    pub fn plane(&self) -> Result<JsValue, JsError> {
        let d = self.trainer.data();
        if d.n_features() != 2 {
            return Ok(JsValue::NULL);
        }
        let open = self.trainer.mechanism().is_open();
        let plane = if self.shows_training_points() {
            let (bounds, points) = plane_of(&d.train);
            Plane {
                bounds,
                points,
                training_points: true,
                not_private: plane_not_private(true, open),
            }
        } else if self.trainer.facts().private {
            // Every private example is scaled into [0, 1]^d: the plane is that square, or its
            // image under the released DP-PCA basis (PCA to 2 of more columns).
            let range = match self.trainer.projection() {
                Some(p) => p.range_over_unit_cube(),
                None => vec![(0.0, 1.0); 2],
            };
            Plane {
                bounds: padded(range),
                points: Vec::new(),
                training_points: false,
                not_private: plane_not_private(false, open),
            }
        } else {
            let (bounds, points) = plane_of(&d.test);
            Plane {
                bounds,
                points,
                training_points: false,
                not_private: plane_not_private(false, open),
            }
        };
        to_js(&plane)
    }

    /// The model's probability of class 1 on a `res` × `res` grid over `bounds`
    /// ([x_min, x_max, y_min, y_max]), row by row from y_min up, each row from x_min right.
    pub fn boundary(&self, bounds: &[f32], res: u32) -> Vec<f32> {
        let res = res.clamp(2, 200) as usize;
        if bounds.len() != 4 || self.trainer.data().n_features() != 2 {
            return Vec::new();
        }
        let b = bounds;
        let step = |lo: f32, hi: f32, i: usize| lo + (hi - lo) * (i as f32 + 0.5) / res as f32;
        let grid = ndarray::Array2::from_shape_fn((res * res, 2), |(k, j)| {
            if j == 0 {
                step(b[0], b[1], k % res)
            } else {
                step(b[2], b[3], k / res)
            }
        });
        self.trainer
            .model()
            .predict_proba(grid.view())
            .column(1)
            .to_vec()
    }
}

impl Session {
    /// Whether the plane draws the training points: 2-D data at the teaching level.
    fn shows_training_points(&self) -> bool {
        self.trainer.data().n_features() == 2
            && self.trainer.config().report == ReleaseLevel::Teaching
    }
}
