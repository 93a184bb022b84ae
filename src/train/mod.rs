//! The DP-SGD loop of Algorithm 1 (paper Section 3.1), one lot at a time:
//! take a lot (Poisson-sampled with q = L/N); compute each example's gradient norm; clip each
//! gradient to C; sum; add N(0, σ²C²I); divide by L; step θ ← θ − η_t·g̃. An epoch is N/L
//! lots. A lot is processed in batches of at most B examples whose clipped sums accumulate;
//! noise is added once per lot. With adaptive clipping each lot also releases a noisy count
//! of its unclipped examples and C follows it (`privacy::adaptive`). After each epoch an
//! [`EpochReport`] says where accuracy and privacy stand, at the configured release level.
//!
//! The run's privacy: its [`Mechanism`] (`RunConfig::mechanism`), composed epoch by epoch.

mod accounting;
mod budget;
mod canary;
mod coverage;
mod epoch;
pub mod gap;
pub mod groups;
mod inputs;
pub mod ledger;
pub mod part;
mod part_work;
mod report;
mod run_parts;
mod stats;
mod step;
pub mod verdict;

pub use budget::budget_step_limit;
pub use canary::{DiracCanaries, Draws, Fault, CANARY_NORM};
pub use coverage::{Coverage, Shown};
pub use epoch::pin_caveats;
use inputs::Inputs;
pub use inputs::Rows;
use part::DataParallel;
pub use report::{Diagnostics, EpochReport, COVERED, NOT_PRIVATE, TEST_METRICS};
use run_parts::{AuditCanaries, ClipInForce, LotBuffers, Progress};

use crate::config::{ConfigError, ModelKind, RunConfig};
use crate::data::pca::Projection;
use crate::data::{DataFacts, Dataset, Split};
use crate::model::{Mlp, Model};
use crate::privacy::accountant::mechanism::Mechanism;
use crate::privacy::accountant::EpsilonReport;
use accounting::RunAccounting;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// A DP-SGD run in progress. Deterministic for a given config (seed included) and dataset.
/// Its parts by concern are in `run_parts.rs`; its q and steps per epoch are its mechanism's.
pub struct Trainer {
    cfg: RunConfig,
    seed: u64,
    data: Arc<Dataset>,
    /// Training rows after the data's own: an audit run's input canaries that are members
    /// (projected when PCA is on).
    appended: Option<Split>,
    /// All-zero features after each example's own (the worst case's canaries' coordinates).
    zero_features: usize,
    /// The run's DP-PCA projection (part of what it releases: the model reads projected
    /// inputs), when PCA is on.
    projection: Option<Projection>,
    facts: DataFacts,
    model: Mlp,
    /// Lots, noise and initialisation (Algorithm 1's draws).
    rng: ChaCha8Rng,
    /// The draws beside Algorithm 1's, each from its own stream.
    side: SideStreams,
    mechanism: Mechanism,
    /// The mechanism whose sampling rate and steps per epoch it trains, when not its own (an
    /// Alice audit's runs on D′: [`Trainer::train_as`]).
    trained_as: Option<Mechanism>,
    /// The run's privacy accounting (none for the audit's runs, which report no ε).
    accounting: Option<RunAccounting>,
    progress: Progress,
    clip: ClipInForce,
    /// The groups whose test accuracy each report gives (`groups.rs`), when asked for.
    groups: Option<groups::Groups>,
    audit: AuditCanaries,
    buffers: LotBuffers,
    /// A lot's parts (data-parallel training: `part.rs`).
    parts: DataParallel,
}

/// The run's draws beside Algorithm 1's, each from its own stream of the seed, so turning one
/// on (a norm sample for the histogram, adaptive clipping's noisy counts, a private test set's
/// noisy evaluations) changes no training draw.
struct SideStreams {
    norms: ChaCha8Rng,
    counts: ChaCha8Rng,
    evals: ChaCha8Rng,
}

impl SideStreams {
    fn new(seed: u64) -> SideStreams {
        SideStreams {
            norms: ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_5eed),
            counts: ChaCha8Rng::seed_from_u64(seed ^ 0xc0a7_c0a7),
            evals: ChaCha8Rng::seed_from_u64(seed ^ 0xe7a1_e7a1),
        }
    }
}

impl Trainer {
    /// Validates `cfg` against the dataset and sets up the model, the RNGs and the accountants.
    pub fn new(cfg: RunConfig, data: Arc<Dataset>) -> Result<Trainer, ConfigError> {
        let mut trainer = Trainer::build(cfg, data, None, None, true, 0)?;
        trainer.progress.step_limit = budget_step_limit(&trainer.cfg, &trainer.mechanism)?;
        Ok(trainer)
    }

