//! The trainer's side of the audit's worst-case threat model (`crate::audit`): "Dirac" gradient
//! canaries (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini, Terzis 2023, "Tight
//! Auditing of Differentially Private Machine Learning"; Jagielski et al. 2020).
//!
//! Each canary is one more member of the population whose per-example gradient has one
//! coordinate in each clipping group: with flat clipping a single coordinate j of norm G, a
//! weight of an all-zero input feature that no training example touches (every row the model
//! reads ends with zero columns for them, `train::Rows`, which are not stored); with per-layer
//! clipping one such weight in layer 0 and one coordinate in each later layer l, of norm
//! G_l = G·C_l/C_0, which no weight of the model carries (the canary's own, `deeper`: the
//! data's gradients are zero there as on the zero features' weights). A canary that is in the
//! data set joins each lot by the very Poisson draw with rate q that takes every example (the
//! model's sampler, one slot per canary; the rate it really drew at is counted, [`Draws`]);
//! its gradient goes through the real sanitizer (`clip_weights`, the mode's clipping, per
//! layer when the run clips per layer) into the lot's sum before the real noise is added
//! (σ·C_l on layer l's coordinates, the canaries' own by the same per-layer noise
//! `step::noise_by_layer`, #52 item 12), and with adaptive clipping it counts in the lot's noisy unclipped count as
//! any member does. So its coordinates of the update are exactly the subsampled Gaussian
//! mechanism the accountants analyse: a shift of C_l in each of k groups under noise σ·C_l,
//! the whitened shift √k/σ they charge. Nothing here is a second copy of DP-SGD.

use super::step::noise_by_layer;
use super::Trainer;
use crate::config::Clipping;
use crate::model::Model;
use crate::privacy::sanitizer::{add_gaussian_noise, clip_weights};
use crate::Real;
use ndarray::Array2;
use serde::{Deserialize, Serialize};

/// The members a run's lots could have taken (each step: the data's rows and the canaries in
/// the data set) and those they took, summed over its steps: drawn/members estimates the rate
/// the lots were really drawn at, which the audit checks against the q it analyses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draws {
    pub members: u64,
    pub drawn: u64,
}

/// The raw norm of a canary's gradient, in units of the clipping norm (it is clipped to C).
pub const CANARY_NORM: f64 = 10.0;

/// A deliberately broken sanitizer, for testing that the audit catches bugs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fault {
    #[default]
    None,
    /// The canaries' gradients skip clipping (they enter the sum at norm 10·C).
    CanaryUnclipped,
    /// The model's own Poisson sampler draws at twice the rate q (every member, the data's
    /// rows and the canaries alike): a bug in the lots, not in the canaries' code.
    LotRateDoubled,
}

/// Dirac canaries of one run: which are in the data set, and the coordinates they own.
#[derive(Clone, Debug, Default)]
pub struct DiracCanaries {
    /// Whether canary i is a member of the training set.
    pub present: Vec<bool>,
    /// The layer-0 parameter coordinate canary i's gradient lies along (set by the trainer).
    pub coordinates: Vec<usize>,
    /// Clipping groups each canary has a coordinate in: 1 (flat), or the model's layers.
    groups: usize,
    /// The canaries' own coordinates in groups 1.. (group by group: canary i of m in group g
    /// at (g−1)·m + i), updated as the model's weights are, and this lot's noisy sum along them.
    deeper: Vec<Real>,
    deeper_sum: Vec<Real>,
    pub fault: Fault,
}

impl DiracCanaries {
    /// `present.len()` canaries, none of them placed yet.
    pub fn new(present: Vec<bool>, fault: Fault) -> DiracCanaries {
        DiracCanaries {
            present,
            fault,
            ..DiracCanaries::default()
        }
    }

    /// Zero input features needed so every canary owns a first-layer weight of its own, with
    /// `outputs` weights per input feature.
    pub fn zero_features(&self, outputs: usize) -> usize {
        self.present.len().div_ceil(outputs.max(1))
    }
}

