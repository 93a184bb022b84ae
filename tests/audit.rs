//! The audit against the accountant (issue: "See what ε means"). The worst-case attack must
//! meet the PLD's trade-off curve (the accountant is tight for it and our sanitizer is what
//! it analyses); the realistic attack must find a clip-only run and stay inside the bound with
//! noise; a deliberately broken sanitizer must be caught.

mod common;
#[path = "audit/mechanism.rs"]
mod mechanism;
#[path = "audit/statements.rs"]
mod statements;

use dpsgd_lab::audit::region::Verdict;
use dpsgd_lab::audit::tradeoff::TradeOff;
use dpsgd_lab::audit::{summarize, AuditPlan, AuditResult, AuditSpec, Threat};
use dpsgd_lab::config::{Mode, ModelKind, RunConfig};
use dpsgd_lab::data::builtin::load_builtin;
use dpsgd_lab::data::Dataset;
use dpsgd_lab::train::Fault;
use std::sync::Arc;

fn blobs() -> Arc<Dataset> {
    Arc::new(load_builtin("blobs", &[], 0, 0.1).expect("blobs"))
}

fn audit(cfg: RunConfig, data: Arc<Dataset>, spec: AuditSpec) -> (AuditPlan, AuditResult) {
    let plan = AuditPlan::new(cfg, data, spec).expect("a valid audit");
    let runs = plan.run_all(&mut |_, _| {}).expect("runs");
    let result = summarize(&plan, &runs);
    (plan, result)
}

fn spec(threat: Threat, runs: usize, seed: u64) -> AuditSpec {
    AuditSpec {
        threat,
        runs,
        canaries: 0,
        seed,
        fault: Fault::None,
        alice: None,
    }
}

/// Blobs (600 training points) with lot L: q = L/600.
fn blobs_run(sigma: f64, lot: usize, epochs: usize) -> RunConfig {
    RunConfig {
        sigma,
        lot_size: lot,
        epochs,
        dataset: "blobs".into(),
        ..RunConfig::default()
    }
}

#[test]
fn worst_case_attack_meets_the_trade_off_curve() {
    // (σ, L, epochs): q = 0.05, 0.2, 1; PLD ε 4.6, 5.0, 5.0.
    for (sigma, lot, epochs) in [(0.7, 30, 1), (1.0, 120, 2), (2.0, 600, 5)] {
        let (plan, r) = audit(
            blobs_run(sigma, lot, epochs),
            blobs(),
            spec(Threat::WorstCase, 1000, 11),
        );
        let pld = r.eps_upper["pld"];
        assert!((0.5..8.0).contains(&pld), "PLD ε {pld}");
        let region = TradeOff::of(&plan.mechanism.after_steps(plan.steps));
        for f in ["0.05", "0.1"] {
            let (tpr, theory) = (r.tpr_at_fpr[f], r.theory_tpr_at_fpr[f]);
            let [tpr_lo, _] = r.tpr_interval_at_fpr[f];
            let [_, fpr_hi] = r.fpr_interval_at_fpr[f];
            assert!(
                (tpr - theory).abs() <= 0.05,
                "σ {sigma} L {lot}: TPR {tpr} at FPR {f}, theory {theory}"
            );
            // Never above the region by more than the 95% box (TPR and FPR intervals).
            assert!(
                tpr_lo <= region.tpr(fpr_hi),
                "σ {sigma} L {lot}: TPR ≥ {tpr_lo} at FPR ≤ {fpr_hi} beats {}",
                region.tpr(fpr_hi)
            );
        }
        assert!(
            r.eps_lower <= pld,
            "ε_lower {} above PLD {pld}",
            r.eps_lower
        );
        assert!(r.roc.len() > 50 && r.theory.len() > 50);
    }
}

