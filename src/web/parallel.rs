//! Data-parallel training in the browser, by message passing: the training worker (the
//! coordinator, a [`Session`]) draws each lot, sends parts 1…k−1 of it with the parameters to
//! k−1 helper workers ([`GradientWorker`]), sums part 0 (the smallest) itself, adds the
//! helpers' clipped sums in part order, and alone draws the noise and steps (`train::part`,
//! `train::step`).
//!
//! Why separate workers and not wasm threads: threads need a SharedArrayBuffer, which browsers
//! give only to cross-origin-isolated pages (COOP/COEP headers that a static host such as
//! GitHub Pages cannot set), and a std rebuilt with atomics (nightly Rust). The parts travel
//! by message, which works wherever workers do: each helper has one array that carries the
//! parameters out and its sum back, transferred both ways and refilled in place lot after lot.
//! Where the page is cross-origin isolated (`make serve` sends the headers), they travel
//! through shared memory instead (www/workers/shared-channel.js): the same calls below, without the
//! messages' wake-up latency. docs/performance.md has the measurements behind both choices.

use super::session::{LabData, Session};
use super::{from_js, js_err, to_js};
use crate::config::Mode;
use crate::data::Split;
use crate::model::{Mlp, Model};
use crate::train::part::{PartChannel, PartSum, PartWork};
use crate::Real;
use js_sys::Float32Array;
use ndarray::Array2;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// Below this many (lot size × parameters), a lot is summed in the training worker alone:
/// its parts would take less time than the messages that carry them (about 0.3 ms per lot on
/// a laptop; Adult's logistic regression has 256 × 210 and its lots take 0.05 ms).
const MIN_WORK_TO_SPLIT: f64 = 2e6;
/// The most training data the helpers hold between them (each holds a copy).
const MAX_HELPER_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// What a helper needs to sum parts of a run's lots: the network's shape, the mode (clip,
/// noise, both or neither) and the batch size the coordinator uses.
#[derive(Serialize, Deserialize)]
struct PartSpec {
    sizes: Vec<usize>,
    mode: Mode,
    batch: usize,
}

/// How many workers a run uses, and why not more when fewer than asked.
#[derive(Serialize)]
struct ParallelPlan {
    workers: usize,
    reason: Option<String>,
}

#[wasm_bindgen]
impl Session {
    /// How many workers (the coordinator included) this run uses when `asked` are available.
    #[wasm_bindgen(js_name = parallelPlan)]
    pub fn parallel_plan(&self, asked: u32) -> Result<JsValue, JsError> {
        let t = &self.trainer;
        let asked = (asked as usize).clamp(1, 16);
        let work = t.config().lot_size as f64 * t.model().n_params() as f64;
        let data_bytes = (t.data().train.x.len() * 4) as f64;
        let fit = 1 + (MAX_HELPER_BYTES / data_bytes.max(1.0)).floor() as usize;
        // Helpers hold the data set's rows only: a run that reads more (an audit's canaries)
        // is not split. Only the audit makes one, and it never runs as a session.
        let rows = t.training_rows();
        let plan = if asked == 1 || rows.appended.is_some() || rows.zeros > 0 {
            ParallelPlan {
                workers: 1,
                reason: None,
            }
        } else if work < MIN_WORK_TO_SPLIT {
            ParallelPlan {
                workers: 1,
                reason: Some("lots this small are faster in one worker".into()),
            }
        } else if fit < asked {
            ParallelPlan {
                workers: fit,
                reason: Some(format!(
                    "each helper holds a copy of the {} MB of training data",
                    (data_bytes / 1048576.0).round()
                )),
            }
        } else {
            ParallelPlan {
                workers: asked,
                reason: None,
            }
        };
        to_js(&plan)
    }

    /// How the helpers get their parts from the next lot on: through shared memory (`shared`)
    /// or by message. It moves the split of each lot, to the last bit of the run but not
    /// beyond rounding (`train::part::coordinator_extra_examples`); a change is refused while
    /// a lot's parts are out, since they were cut by the split in force.
    #[wasm_bindgen(js_name = setPartChannel)]
    pub fn set_part_channel(&mut self, shared: bool) -> Result<(), JsError> {
        let channel = if shared {
            PartChannel::SharedMemory
        } else {
            PartChannel::Messages
        };
        if channel != self.trainer.part_channel() && self.lot.is_open() {
            return Err(js_err(
                "the helpers' channel changed while a lot's parts were out",
            ));
        }
        self.trainer.set_part_channel(channel);
        Ok(())
    }

    /// Whether the run trains on `data` as loaded (no DP-PCA, no canaries): then helpers that
    /// hold that data set's rows can keep them from one run to the next.
    #[wasm_bindgen(js_name = trainsOn)]
    pub fn trains_on(&self, data: &LabData) -> bool {
        let rows = self.trainer.training_rows();
        rows.appended.is_none()
            && rows.zeros == 0
            && std::ptr::eq(self.trainer.data(), data.dataset().as_ref())
    }

