//! "What ε covers": a run's releases in words, read from its [`Mechanism`], and what lies
//! outside its guarantee (docs/privacy.md, "What ε covers"). The one place these sentences are decided:
//! the page lists them beside the charts (`Session::coverage`), formatting nothing itself.
//!
//! Numbers are rounded toward the side that never flatters the guarantee: a noise multiplier
//! down, a sampling rate up.

use super::report::NOT_PRIVATE_IN_WORDS;
use crate::config::{ReleaseLevel, RunConfig, Sampling};
use crate::data::builtin::scaling_outside;
use crate::data::DataFacts;
use crate::privacy::accountant::mechanism::{Mechanism, ReleaseKind};
use crate::privacy::accountant::Amplification;
use crate::text::{noise_in_words as noise, rate_in_words as rate};
use serde::Serialize;

/// What a run's ε covers and what it does not, one sentence per release or caveat.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Coverage {
    pub covered: Vec<String>,
    pub outside: Vec<String>,
    /// Why nothing of the run is private (ε = ∞), when so: the cause, in one sentence (the
    /// first of `outside` says it too). A lesson reads it to say why instead of its figures.
    pub open: Option<String>,
}

/// What the front end shows beside the reports, which the sentences must name.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shown {
    /// The decision-boundary view draws the training points (teaching level, 2-D data).
    pub training_points: bool,
    /// All runs on a student's file are composed and shown (the page's file ledger).
    pub file_ledger: bool,
}

impl Coverage {
    /// The coverage of a run with settings `cfg`, releases `mech`, on data with `facts`.
    pub fn of(cfg: &RunConfig, mech: &Mechanism, facts: &DataFacts, shown: Shown) -> Coverage {
        let mut c = Coverage::default();
        c.releases(cfg, mech, facts);
        c.outside_of(cfg, facts, shown);
        c
    }

    /// The releases: covered, unless one has no noise (then nothing is).
    fn releases(&mut self, cfg: &RunConfig, mech: &Mechanism, facts: &DataFacts) {
        let step = mech.step;
        if mech.is_open() {
            let bare: Vec<&str> = mech
                .before
                .iter()
                .chain(&mech.per_epoch)
                .filter(|r| r.sigma.is_nan() || r.sigma <= 0.0)
                .map(|r| without_noise(r.what))
                .collect();
            let cause = if step.sigma > 0.0 {
                let what = if bare.is_empty() {
                    "one of this run's releases".to_string()
                } else {
                    bare.join(" and ")
                };
                format!("{what} has no noise, so ε = ∞.")
            } else {
                "this run does not both clip and add noise, so ε = ∞.".into()
            };
            self.outside.push(format!("Everything: {cause}"));
            self.open = Some(cause);
            return;
        }
        // A step's σ accounts its noisy count of unclipped examples too, when one is released.
        let adaptive = match (cfg.count_noise_std(), cfg.clip_quantile) {
            (Some(_), Some(_)) => " (with the noisy count of unclipped examples that adapts C)",
            (Some(_), None) => " (with the noisy count of unclipped examples it releases)",
            (None, _) => "",
        };
        let noisy_steps = format!(
            "clipped gradients get Gaussian noise, accounted with noise multiplier σ = {}{adaptive}",
            noise(step.sigma)
        );
        let steps = mech.total_steps();
        match cfg.sampling {
            Sampling::Poisson => self.covered.push(format!(
                "The model after each of the (up to) {steps} training steps: a Poisson-sampled lot \
                 (q = {}) whose {noisy_steps} — and so anything computed from the model alone.",
                rate(step.q)
            )),
            // Algorithm 1's analysis samples each lot independently; a shuffled epoch does not.
            Sampling::Shuffle => self.outside.push(format!(
                "The model after each of the (up to) {steps} training steps, in part: its lots are \
                 shuffled, fixed-size (L/N = {}), not the Poisson sample the accountants assume, so \
                 ε is indicative only — though its {noisy_steps}.",
                rate(step.q)
            )),
        }
        for r in &mech.before {
            match r.what {
                ReleaseKind::DpPca => self.covered.push(format!(
                    "DP-PCA's projection: one Gaussian release (σ_p = {}), before training.",
                    noise(r.sigma)
                )),
                ReleaseKind::Bounds => self.covered.push(format!(
                    "The ranges of your numeric columns: one Gaussian release over their \
                     histograms (σ = {}).",
                    noise(r.sigma)
                )),
                // Without noise: an open mechanism, said above instead.
                ReleaseKind::ReadOff | ReleaseKind::Training | ReleaseKind::Evaluation => {}
            }
        }
        for r in &mech.per_epoch {
            if r.what == ReleaseKind::Evaluation {
                self.covered.push(format!(
                    "The test accuracy after each epoch, from a count of correct predictions \
                     with Gaussian noise (σ = {}).",
                    noise(r.sigma)
                ));
            }
        }
        if !facts.private {
            self.covered.push(
                "The accuracy on the held-out test set: public data, not protected by training."
                    .into(),
            );
            if let Some(by) = cfg.groups {
                self.covered.push(format!(
                    "Each group's test accuracy (by {}): measured on the same public test set, a \
                     function of the released model.",
                    by.name()
                ));
            }
        }
    }

