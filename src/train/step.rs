//! One step of Algorithm 1: draw a lot (Poisson, or a shuffled fixed-size lot), compute each
//! example's gradient norm, clip, sum, add N(0, σ²C²I), divide by L and step — and, with
//! adaptive clipping, release the lot's noisy unclipped count and move C.

use super::Trainer;
use crate::config::{Clipping, Mode, Sampling};
use crate::model::Model;
use crate::privacy::adaptive::{next_clip, noisy_unclipped_fraction};
use crate::privacy::sampling::poisson_lot;
use crate::privacy::sanitizer::{add_gaussian_noise, clip_weights, sum_of_squares};
use crate::Real;
use ndarray::s;
use rand::seq::SliceRandom;
use std::sync::Arc;

impl Trainer {
    /// One noisy step of Algorithm 1 on a freshly drawn lot.
    pub fn step(&mut self) {
        let mut lot = std::mem::take(&mut self.lot);
        let n = self.data.train.len();
        match self.cfg.sampling {
            Sampling::Poisson => {
                poisson_lot(n, self.q, &mut self.rng, &mut lot);
                self.draw_canaries();
            }
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
        self.add_canary_gradients(mode.clips());
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
}