    /// The helpers' [`GradientWorker::configure`] settings for this run.
    #[wasm_bindgen(js_name = partSpec)]
    pub fn part_spec(&self) -> Result<JsValue, JsError> {
        let cfg = self.trainer.config();
        to_js(&PartSpec {
            sizes: self.trainer.model().sizes().to_vec(),
            mode: cfg.mode,
            batch: cfg.batch_size.min(self.trainer.data().train.len()),
        })
    }

    /// The training rows the run uses (after DP-PCA), row-major, for the helpers: copied from
    /// wasm memory straight into a JS array. (Returned as a Vec, they were first copied inside
    /// wasm memory, which never shrinks: 188 MB more in the training worker on Fashion-MNIST.)
    #[wasm_bindgen(js_name = trainX)]
    pub fn train_x(&self) -> js_sys::Float32Array {
        let x = self.trainer.data().train.x.as_standard_layout(); // borrowed: rows are stored so
        js_sys::Float32Array::from(x.as_slice().expect("standard layout"))
    }

    #[wasm_bindgen(js_name = trainY)]
    pub fn train_y(&self) -> Vec<u32> {
        let y = &self.trainer.data().train.y;
        y.iter().map(|&c| c as u32).collect()
    }

    /// Examples summed since the start (the benchmark's count).
    #[wasm_bindgen(js_name = examplesSeen)]
    pub fn examples_seen(&self) -> f64 {
        self.trainer.examples_seen() as f64
    }

    /// Draws the next lot (Algorithm 1's sampling, on the coordinator only); refused while
    /// the last lot is still being summed ([`LotParts`](crate::train::part::LotParts)).
    #[wasm_bindgen(js_name = drawLot)]
    pub fn draw_lot(&mut self) -> Result<(), JsError> {
        self.lot.open().map_err(js_err)?;
        self.trainer.draw_lot();
        Ok(())
    }

    /// Part `i` of `k` of the current lot, as training-row indices.
    #[wasm_bindgen(js_name = lotPart)]
    pub fn lot_part(&self, i: u32, k: u32) -> Vec<u32> {
        self.trainer
            .lot_part(i as usize, k as usize)
            .iter()
            .map(|&r| r as u32)
            .collect()
    }

    /// Writes the parameters the current lot's gradients are taken at into `out`, a helper's
    /// buffer that goes back and forth lot after lot (no allocation per lot: a fresh 284 KB
    /// array for the paper's MLP took 0.18 ms of the training worker's time in Chromium).
    #[wasm_bindgen(js_name = paramsInto)]
    pub fn params_into(&self, out: &Float32Array) -> Result<(), JsError> {
        copy_into(self.trainer.params(), out, "parameters")
    }

    /// How many parameters the run's model has (the length of a helper's buffer).
    #[wasm_bindgen(js_name = nParams)]
    pub fn n_params(&self) -> u32 {
        self.trainer.params().len() as u32
    }

    /// The clipping bounds in force for the current lot.
    #[wasm_bindgen(js_name = clipBounds)]
    pub fn clip_bounds(&self) -> Vec<f64> {
        self.trainer.clip_bounds().to_vec()
    }

    /// Sums part `i` of `k` of the current lot here (each part once).
    #[wasm_bindgen(js_name = sumOwnPart)]
    pub fn sum_own_part(&mut self, i: u32, k: u32) -> Result<(), JsError> {
        self.lot.part(i as usize, k as usize).map_err(js_err)?;
        self.trainer.sum_own_part(i as usize, k as usize);
        Ok(())
    }

    /// Draws the current lot's noise now (the coordinator does it while its helpers sum):
    /// the same draws, in the same order, as when the lot is finished.
    #[wasm_bindgen(js_name = drawNoise)]
    pub fn draw_noise(&mut self) {
        self.trainer.draw_noise();
    }

    /// A helper's sum of part `i` of `k` ([`GradientWorker::sum`]'s grad, norms and counts):
    /// refused, and the lot left as it was, unless it is that part of the open lot, once.
    #[wasm_bindgen(js_name = receivePart)]
    pub fn receive_part(
        &mut self,
        i: u32,
        k: u32,
        grad: Vec<f32>,
        norms: Vec<f32>,
        counts: &[u32],
    ) -> Result<(), JsError> {
        let [examples, clipped, unclipped, digest] =
            <[u32; 4]>::try_from(counts).map_err(|_| {
                JsError::new("a part's counts must be [examples, clipped, unclipped, digest]")
            })?;
        let (i, k) = (i as usize, k as usize);
        // Each part once, of the open lot (which of k: `finish_lot` checks the whole set).
        self.lot.check_part(i, k).map_err(js_err)?;
        let part = PartSum {
            grad,
            norms,
            examples: examples as usize,
            clipped: clipped as usize,
            unclipped: unclipped as usize,
            digest,
        };
        self.trainer.receive_part(i, k, part).map_err(js_err)?;
        self.lot.part(i, k).map_err(js_err)
    }

