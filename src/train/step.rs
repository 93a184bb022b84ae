//! One step of Algorithm 1, coordinated here: draw a lot (Poisson, or a shuffled fixed-size
//! lot), have its parts' clipped sums computed (`part.rs`: here, or by other workers), sum, add N(0, σ²C²I), divide by L and step — and, with
//! adaptive clipping, release the lot's noisy unclipped count and move C.

use super::part::{
    coordinator_extra_examples, lot_part, PartChannel, PartError, PartErrorKind, PartPhase, PartSum,
};
use super::Rows;
use super::{EpochReport, Trainer};
use crate::config::{Clipping, Mode, Sampling};
use crate::model::Model;
use crate::privacy::adaptive::{next_clip, noisy_unclipped_fraction};
use crate::privacy::noise_rng::{with_noise_rng, NoiseRng};
use crate::privacy::sampling::poisson_lot;
use crate::privacy::sanitizer::{add_gaussian_noise, draw_gaussian_noise, sum_of_squares};
use crate::Real;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::ops::Range;
use std::sync::Arc;

impl Trainer {
    /// One noisy step of Algorithm 1 on a freshly drawn lot, its parts summed here one after
    /// another (`parts_per_lot` of them: 1 unless a test asks for more).
    pub fn step(&mut self) {
        self.draw_lot();
        self.sum_and_apply();
    }

    /// One step on the given lot (indices into the training set), as the mode says: clip
    /// and noise (DP), neither, or one of them.
    pub fn step_on_lot(&mut self, lot: &[usize]) {
        self.buffers.lot.clear();
        self.buffers.lot.extend_from_slice(lot);
        self.sum_and_apply();
    }

    fn sum_and_apply(&mut self) {
        let k = self.parts.per_lot;
        for i in 0..k {
            self.sum_own_part(i, k);
            if i == 0 && k > 1 {
                self.draw_noise(); // where the page's coordinator draws it, while helpers sum
            }
        }
        self.apply_lot(k);
    }

    /// Draws the current lot's noise ahead of its sum (from the run's stream, in the order
    /// [`Trainer::apply_lot`] would: after the lot and its canaries), for a coordinator to do
    /// while other workers sum their parts. The lot's step adds it; calling this again before
    /// that step draws nothing more. Without noise (the mode adds none) it does nothing.
    pub fn draw_noise(&mut self) {
        if !self.cfg.mode.adds_noise() || self.buffers.noise_ahead_norm.is_some() {
            return;
        }
        let mut noise = std::mem::take(&mut self.buffers.noise_ahead);
        noise.resize(self.buffers.grad.len(), 0.0);
        let norm = self.gaussian_noise(&mut noise, draw_gaussian_noise);
        self.buffers.noise_ahead = noise;
        self.buffers.noise_ahead_norm = Some(norm);
    }

    /// Algorithm 1's "take a random sample L_t": a Poisson lot (and the canaries in it), or
    /// the next fixed-size slice of a shuffled order; kept for [`Trainer::lot`].
    pub fn draw_lot(&mut self) {
        let n = self.training_rows().len();
        match self.cfg.sampling {
            Sampling::Poisson => {
                // The audit's canaries are members n.. of the same draw (canary.rs).
                let slots = self.canary_count();
                poisson_lot(
                    n + slots,
                    self.lot_rate(),
                    &mut self.rng,
                    &mut self.buffers.lot,
                );
                self.take_canaries_from_lot(n);
                self.count_draws(
                    n + self.present_canaries(),
                    self.buffers.lot.len() + self.audit.in_lot.len(),
                );
            }
            Sampling::Shuffle => {
                let l = self.cfg.lot_size;
                if self.progress.steps.is_multiple_of(self.steps_per_epoch())
                    || self.buffers.perm_pos + l > n
                {
                    self.buffers.perm = (0..n).collect();
                    self.buffers.perm.shuffle(&mut self.rng);
                    self.buffers.perm_pos = 0;
                }
                self.buffers.lot.clear();
                self.buffers.lot.extend_from_slice(
                    &self.buffers.perm[self.buffers.perm_pos..self.buffers.perm_pos + l],
                );
                self.buffers.perm_pos += l;
                self.count_draws(n, l);
            }
        }
    }

    /// The current lot (indices into the training set), as drawn by [`Trainer::draw_lot`].
    pub fn lot(&self) -> &[usize] {
        &self.buffers.lot
    }

