//! The end of an epoch: compose what it released into every accountant, evaluate the model,
//! and build its report at the run's release level (`report.rs` says which field is which).

use super::report::AccuracyNoise;
use super::{Diagnostics, EpochReport, Trainer};
use crate::config::{fmt_num, Mode, ReleaseLevel, RunConfig, Sampling};
use crate::model::Model;
use crate::privacy::accountant::mechanism::ReleaseKind;
use crate::privacy::accountant::EpsilonReport;
use crate::text::{delta_in_words, thousands, three_digits};
use rand_distr::{Distribution, StandardNormal};

impl Trainer {
    /// E||noise|| ≈ sqrt(Σ_l (σ C_l)² d_l): σC·√d for flat clipping; 0 without noise.
    pub(super) fn expected_noise_norm(&self) -> f64 {
        if !self.cfg.mode.adds_noise() {
            return 0.0;
        }
        let per_layer = self.clip.bounds.len() > 1;
        let sq: f64 = self
            .clip
            .layers
            .iter()
            .enumerate()
            .map(|(l, r)| {
                let c = self.clip.bounds[if per_layer { l } else { 0 }];
                (self.cfg.sigma * c).powi(2) * r.len() as f64
            })
            .sum();
        sq.sqrt()
    }

    /// The test accuracy released from a noisy count of correct predictions (std σ of the
    /// run's evaluation release, sensitivity 1; the test set's size is treated as public),
    /// clamped into [0, 1], and its noise: the standard deviation σ/n and the count before
    /// clamping.
    fn noisy_test_accuracy(&mut self, accuracy: f64) -> (f64, AccuracyNoise) {
        let held_out = self.data.test.len();
        let n = held_out.max(1) as f64;
        let sigma = self
            .mechanism
            .per_epoch
            .iter()
            .find(|r| r.what == ReleaseKind::Evaluation)
            .map_or(self.cfg.eval_noise, |r| r.sigma);
        let z: f64 = StandardNormal.sample(&mut self.side.evals);
        let noisy = ((accuracy * n).round() + sigma * z) / n;
        (
            AccuracyNoise::clamped(noisy),
            AccuracyNoise::of(sigma, held_out, noisy),
        )
    }

    pub(super) fn finish_epoch(&mut self) -> EpochReport {
        let lr = self.cfg.lr_at(self.progress.epoch);
        self.progress.epoch += 1;
        let divergence = self.check_divergence(lr);
        let epsilon = match self.accounting.as_mut() {
            Some(accounting) => accounting.epoch(&self.mechanism, self.progress.steps),
            None => EpsilonReport::default(),
        };
        let stats = std::mem::take(&mut self.progress.stats);
        let teaching = self.cfg.report == ReleaseLevel::Teaching;
        let test_private = self.facts.private;
        let (test_loss, test_acc) = self.test_rows().evaluate(&self.model);
        let (private_test_acc, private_test_acc_noise) = match self
            .cfg
            .noisy_evaluation(&self.facts)
            .then(|| self.noisy_test_accuracy(test_acc))
        {
            Some((acc, noise)) => (Some(acc), Some(noise)),
            None => (None, None),
        };
        let exact_test = teaching || !test_private;
        let diagnostics = teaching.then(|| {
            // Over every training row (an audit run's member canaries too).
            let (train_loss, train_acc) = self.training_rows().evaluate(&self.model);
            let mut norms = stats.norms.clone();
            norms.sort_by(|a, b| a.total_cmp(b));
            let lots = stats.lots.max(1) as f64;
            Diagnostics {
                train_acc,
                train_loss,
                clipped_fraction: stats.clipped as f64 / stats.examples.max(1) as f64,
                median_grad_norm: norms.get(norms.len() / 2).map_or(0.0, |&m| m as f64),
                last_lot_norms: self.buffers.norms.clone(),
                signal_norm: stats.signal_norm / lots,
                noise_norm: stats.noise_norm / lots,
                lot_signal_noise: stats.per_lot.clone(),
                mean_lot_size: stats.examples as f64 / lots,
            }
        });
        let private_clipped_fraction = (stats.noisy_counts > 0)
            .then(|| (1.0 - stats.noisy_unclipped / stats.noisy_counts as f64).clamp(0.0, 1.0));
        let mut report = EpochReport {
            epoch: self.progress.epoch,
            steps: self.progress.steps,
            release: self.cfg.report,
            epsilon,
            delta: self.cfg.delta,
            amplification: self.cfg.amplification,
            accounted_sigma: self.mechanism.step.sigma,
            sampling_rate: self.sampling_rate(),
            lr,
            clip: self.clip.c,
            expected_noise_norm: self.expected_noise_norm(),
            test_acc: exact_test.then_some(test_acc),
            test_loss: exact_test.then_some(test_loss),
            private_test_acc,
            private_test_acc_noise,
            private_clipped_fraction,
            stopped_by_budget: self.stopped_by_budget(),
            budget_stop: self.budget_stop(),
            divergence,
            groups: self
                .groups
                .as_ref()
                .map(|g| g.accuracy(&self.model, &self.data.test)),
            notes: self.notes(),
            diagnostics,
            not_private: Vec::new(),
        };
        report.list_not_private(test_private);
        report
    }