#[test]
fn a_broken_sanitizer_is_caught() {
    // The canary skips clipping (it enters the sum at 10·C): the attack proves more than the
    // accountant allows. The same audit of the real sanitizer does not.
    let cfg = blobs_run(2.0, 30, 1); // q = 0.05, 20 steps, PLD ε ≈ 0.51
    let mut broken = spec(Threat::WorstCase, 300, 5);
    broken.fault = Fault::CanaryUnclipped;
    let (_, r) = audit(cfg.clone(), blobs(), broken);
    let pld = r.eps_upper["pld"];
    assert!(
        r.eps_lower > pld + 1.0,
        "broken: ε_lower {} vs PLD {pld}",
        r.eps_lower
    );
    assert!(r.tpr_interval_at_fpr["0.01"][0] > r.theory_tpr_at_fpr["0.01"]);
    assert!(r.summary.contains("beat the bound"), "{}", r.summary);
    // Said by Rust for the lesson, which never compares the two itself.
    assert!(r.lower_above_pld && r.region.verdict == Verdict::Outside);
    let (_, ok) = audit(cfg, blobs(), spec(Threat::WorstCase, 300, 5));
    assert!(
        ok.eps_lower <= pld,
        "sound: ε_lower {} vs PLD {pld}",
        ok.eps_lower
    );
    assert!(!ok.lower_above_pld);
}

/// The teaching set-up of the `audit` lesson: blobs, logistic, L = 60, 20 epochs.
fn lesson(mode: Mode, sigma: f64) -> RunConfig {
    RunConfig {
        mode,
        model: ModelKind::Logistic,
        ..blobs_run(sigma, 60, 20)
    }
}

#[test]
fn realistic_attack_finds_a_clip_only_run_and_not_a_noisy_one() {
    let (_, r) = audit(
        lesson(Mode::ClipOnly, 0.0),
        blobs(),
        spec(Threat::Realistic, 200, 3),
    );
    assert!(r.eps_lower >= 3.0, "clip only: ε_lower {}", r.eps_lower);
    let (_, r) = audit(
        lesson(Mode::Dp, 2.0),
        blobs(),
        spec(Threat::Realistic, 200, 3),
    );
    let pld = r.eps_upper["pld"];
    assert!(
        r.eps_lower <= pld,
        "σ = 2: ε_lower {} vs PLD {pld}",
        r.eps_lower
    );
    assert!(r.eps_lower < 1.0, "σ = 2: ε_lower {}", r.eps_lower);
}

#[test]
fn realistic_attack_at_the_default_settings_stays_below_the_pld_epsilon() {
    let cfg = RunConfig {
        epochs: 5,
        ..RunConfig::default()
    };
    let (_, r) = audit(cfg, common::adult(), spec(Threat::Realistic, 12, 1));
    let pld = r.eps_upper["pld"];
    assert!(r.eps_lower <= pld, "ε_lower {} vs PLD {pld}", r.eps_lower);
}

#[test]
fn one_run_audit_finds_clip_only_and_respects_the_bound_with_noise() {
    let mut s = spec(Threat::WorstCase, 2, 9);
    s.canaries = 400;
    // 50 steps at q = 0.1: a member canary is left out of every lot with probability 0.5%.
    let clip_only = RunConfig {
        mode: Mode::ClipOnly,
        ..blobs_run(1.0, 60, 5)
    };
    let (_, r) = audit(clip_only, blobs(), s.clone());
    let one = r.one_run.expect("one-run result");
    assert!(one.eps_lower > 3.0, "clip only, one run: {one:?}");
    let (_, r) = audit(blobs_run(1.0, 60, 5), blobs(), s);
    let one = r.one_run.expect("one-run result");
    assert!(
        one.eps_lower <= r.eps_upper["pld"],
        "σ = 1, one run: {one:?}"
    );
}

#[test]
fn bad_audits_are_refused_with_a_reason() {
    let cfg = blobs_run(1.0, 60, 1);
    for (runs, canaries, sampling_shuffle, want) in [
        (1, 0, false, "runs"),
        (10, 1, false, "canaries"),
        (10, 0, true, "Poisson"),
    ] {
        let mut c = cfg.clone();
        if sampling_shuffle {
            c.sampling = dpsgd_lab::config::Sampling::Shuffle;
        }
        let mut s = spec(Threat::Realistic, runs, 1);
        s.canaries = canaries;
        let err = AuditPlan::new(c, blobs(), s).err().expect("refused");
        assert!(err.message.contains(want), "{}", err.message);
    }
}

