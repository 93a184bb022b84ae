//! The DP-SGD loop of Algorithm 1 (paper Section 3.1), one lot at a time:
//! take a lot (Poisson-sampled with q = L/N); compute each example's gradient norm; clip each
//! gradient to C; sum; add N(0, σ²C²I); divide by L; step θ ← θ − η_t·g̃. An epoch is N/L
//! lots. A lot is processed in batches of at most B examples whose clipped sums accumulate;
//! noise is added once per lot. With adaptive clipping each lot also releases a noisy count
//! of its unclipped examples and C follows it (`privacy::adaptive`). After each epoch an
//! [`EpochReport`] says where accuracy and privacy stand, at the configured release level.
//!
//! The run's privacy is its [`Mechanism`] (from `RunConfig::mechanism`), composed into one
//! running accountant per reported accountant as the epochs go.

mod report;
mod stats;

pub use report::{Diagnostics, EpochReport, COVERED, NOT_PRIVATE, TEST_METRICS};
use stats::EpochStats;

use crate::config::{
    fmt_num, Clipping, ConfigError, Mode, ModelKind, ReleaseLevel, RunConfig, Sampling,
};
use crate::data::pca::{dp_pca, project};
use crate::data::{DataFacts, Dataset};
use crate::model::{evaluate, Mlp, Model};
use crate::privacy::accountant::calibrate::max_steps_within;
use crate::privacy::accountant::{compose, Accountant, EpsilonReport, PrivacyAccountant, REPORTED};
use crate::privacy::adaptive::{next_clip, noisy_unclipped_fraction};
use crate::privacy::mechanism::Mechanism;
use crate::privacy::sampling::poisson_lot;
use crate::privacy::sanitizer::{add_gaussian_noise, clip_weights, sum_of_squares};
use crate::Real;
use ndarray::{s, Array2};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use std::ops::Range;
use std::sync::Arc;

