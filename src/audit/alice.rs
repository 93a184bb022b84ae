//! "Alice": the audit with one real training example as its canary — neighbouring data sets
//! made visible. D′ is the training set without Alice, D is D′ with her; the audit's runs
//! ([`super::AuditPlan::run`], the realistic threat: only the final model is seen) train the
//! run's settings R times on each, and the observer's statistic is the model's loss on Alice,
//! −ln p(her label | her features). This is the multi-run membership test of Jagielski, Ullman
//! & Oprea 2020 and Carlini et al. 2022 ("Membership Inference Attacks From First
//! Principles", the loss test on one target), with the real example the definition of
//! differential privacy speaks of (Dwork & Roth 2014, Definition 2.4: neighbouring data sets
//! differ in one person).
//!
//! What ε allows is the privacy region of the run's mechanism (`tradeoff`): no test of "Alice
//! was in" can have TPR above the region's edge at its FPR, e.g. TPR ≤ e^ε·FPR + δ.

use super::canary::{train_to_end, InputCanaries};
use super::region::Verdict;
use super::stats::{clopper_pearson, Counts, LogFactorials};
use super::tradeoff::TradeOff;
use crate::config::{fmt_num, ConfigError, Mode, RunConfig};
use crate::data::{Dataset, Split};
use crate::train::Trainer;
use ndarray::{s, Axis};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which training example is Alice: `index` (a row of the training set, e.g. the point a
/// student clicked), or none for the lab's pick.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AliceChoice {
    #[serde(default)]
    pub index: Option<usize>,
}

/// The example picked, as the page and the CLI show her.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Alice {
    /// Her row in the training set.
    pub index: usize,
    /// Her features (the data's own, before any DP-PCA) and her label.
    pub x: Vec<f64>,
    pub label: usize,
    pub class_name: String,
    /// How she was chosen, in words.
    pub picked: String,
    /// The side of her image, when the features are a square image's pixels (the image sets).
    #[serde(default)]
    pub image_side: Option<usize>,
    /// The categories she is in, when the data has one-hot columns ("sex=Female", …).
    #[serde(default)]
    pub categories: Vec<String>,
}

/// The side of a square image whose pixels are the features, by the image sets' feature names
/// (`px{row}_{col}`, `data::builtin`), or `None`.
fn image_side(names: &[String]) -> Option<usize> {
    let side = (names.len() as f64).sqrt().round() as usize;
    let last = format!("px{}_{}", side.saturating_sub(1), side.saturating_sub(1));
    (side > 1 && side * side == names.len() && names.last() == Some(&last)).then_some(side)
}

/// The one-hot features ("column=value", `data::packed`) set in `x`: the categories of a row.
fn categories(names: &[String], x: &[f64]) -> Vec<String> {
    names
        .iter()
        .zip(x)
        .filter(|(name, &v)| name.contains('=') && v > 0.0)
        .map(|(name, _)| name.clone())
        .collect()
}

/// Rows scored at once when the lab looks for its pick (bounds the memory of a large set).
const PICK_CHUNK: usize = 4096;

/// The lab's pick: the training example with the largest loss under a non-private model of
/// the run's settings (plain SGD, the same model, lots, learning rate and epochs), trained on
/// all the data, Alice included — the example the data least explains, the kind a membership
/// attack finds easiest (Carlini et al. 2022, Section 4: outliers are the most exposed).
/// Deterministic in `seed`, so every audit worker picks the same one. Returns (index, loss).
pub fn lab_pick(
    cfg: &RunConfig,
    data: &Arc<Dataset>,
    steps: u64,
    seed: u64,
) -> Result<(usize, f64), ConfigError> {
    let plain = RunConfig {
        mode: Mode::NonPrivate,
        seed: Some(seed),
        budget_epsilon: None,
        ..cfg.clone()
    };
    let mut t = Trainer::for_audit(plain, Arc::clone(data), None, None, steps)?;
    train_to_end(&mut t);
    let train = &data.train;
    let mut best = (0usize, f64::NEG_INFINITY);
    for start in (0..train.len()).step_by(PICK_CHUNK) {
        let end = (start + PICK_CHUNK).min(train.len());
        let rows = InputCanaries {
            x: train.x.slice(s![start..end, ..]).to_owned(),
            y: train.y[start..end].to_vec(),
        };
        for (i, score) in rows.scores(t.model(), t.projection()).iter().enumerate() {
            // The largest loss, the first on a tie; a non-finite score is skipped.
            if -score > best.1 {
                best = (start + i, -score);
            }
        }
    }
    Ok(best)
}

