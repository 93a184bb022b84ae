//! Everything several runs released about one data set, composed: a student's file over a page
//! session, where every moved slider starts a new run on the same rows. Each run's ε covers that
//! run alone; the ledger is what they spent together.
//!
//! Each run is differentially private with respect to the file, and the settings of a later run
//! may depend on what the earlier ones showed: that is adaptive composition, which every
//! accountant of the lab allows — basic and advanced composition (Dwork, Rothblum & Vadhan 2010),
//! the moments accountant (Abadi et al. 2016, Theorem 2.1's composability) and RDP (Mironov 2017,
//! Proposition 1). So the ledger is one composition of every release the runs made:
//! - each **preparation** of the file once (its noisy range estimate: `DataFacts::releases`),
//!   however many runs used it — a restarted worker prepares the file again, a new release;
//! - each **run**'s own releases ([`RunConfig::mechanism`] without the preparation's) up to the
//!   training steps it showed: DP-PCA, the steps, one private evaluation per epoch begun
//!   ([`Mechanism::after_steps`]). A run stopped by a moved slider released only its reports.
//!
//! The composition is read at the smallest δ any run used. What it does not cover — runs with
//! a fixed seed, at the teaching level, or with shuffled lots — is said by [`Ledger::caveats`].

use crate::config::{ReleaseLevel, RunConfig, Sampling};
use crate::data::DataFacts;
use crate::privacy::accountant::mechanism::{Mechanism, Release, ReleaseKind};
use crate::privacy::accountant::{add_part, compose, AccountError, Accountant, SampledGaussian};

/// What some runs on one data set released, composed.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    parts: Vec<SampledGaussian>,
    runs: usize,
    steps: u64,
    preparations: usize,
    delta: Option<f64>,
    /// Preparations that read the file's ranges off it without noise (`ReleaseKind::ReadOff`).
    read_off: usize,
    /// Runs with a fixed seed, at the teaching level, with shuffled lots.
    seeded: usize,
    teaching: usize,
    shuffled: usize,
}

impl Ledger {
    pub fn new() -> Self {
        Self::default()
    }

    /// One preparation of the data set: the releases it made before any run (`facts.releases`,
    /// or a refused preparation's, which were made all the same).
    pub fn prepared(&mut self, releases: &[Release]) {
        for r in releases {
            add_part(&mut self.parts, &r.times(1));
        }
        self.read_off += usize::from(releases.iter().any(|r| r.what == ReleaseKind::ReadOff));
        self.preparations += 1;
    }

    /// One run with settings `cfg` on the prepared data (`facts`) that showed the models of
    /// its first `steps` training steps. Refuses more steps than the run has.
    pub fn ran(
        &mut self,
        cfg: &RunConfig,
        facts: &DataFacts,
        steps: u64,
    ) -> Result<(), AccountError> {
        let own = DataFacts {
            releases: Vec::new(), // counted once per preparation
            ..facts.clone()
        };
        let mech: Mechanism = cfg.mechanism(&own);
        if steps > mech.total_steps() {
            return Err(AccountError::not_seen(format!(
                "a run of {} steps cannot have shown {steps}",
                mech.total_steps()
            )));
        }
        for p in mech.after_steps(steps) {
            add_part(&mut self.parts, &p);
        }
        self.runs += 1;
        self.seeded += usize::from(cfg.seed.is_some());
        self.teaching += usize::from(cfg.report == ReleaseLevel::Teaching);
        self.shuffled += usize::from(cfg.sampling == Sampling::Shuffle);
        self.steps = self.steps.saturating_add(steps);
        self.delta = Some(self.delta.map_or(cfg.delta, |d| d.min(cfg.delta)));
        Ok(())
    }

    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Training steps shown, over every run.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn preparations(&self) -> usize {
        self.preparations
    }

    /// The smallest δ of the runs (`None` before the first run).
    pub fn delta(&self) -> Option<f64> {
        self.delta
    }

    /// What the composed ε does not cover, one sentence each; empty when it covers every run
    /// in full.
    pub fn caveats(&self) -> Vec<&'static str> {
        let mut said = Vec::new();
        if self.seeded > 0 {
            said.push("Runs with a fixed seed are not private against whoever knows it.");
        }
        if self.teaching > 0 {
            said.push(
                "Runs at the teaching level showed your exact test accuracy and loss and your training data, \
                 which this ε does not cover.",
            );
        }
        if self.shuffled > 0 {
            said.push(
                "Runs with shuffled lots are composed as if their lots were Poisson-sampled: \
                 their share of this ε is indicative only.",
            );
        }
        said
    }

    /// Why ε is ∞ for good, when it is: the cause, in one sentence for the page. Ranges read
    /// off the file without noise come first: they make every run after them unprivate, and a
    /// student who chose "read off this file" must not be told a run without noise did it.
    pub fn why_unbounded(&self, epsilon: f64) -> Option<&'static str> {
        if !epsilon.is_infinite() {
            return None;
        }
        Some(if self.read_off > 0 {
            "Its column ranges were read off the file without noise (you chose \"read off this \
             file\"): nothing computed from it after that is private, and no later run can take \
             that back."
        } else {
            "A run without privacy (no noise, or no clipping) showed your data: no later run can \
             take that back."
        })
    }

    /// ε of everything composed, under `acc`, at [`Ledger::delta`].
    pub fn epsilon(&self, acc: Accountant) -> Result<f64, AccountError> {
        let delta = self
            .delta
            .ok_or_else(|| AccountError::not_seen("no run to account".into()))?;
        compose::epsilon(acc, &self.parts, delta)
    }
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
