//! Auditing a run: a membership attack against real DP-SGD runs, whose success is bounded by
//! the privacy region the accountant computes (`tradeoff`), and whose counts give a lower
//! bound on ε that a correct implementation can never push above the accountant's (`stats`).
//!
//! - Multi-run (Jagielski, Ullman & Oprea 2020, "Auditing Differentially Private Machine
//!   Learning: How Private is Private SGD?"; Nasr et al. 2021, "Adversary Instantiation"): R runs
//!   with the canary and R without, each scored; the ROC, and ε_lower at 95%.
//! - One-run (Steinke, Nasr & Jagielski 2023): m canaries, each in the data with probability ½,
//!   one run; guesses on the most confident ones bound ε with the paper's Theorem 3.1.
//!
//! Every run is the real trainer (`Trainer::for_audit`): the same sampler, sanitizer and
//! noise as a lesson's run, with the canaries added. The audit's runs are independent, so the
//! page spreads them over workers: [`AuditPlan::run`] does one, [`summarize`] combines them.

pub mod alice;
pub mod canary;
pub mod region;
mod result;
pub mod stats;
mod summary;
pub mod tradeoff;

pub use result::{summarize, AuditResult, OneRunResult, REPORTED_FPRS};
pub use summary::Said;

use crate::config::{ConfigError, RunConfig, Sampling};
use crate::data::{DataFacts, Dataset};
use crate::privacy::accountant::mechanism::Mechanism;
use crate::train::{DiracCanaries, Draws, Fault, Trainer};
use alice::{check_index, lab_pick, split_off, Alice, AliceChoice};
use canary::{dirac_scores, train_to_end, InputCanaries};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Runs per side at most, and canaries of a one-run audit at most (memory and time bounds for
/// a request that comes from a URL or a flag).
pub const MAX_RUNS: usize = 100_000;
pub const MAX_CANARIES: usize = 10_000;

/// What the adversary controls and sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum Threat {
    /// Dirac gradient canaries; every update observed; the exact likelihood ratio.
    WorstCase,
    /// An out-of-distribution input with an unlikely label; only the final model; its loss.
    Realistic,
}

/// An audit of the run a [`RunConfig`] describes.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSpec {
    pub threat: Threat,
    /// Runs with the canary, and as many without.
    pub runs: usize,
    /// Canaries of the one-run audit (0: no one-run audit).
    #[serde(default)]
    pub canaries: usize,
    /// The audit's seed: every run's seed is derived from it.
    pub seed: u64,
    /// A real training example as the canary ("Alice", realistic threat only): the runs train
    /// on the data with and without her (`alice`).
    #[serde(default)]
    pub alice: Option<AliceChoice>,
    /// A deliberately broken sanitizer, for the audit's own tests; never from the outside.
    #[serde(skip)]
    pub fault: Fault,
}

/// What one of the audit's runs gives: a score per canary and whether that canary was in,
/// and the mechanism it trained (read from the trainer once it is done).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunScores {
    pub index: usize,
    pub member: Vec<bool>,
    pub scores: Vec<f64>,
    pub trained: Mechanics,
}

/// The two numbers of the mechanism an audit run trains and the curve assumes: the sampling
/// rate q and the number of steps; and, for runs trained, the members their lots could have
/// taken and took (the rate the model's sampler really drew at: #52 item 12).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mechanics {
    pub q: f64,
    pub steps: u64,
    #[serde(default)]
    pub draws: Draws,
}

impl Mechanics {
    /// The same q and steps: the mechanism the curve analyses (the draws are measured).
    pub fn same_plan(&self, other: &Mechanics) -> bool {
        self.q.to_bits() == other.q.to_bits() && self.steps == other.steps
    }
}

/// An audit ready to run: the run audited, its data with and without the canary, and the
/// mechanism the accountants analyse.
pub struct AuditPlan {
    pub cfg: RunConfig,
    pub spec: AuditSpec,
    pub steps: u64,
    pub mechanism: Mechanism,
    /// The rows of the run audited (an Alice audit's D, with her): the mechanism's N.
    population: usize,
    data: Arc<Dataset>,
    canary: InputCanaries,
    /// The one-run audit's canaries (realistic) and which are in.
    corner_canaries: InputCanaries,
    one_run_members: Vec<bool>,
    /// Alice, when the canary is a training example (`data` is then the set without her).
    pub alice: Option<Alice>,
}

