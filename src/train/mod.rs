//! The DP-SGD loop of Algorithm 1 (paper Section 3.1), one lot at a time:
//! take a lot (Poisson-sampled with q = L/N); compute each example's gradient norm; clip each
//! gradient to C; sum; add N(0, σ²C²I); divide by L; step θ ← θ − η_t·g̃. An epoch is N/L
//! lots. A lot is processed in batches of at most B examples whose clipped sums accumulate;
//! noise is added once per lot. After each epoch an [`EpochReport`] says where accuracy and
//! privacy stand.

mod report;
mod stats;

pub use report::EpochReport;
use stats::EpochStats;

use crate::config::{Clipping, ConfigError, Mode, ModelKind, RunConfig, Sampling};
use crate::data::pca::{dp_pca, project};
use crate::data::Dataset;
use crate::model::{evaluate, Mlp, Model};
use crate::privacy::accountant::calibrate::max_steps_within;
use crate::privacy::accountant::{
    compose, Accountant, Amplification, EpsilonReport, SampledGaussian,
};
use crate::privacy::sampling::poisson_lot;
use crate::privacy::sanitizer::{add_gaussian_noise, clip_weights, sum_of_squares};
use crate::Real;
use ndarray::{s, Array2};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::ops::Range;
use std::sync::Arc;

/// A DP-SGD run in progress. Deterministic for a given config (seed included) and dataset.
pub struct Trainer {
    cfg: RunConfig,
    seed: u64,
    data: Arc<Dataset>,
    model: Mlp,
    rng: ChaCha8Rng,
    sample_rng: ChaCha8Rng,
    q: f64,
    steps_per_epoch: u64,
    steps: u64,
    examples_seen: u64,
    epoch: usize,
    stats: EpochStats,
    clip_bounds: Vec<f64>,
    layer_ranges: Vec<Range<usize>>,
    /// Budget mode: the number of steps after which ε would exceed the budget.
    step_limit: Option<u64>,
    // Buffers reused across lots.
    lot: Vec<usize>,
    perm: Vec<usize>,
    perm_pos: usize,
    batch_x: Array2<Real>,
    batch_y: Vec<usize>,
    norms: Array2<Real>,
    weights: Array2<Real>,
    total_norms: Vec<Real>,
    lot_norms: Vec<Real>,
    grad: Vec<Real>,
}

