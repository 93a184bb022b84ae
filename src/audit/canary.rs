//! The audit's canaries and the attack's scores, one per threat model.
//!
//! - Worst case (Jagielski et al. 2020; Nasr et al. 2021, "Adversary Instantiation"): Dirac
//!   gradient canaries (`crate::train::DiracCanaries`: one coordinate per clipping group), and
//!   an adversary who sees every update. It reads the noisy sum along each of the canary's k
//!   coordinates from each step's change, x_{t,l} = Δθ_l/(η_t/L)/C_l, and scores the run with
//!   the exact log-likelihood ratio of the subsampled Gaussian,
//!   Σ_t ln(1 − q + q·e^{(2μ Σ_l x_{t,l} − kμ²)/(2σ²)}) (μ = 1: the canary's clipped
//!   contribution in units of C_l). By Neyman–Pearson no test of these observations does
//!   better, so its ROC is the mechanism's trade-off curve (with adaptive clipping the noisy
//!   count is left unscored, and said so: `AuditResult::gaps`).
//! - Realistic: an input-space canary — an out-of-distribution point with an unlikely label —
//!   and an adversary who sees only the final model; the score is the log-probability the
//!   model gives the canary's label (a low loss says "it was trained on").

use crate::config::RunConfig;
use crate::data::pca::Projection;
use crate::data::{Dataset, Split};
use crate::model::Mlp;
use crate::privacy::accountant::special::log_add;
use crate::train::{Trainer, CANARY_NORM};
use crate::Real;
use ndarray::{Array2, ArrayView1};
use rand::Rng;

/// Input-space canaries: features and labels, one row each.
#[derive(Clone, Debug)]
pub struct InputCanaries {
    pub x: Array2<Real>,
    pub y: Vec<usize>,
}

/// Each feature's (min, max) over the training set.
fn feature_ranges(data: &Dataset) -> Vec<(Real, Real)> {
    data.train
        .x
        .columns()
        .into_iter()
        .map(|c| {
            c.iter()
                .fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), &v| {
                    (lo.min(v), hi.max(v))
                })
        })
        .collect()
}

/// The class whose training examples lie farthest, on average, from `x`: the label a model
/// trained without the canary finds least likely for it, roughly.
fn farthest_class(data: &Dataset, x: ArrayView1<Real>) -> usize {
    let k = data.n_classes();
    let (mut sums, mut counts) = (vec![0.0f64; k], vec![0usize; k]);
    for (row, &y) in data.train.x.rows().into_iter().zip(&data.train.y) {
        let d: f64 = row
            .iter()
            .zip(x)
            .map(|(&a, &b)| ((a - b) as f64).powi(2))
            .sum();
        sums[y] += d.sqrt();
        counts[y] += 1;
    }
    (0..k)
        .max_by(|&a, &b| {
            let mean = |c: usize| sums[c] / counts[c].max(1) as f64;
            mean(a).total_cmp(&mean(b))
        })
        .unwrap_or(0)
}

impl InputCanaries {
    /// The multi-run canary: every feature one range beyond its largest training value
    /// (max + (max − min)), labelled with the class farthest from it.
    pub fn outlier(data: &Dataset) -> InputCanaries {
        let x: Vec<Real> = feature_ranges(data)
            .iter()
            .map(|&(lo, hi)| hi + (hi - lo).max(1.0))
            .collect();
        let x = Array2::from_shape_vec((1, x.len()), x).expect("one row");
        let y = vec![farthest_class(data, x.row(0))];
        InputCanaries { x, y }
    }