/// A DP-SGD run in progress. Deterministic for a given config (seed included) and dataset.
pub struct Trainer {
    cfg: RunConfig,
    seed: u64,
    data: Arc<Dataset>,
    facts: DataFacts,
    model: Mlp,
    /// Lots, noise and initialisation; separate streams for the norm sample, the noisy counts
    /// and the noisy evaluations, so turning those on changes no training draw.
    rng: ChaCha8Rng,
    sample_rng: ChaCha8Rng,
    count_rng: ChaCha8Rng,
    eval_rng: ChaCha8Rng,
    mechanism: Mechanism,
    /// One running composition per reported accountant, and the steps composed into them.
    ledgers: Vec<(&'static str, Box<dyn PrivacyAccountant>)>,
    accounted_steps: u64,
    q: f64,
    steps_per_epoch: u64,
    steps: u64,
    examples_seen: u64,
    epoch: usize,
    stats: EpochStats,
    /// The flat C in force (moved by adaptive clipping) and the bounds it gives each layer.
    clip: f64,
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
    /// Validates `cfg` against the dataset and sets up the model, the RNGs and the accountants.
    pub fn new(cfg: RunConfig, data: Arc<Dataset>) -> Result<Trainer, ConfigError> {
        let n = data.train.len();
        cfg.validate(n)?;
        if let Some((split, row, name)) = data.first_non_finite() {
            return Err(ConfigError {
                field: "dataset",
                message: format!(
                    "the {split} set has a value that is not a finite number (row {}, feature '{name}')",
                    row + 1
                ),
            });
        }
        let facts = data.facts();
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
        let mechanism = cfg.mechanism(&facts);
        let whole_run = mechanism.after_epochs(mechanism.epochs);
        let ledgers = REPORTED
            .iter()
            .map(|&name| {
                let acc = Accountant::parse(name, cfg.amplification).expect("reported names parse");
                let mut ledger = acc.start(&whole_run);
                for part in mechanism.before_training() {
                    ledger.compose(&part);
                }
                (name, ledger)
            })
            .collect();
        let batch = cfg.batch_size.min(n);
        let mut trainer = Trainer {
            q: cfg.sampling_rate(n),
            steps_per_epoch: cfg.steps_per_epoch(n),
            sample_rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_5eed),
            count_rng: ChaCha8Rng::seed_from_u64(seed ^ 0xc0a7_c0a7),
            eval_rng: ChaCha8Rng::seed_from_u64(seed ^ 0xe7a1_e7a1),
            rng,
            seed,
            batch_x: Array2::zeros((batch, d)),
            clip: cfg.clip,
            clip_bounds: cfg.clip_bounds(),
            step_limit: None,
            layer_ranges: model.layer_ranges(),
            grad: vec![0.0; model.n_params()],
            model,
            data,
            facts,
            mechanism,
            ledgers,
            accounted_steps: 0,
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
        trainer.step_limit = trainer.budget_step_limit()?;
        Ok(trainer)
    }

    pub fn config(&self) -> &RunConfig {
        &self.cfg
    }

    /// The seed actually used (drawn at random when the config has none).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// What the run releases (every ε it reports is computed from this).
    pub fn mechanism(&self) -> &Mechanism {
        &self.mechanism
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
    /// everything the run releases included, stays within it (None without a budget).
    fn budget_step_limit(&self) -> Result<Option<u64>, ConfigError> {
        let Some(budget) = self.cfg.budget_epsilon else {
            return Ok(None);
        };
        let as_config = |e: crate::privacy::accountant::AccountError| ConfigError {
            field: "budget_accountant",
            message: e.0,
        };
        let acc = self.cfg.budget_accountant();
        let limit = self.mechanism.total_steps();
        // Planned like the reports' running compositions (the whole run), so the ε at the stop
        // is the ε the report shows.
        let whole_run = self.mechanism.after_epochs(self.mechanism.epochs);
        let eps = |t: u64| {
            compose::epsilon_planned(
                acc,
                &self.mechanism.after_steps(t),
                &whole_run,
                self.cfg.delta,
            )
        };
        let within = max_steps_within(&eps, budget, limit).map_err(as_config)?;
        if within == 0 {
            let first = eps(1).map_err(as_config)?;
            return Err(ConfigError {
                field: "budget_epsilon",
                message: format!(
                    "the ε budget {} is spent before the first step (one step already costs \
                     ε = {} with the {} accountant): raise the budget or add noise",
                    fmt_num(budget),
                    fmt_num((first * 1000.0).ceil() / 1000.0),
                    acc.name()
                ),
            });
        }
        Ok((within < limit).then_some(within)) // a budget the whole run fits in never stops it
    }

    pub fn model(&self) -> &Mlp {
        &self.model
    }

    /// The data the run trains on (after DP-PCA, when on).
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// Sizes and privacy of the data as given (before DP-PCA).
    pub fn facts(&self) -> &DataFacts {
        &self.facts
    }

    /// Examples processed since the start (the sum of the lot sizes).
    pub fn examples_seen(&self) -> u64 {
        self.examples_seen
    }

    /// ε of the analytic accountants after `steps` steps of this run (everything it releases
    /// before and between included), composed afresh.
    pub fn epsilon_after(&self, steps: u64) -> EpsilonReport {
        EpsilonReport::compute(
            &self.mechanism.after_steps(steps),
            self.cfg.delta,
            self.cfg.amplification,
            false,
        )
        .expect("a validated config gives valid accountant inputs")
    }

    /// The clipping norm C in force (adaptive clipping moves it).
    pub fn clip(&self) -> f64 {
        self.clip
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
        let mut unclipped = 0usize;
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
                let clipped = clip_weights(
                    self.norms.view(),
                    &self.total_norms,
                    &self.clip_bounds,
                    &mut self.weights,
                );
                self.stats.clipped += clipped;
                unclipped += chunk.len() - clipped;
                self.model
                    .add_grad_sum(xb, Some(self.weights.view()), &mut self.grad);
            }
            self.stats
                .record_norms(&self.total_norms, &mut self.lot_norms, &mut self.sample_rng);
        }
        let signal = sum_of_squares(&self.grad).sqrt();
        let noise = if mode.adds_noise() {
            self.add_noise()
        } else {
            0.0
        };
        let scale = (self.cfg.lr_at(self.epoch) / self.cfg.lot_size as f64) as Real;
        for (p, g) in self.model.params_mut().iter_mut().zip(&self.grad) {
            *p -= scale * g;
        }
        self.release_clipped_count(unclipped, lot.len());
        self.steps += 1;
        self.examples_seen += lot.len() as u64;
        self.stats.record_lot(signal, noise, self.steps_per_epoch);
    }