/// Alice (row `index` of the training set) as the audit's canary, and D′: the data set
/// without her (a copy of the training rows but one; the test split is shared).
pub fn split_off(data: &Dataset, index: usize, picked: String) -> (Alice, InputCanaries, Dataset) {
    let label = data.train.y[index];
    let x = data.train.x.slice(s![index..index + 1, ..]).to_owned();
    let rest: Vec<usize> = (0..data.train.len()).filter(|&i| i != index).collect();
    let without = Dataset {
        name: data.name.clone(),
        feature_names: data.feature_names.clone(),
        class_names: data.class_names.clone(),
        train: Split {
            x: data.train.x.select(Axis(0), &rest),
            y: rest.iter().map(|&i| data.train.y[i]).collect(),
        },
        test: Arc::clone(&data.test),
        private: data.private,
        releases: data.releases.clone(),
    };
    let features: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let alice = Alice {
        index,
        label,
        class_name: data.class_names.get(label).cloned().unwrap_or_default(),
        picked,
        image_side: image_side(&data.feature_names),
        categories: categories(&data.feature_names, &features),
        x: features,
    };
    (alice, InputCanaries { x, y: vec![label] }, without)
}

/// Checks a student's choice and says how Alice was chosen.
pub fn check_index(index: usize, n_train: usize) -> Result<String, ConfigError> {
    if index >= n_train {
        return Err(ConfigError {
            field: "alice",
            message: format!(
                "Alice must be one of the {n_train} training examples (got row {index})"
            ),
        });
    }
    Ok(format!("chosen: training example {index}"))
}

/// The bins of the two histograms.
const BINS: usize = 24;

/// What the Alice view shows: the observer's statistic (the loss on Alice) in the runs with
/// and without her, the best threshold test on it, and what ε allows.
#[derive(Clone, Debug, Serialize)]
pub struct AliceResult {
    pub alice: Alice,
    /// The loss on Alice in each run with her (D) and without her (D′).
    pub loss_in: Vec<f64>,
    pub loss_out: Vec<f64>,
    /// Histogram edges (BINS + 1, equal widths over both samples) and each side's counts.
    pub edges: Vec<f64>,
    pub counts_in: Vec<usize>,
    pub counts_out: Vec<usize>,
    /// The test "Alice was in when the loss is at most t": its TPR at FPR ≤ 0.05 (the best t)
    /// and that t (the line the chart draws: the test the sentence quotes, #53 §3; ∞ —
    /// serialised as null — when no run without her can be let through), and the t with the
    /// largest TPR − FPR, picked on the same runs.
    pub tpr_at_005: f64,
    /// Its 95% interval (Clopper–Pearson over the runs with her), as [low, high].
    pub tpr_interval_005: [f64; 2],
    pub threshold_005: f64,
    pub best_tpr: f64,
    pub best_fpr: f64,
    pub best_threshold: f64,
    /// What ε allows: the region's largest TPR at FPR 0.05, and its largest TPR − FPR.
    pub allowed_tpr_at_005: f64,
    pub allowed_advantage: f64,
    /// The ε (PLD accountant, at the run's δ) of the region those come from; `None`: ∞.
    pub epsilon: Option<f64>,
    /// In words, for the page and the CLI.
    pub summary: String,
    /// Its figures as `summary` writes them (the lesson quotes these, not its own rounding).
    pub said: AliceSaid,
}

/// The Alice view's figures in whole percents, each rounded the cautious way: the 95% interval
/// outward, what ε allows ("at most") up, the rates measured to the nearest.
#[derive(Clone, Debug, Serialize)]
pub struct AliceSaid {
    pub tpr: String,
    /// The interval, "7–29%".
    pub range: String,
    pub allowed: String,
    pub allowed_gap: String,
    pub best: String,
    pub best_fpr: String,
}