    /// A message when a weight has become infinite or NaN (the first epoch it is seen): the
    /// steps overshoot and grow, so the run stops rather than report numbers of a broken model
    /// (its loss and accuracy would freeze at a constant, which looks like training).
    fn check_divergence(&mut self, lr: f64) -> Option<String> {
        if self.progress.diverged_in.is_some() || self.model.params().iter().all(|v| v.is_finite())
        {
            return None;
        }
        self.progress.diverged_in = Some(self.progress.epoch);
        Some(format!(
            "the model diverged in epoch {}: its weights grew until they overflowed, so training \
             stopped; the learning rate η = {lr} is too large for this run: lower it",
            self.progress.epoch
        ))
    }

    /// Why the ε budget stopped the run, in the epoch it did (the paper's DPTrain loop ends
    /// when one more step would cross the budget): with the budget's own accountant and, for
    /// naive and strong, the rigorous convention it is measured with, whatever the report's.
    fn budget_stop(&self) -> Option<String> {
        if !self.stopped_by_budget() {
            return None;
        }
        let acc = self.cfg.budget_accountant();
        let convention = match acc.convention() {
            Some(a) => format!(" ({} convention)", a.name()),
            None => String::new(),
        };
        Some(format!(
            "one more step would spend more than ε = {} with the {} accountant{convention}",
            fmt_num(self.cfg.budget_epsilon.unwrap_or(f64::NAN)),
            acc.name(),
        ))
    }

    /// Caveats a reader of the report must see.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.sampling_rate() >= 1.0 {
            notes.push(format!(
                "the lot is every training row (L = {} ≥ N = {}: q = 1), so sampling hides no \
                 one and ε grows fast",
                self.cfg.lot_size,
                self.data.train.len()
            ));
        }
        // δ at least 1/N: (ε, δ) does not rule out a release that publishes each row whole
        // with probability δ (that release is (0, δ)-DP), δ·N rows in expectation (Dwork and
        // Roth 2014, §2.3: δ must be less than the inverse of any polynomial in N). Abadi et
        // al. take δ = 1e-5 < 1/N for MNIST's 60,000 rows.
        let rows = self.data.train.len();
        if self.cfg.delta * rows as f64 >= 1.0 {
            notes.push(format!(
                "δ = {} is not below 1/N (N = {}): (ε, δ) then does not rule out a release that \
                 publishes about {} people's rows whole; take δ well below 1/N",
                delta_in_words(self.cfg.delta),
                thousands(rows),
                three_digits(self.cfg.delta * rows as f64),
            ));
        }
        if self.cfg.sampling == Sampling::Shuffle {
            notes.push("fixed-size shuffled lots: the accountants assume Poisson sampling, so ε is indicative only".into());
        }
        if self.facts.private && self.cfg.seed.is_some() {
            notes.push(
                "a fixed seed on private data: whoever knows it can recompute the noise and \
                 subtract it, so ε does not hold against them"
                    .into(),
            );
        }
        if self.cfg.mode != Mode::Dp {
            notes.push(NO_GUARANTEE.into());
        }
        if let Some(caveat) = self.cfg.amplification.caveat() {
            notes.push(format!("naive and strong use {caveat}"));
        }
        notes
    }
}

/// The note of a run without both clipping and noise.
const NO_GUARANTEE: &str = "without both clipping and noise there is no privacy guarantee (ε = ∞)";

/// The caveats a pinned run of settings `cfg` carries beyond its reports' notes. A pin's name is
/// someone's words — a link's author's, Compare's "DP-SGD" — so a pin in the DP mode at σ = 0,
/// which adds no noise, says it has no guarantee, as the modes without noise do in every
/// report (the run on screen says ε = ∞ in its status and on the ε chart).
pub fn pin_caveats(cfg: &RunConfig) -> Vec<String> {
    match cfg.mode == Mode::Dp && !cfg.adds_noise() {
        true => vec![NO_GUARANTEE.into()],
        false => Vec::new(),
    }
}