impl Trainer {
    /// Places the canaries on the first-layer weights of the appended zero features
    /// (`first_zero` is the first of them): weight (j, k) is coordinate j·outputs + k; with
    /// per-layer clipping each also gets a coordinate of its own in every later layer.
    pub(super) fn place_canaries(&mut self, first_zero: usize, outputs: usize) {
        let groups = match self.cfg.clipping {
            Clipping::Flat => 1,
            Clipping::PerLayer => self.clip.layers.len().max(1),
        };
        if let Some(c) = self.audit.dirac.as_mut() {
            c.coordinates = (0..c.present.len())
                .map(|i| (first_zero + i / outputs) * outputs + i % outputs)
                .collect();
            c.groups = groups;
            c.deeper = vec![0.0; c.present.len() * (groups - 1)];
            c.deeper_sum = c.deeper.clone();
        }
    }

    /// The rate the lots are drawn at: q (twice q under [`Fault::LotRateDoubled`]).
    pub(super) fn lot_rate(&self) -> f64 {
        match self.audit.dirac.as_ref().map(|c| c.fault) {
            Some(Fault::LotRateDoubled) => (2.0 * self.sampling_rate()).min(1.0),
            _ => self.sampling_rate(),
        }
    }

    /// Algorithm 1's lot for the canaries: they are members n, n+1, … of the lot's own Poisson
    /// draw (`step.rs` `draw_lot`, one slot per canary, so the data's rows are drawn as without
    /// them); those in the data set join the lot, the others' draws are dropped. Moves them out
    /// of `lot`, which holds the data's rows after.
    pub(super) fn take_canaries_from_lot(&mut self, n: usize) {
        self.audit.in_lot.clear();
        let Some(c) = self.audit.dirac.as_ref() else {
            return;
        };
        let mut kept = 0;
        for j in 0..self.buffers.lot.len() {
            let slot = self.buffers.lot[j];
            if slot < n {
                self.buffers.lot[kept] = slot;
                kept += 1;
            } else if c.present[slot - n] {
                self.audit.in_lot.push(slot - n);
            }
        }
        self.buffers.lot.truncate(kept);
    }

    /// The canaries in the data set.
    pub(super) fn present_canaries(&self) -> usize {
        self.audit
            .dirac
            .as_ref()
            .map_or(0, |c| c.present.iter().filter(|&&p| p).count())
    }

    /// Counts a lot's draw: `drawn` of the `members` (the data's rows and the canaries in the
    /// data set) were taken; over the run, the rate the lots were drawn at (the audit's check).
    pub(super) fn count_draws(&mut self, members: usize, drawn: usize) {
        self.audit.draws.members += members as u64;
        self.audit.draws.drawn += drawn as u64;
    }

    /// The members the run's lots could have taken and those they took, summed over its steps.
    pub fn draws(&self) -> Draws {
        self.audit.draws
    }