impl AliceSaid {
    /// From the 5% test's TPR and interval, the best (TPR, FPR), and what ε allows (TPR at 5%,
    /// TPR − FPR).
    pub fn of((tpr, (lo, hi)): (f64, (f64, f64)), best: (f64, f64), allowed: (f64, f64)) -> Self {
        // In percent, `round`ed; a float just past a whole percent (0.35 · 100) is that percent.
        let whole = |v: f64, round: fn(f64) -> f64| {
            let p = v * 100.0;
            fmt_num(if (p - p.round()).abs() < 1e-9 {
                p.round()
            } else {
                round(p)
            })
        };
        let pct = |v: f64, round: fn(f64) -> f64| format!("{}%", whole(v, round));
        AliceSaid {
            tpr: pct(tpr, f64::round),
            range: format!("{}–{}%", whole(lo, f64::floor), whole(hi, f64::ceil)),
            allowed: pct(allowed.0, f64::ceil),
            allowed_gap: pct(allowed.1, f64::ceil),
            best: pct(best.0, f64::round),
            best_fpr: pct(best.1, f64::round),
        }
    }
}

/// The Alice view from the runs' scores (ln p(label), so loss = −score; `in_`: runs with her),
/// the ROC counts of the score (`stats::roc_counts`) and the audit's verdict on that ROC (its
/// 95% band against the region, `region::check`), the run's region and its ε (PLD).
pub fn alice_result(
    alice: &Alice,
    scores_in: &[f64],
    scores_out: &[f64],
    (counts, verdict): (&[Counts], Verdict),
    region: &TradeOff,
    epsilon: f64,
) -> AliceResult {
    let loss_in: Vec<f64> = scores_in.iter().map(|s| -s).collect();
    let loss_out: Vec<f64> = scores_out.iter().map(|s| -s).collect();
    let (n_in, n_out) = (loss_in.len().max(1) as f64, loss_out.len().max(1) as f64);
    let rate = |c: &Counts| (c.tp as f64 / n_in, c.fp as f64 / n_out);
    // The ROC point with the most catches at FPR ≤ 0.05 (the first, fewest alarms, of a tie).
    let at_005 = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| rate(c).1 <= 0.05 + 1e-12)
        .fold(None, |kept: Option<(usize, f64)>, (i, c)| match kept {
            Some((_, t)) if t >= rate(c).0 => kept,
            _ => Some((i, rate(c).0)),
        });
    let tpr_at_005 = at_005.map_or(0.0, |(_, t)| t);
    // Its 95% interval (Clopper–Pearson) over the runs with her: the sentence's ± (#53 §2).
    let caught = at_005.map_or(0, |(i, _)| counts[i].tp);
    let runs_in = loss_in.len();
    let tpr_interval = clopper_pearson(&LogFactorials::new(runs_in), caught, runs_in, 0.025);
    // The threshold of each ROC point: midway between the last score counted "in" at it and
    // the next (the gap's middle), as a loss.
    let mut sorted: Vec<f64> = scores_in.iter().chain(scores_out).copied().collect();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let threshold_of = |i: usize| {
        let taken = counts.get(i).map_or(0, |c| c.tp + c.fp);
        match (taken.checked_sub(1).map(|i| sorted[i]), sorted.get(taken)) {
            (Some(a), Some(&b)) => -0.5 * (a + b),
            (Some(a), None) => -a,
            (None, _) => f64::INFINITY,
        }
    };
    let threshold_005 = at_005.map_or(f64::INFINITY, |(i, _)| threshold_of(i));
    let (best_i, best) = counts
        .iter()
        .enumerate()
        .max_by(|a, b| {
            let adv = |c: &Counts| rate(c).0 - rate(c).1;
            adv(a.1).total_cmp(&adv(b.1))
        })
        .map_or((0, (0.0, 0.0)), |(i, c)| (i, rate(c)));
    let best_threshold = threshold_of(best_i);
    let allowed_advantage = super::tradeoff::fpr_grid(400)
        .iter()
        .map(|&a| region.tpr(a) - a)
        .fold(0.0, f64::max);
    let (edges, counts_in, counts_out) = histograms(&loss_in, &loss_out);
    let allowed_tpr_at_005 = region.tpr(0.05);
    let said = AliceSaid::of(
        (tpr_at_005, tpr_interval),
        best,
        (allowed_tpr_at_005, allowed_advantage),
    );
    let summary = sentence(&said, epsilon, verdict);
    AliceResult {
        alice: alice.clone(),
        loss_in,
        loss_out,
        edges,
        counts_in,
        counts_out,
        tpr_at_005,
        tpr_interval_005: [tpr_interval.0, tpr_interval.1],
        threshold_005,
        best_tpr: best.0,
        best_fpr: best.1,
        best_threshold,
        allowed_tpr_at_005,
        allowed_advantage,
        epsilon: Some(epsilon).filter(|e| e.is_finite()),
        summary,
        said,
    }
}