    /// Part `i` of `k` of the current lot (`part::lot_part`, the coordinator's share set by
    /// this model's costs and the channel: `part::coordinator_extra_examples`).
    pub fn lot_part(&self, i: usize, k: usize) -> &[usize] {
        lot_part(&self.buffers.lot, i, k, self.split_extra())
    }

    /// How the helpers get their parts from now on (messages by default). The caller changes
    /// it between lots only: a part is checked against the split it was cut by.
    pub fn set_part_channel(&mut self, channel: PartChannel) {
        self.parts.channel = channel;
    }

    pub fn part_channel(&self) -> PartChannel {
        self.parts.channel
    }

    fn split_extra(&self) -> isize {
        coordinator_extra_examples(self.model.sizes(), self.parts.channel)
    }

    /// The parameters the current lot's gradients are taken at.
    pub fn params(&self) -> &[Real] {
        self.model.params()
    }

    /// The clipping bounds in force for the current lot (one: flat; one per layer).
    pub fn clip_bounds(&self) -> &[f64] {
        &self.clip.bounds
    }

    /// Computes part `i` of `k` of the current lot here ([`Trainer::lot_part`]).
    pub fn sum_own_part(&mut self, i: usize, k: usize) {
        self.sum_own_part_timed(i, k, &mut |_| {});
    }

    /// [`Trainer::sum_own_part`], calling `lap` as each phase of each batch ends (`make
    /// bench`'s phases).
    pub fn sum_own_part_timed(&mut self, i: usize, k: usize, lap: &mut dyn FnMut(PartPhase)) {
        let data = Arc::clone(&self.data);
        let lot = std::mem::take(&mut self.buffers.lot);
        let extra = self.split_extra();
        let mut out = self.part_slot(i);
        // `training_rows()` field by field: the model and the buffers are borrowed mutably.
        let rows = Rows {
            own: &data.train,
            appended: self.appended.as_ref(),
            zeros: self.zero_features,
        };
        self.parts.work.sum_part_timed(
            &mut self.model,
            rows,
            lot_part(&lot, i, k, extra),
            self.cfg.mode,
            &self.clip.bounds,
            &mut out,
            lap,
        );
        self.parts.sums[i] = out;
        self.buffers.lot = lot;
    }

    /// Part `i` of `k` of the current lot, computed by another worker on [`Trainer::params`]:
    /// refused unless it is that part's sum ([`PartSum::check`]).
    pub fn receive_part(&mut self, i: usize, k: usize, part: PartSum) -> Result<(), PartError> {
        if part.grad.len() != self.buffers.grad.len() {
            let said = format!(
                "a part's gradient has {} values, the model {}",
                part.grad.len(),
                self.buffers.grad.len()
            );
            return Err(PartError::new(PartErrorKind::NotThatPart, Some(i), said));
        }
        part.check(self.lot_part(i, k), self.cfg.mode)
            .map_err(|e| PartError { part: Some(i), ..e })?;
        if self.parts.sums.len() <= i {
            self.parts.sums.resize_with(i + 1, PartSum::default);
        }
        self.parts.sums[i] = part;
        Ok(())
    }

    /// A zeroed slot for part `i` (taken out of `parts`, which grows as needed).
    fn part_slot(&mut self, i: usize) -> PartSum {
        if self.parts.sums.len() <= i {
            self.parts.sums.resize_with(i + 1, PartSum::default);
        }
        let mut slot = std::mem::take(&mut self.parts.sums[i]);
        slot.reset(self.buffers.grad.len());
        slot
    }

    /// The rest of the step once the `k` parts of the lot are in: their sum (in part order),
    /// the canaries, "Add noise" (drawn here alone, once per lot, from the run's stream),
    /// θ ← θ − η_t·g̃ with g̃ = (Σ + noise)/L; and the epoch's report if the lot ended one.
    pub fn finish_lot(&mut self, k: usize) -> Option<EpochReport> {
        self.apply_lot(k);
        (self.progress.steps == self.epoch_stop()).then(|| self.finish_epoch())
    }

