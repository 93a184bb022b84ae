//! What the audit says of itself (#40, items 1.3 and 1.4): the gaps of a worst-case audit the
//! attack does not reach (DP-PCA, adaptive clipping's count), in its `gaps` and its summary;
//! and, when it proves nothing (ε_lower = 0), what its runs could prove at most and what a
//! real attack would need.

use super::{audit, blobs, blobs_run, spec};
use dpsgd_lab::audit::region::Verdict;
use dpsgd_lab::audit::{AuditResult, Threat};
use dpsgd_lab::config::RunConfig;
use std::sync::Arc;

/// The summary's last sentence is the gaps, each as `gaps` states it.
fn assert_summary_states_the_gaps(r: &AuditResult, what: &str) {
    let said = format!("What this attack does not reach: {}.", r.gaps.join("; "));
    assert!(r.summary.ends_with(&said), "{what}: {}", r.summary);
}

#[test]
fn a_worst_case_audit_with_dp_pca_or_adaptive_clipping_states_its_gap() {
    // Breast cancer (30 features) projected on 5 by DP-PCA, 2 runs a side: the gaps depend on
    // the run audited, not on the scores.
    let data = super::common::builtin("breast-cancer", 1);
    let cancer = |pca| RunConfig {
        dataset: "breast-cancer".into(),
        lot_size: 45,
        epochs: 1,
        pca,
        ..RunConfig::default()
    };
    let (_, r) = audit(
        cancer(Some(5)),
        Arc::clone(&data),
        spec(Threat::WorstCase, 2, 3),
    );
    assert_eq!(r.gaps.len(), 1, "{:?}", r.gaps);
    assert!(r.gaps[0].starts_with("DP-PCA: "), "{:?}", r.gaps);
    assert!(r.gaps[0].contains("no row of the data"), "{:?}", r.gaps);
    assert_summary_states_the_gaps(&r, "DP-PCA");
    let json = serde_json::to_value(&r).expect("the result serialises");
    assert_eq!(
        json["gaps"],
        serde_json::json!(r.gaps),
        "the JSON states it"
    );
    // The realistic attack's canaries are rows, projected by the run's DP-PCA: no gap.
    let (_, r) = audit(
        cancer(Some(5)),
        Arc::clone(&data),
        spec(Threat::Realistic, 2, 3),
    );
    assert!(r.gaps.is_empty(), "realistic with PCA: {:?}", r.gaps);
    assert!(!r.summary.contains("does not reach"), "{}", r.summary);
    // Adaptive clipping: the canary counts in the noisy count, which the attack does not score.
    let adaptive = RunConfig {
        clip_quantile: Some(0.5),
        ..blobs_run(1.0, 60, 1)
    };
    let (_, r) = audit(adaptive, blobs(), spec(Threat::WorstCase, 2, 3));
    assert_eq!(r.gaps.len(), 1, "{:?}", r.gaps);
    assert!(r.gaps[0].starts_with("adaptive clipping: "), "{:?}", r.gaps);
    assert!(r.gaps[0].contains("noisy unclipped count"), "{:?}", r.gaps);
    assert_summary_states_the_gaps(&r, "adaptive");
    // Both at once: both said, in one sentence.
    let both = RunConfig {
        clip_quantile: Some(0.5),
        ..cancer(Some(5))
    };
    let (_, r) = audit(both, data, spec(Threat::WorstCase, 2, 3));
    assert_eq!(r.gaps.len(), 2, "{:?}", r.gaps);
    assert_summary_states_the_gaps(&r, "DP-PCA and adaptive");
    // Flat clipping without PCA: the attack reaches the whole mechanism, and says nothing more.
    let (_, r) = audit(
        blobs_run(1.0, 60, 1),
        blobs(),
        spec(Threat::WorstCase, 2, 3),
    );
    assert!(r.gaps.is_empty(), "{:?}", r.gaps);
    assert!(!r.summary.contains("does not reach"), "{}", r.summary);
}

/// `summary` carries the ε_lower = 0 sentence: at most what every run told apart proves (the
/// evaluation half, 8 runs a side: TPR_lo = 0.025^(1/8) = 1 − FPR_hi), and what it would take.
fn assert_says_what_16_runs_could_prove(r: &AuditResult) {
    assert_eq!(r.eps_lower, 0.0, "{}", r.summary);
    let shown = r.could_show.as_ref().expect("said when ε_lower is 0");
    let p = 0.025f64.powf(1.0 / 8.0);
    let most = ((p - r.delta) / (1.0 - p)).ln();
    assert!(
        (shown.most_provable - most).abs() < 1e-9,
        "{shown:?} vs {most}"
    );
    let at_most = format!(
        "ε ≥ 0 proves nothing: 16 runs a side could prove at most ε ≈ {} even if every run were told apart, and ",
        (most * 100.0).floor() / 100.0
    );
    assert!(r.summary.contains(&at_most), "{}", r.summary);
    let needed = match shown.runs_needed {
        Some(n) if n <= 16 => "this one fell short".to_string(),
        Some(n) => format!("would need about {n} runs a side to prove ε > 0"),
        None => "would need more than 100000 runs a side".to_string(),
    };
    assert!(r.summary.contains(&needed), "{needed:?} in {}", r.summary);
}

#[test]
fn an_audit_that_proves_nothing_says_what_its_runs_could_prove() {
    // σ = 8 on blobs (PLD ε 0.19), 16 runs a side: the attack proves nothing. Audit seed 5's
    // ROC rises above the region by chance, seed 11's stays under it (2 seeds of 0..30 do, since
    // the canaries are drawn by the lots' own draw): the sentence is said in both pictures' words.
    let mut verdicts = Vec::new();
    for seed in [5, 11] {
        let (_, r) = audit(
            blobs_run(8.0, 60, 2),
            blobs(),
            spec(Threat::WorstCase, 16, seed),
        );
        eprintln!("{}", r.summary);
        assert_says_what_16_runs_could_prove(&r);
        verdicts.push(r.region.verdict);
    }
    assert_eq!(verdicts, [Verdict::WithinChance, Verdict::Inside]);
    // And not when it proves something: clip only, the canary is found in every run whose
    // lots drew it (1 − 0.9²⁰ = 88% of them); audit seed 1's 16 runs with it each drew it.
    let clip_only = RunConfig {
        mode: dpsgd_lab::config::Mode::ClipOnly,
        ..blobs_run(8.0, 60, 2)
    };
    let (_, r) = audit(clip_only, blobs(), spec(Threat::WorstCase, 16, 1));
    assert!(r.eps_lower > 0.0 && r.could_show.is_none(), "{}", r.summary);
    assert!(!r.summary.contains("proves nothing"), "{}", r.summary);
}