impl Trainer {
    /// Validates `cfg` against the dataset and sets up the model and the RNGs.
    pub fn new(cfg: RunConfig, data: Arc<Dataset>) -> Result<Trainer, ConfigError> {
        let n = data.train.len();
        cfg.validate(n)?;
        let seed = cfg.seed.unwrap_or_else(rand::random);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let data = match cfg.pca {
            None => data,
            Some(k) if k > data.n_features() => {
                return Err(ConfigError {
                    field: "pca",
                    message: format!(
                        "PCA to {k} dimensions, but the data has only {}",
                        data.n_features()
                    ),
                })
            }
            Some(k) => {
                // Its own random stream, so turning PCA on does not change the training's draws.
                let mut pca_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0bca_0bca);
                let p = dp_pca(
                    &data.train.x,
                    k,
                    cfg.pca_noise(),
                    cfg.pca_sample,
                    &mut pca_rng,
                );
                Arc::new(project(&data, &p))
            }
        };
        let (d, k) = (data.n_features(), data.n_classes());
        let model = match cfg.model {
            ModelKind::Logistic => Mlp::logistic(d, k),
            ModelKind::Mlp => Mlp::new(d, &cfg.hidden, k, &mut rng),
        };
        let batch = cfg.batch_size.min(n);
        let mut trainer = Trainer {
            q: cfg.sampling_rate(n),
            steps_per_epoch: cfg.steps_per_epoch(n),
            sample_rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_5eed),
            rng,
            seed,
            batch_x: Array2::zeros((batch, d)),
            clip_bounds: cfg.clip_bounds(),
            step_limit: None,
            layer_ranges: model.layer_ranges(),
            grad: vec![0.0; model.n_params()],
            model,
            data,
            steps: 0,
            examples_seen: 0,
            epoch: 0,
            stats: EpochStats::default(),
            lot: Vec::new(),
            perm: Vec::new(),
            perm_pos: 0,
            batch_y: Vec::new(),
            norms: Array2::zeros((0, 0)),
            weights: Array2::zeros((0, 0)),
            total_norms: Vec::new(),
            lot_norms: Vec::new(),
            cfg,
        };
        trainer.step_limit = trainer.budget_step_limit();
        Ok(trainer)
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
        self.epoch >= self.cfg.epochs || self.stopped_by_budget()
    }

    /// Whether the ε budget has ended the run (the paper's DPTrain loop).
    pub fn stopped_by_budget(&self) -> bool {
        self.step_limit.is_some_and(|limit| self.steps >= limit)
    }

    /// The step count at which the configured budget stops the run: the largest T whose ε,
    /// DP-PCA included, stays within it (None without a budget).
    fn budget_step_limit(&self) -> Option<u64> {
        let budget = self.cfg.budget_epsilon?;
        let acc = Accountant::parse(&self.cfg.budget_accountant, Amplification::Paper).ok()?;
        let parts = |t: u64| self.mechanism_parts(t);
        let limit = self.steps_per_epoch * self.cfg.epochs as u64;
        max_steps_within(
            &|t| compose::epsilon(acc, &parts(t), self.cfg.delta),
            budget,
            limit,
        )
        .ok()
        .filter(|&t| t < limit) // a budget the whole run fits in never stops it
    }

    pub fn model(&self) -> &Mlp {
        &self.model
    }

    /// The data the run trains on (after DP-PCA, when on).
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// Examples processed since the start (the sum of the lot sizes).
    pub fn examples_seen(&self) -> u64 {
        self.examples_seen
    }

    /// One noisy step of Algorithm 1 on a freshly drawn lot.
    pub fn step(&mut self) {
        let mut lot = std::mem::take(&mut self.lot);
        let n = self.data.train.len();
        match self.cfg.sampling {
            Sampling::Poisson => poisson_lot(n, self.q, &mut self.rng, &mut lot),
            Sampling::Shuffle => {
                let l = self.cfg.lot_size;
                if self.steps.is_multiple_of(self.steps_per_epoch) || self.perm_pos + l > n {
                    self.perm = (0..n).collect();
                    self.perm.shuffle(&mut self.rng);
                    self.perm_pos = 0;
                }
                lot.clear();
                lot.extend_from_slice(&self.perm[self.perm_pos..self.perm_pos + l]);
                self.perm_pos += l;
            }
        }
        self.step_on_lot(&lot);
        self.lot = lot;
    }

    /// One step on the given lot (indices into the training set), as the mode says: clip
    /// and noise (DP), neither, or one of them.
    pub fn step_on_lot(&mut self, lot: &[usize]) {
        let mode = self.cfg.mode;
        self.grad.fill(0.0);
        self.lot_norms.clear();
        let data = Arc::clone(&self.data);
        for chunk in lot.chunks(self.batch_x.nrows()) {
            self.batch_y.clear();
            for (r, &i) in chunk.iter().enumerate() {
                self.batch_x.row_mut(r).assign(&data.train.x.row(i));
                self.batch_y.push(data.train.y[i]);
            }
            let xb = self.batch_x.slice(s![..chunk.len(), ..]);
            self.stats.examples += chunk.len();
            if mode == Mode::NonPrivate {
                self.model.forward_backward(xb, &self.batch_y, None);
                self.model.add_grad_sum(xb, None, &mut self.grad);
                continue;
            }
            self.model
                .forward_backward(xb, &self.batch_y, Some(&mut self.norms));
            self.total_norms.clear();
            self.total_norms
                .extend(self.norms.rows().into_iter().map(|r| r.dot(&r).sqrt()));
            if mode == Mode::NoiseOnly {
                self.model.add_grad_sum(xb, None, &mut self.grad);
            } else {
                self.stats.clipped += clip_weights(
                    self.norms.view(),
                    &self.total_norms,
                    &self.clip_bounds,
                    &mut self.weights,
                );
                self.model
                    .add_grad_sum(xb, Some(self.weights.view()), &mut self.grad);
            }
            self.stats
                .record_norms(&self.total_norms, &mut self.lot_norms, &mut self.sample_rng);
        }
        let signal = sum_of_squares(&self.grad).sqrt();
        let noise = if matches!(mode, Mode::Dp | Mode::NoiseOnly) {
            self.add_noise()
        } else {
            0.0
        };
        let scale = (self.cfg.lr_at(self.epoch) / self.cfg.lot_size as f64) as Real;
        for (p, g) in self.model.params_mut().iter_mut().zip(&self.grad) {
            *p -= scale * g;
        }
        self.steps += 1;
        self.examples_seen += lot.len() as u64;
        self.stats.record_lot(signal, noise, self.steps_per_epoch);
    }

    /// Algorithm 1's noise: N(0, σ²C²) on every coordinate (per-layer: σC_l on layer l).
    /// Returns the noise's L2 norm.
    fn add_noise(&mut self) -> f64 {
        let sigma = self.cfg.sigma;
        match self.cfg.clipping {
            Clipping::Flat => {
                add_gaussian_noise(&mut self.grad, sigma * self.clip_bounds[0], &mut self.rng)
            }
            Clipping::PerLayer => {
                let mut sq = 0.0;
                for (r, &c) in self.layer_ranges.iter().zip(&self.clip_bounds) {
                    sq += add_gaussian_noise(&mut self.grad[r.clone()], sigma * c, &mut self.rng)
                        .powi(2);
                }
                sq.sqrt()
            }
        }
    }

    /// E||noise|| ≈ sqrt(Σ_l (σ C_l)² d_l): σC·√d for flat clipping; 0 without noise.
    fn expected_noise_norm(&self) -> f64 {
        if !matches!(self.cfg.mode, Mode::Dp | Mode::NoiseOnly) {
            return 0.0;
        }
        let sigma = self.cfg.sigma;
        let per_layer = self.clip_bounds.len() > 1;
        let sq: f64 = self
            .layer_ranges
            .iter()
            .enumerate()
            .map(|(l, r)| {
                let c = if per_layer {
                    self.clip_bounds[l]
                } else {
                    self.clip_bounds[0]
                };
                (sigma * c).powi(2) * r.len() as f64
            })
            .sum();
        sq.sqrt()
    }

    /// Runs at most `max_steps` steps of the current epoch; returns its report if it ended.
    pub fn advance(&mut self, max_steps: u64) -> Option<EpochReport> {
        if self.is_finished() {
            return None;
        }
        let epoch_end = (self.epoch as u64 + 1) * self.steps_per_epoch;
        let stop = self
            .step_limit
            .map_or(epoch_end, |limit| limit.min(epoch_end));
        let until = stop.min(self.steps.saturating_add(max_steps.max(1)));
        while self.steps < until {
            self.step();
        }
        (self.steps == stop).then(|| self.finish_epoch())
    }

    /// Runs the rest of the current epoch and returns its report (None when finished).
    pub fn run_epoch(&mut self) -> Option<EpochReport> {
        self.advance(u64::MAX)
    }

    /// The mechanisms a run of `steps` steps consists of: DP-PCA's one step (when on), then
    /// the training steps.
    fn mechanism_parts(&self, steps: u64) -> Vec<SampledGaussian> {
        let train = SampledGaussian {
            q: self.q,
            sigma: self.cfg.accounted_sigma(),
            steps,
        };
        let mut parts = vec![train];
        if self.cfg.pca.is_some() {
            parts.insert(
                0,
                SampledGaussian {
                    q: self.cfg.pca_sample,
                    sigma: self.cfg.pca_noise(),
                    steps: 1,
                },
            );
        }
        parts
    }

    /// ε per accountant after `steps` steps of this run's mechanism, DP-PCA's step included.
    pub fn epsilon_after(&self, steps: u64) -> EpsilonReport {
        EpsilonReport::compute_parts(
            &self.mechanism_parts(steps),
            self.cfg.delta,
            Amplification::Paper,
        )
        .expect("validated config gives valid accountant inputs")
    }

    fn finish_epoch(&mut self) -> EpochReport {
        let lr = self.cfg.lr_at(self.epoch);
        self.epoch += 1;
        let stats = std::mem::take(&mut self.stats);
        let d = &self.data;
        let (train_loss, train_acc) = evaluate(&self.model, d.train.x.view(), &d.train.y);
        let (test_loss, test_acc) = evaluate(&self.model, d.test.x.view(), &d.test.y);
        let mut norms = stats.norms;
        norms.sort_by(|a, b| a.total_cmp(b));
        let median = norms.get(norms.len() / 2).map_or(0.0, |&m| m as f64);
        let lots = stats.lots.max(1) as f64;
        let mut notes = Vec::new();
        if self.cfg.sampling == Sampling::Shuffle {
            notes.push("fixed-size shuffled lots: the accountants assume Poisson sampling, so ε is indicative only".into());
        }
        if self.stopped_by_budget() {
            notes.push(format!(
                "stopped by the ε budget ({} with the {} accountant) after {} steps",
                self.cfg.budget_epsilon.unwrap_or(f64::NAN),
                self.cfg.budget_accountant,
                self.steps
            ));
        }
        if self.cfg.mode != Mode::Dp {
            notes.push(
                "without both clipping and noise there is no privacy guarantee (ε = ∞)".into(),
            );
        }
        EpochReport {
            epoch: self.epoch,
            steps: self.steps,
            train_acc,
            train_loss,
            test_acc,
            test_loss,
            epsilon: self.epsilon_after(self.steps),
            accounted_sigma: self.cfg.accounted_sigma(),
            lr,
            clipped_fraction: stats.clipped as f64 / stats.examples.max(1) as f64,
            median_grad_norm: median,
            last_lot_norms: self.lot_norms.clone(),
            signal_norm: stats.signal_norm / lots,
            noise_norm: stats.noise_norm / lots,
            lot_signal_noise: stats.per_lot,
            expected_noise_norm: self.expected_noise_norm(),
            mean_lot_size: stats.examples as f64 / lots,
            stopped_by_budget: self.stopped_by_budget(),
            notes,
        }
    }
}