    /// What no release's noise covers: the teaching level's measurements, conventions that
    /// are not bounds, what is treated as public, and what lies between runs.
    fn outside_of(&mut self, cfg: &RunConfig, facts: &DataFacts, shown: Shown) {
        let out = &mut self.outside;
        if cfg.report == ReleaseLevel::Teaching {
            let mut what: Vec<&str> = NOT_PRIVATE_IN_WORDS.iter().map(|(w, _)| *w).collect();
            if shown.training_points {
                what.push("the training points of the decision-boundary view");
            }
            out.push(format!(
                "{}: the training data itself, or measured on it without noise (marked \"not private\").",
                capitalised(&listed(&what))
            ));
            if facts.private {
                out.push(
                    "The exact test accuracy and loss of your held-out rows (the private level, \"only what \
                     ε covers\" on the page or --report private, releases the accuracy from a noisy count \
                     instead)."
                        .into(),
                );
            }
        }
        match cfg.amplification {
            Amplification::Paper => out.push(
                "Naive and strong composition in the paper's convention (q·ε₀): optimistic, not a bound."
                    .into(),
            ),
            Amplification::Classical => out.push(
                "Naive and strong composition in the classical convention: a bound only while a \
                 step's ε₀ < 1, which small σ breaks."
                    .into(),
            ),
            Amplification::Rigorous => {}
        }
        if facts.private {
            out.push("Your file's column names, categories and classes: treated as public.".into());
            if cfg.seed.is_some() {
                out.push("The fixed seed you chose: whoever has it can subtract the noise.".into());
            }
        } else {
            if let Some(scaling) = scaling_outside(&cfg.dataset) {
                out.push(scaling.into());
            }
            if let Some(by) = cfg.groups {
                out.push(format!(
                    "Each group's size in the training data (by {}): a public fact of this public \
                     data set, not protected by training.",
                    by.name()
                ));
            }
        }
        out.push(match (facts.private, shown.file_ledger) {
            (true, true) => "Trying many settings, or running again: each run's ε covers that \
                one run. All runs on your file since you first loaded it are composed under the \
                status line (the same contents loaded again keep their count; reloading the page \
                starts from zero, and each tab counts only its own runs)."
                .into(),
            (true, false) => "Trying many settings, or running again: each run's ε covers that \
                one run, and their ε add up over the runs on your data."
                .into(),
            (false, _) => "Trying many settings and keeping the best (hyperparameter search), \
                or running again: each run's ε covers that one run."
                .into(),
        });
        out.push(if facts.private {
            "The number of examples N, and of your held-out rows (the noisy accuracy's \
             denominator), treated as public (as in the paper)."
                .into()
        } else {
            "The number of examples N, treated as public (as in the paper).".into()
        });
        out.push(
            "The noise is drawn in floating point; floating-point noise can leak in ways the \
             maths does not model (see docs/privacy.md in the lab's repository)."
                .into(),
        );
    }
}

/// A release without noise, by its kind.
fn without_noise(what: ReleaseKind) -> &'static str {
    match what {
        ReleaseKind::DpPca => "DP-PCA's projection (σ_p = 0)",
        ReleaseKind::Bounds => "the estimate of your columns' ranges",
        ReleaseKind::ReadOff => "the release of the column ranges you read off your file",
        ReleaseKind::Evaluation => "the test accuracy of your held-out rows",
        ReleaseKind::Training => "a training step",
    }
}

/// "a, b and c".
fn listed(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "coverage_tests.rs"]
mod tests;