    /// Adds the `k` parts (refused unless all `k` of the open lot are in, each once), adds
    /// the noise (drawn now unless drawn ahead) and steps; the epoch's report when the lot
    /// ended one, else null.
    #[wasm_bindgen(js_name = finishLot)]
    pub fn finish_lot(&mut self, k: u32) -> Result<JsValue, JsError> {
        self.lot.finish(k as usize).map_err(js_err)?;
        if self.unreported {
            self.trainer.finish_lot_unreported(k as usize);
            return Ok(JsValue::NULL);
        }
        match self.trainer.finish_lot(k as usize) {
            Some(report) => to_js(&report),
            None => Ok(JsValue::NULL),
        }
    }
}

/// A helper worker's half of data-parallel training: sums the parts of lots it is sent, on
/// its own copy of the training rows and the parameters it is given. It draws nothing random.
#[wasm_bindgen]
pub struct GradientWorker {
    train: Split,
    /// The run's network (parameters set per lot) and mode, from [`GradientWorker::configure`].
    run: Option<(Mlp, Mode, PartWork)>,
    out: PartSum,
    part: Vec<usize>,
}

#[wasm_bindgen]
impl GradientWorker {
    /// The training rows: `x` (n × d, row-major) and their classes `y`; kept across runs that
    /// train on the same rows.
    #[wasm_bindgen(constructor)]
    pub fn new(x: Vec<f32>, y: Vec<u32>) -> Result<GradientWorker, JsError> {
        if y.is_empty() || !x.len().is_multiple_of(y.len()) {
            return Err(JsError::new("training rows: x and y disagree in length"));
        }
        let d = x.len() / y.len();
        let x = Array2::from_shape_vec((y.len(), d), x).map_err(js_err)?;
        Ok(GradientWorker {
            train: Split {
                x,
                y: y.into_iter().map(|c| c as usize).collect(),
            },
            run: None,
            out: PartSum::default(),
            part: Vec::new(),
        })
    }

    /// A run's settings, from [`Session::part_spec`].
    pub fn configure(&mut self, spec: JsValue) -> Result<(), JsError> {
        let spec: PartSpec = from_js(spec, "part spec")?;
        let d = self.train.n_features();
        let classes = spec.sizes.last().copied().unwrap_or(0);
        if spec.sizes.len() < 2 || spec.sizes.contains(&0) || spec.sizes[0] != d {
            return Err(JsError::new("part spec: layer sizes do not fit the rows"));
        }
        if spec.batch == 0 || self.train.y.iter().any(|&c| c >= classes) {
            return Err(JsError::new(
                "part spec: no batch, or a class beyond the last layer",
            ));
        }
        let work = PartWork::new(spec.batch, d);
        self.run = Some((Mlp::with_sizes(spec.sizes), spec.mode, work));
        Ok(())
    }

    /// Sums `part` (training-row indices) at `params`, clipped to `bounds`.
    pub fn sum(&mut self, params: &[f32], part: &[u32], bounds: &[f64]) -> Result<(), JsError> {
        let Some((model, mode, work)) = self.run.as_mut() else {
            return Err(JsError::new("no run configured"));
        };
        let n = model.n_params();
        if params.len() != n {
            return Err(JsError::new(&format!(
                "{} parameters for a model of {n}",
                params.len()
            )));
        }
        let layers = model.n_layers();
        let bad = |c: &f64| c.is_nan() || *c <= 0.0;
        if !(bounds.len() == 1 || bounds.len() == layers) || bounds.iter().any(bad) {
            return Err(JsError::new(
                "clipping bounds: one, or one per layer, each > 0",
            ));
        }
        if part.iter().any(|&i| i as usize >= self.train.len()) {
            return Err(JsError::new("a lot index beyond the training rows"));
        }
        model.params_mut().copy_from_slice(params);
        self.part.clear();
        self.part.extend(part.iter().map(|&i| i as usize));
        self.out.reset(n);
        work.sum_part(
            model,
            (&self.train).into(),
            &self.part,
            *mode,
            bounds,
            &mut self.out,
        );
        Ok(())
    }

    /// Writes the last part's sum of (clipped) gradients into `out`: the buffer its
    /// parameters came in, which goes back to the training worker (no allocation per lot).
    #[wasm_bindgen(js_name = gradInto)]
    pub fn grad_into(&self, out: &Float32Array) -> Result<(), JsError> {
        copy_into(&self.out.grad, out, "gradient")
    }

    /// The last part's per-example gradient norms (empty when not private).
    pub fn norms(&self) -> Vec<Real> {
        self.out.norms.clone()
    }

    /// The last part's [examples, clipped, unclipped, digest of its rows] (`part_digest`).
    pub fn counts(&self) -> Vec<u32> {
        let [e, c, u] = [self.out.examples, self.out.clipped, self.out.unclipped].map(|n| n as u32);
        vec![e, c, u, self.out.digest]
    }
}

/// Copies `values` into the JS array `out`, which must have their length (`copy_from` would
/// panic otherwise).
fn copy_into(values: &[Real], out: &Float32Array, what: &str) -> Result<(), JsError> {
    if out.length() as usize != values.len() {
        return Err(JsError::new(&format!(
            "a buffer of {} for {} {what}",
            out.length(),
            values.len()
        )));
    }
    out.copy_from(values);
    Ok(())
}