/// The steps a run of `cfg` on `data` takes (its ε budget may stop it early): one accounted
/// trainer.
fn planned_steps(cfg: &RunConfig, data: &Arc<Dataset>) -> Result<u64, ConfigError> {
    if cfg.budget_epsilon.is_some() {
        Ok(Trainer::new(cfg.clone(), Arc::clone(data))?.planned_steps())
    } else {
        cfg.validate(data.train.len())?;
        Ok(cfg.epochs as u64 * cfg.steps_per_epoch(data.train.len()))
    }
}

/// About how much memory one audit worker needs for a data set, in bytes: its own decoded
/// copy of the examples and what decoding leaves behind, and a one-run audit's canaries with
/// a run's members among them. No run copies the training rows: the realistic canaries are
/// read after them in place and the worst case's zero features are not stored
/// (`train::Rows`). Fitted to the renderer's resident memory in Chromium, one audit worker
/// planning both threats and doing a run of each (a one-run audit of 1,000 canaries among
/// them): 0.47 GB on Fashion-MNIST with PCA-60, 0.31 GB without (70,000 × 784 f32: 219 MB of
/// examples), and 0.12 / 0.09 GB on the MNIST subset (31 MB). Before the runs read the data
/// in place: 1.05 GB and 0.68 GB on Fashion-MNIST. An Alice audit (`alice`) holds D′ too, a
/// copy of the training rows but hers (`alice::split_off`).
pub fn worker_bytes(facts: &DataFacts, one_run_canaries: usize, alice: bool) -> f64 {
    let d = facts.n_features as f64;
    let examples = 4.0 * (facts.n_train + facts.n_test) as f64 * d;
    let canaries = 8.0 * one_run_canaries as f64 * d;
    let without_alice = if alice {
        4.0 * facts.n_train as f64 * d
    } else {
        0.0
    };
    1.9 * examples + canaries + without_alice + 60e6
}

fn audit_error(field: &'static str, message: String) -> ConfigError {
    ConfigError { field, message }
}

/// What a finished audit run trained: its own sampling rate and the steps it took.
fn trained(t: &Trainer) -> Mechanics {
    Mechanics {
        q: t.sampling_rate(),
        steps: t.steps_taken(),
        draws: t.draws(),
    }
}

