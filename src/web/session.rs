//! Training and accounting entry points for the worker and the page. Reports cross the
//! boundary as JSON strings (the same JSON the CLI prints).

use crate::config::RunConfig;
use crate::data::builtin::{builtin_files, load_builtin};
use crate::data::csv::{parse_csv, Table};
use crate::data::idx::{decode_idx, images_and_labels};
use crate::data::split::{dataset_from_tables, Scale};
use crate::data::{decode_packed, Dataset};
use crate::model::Model;
use crate::train::Trainer;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// A decoded dataset, shared by the sessions trained on it.
#[wasm_bindgen]
pub struct LabData {
    inner: Arc<Dataset>,
}

#[wasm_bindgen]
impl LabData {
    /// Decodes a packed dataset file (`www/data/*.bin`).
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<LabData, JsError> {
        let inner = decode_packed(bytes).map_err(|e| JsError::new(&e.to_string()))?;
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
        let inner = load_builtin(name, &files, seed.max(0.0) as u64, noise)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(LabData {
            inner: Arc::new(inner),
        })
    }

    /// The files under `www/data/` the built-in set `name` is read from (none when generated).
    #[wasm_bindgen(js_name = filesOf)]
    pub fn files_of(name: &str) -> Vec<String> {
        builtin_files(name).iter().map(|f| f.to_string()).collect()
    }

    /// A student's own CSV with `label` as the class column: split 80/20 with `seed`, numeric
    /// features standardised on the training part. Errors name the row and column.
    #[wasm_bindgen(js_name = fromCsv)]
    pub fn from_csv(bytes: &[u8], label: &str, seed: f64) -> Result<LabData, JsError> {
        let table = parse_csv(bytes, label).map_err(|e| JsError::new(&e.to_string()))?;
        let inner = dataset_from_tables("csv", table, None, Scale::Standard, seed.max(0.0) as u64);
        Ok(LabData {
            inner: Arc::new(inner),
        })
    }

    /// A student's own MNIST-style IDX pair (images n × …, labels n; gzip accepted), in
    /// either order: pixels scaled to [0, 1], split 80/20 with `seed`.
    #[wasm_bindgen(js_name = fromIdx)]
    pub fn from_idx(first: &[u8], second: &[u8], seed: f64) -> Result<LabData, JsError> {
        let err = |e: crate::data::DataError| JsError::new(&e.to_string());
        let first_dims = decode_idx(first, "the first file").map_err(err)?.dims.len();
        let (images, labels) = if first_dims == 1 {
            (second, first)
        } else {
            (first, second)
        };
        let (split, classes) = images_and_labels(images, labels).map_err(err)?;
        let table = Table {
            feature_names: (0..split.n_features()).map(|j| format!("px{j}")).collect(),
            numeric: vec![false; split.n_features()], // pixels stay in [0, 1]
            class_names: (0..classes).map(|k| k.to_string()).collect(),
            x: split.x,
            y: split.y,
        };
        let inner = dataset_from_tables("idx", table, None, Scale::None, seed.max(0.0) as u64);
        Ok(LabData {
            inner: Arc::new(inner),
        })
    }

    pub fn name(&self) -> String {
        self.inner.name.clone()
    }

    pub fn n_train(&self) -> usize {
        self.inner.train.len()
    }

    pub fn n_test(&self) -> usize {
        self.inner.test.len()
    }

    pub fn n_features(&self) -> usize {
        self.inner.n_features()
    }
}

/// One DP-SGD run, advanced a few steps at a time so the worker stays responsive.
#[wasm_bindgen]
pub struct Session {
    trainer: Trainer,
}

#[wasm_bindgen]
impl Session {
    /// Validates the configuration (a JSON object of [`RunConfig`] fields) against the data.
    #[wasm_bindgen(constructor)]
    pub fn new(data: &LabData, config_json: &str) -> Result<Session, JsError> {
        let cfg = RunConfig::from_json(config_json).map_err(|e| JsError::new(&e.to_string()))?;
        let trainer =
            Trainer::new(cfg, Arc::clone(&data.inner)).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Session { trainer })
    }

    /// Runs at most `max_steps` lots; returns the epoch's report (JSON) when an epoch ended.
    pub fn advance(&mut self, max_steps: u32) -> Option<String> {
        self.trainer
            .advance(max_steps as u64)
            .map(|r| serde_json::to_string(&r).expect("report serialises"))
    }

    pub fn is_finished(&self) -> bool {
        self.trainer.is_finished()
    }

    /// The run's seed as a decimal string (drawn at random when the config had none).
    pub fn seed(&self) -> String {
        self.trainer.seed().to_string()
    }

    pub fn sampling_rate(&self) -> f64 {
        self.trainer.sampling_rate()
    }

    pub fn steps_per_epoch(&self) -> f64 {
        self.trainer.steps_per_epoch() as f64
    }

    /// Whether the data has exactly two features (the decision-boundary view).
    pub fn is_2d(&self) -> bool {
        self.trainer.data().n_features() == 2
    }

    /// The plane the boundary view shows: [x_min, x_max, y_min, y_max], the training points'
    /// range with a margin.
    pub fn bounds(&self) -> Vec<f32> {
        let x = &self.trainer.data().train.x;
        let mut b = Vec::new();
        for col in x.columns() {
            let (lo, hi) = col
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &v| {
                    (l.min(v), h.max(v))
                });
            let pad = 0.1 * (hi - lo).max(1e-3);
            b.extend([lo - pad, hi + pad]);
        }
        b
    }

    /// The model's probability of class 1 on a `res` × `res` grid over [`Session::bounds`],
    /// row by row from y_min up, each row from x_min right.
    pub fn boundary(&self, res: u32) -> Vec<f32> {
        let (b, res) = (self.bounds(), res.clamp(2, 200) as usize);
        if b.len() != 4 {
            return Vec::new();
        }
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

    /// Up to `max` training points as [x, y, label, …] for the boundary view.
    pub fn points(&self, max: u32) -> Vec<f32> {
        let d = self.trainer.data();
        d.train
            .x
            .rows()
            .into_iter()
            .zip(&d.train.y)
            .take(max as usize)
            .flat_map(|(r, &y)| [r[0], r[1], y as f32])
            .collect()
    }
}