/// Both samples' counts in BINS equal bins over their common range (finite values only).
fn histograms(a: &[f64], b: &[f64]) -> (Vec<f64>, Vec<usize>, Vec<usize>) {
    let finite = || a.iter().chain(b).copied().filter(|v| v.is_finite());
    let lo = finite().fold(f64::INFINITY, f64::min);
    let hi = finite().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    // A sample of equal values still gets a visible bin.
    let width = ((hi - lo) / BINS as f64).max(1e-6 * lo.abs().max(1e-3));
    let edges: Vec<f64> = (0..=BINS).map(|i| lo + i as f64 * width).collect();
    let count = |s: &[f64]| {
        let mut c = vec![0usize; BINS];
        for v in s.iter().filter(|v| v.is_finite()) {
            let i = (((v - lo) / width) as usize).min(BINS - 1);
            c[i] += 1;
        }
        c
    };
    (edges, count(a), count(b))
}

/// One sentence: how well a threshold on Alice's loss tells D from D′ (the 5% test with its
/// 95% interval; the best, picked on the same runs), against what ε allows, and the audit's
/// verdict on it (its 95% band), so a chance excess is never read as ε broken.
fn sentence(said: &AliceSaid, epsilon: f64, verdict: Verdict) -> String {
    let test = format!(
        "Guessing \"Alice was in\" when the model's loss on her is low: at a 5% false-alarm rate \
         it catches {} ({} at 95% confidence) of the runs trained with her; the best threshold, \
         picked on these same runs (which flatters it), catches {} with {} false alarms",
        said.tpr, said.range, said.best, said.best_fpr
    );
    let verdict = match verdict {
        Verdict::Inside => "By the audit's 95% band the test stays within what ε allows.",
        Verdict::WithinChance => {
            "Its ROC rises above the region somewhere, but within its 95% band: as much as chance allows with these runs."
        }
        Verdict::Outside => {
            "Its ROC leaves the region beyond its 95% band: the test beat what ε allows (a 1-in-20 fluke, or a bug)."
        }
    };
    if !epsilon.is_finite() {
        return format!(
            "{test}. With ε = ∞ (see “Not covered”) nothing bounds how well an observer tells the two data sets apart."
        );
    }
    format!(
        "{test}. The privacy region of these runs (PLD accountant, ε = {}) allows at most {} at a 5% false-alarm rate, and a gap of at most {} between catches and false alarms. {verdict}",
        fmt_num((epsilon * 100.0).ceil() / 100.0),
        said.allowed,
        said.allowed_gap
    )
}

#[cfg(test)]
mod tests {
    use super::{categories, image_side};

    #[test]
    fn an_image_sets_pixels_give_her_image_and_a_tables_one_hot_columns_her_categories() {
        let pixels: Vec<String> = (0..784)
            .map(|j| format!("px{}_{}", j / 28, j % 28))
            .collect();
        assert_eq!(image_side(&pixels), Some(28));
        assert_eq!(image_side(&pixels[..783]), None, "not square");
        let plane = vec!["x1".to_string(), "x2".to_string()];
        assert_eq!(image_side(&plane), None);
        let table: Vec<String> = ["age", "sex=Female", "sex=Male", "race=White", "race=Other"]
            .map(String::from)
            .into();
        assert_eq!(
            categories(&table, &[0.4, 0.0, 0.7, 0.7, 0.0]),
            ["sex=Male", "race=White"],
            "the one-hot columns set, never a numeric one"
        );
        assert!(categories(&plane, &[1.0, 1.0]).is_empty());
    }
}