/// The seed of run `index` (SplitMix64 of the audit's seed and the index: independent
/// streams per run, the same on every worker).
fn run_seed(seed: u64, index: usize) -> u64 {
    let mut z = seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl AuditPlan {
    /// Checks the audit and the run, and prepares both worlds' data.
    pub fn new(
        cfg: RunConfig,
        data: Arc<Dataset>,
        spec: AuditSpec,
    ) -> Result<AuditPlan, ConfigError> {
        if spec.runs < 2 || spec.runs > MAX_RUNS {
            return Err(audit_error(
                "runs",
                format!(
                    "runs must be between 2 and {MAX_RUNS} per side (got {})",
                    spec.runs
                ),
            ));
        }
        if spec.canaries > MAX_CANARIES || spec.canaries == 1 {
            return Err(audit_error(
                "canaries",
                format!(
                    "the one-run audit needs between 2 and {MAX_CANARIES} canaries (got {})",
                    spec.canaries
                ),
            ));
        }
        if data.private {
            // The audit releases how hundreds of models trained on the data differ, without
            // noise: on a file of one's own that is a leak no ε covers.
            return Err(audit_error(
                "dataset",
                "the audit runs on the built-in data sets only: it trains hundreds of models on \
                 the data and shows how they differ, which no ε covers"
                    .into(),
            ));
        }
        if cfg.sampling != Sampling::Poisson {
            return Err(audit_error(
                "sampling",
                "the audit checks the accountants, which assume Poisson sampling: choose Poisson lots".into(),
            ));
        }
        // The mechanism the page's run trains (an Alice audit's D, the data with her, is that
        // run's data): both worlds' runs train it, D′ included (#53 §3).
        let steps = planned_steps(&cfg, &data)?;
        let mechanism = cfg.mechanism(&data.facts());
        let population = data.train.len();
        let (alice, canary, data) = match &spec.alice {
            None => (None, InputCanaries::outlier(&data), data),
            Some(choice) => {
                if spec.threat != Threat::Realistic || spec.canaries > 0 {
                    return Err(audit_error(
                        "alice",
                        "Alice is audited by the realistic threat alone, without a one-run audit"
                            .into(),
                    ));
                }
                let (index, picked) = match choice.index {
                    Some(i) => (i, check_index(i, data.train.len())?),
                    None => {
                        let seed = run_seed(spec.seed, usize::MAX - 1);
                        let (i, loss) = lab_pick(&cfg, &data, steps, seed)?;
                        let how = format!(
                            "the lab's pick: training example {i}, the largest loss ({}) under a non-private model of these settings",
                            crate::config::fmt_num((loss * 100.0).round() / 100.0)
                        );
                        (i, how)
                    }
                };
                let (alice, canary, without) = split_off(&data, index, picked);
                (Some(alice), canary, Arc::new(without))
            }
        };
        let mut rng = ChaCha8Rng::seed_from_u64(run_seed(spec.seed, usize::MAX));
        let one_run_members: Vec<bool> = (0..spec.canaries).map(|_| rng.random()).collect();
        let corner_canaries = InputCanaries::corners(&data, spec.canaries, &mut rng);
        Ok(AuditPlan {
            cfg,
            spec,
            steps,
            mechanism,
            population,
            data,
            canary,
            corner_canaries,
            one_run_members,
            alice,
        })
    }

    /// The mechanism the curve and ε_upper analyse: the run's q and its steps.
    pub fn planned(&self) -> Mechanics {
        Mechanics {
            q: self.mechanism.step.q,
            steps: self.steps,
            draws: Draws::default(),
        }
    }

    /// Runs in all: 2R for the multi-run audit, and one more for the one-run audit.
    pub fn total_runs(&self) -> usize {
        2 * self.spec.runs + (self.spec.canaries > 0) as usize
    }

    /// Run `index` (0 ≤ index < [`AuditPlan::total_runs`]): multi-run runs alternate with
    /// (even) and without (odd) the canary; the last is the one-run audit's.
    pub fn run(&self, index: usize) -> Result<RunScores, ConfigError> {
        if index >= self.total_runs() {
            return Err(audit_error(
                "audit",
                format!("run {index} of an audit of {} runs", self.total_runs()),
            ));
        }
        let cfg = RunConfig {
            seed: Some(run_seed(self.spec.seed, index)),
            budget_epsilon: None,
            ..self.cfg.clone()
        };
        let member: Vec<bool> = if index < 2 * self.spec.runs {
            vec![index.is_multiple_of(2)]
        } else {
            self.one_run_members.clone()
        };
        let (scores, trained) = match self.spec.threat {
            Threat::WorstCase => {
                let canaries = DiracCanaries::new(member.clone(), self.spec.fault);
                let mut t = Trainer::for_audit_of(
                    cfg.clone(),
                    Arc::clone(&self.data),
                    Some(canaries),
                    None,
                    self.steps,
                    Some((&self.mechanism, self.population)),
                )?;
                let scores = dirac_scores(&mut t, &cfg);
                (scores, trained(&t))
            }
            Threat::Realistic => {
                // The canaries that are in join the training rows, read after the data's own
                // in place (`Trainer::for_audit`).
                let canaries = if member.len() == 1 {
                    &self.canary
                } else {
                    &self.corner_canaries
                };
                let members = canaries.members(&member);
                let mut t = Trainer::for_audit_of(
                    cfg,
                    Arc::clone(&self.data),
                    None,
                    Some(&members),
                    self.steps,
                    Some((&self.mechanism, self.population)),
                )?;
                train_to_end(&mut t);
                (canaries.scores(t.model(), t.projection()), trained(&t))
            }
        };
        Ok(RunScores {
            index,
            member,
            scores,
            trained,
        })
    }

    /// Every run, one after another (the CLI; the page spreads them over workers), with
    /// `progress(done, total)` after each.
    pub fn run_all(
        &self,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<Vec<RunScores>, ConfigError> {
        let total = self.total_runs();
        (0..total)
            .map(|i| {
                let r = self.run(i);
                progress(i + 1, total);
                r
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