    /// `m` canaries for the one-run audit: each feature one range beyond its smallest or its
    /// largest value (a random corner outside the data), with a random label.
    pub fn corners<R: Rng + ?Sized>(data: &Dataset, m: usize, rng: &mut R) -> InputCanaries {
        let ranges = feature_ranges(data);
        let mut x = Array2::zeros((m, ranges.len()));
        for mut row in x.rows_mut() {
            for (v, &(lo, hi)) in row.iter_mut().zip(&ranges) {
                let reach = (hi - lo).max(1.0);
                *v = if rng.random::<bool>() {
                    hi + reach
                } else {
                    lo - reach
                };
            }
        }
        let k = data.n_classes();
        let y = (0..m).map(|_| rng.random_range(0..k)).collect();
        InputCanaries { x, y }
    }

    /// The rows whose flag is set, as training rows.
    pub fn members(&self, present: &[bool]) -> Split {
        let rows: Vec<usize> = (0..self.y.len()).filter(|&i| present[i]).collect();
        Split {
            x: self.x.select(ndarray::Axis(0), &rows),
            y: rows.iter().map(|&i| self.y[i]).collect(),
        }
    }

    /// The realistic score of each canary: ln p(label | x) under the final model — after the
    /// run's DP-PCA projection when it has one (the canaries live in input space, the model
    /// reads projected inputs) — from the logits in f64 (a far-out canary's probability
    /// underflows f32).
    pub fn scores(&self, model: &Mlp, projection: Option<&Projection>) -> Vec<f64> {
        let z = match projection {
            Some(p) => model.logits(p.apply(self.x.view()).view()),
            None => model.logits(self.x.view()),
        };
        self.y
            .iter()
            .zip(z.rows())
            .map(|(&label, row)| {
                let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b as f64));
                let sum: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
                row[label] as f64 - m - sum.ln()
            })
            .collect()
    }
}

/// Runs `trainer` to the end while an adversary who sees every update scores each Dirac
/// canary by the log-likelihood ratio of "it was in" against "it was not": the exact
/// subsampled-Gaussian ratio over the canary's k coordinates (one per clipping group), each
/// read as x_l = Δθ_l/(η_t/L)/C_l, a shift of μ under noise σ (without noise, the sum of the
/// observations). With adaptive clipping the lot's noisy count also moves with the canary; its
/// other members are unknown to the adversary, so it is not scored (`AuditResult::gaps`).
pub fn dirac_scores(trainer: &mut Trainer, cfg: &RunConfig) -> Vec<f64> {
    let m = trainer.canary_count();
    let q = trainer.sampling_rate();
    let mu = if cfg.mode.clips() { 1.0 } else { CANARY_NORM };
    let sigma = if cfg.mode.adds_noise() {
        cfg.sigma
    } else {
        0.0
    };
    let log_keep = (-q).ln_1p();
    let mut scores = vec![0.0; m];
    let mut before: Vec<Vec<Real>> = vec![Vec::new(); m];
    let mut after = Vec::new();
    loop {
        for (i, b) in before.iter_mut().enumerate() {
            trainer.canary_readings(i, b);
        }
        // The update is θ ← θ − (η/L)·g̃, in the trainer's own precision.
        let scale = (trainer.current_lr() / cfg.lot_size as f64) as Real;
        let clips = trainer.clip_bounds().to_vec();
        if !trainer.step_unreported() {
            break;
        }
        for (i, (s, b)) in scores.iter_mut().zip(&before).enumerate() {
            trainer.canary_readings(i, &mut after);
            let (mut sum_x, k) = (0.0, b.len() as f64);
            for ((&b, &a), &c) in b.iter().zip(&after).zip(&clips) {
                sum_x += ((b - a) / scale) as f64 / c;
            }
            *s += if sigma == 0.0 {
                sum_x
            } else {
                let t = (2.0 * mu * sum_x - k * mu * mu) / (2.0 * sigma * sigma);
                if q >= 1.0 {
                    t
                } else {
                    log_add(log_keep, q.ln() + t)
                }
            };
        }
    }
    scores
}

/// Runs `trainer` to the end (the realistic adversary sees only the final model).
pub fn train_to_end(trainer: &mut Trainer) {
    while trainer.step_unreported() {}
}