/// With DP-PCA on, the model reads projected inputs: the realistic attack scores its canaries
/// (which live in input space) through the run's own projection. It once fed them in raw and
/// panicked on the shapes — on MNIST and Fashion-MNIST with PCA, in the CLI and in the page.
#[test]
fn realistic_attack_scores_its_canaries_through_the_runs_pca() {
    let data = common::adult();
    let cfg = RunConfig {
        pca: Some(5),
        epochs: 1,
        ..RunConfig::default()
    };
    assert!(data.n_features() > 5);
    let mut s = spec(Threat::Realistic, 2, 4);
    s.canaries = 20;
    let plan = AuditPlan::new(cfg, data, s).expect("a valid audit");
    let runs = plan
        .run_all(&mut |_, _| {})
        .expect("every run trains and is scored");
    assert_eq!(runs.len(), 5);
    assert_eq!(
        runs[4].scores.len(),
        20,
        "the one-run audit scores each canary"
    );
    for r in &runs {
        // Each score is ln p(label | canary): a log-probability, finite for a finite model.
        assert!(
            r.scores.iter().all(|&v| v.is_finite() && v <= 0.0),
            "{:?}",
            r.scores
        );
    }
    let r = summarize(&plan, &runs);
    assert!(r.eps_lower <= r.eps_upper["pld"]);
}

/// An audit run's member canaries are read after the training rows (`Trainer::for_audit`),
/// not copied in with them ahead of time: with PCA the run's DP-PCA reads them in place. The
/// run samples them with the data's own q = L/N (the mechanism audited: the worlds with and
/// without a canary differ by its row alone, #40 1.1), and its DP-PCA is the one of the data
/// with the canaries added.
#[test]
fn member_canaries_train_as_rows_of_the_data() {
    use dpsgd_lab::audit::canary::InputCanaries;
    use dpsgd_lab::model::Model;
    use dpsgd_lab::train::Trainer;
    use rand::SeedableRng;
    let data = common::adult();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let corners = InputCanaries::corners(&data, 6, &mut rng);
    let members = corners.members(&[true, false, true, true, false, true]);
    assert_eq!(members.len(), 4);
    let together = Arc::new(data.with_training_rows(&members.x, &members.y));
    for pca in [None, Some(5)] {
        let cfg = RunConfig {
            pca,
            epochs: 1,
            seed: Some(11),
            ..RunConfig::default()
        };
        let trainer = |data: &Arc<Dataset>, members| {
            Trainer::for_audit(cfg.clone(), Arc::clone(data), None, members, 40)
                .expect("a valid run")
        };
        let run = |mut t: Trainer| {
            while t.step_unreported() {}
            t.model().params().to_vec()
        };
        let with = trainer(&data, Some(&members));
        let q = cfg.lot_size as f64 / data.train.len() as f64;
        assert_eq!(with.sampling_rate(), q, "PCA {pca:?}: the data's own q");
        assert_eq!(
            with.steps_per_epoch(),
            cfg.steps_per_epoch(data.train.len()),
            "PCA {pca:?}: the data's own epoch"
        );
        if pca.is_some() {
            let probe = together.test.x.view();
            let plain = trainer(&together, None);
            let (a, b) = (with.projection(), plain.projection());
            let (a, b) = (a.expect("PCA").apply(probe), b.expect("PCA").apply(probe));
            assert_eq!(a, b, "the DP-PCA of the data with the canaries in");
        }
        // And the canaries count: without them the run is another.
        assert_ne!(run(with), run(trainer(&data, None)), "PCA {pca:?}");
    }
    // Rows that are not finite are refused with a reason, never trained on (nor a panic).
    let mut bad = members.clone();
    bad.x[[1, 0]] = f32::NAN;
    let err = Trainer::for_audit(RunConfig::default(), data, None, Some(&bad), 4)
        .err()
        .expect("refused");
    assert!(err.message.contains("not finite"), "{}", err.message);
}