    pub(super) fn apply_lot(&mut self, k: usize) {
        let mode = self.cfg.mode;
        // The lot's sum starts as part 0 (no copy: the buffers trade places).
        std::mem::swap(&mut self.buffers.grad, &mut self.parts.sums[0].grad);
        let (mut examples, mut unclipped) = (0, 0);
        self.buffers.norms.clear();
        for (i, part) in self.parts.sums[..k].iter().enumerate() {
            if i > 0 {
                for (g, p) in self.buffers.grad.iter_mut().zip(&part.grad) {
                    *g += p;
                }
            }
            examples += part.examples;
            unclipped += part.unclipped;
            self.progress.stats.examples += part.examples;
            self.progress.stats.clipped += part.clipped;
            if mode != Mode::NonPrivate {
                self.progress.stats.record_norms(
                    &part.norms,
                    &mut self.buffers.norms,
                    &mut self.side.norms,
                );
            }
        }
        let (canaries, canaries_unclipped) = self.add_canary_gradients(mode.clips());
        let signal = sum_of_squares(&self.buffers.grad).sqrt();
        let noise = if mode.adds_noise() {
            self.add_noise()
        } else {
            0.0
        };
        let scale = (self.cfg.lr_at(self.progress.epoch) / self.cfg.lot_size as f64) as Real;
        for (p, g) in self.model.params_mut().iter_mut().zip(&self.buffers.grad) {
            *p -= scale * g;
        }
        self.step_canaries_own_coordinates(mode.adds_noise(), scale);
        self.release_clipped_count(unclipped + canaries_unclipped, examples + canaries);
        self.progress.steps += 1;
        self.progress.examples_seen += examples as u64;
        self.progress
            .stats
            .record_lot(signal, noise, self.steps_per_epoch());
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
            &mut self.side.counts,
        );
        self.progress.stats.noisy_unclipped += b;
        self.progress.stats.noisy_counts += 1;
        if let (true, Some(target)) = (self.cfg.adaptive_clipping(), self.cfg.clip_quantile) {
            self.clip.c = next_clip(self.clip.c, b, target, self.cfg.clip_lr);
            let ratio = self.clip.c / self.cfg.clip;
            self.clip.bounds = self.cfg.clip_bounds().iter().map(|c| c * ratio).collect();
        }
    }

    /// Algorithm 1's noise: N(0, σ²C²) on every coordinate (per-layer: σC_l on layer l),
    /// drawn ahead ([`Trainer::draw_noise`]) or now. Returns the noise's L2 norm.
    fn add_noise(&mut self) -> f64 {
        if let Some(norm) = self.buffers.noise_ahead_norm.take() {
            for (g, n) in self.buffers.grad.iter_mut().zip(&self.buffers.noise_ahead) {
                *g += n;
            }
            return norm;
        }
        let mut grad = std::mem::take(&mut self.buffers.grad);
        let norm = self.gaussian_noise(&mut grad, add_gaussian_noise);
        self.buffers.grad = grad;
        norm
    }

    /// `noise` (add or draw) on `target` with std σ·C (per layer: σ·C_l on layer l's range),
    /// from the run's stream; the L2 norm of what was drawn ([`noise_by_layer`]).
    fn gaussian_noise(
        &mut self,
        target: &mut [Real],
        noise: fn(&mut [Real], f64, &mut NoiseRng) -> f64,
    ) -> f64 {
        let whole = 0..target.len();
        let ranges = match self.cfg.clipping {
            Clipping::Flat => std::slice::from_ref(&whole),
            Clipping::PerLayer => &self.clip.layers[..],
        };
        let sigma = self.cfg.sigma;
        noise_by_layer(
            target,
            ranges,
            &self.clip.bounds,
            sigma,
            &mut self.rng,
            noise,
        )
    }
}

/// Algorithm 1's "Add noise" N(0, σ²C_l²) on each range `ranges[l]` of `target` (flat
/// clipping: one range, all of it), by `noise` (add or draw) from `rng` (read by
/// [`with_noise_rng`]'s faster lanes in wasm); the L2 norm of what was drawn. The model's
/// coordinates take their noise here, and so do the audit's canaries' own coordinates in the
/// later layers (`canary.rs`): a bug here shows in the audit.
pub(super) fn noise_by_layer(
    target: &mut [Real],
    ranges: &[Range<usize>],
    bounds: &[f64],
    sigma: f64,
    rng: &mut ChaCha8Rng,
    noise: fn(&mut [Real], f64, &mut NoiseRng) -> f64,
) -> f64 {
    with_noise_rng(rng, |rng| {
        if let [whole] = ranges {
            return noise(&mut target[whole.clone()], sigma * bounds[0], rng);
        }
        let mut sq = 0.0;
        for (r, &c) in ranges.iter().zip(bounds) {
            sq += noise(&mut target[r.clone()], sigma * c, rng).powi(2);
        }
        sq.sqrt()
    })
}