    /// Adds the lot's canaries' gradients, clipped by the real sanitizer (as the mode says, per
    /// layer when the run clips per layer), to the lot's sum: layer 0's to the model's
    /// coordinates, the later layers' to the canaries' own. They count in no statistic of the
    /// run; returns how many were in the lot and how many of those were unclipped, for the
    /// lot's noisy count (adaptive clipping), where a canary counts as any member does.
    pub(super) fn add_canary_gradients(&mut self, clip: bool) -> (usize, usize) {
        let Some(c) = self.audit.dirac.as_mut() else {
            return (0, 0);
        };
        c.deeper_sum.fill(0.0);
        let m = self.audit.in_lot.len();
        if m == 0 {
            return (0, 0);
        }
        let groups = c.groups;
        // Raw norm G_l = CANARY_NORM·C_l in every group, one coordinate each.
        let raw: Vec<Real> = self.clip.bounds[..groups]
            .iter()
            .map(|&b| (CANARY_NORM * b) as Real)
            .collect();
        let total = raw.iter().map(|r| r * r).sum::<Real>().sqrt();
        let norms = Array2::from_shape_fn((m, groups), |(_, g)| raw[g]);
        let mut weights = Array2::zeros((m, groups));
        let clipped = clip_weights(
            norms.view(),
            &vec![total; m],
            &self.clip.bounds,
            &mut weights,
        );
        if !clip || c.fault == Fault::CanaryUnclipped {
            weights.fill(1.0);
        }
        let every = c.present.len();
        for (r, &i) in self.audit.in_lot.iter().enumerate() {
            self.buffers.grad[c.coordinates[i]] += weights[[r, 0]] * raw[0];
            for g in 1..groups {
                c.deeper_sum[(g - 1) * every + i] += weights[[r, g]] * raw[g];
            }
        }
        let unclipped = if clip { m - clipped } else { m };
        (m, unclipped)
    }

    /// The lot's noise on the canaries' own coordinates (σ·C_l on group l's, by the model's own
    /// per-layer noise, [`noise_by_layer`], from the run's stream) and their step
    /// θ ← θ − scale·g̃, as the model's weights take theirs.
    pub(super) fn step_canaries_own_coordinates(&mut self, noisy: bool, scale: Real) {
        let Some(c) = self.audit.dirac.as_mut() else {
            return;
        };
        if c.groups < 2 {
            return;
        }
        if noisy {
            // Group l's coordinates are range l (group 0's, the model's weights, is empty here).
            let every = c.present.len();
            let ranges: Vec<_> = (0..c.groups)
                .map(|g| g.saturating_sub(1) * every..g * every)
                .collect();
            let sum = &mut c.deeper_sum;
            let (sigma, bounds) = (self.cfg.sigma, &self.clip.bounds);
            noise_by_layer(
                sum,
                &ranges,
                bounds,
                sigma,
                &mut self.rng,
                add_gaussian_noise,
            );
        }
        for (p, g) in c.deeper.iter_mut().zip(&c.deeper_sum) {
            *p -= scale * g;
        }
    }

    /// What an adversary who sees every update reads of canary i: its coordinate in each
    /// clipping group (layer 0's model weight, then its own in the later layers).
    pub fn canary_readings(&self, i: usize, out: &mut Vec<Real>) {
        out.clear();
        if let Some(c) = self.audit.dirac.as_ref() {
            out.push(self.model.params()[c.coordinates[i]]);
            let every = c.present.len();
            out.extend((1..c.groups).map(|g| c.deeper[(g - 1) * every + i]));
        }
    }

    /// How many Dirac canaries the run has.
    pub fn canary_count(&self) -> usize {
        self.audit.dirac.as_ref().map_or(0, |c| c.present.len())
    }

    /// The learning rate the next step will use.
    pub fn current_lr(&self) -> f64 {
        self.cfg.lr_at(self.progress.epoch)
    }

    /// One step without reports, accounting or evaluation (the audit's runs): the epoch
    /// counter still advances, so the learning-rate schedule is the run's. False when done.
    pub fn step_unreported(&mut self) -> bool {
        if self.is_finished() {
            return false;
        }
        self.step();
        self.end_unreported_step();
        true
    }

    /// [`Trainer::finish_lot`] without reports, accounting or evaluation (the benchmark of
    /// data-parallel training).
    pub fn finish_lot_unreported(&mut self, k: usize) {
        self.apply_lot(k);
        self.end_unreported_step();
    }

    fn end_unreported_step(&mut self) {
        if self.progress.steps.is_multiple_of(self.steps_per_epoch()) {
            self.progress.epoch += 1;
            self.progress.stats = Default::default();
        }
    }
}

#[cfg(test)]
#[path = "canary_tests.rs"]
mod tests;