    /// One of an audit's runs: `steps` steps of the run `cfg` describes, with the given Dirac
    /// canaries (each owning the weight of an appended all-zero feature) or input canaries
    /// that are members (`members`: training rows after the data's own), and no accounting
    /// or reports — the audit reads the model (`crate::audit`).
    pub fn for_audit(
        cfg: RunConfig,
        data: Arc<Dataset>,
        canaries: Option<DiracCanaries>,
        members: Option<&Split>,
        steps: u64,
    ) -> Result<Trainer, ConfigError> {
        Trainer::for_audit_of(cfg, data, canaries, members, steps, None)
    }

    /// [`Trainer::for_audit`], training the audit plan's `mechanism` of a population of `n`
    /// rather than its own data's (validated against n: L ≤ n; then [`Trainer::train_as`]):
    /// an Alice audit's runs on D′, N − 1 rows, train the page's run of N rows (#53 §3).
    pub fn for_audit_of(
        cfg: RunConfig,
        data: Arc<Dataset>,
        canaries: Option<DiracCanaries>,
        members: Option<&Split>,
        steps: u64,
        plan: Option<(&Mechanism, usize)>,
    ) -> Result<Trainer, ConfigError> {
        let population = plan.map_or(0, |(_, n)| n);
        let mut trainer = Trainer::build(cfg, data, canaries, members, false, population)?;
        if let Some((mechanism, _)) = plan {
            trainer.train_as(mechanism);
        }
        trainer.progress.step_limit = Some(steps);
        Ok(trainer)
    }

    /// The steps this run will take: all its epochs', or fewer when its ε budget stops it.
    pub fn planned_steps(&self) -> u64 {
        let total = self.cfg.epochs as u64 * self.steps_per_epoch();
        self.progress
            .step_limit
            .map_or(total, |limit| limit.min(total))
    }

    fn build(
        cfg: RunConfig,
        data: Arc<Dataset>,
        canaries: Option<DiracCanaries>,
        members: Option<&Split>,
        accounted: bool,
        population: usize,
    ) -> Result<Trainer, ConfigError> {
        let seed = cfg.seed.unwrap_or_else(rand::random);
        // Read off the data's own columns, before any DP-PCA projects them away.
        let groups = cfg
            .groups
            .map(|by| groups::Groups::of(&data, by))
            .transpose()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let Inputs {
            data,
            appended,
            projection,
            facts,
        } = Inputs::prepare(&cfg, data, members, seed, population)?;
        let n = facts.n_train;
        // The canaries' coordinates: weights of all-zero features no example touches, which
        // every row the model reads ends with (`Rows::zeros`): the data is not widened
        // (on Fashion-MNIST without PCA that was a copy of its 188 MB of training rows per run).
        let first_zero = data.n_features();
        let outputs = match cfg.model {
            ModelKind::Logistic => data.n_classes(),
            ModelKind::Mlp => cfg.hidden.first().copied().unwrap_or(data.n_classes()),
        };
        let zero_features = canaries.as_ref().map_or(0, |c| c.zero_features(outputs));
        let (d, k) = (data.n_features() + zero_features, data.n_classes());
        let model = match cfg.model {
            ModelKind::Logistic => Mlp::logistic(d, k),
            ModelKind::Mlp => Mlp::new(d, &cfg.hidden, k, &mut rng),
        };
        let mechanism = cfg.mechanism(&facts);
        let accounting =
            accounted.then(|| RunAccounting::new(&mechanism, cfg.amplification, cfg.delta));
        let batch = cfg.batch_size.min(n);
        let mut trainer = Trainer {
            side: SideStreams::new(seed),
            rng,
            seed,
            parts: DataParallel::new(batch, d),
            clip: ClipInForce {
                c: cfg.clip,
                bounds: cfg.clip_bounds(),
                layers: model.layer_ranges(),
            },
            buffers: LotBuffers {
                grad: vec![0.0; model.n_params()],
                ..LotBuffers::default()
            },
            model,
            data,
            appended,
            zero_features,
            projection,
            facts,
            mechanism,
            trained_as: None,
            accounting,
            progress: Progress::default(),
            groups,
            audit: AuditCanaries {
                dirac: canaries,
                ..AuditCanaries::default()
            },
            cfg,
        };
        trainer.place_canaries(first_zero, outputs);
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

    /// What the run's ε covers and what it does not, in words ("What ε covers").
    pub fn coverage(&self, shown: Shown) -> Coverage {
        Coverage::of(&self.cfg, &self.mechanism, &self.facts, shown)
    }

    /// Trains `mechanism`'s sampling rate and steps per epoch rather than those of its own
    /// data: an Alice audit's runs on D′ (the data without her, N−1 rows) and on D (with her)
    /// both train the page's run's q = L/N (Poisson, each member at rate q) — neighbouring
    /// data sets under one mechanism, the one the audit analyses (#53 §3).
    fn train_as(&mut self, mechanism: &Mechanism) {
        self.trained_as = Some(mechanism.clone());
    }

    /// The mechanism whose q and steps per epoch the lots follow: the run's own, or the one
    /// an audit's run trains as.
    fn trained(&self) -> &Mechanism {
        self.trained_as.as_ref().unwrap_or(&self.mechanism)
    }

    /// q: each row's chance of being in a lot (Algorithm 1, line 3).
    pub fn sampling_rate(&self) -> f64 {
        self.trained().step.q
    }

    /// The training steps taken so far.
    pub fn steps_taken(&self) -> u64 {
        self.progress.steps
    }

    pub fn steps_per_epoch(&self) -> u64 {
        self.trained().steps_per_epoch
    }

    pub fn epochs_done(&self) -> usize {
        self.progress.epoch
    }

    pub fn is_finished(&self) -> bool {
        run_is_over(
            self.progress.epoch,
            self.cfg.epochs,
            self.stopped_by_budget(),
            self.progress.diverged_in.is_some(),
        )
    }

    /// Whether the ε budget has ended the run (the paper's DPTrain loop).
    pub fn stopped_by_budget(&self) -> bool {
        self.progress
            .step_limit
            .is_some_and(|limit| self.progress.steps >= limit)
    }

    pub fn model(&self) -> &Mlp {
        &self.model
    }

    /// The DP-PCA projection the model's inputs went through, when PCA is on: a new input is
    /// projected with it before the model sees it.
    pub fn projection(&self) -> Option<&Projection> {
        self.projection.as_ref()
    }

    /// The data the run trains on (after DP-PCA, when on). An audit run's canaries are not
    /// in it: see [`Trainer::training_rows`] and [`Trainer::test_rows`].
    pub fn data(&self) -> &Dataset {
        &self.data
    }

    /// Every training row the run samples from, as the model reads it: the data's, then an
    /// audit run's member canaries, each row ending with the Dirac canaries' zero features.
    pub fn training_rows(&self) -> Rows<'_> {
        Rows {
            own: &self.data.train,
            appended: self.appended.as_ref(),
            zeros: self.zero_features,
        }
    }