/// A run with Dirac canaries reads every row with their zero features after its own, which
/// are not stored: its epoch's evaluation (test and, for teaching, training accuracy) must be
/// the model's on the rows widened by those zeros.
#[test]
fn a_run_with_dirac_canaries_evaluates_its_rows_as_the_model_reads_them() {
    use dpsgd_lab::model::evaluate;
    use dpsgd_lab::train::{DiracCanaries, Trainer};
    let data = blobs();
    let cfg = RunConfig {
        seed: Some(5),
        ..blobs_run(1.0, 60, 1)
    };
    let canaries = DiracCanaries::new(vec![true, false, true], Fault::None);
    let mut t =
        Trainer::for_audit(cfg, Arc::clone(&data), Some(canaries), None, 10).expect("a valid run");
    let report = t.advance(u64::MAX).expect("the epoch ends");
    let width = t.model().sizes()[0];
    assert!(width > data.n_features(), "the canaries' zero features");
    let widened = |x: &ndarray::Array2<f32>| {
        let mut w = ndarray::Array2::zeros((x.nrows(), width));
        w.slice_mut(ndarray::s![.., ..x.ncols()]).assign(x);
        w
    };
    let (test_loss, test_acc) = evaluate(t.model(), widened(&data.test.x).view(), &data.test.y);
    assert_eq!(report.test_acc, Some(test_acc));
    assert!((report.test_loss.expect("public") - test_loss).abs() < 1e-12);
    let (_, train_acc) = evaluate(t.model(), widened(&data.train.x).view(), &data.train.y);
    let d = report.diagnostics.as_ref().expect("teaching reports");
    assert_eq!(d.train_acc, train_acc);
}

#[test]
fn the_audit_lists_only_valid_upper_bounds_and_says_how_its_runs_are_split() {
    use dpsgd_lab::privacy::accountant::Amplification;
    let cfg = |amplification| RunConfig {
        amplification,
        ..blobs_run(2.0, 60, 2)
    };
    let (_, exact) = audit(
        cfg(Amplification::Rigorous),
        blobs(),
        spec(Threat::Realistic, 10, 3),
    );
    let names = |r: &AuditResult| r.eps_upper.keys().copied().collect::<Vec<_>>();
    assert_eq!(names(&exact), ["moments", "naive", "pld", "rdp", "strong"]);
    // The paper's convention (q·ε₀ a step) is no bound: naive and strong are left out.
    let (_, paper) = audit(
        cfg(Amplification::Paper),
        blobs(),
        spec(Threat::Realistic, 10, 3),
    );
    assert_eq!(names(&paper), ["moments", "pld", "rdp"]);
    // The classical convention (ln(1 + q(e^ε₀ − 1)) of the classical Gaussian ε₀, valid only for
    // ε₀ < 1) is no bound either (#40, item 1.5): naive and strong are kept exactly when
    // `is_valid_bound` says they bound ε, and the other accountants are the same numbers.
    let (_, classical) = audit(
        cfg(Amplification::Classical),
        blobs(),
        spec(Threat::Realistic, 10, 3),
    );
    assert!(!Amplification::Classical.is_valid_bound());
    assert_eq!(names(&classical), ["moments", "pld", "rdp"]);
    for (amp, r) in [
        (Amplification::Rigorous, &exact),
        (Amplification::Paper, &paper),
        (Amplification::Classical, &classical),
    ] {
        for loose in ["naive", "strong"] {
            assert_eq!(
                r.eps_upper.contains_key(loose),
                amp.is_valid_bound(),
                "{loose} under {amp:?}"
            );
        }
        for valid in ["moments", "pld", "rdp"] {
            assert_eq!(
                r.eps_upper[valid], exact.eps_upper[valid],
                "{valid} under {amp:?}"
            );
        }
    }
    assert!(
        paper.summary.contains("from 10 runs with and 10 without the canary (half of each to choose the attack's threshold, the other 5 a side to test it)"),
        "{}",
        paper.summary
    );
}
