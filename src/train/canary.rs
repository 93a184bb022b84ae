//! The trainer's side of the audit's worst-case threat model (`crate::audit`): "Dirac" gradient
//! canaries (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini, Terzis 2023, "Tight
//! Auditing of Differentially Private Machine Learning"; Jagielski et al. 2020).
//!
//! Each canary is one more member of the population whose per-example gradient is G·e_j: a
//! single coordinate j, a weight of an all-zero input feature that no training example
//! touches (every row the model reads ends with zero columns for them, `train::Rows`, which
//! are not stored). A canary that is in the data set
//! joins each lot by the same Poisson draw with rate q as every example; its gradient goes
//! through the real sanitizer (`clip_weights`, the mode's clipping) into the lot's sum before
//! the real noise is added, so coordinate j of the update is exactly the subsampled Gaussian
//! mechanism the accountants analyse. Nothing here is a second copy of DP-SGD.

use super::Trainer;
use crate::privacy::sanitizer::clip_weights;
use crate::Real;
use ndarray::Array2;
use rand::Rng;

/// The raw norm of a canary's gradient, in units of the clipping norm (it is clipped to C).
pub const CANARY_NORM: f64 = 10.0;

/// A deliberately broken sanitizer, for testing that the audit catches bugs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fault {
    #[default]
    None,
    /// The canaries' gradients skip clipping (they enter the sum at norm 10·C).
    CanaryUnclipped,
}

/// Dirac canaries of one run: which are in the data set, and the coordinates they own.
#[derive(Clone, Debug, Default)]
pub struct DiracCanaries {
    /// Whether canary i is a member of the training set.
    pub present: Vec<bool>,
    /// The parameter coordinate canary i's gradient lies along (set by the trainer).
    pub coordinates: Vec<usize>,
    pub fault: Fault,
}

impl DiracCanaries {
    /// `present.len()` canaries, none of them placed yet.
    pub fn new(present: Vec<bool>, fault: Fault) -> DiracCanaries {
        DiracCanaries {
            present,
            coordinates: Vec::new(),
            fault,
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
    /// (`first_zero` is the first of them): weight (j, k) is coordinate j·outputs + k.
    pub(super) fn place_canaries(&mut self, first_zero: usize, outputs: usize) {
        if let Some(c) = self.canaries.as_mut() {
            c.coordinates = (0..c.present.len())
                .map(|i| (first_zero + i / outputs) * outputs + i % outputs)
                .collect();
        }
    }

    /// Algorithm 1's lot for the canaries: each present canary joins with probability q.
    pub(super) fn draw_canaries(&mut self) {
        self.canaries_in_lot.clear();
        let Some(c) = self.canaries.as_ref() else {
            return;
        };
        for (i, &present) in c.present.iter().enumerate() {
            if present && self.rng.random::<f64>() < self.q {
                self.canaries_in_lot.push(i);
            }
        }
    }

    /// Adds the lot's canaries' gradients, clipped by the real sanitizer (as the mode says),
    /// to the lot's sum (they count in no statistic of the run).
    pub(super) fn add_canary_gradients(&mut self, clip: bool) {
        let Some(c) = self.canaries.as_ref() else {
            return;
        };
        let m = self.canaries_in_lot.len();
        if m == 0 {
            return;
        }
        let layers = self.layer_ranges.len();
        let raw = (CANARY_NORM * self.clip_bounds[0]) as Real;
        // Every canary's gradient lies in the first layer: norms (m × layers), totals = G.
        let mut norms = Array2::<Real>::zeros((m, layers));
        norms.column_mut(0).fill(raw);
        let totals = vec![raw; m];
        let mut weights = Array2::zeros((m, layers));
        if clip && c.fault != Fault::CanaryUnclipped {
            clip_weights(norms.view(), &totals, &self.clip_bounds, &mut weights);
        } else {
            weights.fill(1.0);
        }
        for (r, &i) in self.canaries_in_lot.iter().enumerate() {
            self.grad[c.coordinates[i]] += weights[[r, 0]] * raw;
        }
    }

    /// The parameter coordinates of the canaries (empty without them).
    pub fn canary_coordinates(&self) -> &[usize] {
        self.canaries
            .as_ref()
            .map_or(&[][..], |c| c.coordinates.as_slice())
    }

    /// The clipping norm of the first layer in force for the next step (the canaries' C).
    pub fn first_layer_clip(&self) -> f64 {
        self.clip_bounds[0]
    }

    /// The learning rate the next step will use.
    pub fn current_lr(&self) -> f64 {
        self.cfg.lr_at(self.epoch)
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
        if self.steps.is_multiple_of(self.steps_per_epoch) {
            self.epoch += 1;
            self.stats = Default::default();
        }
    }
}
