//! What the audit says of itself (#40, item 1.3): the gaps of a worst-case audit the attack
//! does not reach (DP-PCA, adaptive clipping's count), in its `gaps` and its summary.

use super::{audit, blobs, blobs_run, spec};
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
