//! The DP-SGD loop of Algorithm 1 (paper Section 3.1), one lot at a time:
//! take a Poisson-sampled lot (q = L/N); compute each example's gradient norm; clip each
//! gradient to C; sum; add N(0, σ²C²I); divide by L; step θ ← θ − η·g̃. An epoch is N/L lots.
//! After each epoch an [`EpochReport`] says where accuracy and privacy stand.

use crate::config::{ConfigError, RunConfig};
use crate::data::Dataset;
use crate::model::{evaluate, Model, SoftmaxRegression};
use crate::privacy::accountant::{Amplification, EpsilonReport, SampledGaussian};
use crate::privacy::sampling::poisson_lot;
use crate::privacy::sanitizer::{add_gaussian_noise, clip_factors};
use crate::Real;
use ndarray::{s, Array2};
use rand::{Rng, SeedableRng};
use rand_chacha::{ChaCha20Rng, ChaCha8Rng};
use serde::{Serialize, Serializer};
use std::sync::Arc;

/// How many per-example gradient norms an epoch keeps for its summary (reservoir sample).
const NORM_SAMPLE: usize = 4096;

/// What one epoch did: accuracy, loss and privacy so far, and what clipping and noise did.
#[derive(Clone, Debug, Serialize)]
pub struct EpochReport {
    pub epoch: usize,
    /// Lots (noisy steps) taken since the start of the run.
    pub steps: u64,
    pub train_acc: f64,
    pub train_loss: f64,
    pub test_acc: f64,
    pub test_loss: f64,
    /// ε at the run's δ after `steps` steps, per accountant (paper amplification for naive
    /// and strong); ∞ (σ = 0) is written "inf" in JSON.
    #[serde(serialize_with = "serialize_epsilons")]
    pub epsilon: EpsilonReport,
    /// Fraction of the epoch's per-example gradients with norm above C.
    pub clipped_fraction: f64,
    /// Median per-example gradient norm (before clipping) over the epoch.
    pub median_grad_norm: f64,
    /// Mean ||Σ clipped g_i|| and mean ||noise|| per lot, before dividing by L.
    pub signal_norm: f64,
    pub noise_norm: f64,
    pub mean_lot_size: f64,
}

fn finite_or_inf<S: Serializer>(v: f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(v)
    } else {
        s.serialize_str("inf")
    }
}

fn serialize_epsilons<S: Serializer>(e: &EpsilonReport, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    struct Eps(f64);
    impl Serialize for Eps {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            finite_or_inf(self.0, s)
        }
    }
    let mut m = s.serialize_map(Some(4))?;
    for (k, v) in [
        ("naive", e.naive),
        ("strong", e.strong),
        ("moments", e.moments),
        ("rdp", e.rdp),
    ] {
        m.serialize_entry(k, &Eps(v))?;
    }
    m.end()
}

/// Statistics accumulated over the lots of the current epoch.
#[derive(Default)]
struct EpochStats {
    examples: usize,
    clipped: usize,
    lots: usize,
    signal_norm: f64,
    noise_norm: f64,
    norms: Vec<Real>,
}

/// A DP-SGD run in progress. Deterministic for a given config (seed included) and dataset.
pub struct Trainer {
    cfg: RunConfig,
    seed: u64,
    data: Arc<Dataset>,
    model: SoftmaxRegression,
    rng: ChaCha20Rng,
    sample_rng: ChaCha8Rng,
    q: f64,
    steps_per_epoch: u64,
    steps: u64,
    epoch: usize,
    stats: EpochStats,
    // Buffers reused across lots.
    lot: Vec<usize>,
    batch_x: Array2<Real>,
    batch_y: Vec<usize>,
    norms: Vec<Real>,
    factors: Vec<Real>,
    grad: Vec<Real>,
}