    /// The test rows as the model reads them (with the Dirac canaries' zero features).
    pub fn test_rows(&self) -> Rows<'_> {
        Rows {
            own: &self.data.test,
            appended: None,
            zeros: self.zero_features,
        }
    }

    /// Sizes and privacy of the data as given (before DP-PCA).
    pub fn facts(&self) -> &DataFacts {
        &self.facts
    }

    /// Examples processed since the start (the sum of the lot sizes).
    pub fn examples_seen(&self) -> u64 {
        self.progress.examples_seen
    }

    /// ε of every accountant after `steps` steps of this run (everything it releases
    /// before and between included), composed afresh.
    pub fn epsilon_after(&self, steps: u64) -> EpsilonReport {
        EpsilonReport::compute(
            &self.mechanism.after_steps(steps),
            self.cfg.delta,
            self.cfg.amplification,
        )
        .expect("a validated config gives valid accountant inputs")
    }

    /// The clipping norm C in force (adaptive clipping moves it).
    pub fn clip(&self) -> f64 {
        self.clip.c
    }

    /// Splits each lot into `k` parts summed one after another (as `k` workers would), so
    /// tests can check that data-parallel training depends on k only through rounding.
    pub fn set_parts_per_lot(&mut self, k: usize) {
        self.parts.per_lot = k.max(1);
    }

    /// The step count at which the current epoch ends (earlier when the budget stops it).
    fn epoch_stop(&self) -> u64 {
        let epoch_end = (self.progress.epoch as u64 + 1) * self.steps_per_epoch();
        self.progress
            .step_limit
            .map_or(epoch_end, |limit| limit.min(epoch_end))
    }

    /// Runs at most `max_steps` steps of the current epoch; returns its report if it ended.
    pub fn advance(&mut self, max_steps: u64) -> Option<EpochReport> {
        if self.is_finished() {
            return None;
        }
        let stop = self.epoch_stop();
        let until = stop.min(self.progress.steps.saturating_add(max_steps.max(1)));
        while self.progress.steps < until {
            self.step();
        }
        (self.progress.steps == stop).then(|| self.finish_epoch())
    }

    /// Runs the rest of the current epoch and returns its report (None when finished).
    pub fn run_epoch(&mut self) -> Option<EpochReport> {
        self.advance(u64::MAX)
    }
}

/// Whether a run is over after epoch `epoch` of its `epochs`: every epoch trained, its ε budget
/// spent (the paper's DPTrain loop) or its model diverged. The trainer's own test, and the
/// charts' on a run's reports (a comparison of two runs' ends waits for both).
pub fn run_is_over(epoch: usize, epochs: usize, stopped_by_budget: bool, diverged: bool) -> bool {
    epoch >= epochs || stopped_by_budget || diverged
}