    /// Adaptive clipping's release (Andrew et al. 2021): the lot's noisy unclipped fraction,
    /// and C moved towards the target quantile for the next lot.
    fn release_clipped_count(&mut self, unclipped: usize, lot_len: usize) {
        let Some(count_noise) = self.cfg.count_noise_std() else {
            return;
        };
        let expected = self.cfg.lot_size as f64;
        let b = noisy_unclipped_fraction(
            unclipped,
            lot_len,
            expected,
            count_noise,
            &mut self.count_rng,
        );
        self.stats.noisy_unclipped += b;
        self.stats.noisy_counts += 1;
        if let (true, Some(target)) = (self.cfg.adaptive_clipping(), self.cfg.clip_quantile) {
            self.clip = next_clip(self.clip, b, target, self.cfg.clip_lr);
            let ratio = self.clip / self.cfg.clip;
            self.clip_bounds = self.cfg.clip_bounds().iter().map(|c| c * ratio).collect();
        }
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
        if !self.cfg.mode.adds_noise() {
            return 0.0;
        }
        let per_layer = self.clip_bounds.len() > 1;
        let sq: f64 = self
            .layer_ranges
            .iter()
            .enumerate()
            .map(|(l, r)| {
                let c = self.clip_bounds[if per_layer { l } else { 0 }];
                (self.cfg.sigma * c).powi(2) * r.len() as f64
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

    /// Composes the steps since the last report and this report's per-epoch releases, and
    /// reads every accountant's ε.
    fn account_epoch(&mut self) -> EpsilonReport {
        let mut parts = vec![self.mechanism.step.times(self.steps - self.accounted_steps)];
        parts.extend(self.mechanism.per_epoch.iter().map(|r| r.times(1)));
        self.accounted_steps = self.steps;
        let delta = self.cfg.delta;
        let mut values = [0.0; 5];
        for (v, (_, ledger)) in values.iter_mut().zip(&mut self.ledgers) {
            for p in &parts {
                ledger.compose(p);
            }
            *v = ledger.epsilon(delta);
        }
        EpsilonReport {
            naive: values[0],
            strong: values[1],
            moments: values[2],
            rdp: values[3],
            pld: Some(values[4]),
        }
    }

    /// The test accuracy released from a noisy count of correct predictions (std
    /// `eval_noise`, sensitivity 1; the test set's size is treated as public).
    fn noisy_test_accuracy(&mut self, accuracy: f64) -> f64 {
        let n = self.data.test.len().max(1) as f64;
        let z: f64 = StandardNormal.sample(&mut self.eval_rng);
        ((accuracy * n).round() + self.cfg.eval_noise * z).clamp(0.0, n) / n
    }

    fn finish_epoch(&mut self) -> EpochReport {
        let lr = self.cfg.lr_at(self.epoch);
        self.epoch += 1;
        let epsilon = self.account_epoch();
        let stats = std::mem::take(&mut self.stats);
        let teaching = self.cfg.report == ReleaseLevel::Teaching;
        let test_private = self.facts.private;
        let d = Arc::clone(&self.data);
        let (test_loss, test_acc) = evaluate(&self.model, d.test.x.view(), &d.test.y);
        let private_test_acc = self
            .cfg
            .noisy_evaluation(&self.facts)
            .then(|| self.noisy_test_accuracy(test_acc));
        let exact_test = teaching || !test_private;
        let diagnostics = teaching.then(|| {
            let (train_loss, train_acc) = evaluate(&self.model, d.train.x.view(), &d.train.y);
            let mut norms = stats.norms.clone();
            norms.sort_by(|a, b| a.total_cmp(b));
            let lots = stats.lots.max(1) as f64;
            Diagnostics {
                train_acc,
                train_loss,
                clipped_fraction: stats.clipped as f64 / stats.examples.max(1) as f64,
                median_grad_norm: norms.get(norms.len() / 2).map_or(0.0, |&m| m as f64),
                last_lot_norms: self.lot_norms.clone(),
                signal_norm: stats.signal_norm / lots,
                noise_norm: stats.noise_norm / lots,
                lot_signal_noise: stats.per_lot.clone(),
                mean_lot_size: stats.examples as f64 / lots,
            }
        });
        let private_clipped_fraction = (stats.noisy_counts > 0)
            .then(|| (1.0 - stats.noisy_unclipped / stats.noisy_counts as f64).clamp(0.0, 1.0));
        let mut report = EpochReport {
            epoch: self.epoch,
            steps: self.steps,
            release: self.cfg.report,
            epsilon,
            delta: self.cfg.delta,
            amplification: self.cfg.amplification,
            accounted_sigma: self.cfg.accounted_sigma(),
            sampling_rate: self.q,
            lr,
            clip: self.clip,
            expected_noise_norm: self.expected_noise_norm(),
            test_acc: exact_test.then_some(test_acc),
            test_loss: exact_test.then_some(test_loss),
            private_test_acc,
            private_clipped_fraction,
            stopped_by_budget: self.stopped_by_budget(),
            notes: self.notes(),
            diagnostics,
            not_private: Vec::new(),
        };
        report.list_not_private(test_private);
        report
    }

    /// Caveats a reader of the report must see.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.cfg.sampling == Sampling::Shuffle {
            notes.push("fixed-size shuffled lots: the accountants assume Poisson sampling, so ε is indicative only".into());
        }
        if self.stopped_by_budget() {
            notes.push(format!(
                "stopped by the ε budget ({} with the {} accountant) after {} steps",
                self.cfg.budget_epsilon.unwrap_or(f64::NAN),
                self.cfg.budget_accountant.name(),
                self.steps
            ));
        }
        if self.cfg.mode != Mode::Dp {
            notes.push(
                "without both clipping and noise there is no privacy guarantee (ε = ∞)".into(),
            );
        }
        if !self.cfg.amplification.is_valid_bound() {
            notes.push(format!(
                "naive and strong use the {} convention, which is not always a valid bound",
                self.cfg.amplification.name()
            ));
        }
        notes
    }
}
