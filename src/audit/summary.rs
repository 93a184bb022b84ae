//! An audit's summary in words, for the page and the CLI: what the attack proved against what
//! the PLD accountant promised, and what the picture shows of the region; and its two ε as the
//! summary words them, which the lessons quote (#53 §4).

use super::region::{RegionCheck, Verdict, WhatRunsCanShow, MOST_RUNS_TRIED};
use super::Threat;
use crate::config::fmt_num;
use serde::Serialize;

/// An audit's two ε as its summary words them.
#[derive(Clone, Debug, Serialize)]
pub struct Said {
    pub eps_lower: String,
    pub pld: String,
}

/// A lower bound on ε to two decimals, rounded down (it must not claim more than was proved).
pub(super) fn lower_text(eps: f64) -> String {
    fmt_num((eps * 100.0).floor() / 100.0)
}

/// An upper bound on ε to two decimals, rounded up; "∞" without one.
pub(super) fn upper_text(eps: f64) -> String {
    if eps.is_finite() {
        fmt_num((eps * 100.0).ceil() / 100.0)
    } else {
        "∞".into()
    }
}

/// One sentence for the page and the CLI: what the attack proved, against what was promised,
/// and what the picture shows of the region (`region::check`: the same test that draws it).
pub(super) fn sentence(
    threat: Threat,
    lower: f64,
    upper: f64,
    runs: usize,
    region: &RegionCheck,
    could_show: Option<&WhatRunsCanShow>,
) -> String {
    let who = match threat {
        Threat::WorstCase => "An adversary who planted a gradient canary and saw every step",
        Threat::Realistic => "An attacker who saw only the final model and the canary's loss",
    };
    let promised = if upper.is_finite() {
        format!(
            "the PLD accountant (the region drawn) promised ε ≤ {}",
            upper_text(upper)
        )
    } else {
        // ε = ∞ for any open release: σ = 0, a mode without clipping or noise, DP-PCA at σ_p = 0.
        "the accountant promises nothing (ε = ∞: see “Not covered”)".into()
    };
    let proved = format!(
        "{who} proved ε ≥ {} with 95% confidence from {runs} runs with and {runs} without the canary (half of each to choose the attack's threshold, the other {} a side to test it); {promised}",
        lower_text(lower),
        runs / 2
    );
    let fprs = |at: Option<[f64; 2]>| {
        at.map_or(String::new(), |[a, b]| {
            if (b - a).abs() < 0.005 {
                format!(
                    " at false-positive rate {}",
                    fmt_num((a * 100.0).round() / 100.0)
                )
            } else {
                format!(
                    " at false-positive rates {}–{}",
                    fmt_num((a * 100.0).round() / 100.0),
                    fmt_num((b * 100.0).round() / 100.0)
                )
            }
        })
    };
    let zero = could_show.map_or(String::new(), |c| {
        let needed = match c.runs_needed {
            Some(r) if r <= runs as u64 => format!(
                "an attack as strong as the accountant allows would, on average, prove ε > 0 with {runs} runs a side: this one fell short"
            ),
            Some(r) => format!(
                "an attack as strong as the accountant allows would need about {r} runs a side to prove ε > 0"
            ),
            None => format!(
                "even an attack as strong as the accountant allows would need more than {MOST_RUNS_TRIED} runs a side to prove ε > 0"
            ),
        };
        format!(
            " ε ≥ 0 proves nothing: {runs} runs a side could prove at most ε ≈ {} even if every run were told apart, and {needed}.",
            fmt_num((c.most_provable * 100.0).floor() / 100.0)
        )
    });
    if !upper.is_finite() {
        return format!("{proved}.{zero}");
    }
    match region.verdict {
        Verdict::Outside => format!(
            "{proved}. The attack beat the bound: its ROC is above the privacy region beyond its 95% band{} — a 1-in-20 fluke of the confidence level, or a bug in clipping, sampling, noise or accounting.",
            fprs(region.outside_at)
        ),
        Verdict::WithinChance => format!(
            "{proved}. Its measured ROC rises above the privacy region{}, but no more than chance allows with {runs} runs: its 95% band still reaches into the region everywhere.{zero}",
            fprs(region.above_at)
        ),
        Verdict::Inside if lower > 0.5 * upper => format!(
            "{proved}: over half the bound, so ε is not loose by more than 2× for this adversary, and the ROC stays inside the privacy region."
        ),
        Verdict::Inside => format!(
            "{proved}: the attack's ROC stays inside the privacy region, as it must.{zero}"
        ),
    }
}