impl Trainer {
    /// Validates `cfg` against the dataset and sets up the model (zero weights) and the RNGs.
    pub fn new(cfg: RunConfig, data: Arc<Dataset>) -> Result<Trainer, ConfigError> {
        let n = data.train.len();
        cfg.validate(n)?;
        let seed = cfg.seed.unwrap_or_else(rand::random);
        let model = SoftmaxRegression::zeros(data.n_features(), data.n_classes());
        let n_params = model.n_params();
        let batch = cfg.batch_size.min(n);
        Ok(Trainer {
            q: cfg.sampling_rate(n),
            steps_per_epoch: cfg.steps_per_epoch(n),
            rng: ChaCha20Rng::seed_from_u64(seed),
            sample_rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_5eed),
            seed,
            batch_x: Array2::zeros((batch, data.n_features())),
            data,
            model,
            steps: 0,
            epoch: 0,
            stats: EpochStats::default(),
            lot: Vec::new(),
            batch_y: Vec::new(),
            norms: Vec::new(),
            factors: Vec::new(),
            grad: vec![0.0; n_params],
            cfg,
        })
    }

    pub fn config(&self) -> &RunConfig {
        &self.cfg
    }

    /// The seed actually used (drawn at random when the config has none).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn sampling_rate(&self) -> f64 {
        self.q
    }

    pub fn steps_per_epoch(&self) -> u64 {
        self.steps_per_epoch
    }

    pub fn epochs_done(&self) -> usize {
        self.epoch
    }

    pub fn is_finished(&self) -> bool {
        self.epoch >= self.cfg.epochs
    }

    pub fn model(&self) -> &SoftmaxRegression {
        &self.model
    }

    /// One noisy step of Algorithm 1 on a freshly sampled lot.
    pub fn step(&mut self) {
        let mut lot = std::mem::take(&mut self.lot);
        poisson_lot(self.data.train.len(), self.q, &mut self.rng, &mut lot);
        self.step_on_lot(&lot);
        self.lot = lot;
    }

    /// One noisy step on the given lot (indices into the training set).
    pub fn step_on_lot(&mut self, lot: &[usize]) {
        let clip = self.cfg.clip as Real;
        self.grad.fill(0.0);
        let data = Arc::clone(&self.data);
        for chunk in lot.chunks(self.batch_x.nrows()) {
            // Gather the batch into the reused buffer.
            self.batch_y.clear();
            for (r, &i) in chunk.iter().enumerate() {
                self.batch_x.row_mut(r).assign(&data.train.x.row(i));
                self.batch_y.push(data.train.y[i]);
            }
            let xb = self.batch_x.slice(s![..chunk.len(), ..]);
            self.model
                .per_example_grad_norms(xb, &self.batch_y, &mut self.norms);
            self.stats.clipped += clip_factors(&self.norms, clip, &mut self.factors);
            self.model
                .add_weighted_grad_sum(xb, &self.factors, &mut self.grad);
            self.record_norms();
        }
        let signal = self
            .grad
            .iter()
            .map(|&g| (g as f64).powi(2))
            .sum::<f64>()
            .sqrt();
        let noise = add_gaussian_noise(
            &mut self.grad,
            self.cfg.sigma * self.cfg.clip,
            &mut self.rng,
        );
        let scale = (self.cfg.lr / self.cfg.lot_size as f64) as Real;
        for (p, g) in self.model.params_mut().iter_mut().zip(&self.grad) {
            *p -= scale * g;
        }
        self.steps += 1;
        self.stats.lots += 1;
        self.stats.signal_norm += signal;
        self.stats.noise_norm += noise;
    }

    /// Keeps a uniform sample of the epoch's gradient norms (reservoir sampling on an RNG of
    /// its own, so the statistics never change the training's random stream).
    fn record_norms(&mut self) {
        for &n in &self.norms {
            self.stats.examples += 1;
            if self.stats.norms.len() < NORM_SAMPLE {
                self.stats.norms.push(n);
            } else {
                let j = self.sample_rng.random_range(0..self.stats.examples);
                if j < NORM_SAMPLE {
                    self.stats.norms[j] = n;
                }
            }
        }
    }

    /// Runs at most `max_steps` steps of the current epoch; returns its report if it ended.
    pub fn advance(&mut self, max_steps: u64) -> Option<EpochReport> {
        if self.is_finished() {
            return None;
        }
        let epoch_end = (self.epoch as u64 + 1) * self.steps_per_epoch;
        let until = epoch_end.min(self.steps.saturating_add(max_steps.max(1)));
        while self.steps < until {
            self.step();
        }
        (self.steps == epoch_end).then(|| self.finish_epoch())
    }

    /// Runs the rest of the current epoch and returns its report (None when finished).
    pub fn run_epoch(&mut self) -> Option<EpochReport> {
        self.advance(u64::MAX)
    }

    /// ε per accountant after `steps` steps of this run's mechanism.
    pub fn epsilon_after(&self, steps: u64) -> EpsilonReport {
        let mech = SampledGaussian {
            q: self.q,
            sigma: self.cfg.sigma,
            steps,
        };
        EpsilonReport::compute(&mech, self.cfg.delta, Amplification::Paper)
            .expect("validated config gives valid accountant inputs")
    }

    fn finish_epoch(&mut self) -> EpochReport {
        self.epoch += 1;
        let stats = std::mem::take(&mut self.stats);
        let d = &self.data;
        let (train_loss, train_acc) = evaluate(&self.model, d.train.x.view(), &d.train.y);
        let (test_loss, test_acc) = evaluate(&self.model, d.test.x.view(), &d.test.y);
        let mut norms = stats.norms;
        norms.sort_by(|a, b| a.total_cmp(b));
        let median = norms.get(norms.len() / 2).map_or(0.0, |&m| m as f64);
        let lots = stats.lots.max(1) as f64;
        EpochReport {
            epoch: self.epoch,
            steps: self.steps,
            train_acc,
            train_loss,
            test_acc,
            test_loss,
            epsilon: self.epsilon_after(self.steps),
            clipped_fraction: stats.clipped as f64 / stats.examples.max(1) as f64,
            median_grad_norm: median,
            signal_norm: stats.signal_norm / lots,
            noise_norm: stats.noise_norm / lots,
            mean_lot_size: stats.examples as f64 / lots,
        }
    }
}
