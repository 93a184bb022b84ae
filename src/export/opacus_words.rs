//! The Opacus script's header in words (`opacus.rs`): the run, its data, and the releases
//! before training that Opacus does not account, each with its ε by the lab's RDP accountant.

use super::opacus::ExportData;
use crate::config::{fmt_num, Clipping, ModelKind, RunConfig};
use crate::data::DataFacts;
use crate::privacy::accountant::mechanism::{Mechanism, Release, ReleaseKind};
use crate::privacy::accountant::Accountant;
use crate::privacy::accountant::AccountantName;
use crate::text::counted;

pub(super) fn run_in_words(
    cfg: &RunConfig,
    m: &Mechanism,
    facts: &DataFacts,
    total_steps: u64,
) -> String {
    let model = match cfg.model {
        ModelKind::Logistic => "softmax regression".to_string(),
        ModelKind::Mlp => format!("an MLP with ReLU hidden layers {:?}", cfg.hidden),
    };
    let clipping = match cfg.clipping {
        Clipping::Flat => format!("flat clipping at C = {}", fmt_num(cfg.clip)),
        Clipping::PerLayer => format!("per-layer clipping at C_l = {:?}", cfg.clip_bounds()),
    };
    let lr = match cfg.lr_end {
        Some(end) => format!(
            "lr {} to {} over {} epochs",
            fmt_num(cfg.lr),
            fmt_num(end),
            cfg.lr_decay_epochs
        ),
        None => format!("lr {}", fmt_num(cfg.lr)),
    };
    let budget = cfg.budget_epsilon.map_or(String::new(), |b| {
        format!(
            " (the lab's epsilon budget {} by its {} accountant stops it there)",
            fmt_num(b),
            cfg.budget_accountant.name()
        )
    });
    format!(
        "{model} on {}; Poisson lots of expected size L = {} (q = {}), \
         {clipping}, noise multiplier sigma = {} (accounted {}), {lr}, {} of {}, \
         {}{budget}; delta = {}.",
        counted(facts.n_train, "training example", "training examples"),
        cfg.lot_size,
        fmt_num(m.step.q),
        fmt_num(cfg.sigma),
        fmt_num(m.step.sigma),
        counted(cfg.epochs, "epoch", "epochs"),
        counted(m.steps_per_epoch, "lot", "lots"),
        counted(total_steps, "step", "steps"),
        fmt_num(cfg.delta)
    )
}

pub(super) fn data_in_words(data: &ExportData<'_>, dataset: &str, pca: bool) -> String {
    match data {
        ExportData::Prepared(d) if d.private => format!(
            "your own file's rows exactly as the lab prepared them ({}: its column \
             ranges, scaling and one-hot columns{}, and its split into {} training and {} test \
             rows), in train.csv and test.csv beside this script, so this script repeats the \
             lab's run. These two files are your private data itself, not a release covered by \
             epsilon: keep them where your file is, and share neither.",
            counted(d.n_features(), "feature", "features"),
            if pca { ", then the run's DP-PCA" } else { "" },
            d.train.len(),
            d.test.len()
        ),
        ExportData::Prepared(d) => format!(
            "{dataset} as the lab trains on it ({}{}), in train.csv and test.csv \
             beside this script.",
            counted(d.n_features(), "feature", "features"),
            if pca {
                ", after the run's DP-PCA"
            } else {
                ", prepared"
            }
        ),
        ExportData::Images { projection, .. } => format!(
            "{dataset}'s IDX files (pass their directory), pixels divided by 255 as in the lab{}.",
            if projection.is_some() {
                ", then projected onto the run's DP-PCA basis in pca_basis.csv"
            } else {
                ""
            }
        ),
    }
}

/// The releases Opacus does not account, each with its ε at the run's δ by the lab's RDP
/// accountant (the lab's reports compose them with the steps).
pub(super) fn before_in_words(cfg: &RunConfig, m: &Mechanism) -> String {
    let mut parts: Vec<String> = m
        .before
        .iter()
        .map(|r| format!("{} ({})", release_name(r), release_epsilon(r, cfg.delta)))
        .collect();
    parts.extend(m.per_epoch.iter().map(|r| {
        format!(
            "after every epoch, {} ({} each; this script's test_acc is exact instead)",
            release_name(r),
            release_epsilon(r, cfg.delta)
        )
    }));
    if parts.is_empty() {
        return "none.".into();
    }
    // Each release's ε is its own at the run's δ: added up, they bound the whole at the sum of
    // their δ (basic composition), not at δ, which the lab's reports compose them all at.
    format!(
        "{}. Opacus's epsilon leaves them out; the lab's reports include them. Each epsilon here \
         is that release's alone at delta = {}: added to Opacus's, the sum is an epsilon at the \
         sum of their deltas (basic composition), looser than the lab's, which composes them \
         all at delta = {} once.",
        parts.join("; "),
        fmt_num(cfg.delta),
        fmt_num(cfg.delta)
    )
}

fn release_name(r: &Release) -> String {
    let what = match r.what {
        ReleaseKind::DpPca => "DP-PCA",
        ReleaseKind::Bounds => "the private estimate of the file's column ranges",
        ReleaseKind::ReadOff => "column ranges read off the file without noise",
        ReleaseKind::Training => "a training step",
        ReleaseKind::Evaluation => "the noisy test accuracy",
    };
    format!(
        "{what}, noise multiplier {} on a sample of rate {}",
        fmt_num(r.sigma),
        fmt_num(r.q)
    )
}

fn release_epsilon(r: &Release, delta: f64) -> String {
    match Accountant::named(AccountantName::Rdp).epsilon(&r.times(1), delta) {
        Ok(e) if e.is_finite() => format!(
            "epsilon = {} at delta = {}",
            fmt_num((e * 1000.0).ceil() / 1000.0),
            fmt_num(delta)
        ),
        _ => "not private: epsilon is infinite".into(),
    }
}
