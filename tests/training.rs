//! DP-SGD training on the shipped Adult data: the private step against an independent
//! computation, the non-private accuracy bar, reproducibility, and the golden run that the
//! browser test (tests/web.rs) must reproduce in wasm.

mod common;
#[path = "common/golden.rs"]
mod golden;

use dpsgd_lab::config::RunConfig;
use dpsgd_lab::config::{AccountantName, Clipping, Mode, ModelKind, Sampling};
use dpsgd_lab::model::Model;
use dpsgd_lab::privacy::accountant::Amplification;
use dpsgd_lab::train::Trainer;

#[test]
fn zero_noise_and_huge_clip_is_exactly_the_non_private_step() {
    let data = common::adult();
    let cfg = RunConfig {
        sigma: 0.0,
        clip: 1e9,
        lot_size: 300,
        lr: 0.5,
        seed: Some(3),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, data.clone()).unwrap();
    for _ in 0..5 {
        t.step(); // move away from the zero start
    }
    let before: Vec<f64> = t.model().params().iter().map(|&p| p as f64).collect();
    let lot: Vec<usize> = (0..data.train.len()).step_by(97).collect();
    t.step_on_lot(&lot);

    // The plain SGD step θ − η/L Σ_i ∇ℓ_i, computed here in f64 from the definition.
    let (d, k) = (data.n_features(), data.n_classes());
    let mut grad = vec![0.0f64; d * k + k];
    for &i in &lot {
        let x = data.train.x.row(i);
        let logits: Vec<f64> = (0..k)
            .map(|c| {
                before[d * k + c] + (0..d).map(|j| x[j] as f64 * before[j * k + c]).sum::<f64>()
            })
            .collect();
        let m = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logits.iter().map(|l| (l - m).exp()).sum();
        for c in 0..k {
            let r = (logits[c] - m).exp() / z - (data.train.y[i] == c) as u8 as f64;
            for j in 0..d {
                grad[j * k + c] += x[j] as f64 * r;
            }
            grad[d * k + c] += r;
        }
    }
    let after = t.model().params();
    for (j, g) in grad.iter().enumerate() {
        let want = before[j] - 0.5 / 300.0 * g;
        assert!(
            (after[j] as f64 - want).abs() < 1e-5 * (1.0 + want.abs()),
            "param {j}: {} vs {want}",
            after[j]
        );
    }
}

#[test]
fn non_private_logistic_regression_reaches_82_percent_on_adult() {
    let cfg = RunConfig {
        sigma: 0.0,
        clip: 1e9,
        lot_size: 256,
        lr: 2.0,
        epochs: 3,
        seed: Some(1),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    let last = std::iter::from_fn(|| t.run_epoch()).last().unwrap();
    assert!(
        last.test_acc.unwrap() >= 0.82,
        "test accuracy {}",
        last.test_acc.unwrap()
    );
    assert!(
        last.epsilon.moments.is_infinite(),
        "σ = 0 spends infinite privacy"
    );
}

#[test]
fn private_run_learns_and_reports_finite_privacy() {
    let cfg = RunConfig {
        epochs: 3,
        seed: Some(5),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    let reports: Vec<_> = std::iter::from_fn(|| t.run_epoch()).collect();
    assert_eq!(reports.len(), 3);
    assert!(
        reports[2].test_acc.unwrap() > 0.8,
        "private test accuracy {}",
        reports[2].test_acc.unwrap()
    );
    let eps: Vec<f64> = reports.iter().map(|r| r.epsilon.moments).collect();
    assert!(
        eps.windows(2).all(|w| w[0] < w[1]) && eps[2].is_finite(),
        "ε grows: {eps:?}"
    );
    let r = &reports[0];
    assert!(r.diag().clipped_fraction > 0.0 && r.diag().clipped_fraction < 1.0);
    // Noise per lot is σC·sqrt(d) in expectation (d = #parameters).
    let expected = 1.0 * 1.0 * (t.model().n_params() as f64).sqrt();
    assert!(
        (r.diag().noise_norm / expected - 1.0).abs() < 0.05,
        "noise {} vs {expected}",
        r.diag().noise_norm
    );
}

#[test]
fn same_seed_same_run_and_advance_matches_run_epoch() {
    let data = common::adult();
    let cfg = RunConfig {
        epochs: 2,
        seed: Some(9),
        ..RunConfig::default()
    };
    let mut a = Trainer::new(cfg.clone(), data.clone()).unwrap();
    let mut b = Trainer::new(cfg, data).unwrap();
    let ra = a.run_epoch().unwrap();
    let rb = loop {
        if let Some(r) = b.advance(7) {
            break r;
        }
    };
    assert_eq!(
        serde_json::to_string(&ra).unwrap(),
        serde_json::to_string(&rb).unwrap()
    );
    assert_eq!(a.model().params(), b.model().params());
}

#[test]
fn golden_runs_are_reproduced() {
    let path = common::repo_path("tests/fixtures/golden_run.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let runs: Vec<serde_json::Value> = golden::golden_configs()
            .into_iter()
            .map(|cfg| serde_json::json!({ "config": cfg.clone(), "reports": golden::run(cfg, common::adult()) }))
            .collect();
        let text = serde_json::to_string_pretty(&serde_json::json!({ "runs": runs })).unwrap();
        std::fs::write(&path, text + "\n").unwrap();
    }
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let runs = fixture["runs"].as_array().unwrap();
    let configs = golden::golden_configs();
    assert_eq!(
        runs.len(),
        configs.len(),
        "the golden runs changed: rerun with UPDATE_GOLDEN=1"
    );
    for (run, cfg) in runs.iter().zip(configs) {
        // Compared as configurations, so a new field with a default keeps old fixtures valid.
        let stored: RunConfig = serde_json::from_value(run["config"].clone()).unwrap();
        assert_eq!(stored, cfg, "config changed: UPDATE_GOLDEN=1");
        let got = golden::run(cfg, common::adult());
        if let Err(e) = golden::compare(run["reports"].as_array().unwrap(), &got, 1e-6) {
            panic!("{e}; if the change is intended, rerun with UPDATE_GOLDEN=1");
        }
    }
}

#[test]
fn golden_runs_do_not_depend_on_how_many_workers_sum_a_lot() {
    // Data-parallel training (k workers, each summing a contiguous part of the lot, the
    // coordinator adding the parts and drawing the noise) changes only the order of float
    // additions: the golden runs hold for k = 2, 3, 4 at the wasm-vs-native tolerance, with
    // the lots cut for either channel (the coordinator's share differs:
    // `coordinator_extra_examples`).
    use dpsgd_lab::train::part::PartChannel::{Messages, SharedMemory};
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::repo_path("tests/fixtures/golden_run.json")).unwrap(),
    )
    .unwrap();
    for (run, cfg) in fixture["runs"]
        .as_array()
        .unwrap()
        .iter()
        .zip(golden::golden_configs())
    {
        let want = run["reports"].as_array().unwrap();
        let one = golden::run_in_parts(cfg.clone(), common::adult(), 1, Messages);
        let mut halves = Vec::new(); // k = 2 by message, and through shared memory
        for (k, channel) in [2, 3, 4]
            .into_iter()
            .flat_map(|k| [(k, Messages), (k, SharedMemory)])
        {
            let got = golden::run_in_parts(cfg.clone(), common::adult(), k, channel);
            if let Err(e) = golden::compare(want, &got, 1e-5) {
                panic!("k = {k}, {channel:?}: {e}");
            }
            // The parts really are summed separately: some figure differs in its last bits.
            assert_ne!(got, one, "k = {k}, {channel:?} gave bit-identical reports");
            if k == 2 {
                halves.push(got);
            }
        }
        assert_ne!(halves[0], halves[1], "both channels cut the lots alike");
    }
}

#[test]
fn a_helpers_sum_counts_only_as_the_part_it_was_sent_of_the_open_lot() {
    // The coordinator adds a helper's sum into the step: a sum of other rows (another part,
    // or the same part of a past lot) would add examples the noise was not scaled for. The
    // sum carries the digest of the rows it summed, and anything but the expected part's is
    // refused with the lot left as it was.
    use dpsgd_lab::train::part::{PartSum, PartWork};
    let data = common::adult();
    let mut t = Trainer::new(
        RunConfig {
            seed: Some(2),
            ..RunConfig::default()
        },
        data.clone(),
    )
    .unwrap();
    let helper_sum = |t: &Trainer, i: usize| {
        let mut out = PartSum::default();
        out.reset(t.params().len());
        let mut model = t.model().clone();
        let rows = t.lot_part(i, 3).to_vec();
        PartWork::new(64, data.n_features()).sum_part(
            &mut model,
            (&data.train).into(),
            &rows,
            Mode::Dp,
            t.clip_bounds(),
            &mut out,
        );
        out
    };
    t.draw_lot();
    let (one, two) = (helper_sum(&t, 1), helper_sum(&t, 2));
    assert!(one.examples > 0 && one.examples == one.norms.len());
    assert!(
        t.receive_part(1, 3, two.clone()).is_err(),
        "part 2's sum as part 1"
    );
    assert!(
        t.receive_part(2, 4, two.clone()).is_err(),
        "part 2 of 3 as part 2 of 4"
    );
    let mut short = one.clone();
    short.norms.pop();
    assert!(t.receive_part(1, 3, short).is_err(), "a norm missing");
    let mut miscounted = one.clone();
    miscounted.clipped += 1;
    assert!(
        t.receive_part(1, 3, miscounted).is_err(),
        "counts that do not add up"
    );
    t.receive_part(1, 3, one.clone()).unwrap();
    t.receive_part(2, 3, two).unwrap();
    t.sum_own_part(0, 3);
    t.finish_lot(3);
    // The next lot: last lot's part 1 is refused, this lot's accepted.
    t.draw_lot();
    assert!(t.receive_part(1, 3, one).is_err(), "a part of the last lot");
    t.receive_part(1, 3, helper_sum(&t, 1)).unwrap();
}

#[test]
fn noise_drawn_ahead_is_the_noise_drawn_at_the_step_bit_for_bit() {
    // The page's coordinator draws a lot's noise while its helpers sum the parts; that must be
    // the very noise the step would draw (same stream, same order, same values): the
    // parameters and every report stay bit-identical, flat and per-layer, with adaptive
    // clipping moving C. Drawing twice for one lot draws nothing more.
    let mut configs = golden::golden_configs();
    configs.push(RunConfig {
        clip_quantile: Some(0.5),
        epochs: 2,
        seed: Some(3),
        ..RunConfig::default()
    });
    for cfg in configs {
        let mut now = Trainer::new(cfg.clone(), common::adult()).unwrap();
        let mut ahead = Trainer::new(cfg, common::adult()).unwrap();
        let mut reports = 0;
        for lot in 0.. {
            if now.is_finished() {
                break;
            }
            let want = {
                now.draw_lot();
                now.sum_own_part(0, 1);
                now.finish_lot(1)
            };
            ahead.draw_lot();
            ahead.draw_noise();
            if lot % 2 == 0 {
                ahead.draw_noise();
            }
            ahead.sum_own_part(0, 1);
            let got = ahead.finish_lot(1);
            assert_eq!(
                ahead
                    .params()
                    .iter()
                    .map(|p| p.to_bits())
                    .collect::<Vec<_>>(),
                now.params().iter().map(|p| p.to_bits()).collect::<Vec<_>>(),
                "lot {lot}"
            );
            assert_eq!(
                serde_json::to_value(&got).unwrap(),
                serde_json::to_value(&want).unwrap()
            );
            reports += want.is_some() as usize;
        }
        assert!(
            reports >= 2,
            "the lots cover at least two epochs ({reports})"
        );
    }
}

fn epochs(cfg: RunConfig) -> Vec<dpsgd_lab::train::EpochReport> {
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    std::iter::from_fn(|| t.run_epoch()).collect()
}

#[test]
fn mlp_trains_privately_with_per_layer_clipping() {
    let cfg = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![64],
        clipping: Clipping::PerLayer,
        sigma: 1.0,
        clip: 1.0,
        lot_size: 512,
        lr: 2.0,
        epochs: 2,
        seed: Some(3),
        ..RunConfig::default()
    };
    let r = epochs(cfg.clone());
    assert!(
        r[1].test_acc.unwrap() > 0.8,
        "MLP test accuracy {}",
        r[1].test_acc.unwrap()
    );
    // Noise per layer σC_l over d_l coordinates: E||noise||² = σ² Σ_l C_l² d_l.
    let t = Trainer::new(cfg.clone(), common::adult()).unwrap();
    let bounds = cfg.clip_bounds();
    let expected: f64 = t
        .model()
        .layer_ranges()
        .iter()
        .zip(&bounds)
        .map(|(r, c)| c * c * r.len() as f64)
        .sum::<f64>()
        .sqrt();
    assert!(
        (r[0].diag().noise_norm / expected - 1.0).abs() < 0.05,
        "noise {} vs {expected}",
        r[0].diag().noise_norm
    );
    // The report states that expectation, and samples individual lots for the noise view:
    // each lot's noise norm has relative std 1/sqrt(2d) < 1%, so 10% is over 10 of those.
    assert!((r[0].expected_noise_norm / expected - 1.0).abs() < 1e-9);
    let lots = &r[0].diag().lot_signal_noise;
    assert!(
        !lots.is_empty() && lots.len() <= 64,
        "{} lots sampled",
        lots.len()
    );
    for w in lots.windows(2) {
        assert!(w[0][0] < w[1][0] && w[1][0] <= 1.0, "lot positions {w:?}");
    }
    for &[_, signal, noise] in lots {
        assert!(
            signal > 0.0 && (noise as f64 / expected - 1.0).abs() < 0.1,
            "lot noise {noise}"
        );
    }
    // Two layers with noise σC_l each are accounted as one mechanism with σ/√2.
    assert!((r[0].accounted_sigma - 1.0 / 2f64.sqrt()).abs() < 1e-12);
}

#[test]
fn teaching_modes_do_what_they_say() {
    let base = RunConfig {
        epochs: 1,
        seed: Some(4),
        clip: 0.01,
        sigma: 2.0,
        ..RunConfig::default()
    };
    let non = &epochs(RunConfig {
        mode: Mode::NonPrivate,
        ..base.clone()
    })[0];
    assert_eq!(
        (non.diag().clipped_fraction, non.diag().noise_norm),
        (0.0, 0.0)
    );
    assert_eq!(non.expected_noise_norm, 0.0);
    assert!(non.epsilon.rdp.is_infinite() && !non.notes.is_empty());
    let clip = &epochs(RunConfig {
        mode: Mode::ClipOnly,
        ..base.clone()
    })[0];
    assert!(
        clip.diag().clipped_fraction > 0.5
            && clip.diag().noise_norm == 0.0
            && clip.epsilon.moments.is_infinite()
    );
    assert_eq!(clip.expected_noise_norm, 0.0);
    let noise = &epochs(RunConfig {
        mode: Mode::NoiseOnly,
        ..base.clone()
    })[0];
    assert!(
        noise.diag().clipped_fraction == 0.0
            && noise.diag().noise_norm > 0.0
            && noise.epsilon.moments.is_infinite()
    );
    let dp = &epochs(base)[0];
    assert!(
        dp.diag().clipped_fraction > 0.5
            && dp.diag().noise_norm > 0.0
            && dp.epsilon.moments.is_finite()
    );
    assert!(dp.notes.is_empty());
}

#[test]
fn shuffled_lots_have_exactly_l_examples_and_say_so() {
    let r = epochs(RunConfig {
        sampling: Sampling::Shuffle,
        lot_size: 1000,
        epochs: 1,
        seed: Some(2),
        ..RunConfig::default()
    });
    assert_eq!(r[0].diag().mean_lot_size, 1000.0);
    assert!(r[0].notes.iter().any(|n| n.contains("Poisson")));
}

#[test]
fn learning_rate_decays_linearly_then_stays() {
    let r = epochs(RunConfig {
        lr: 0.1,
        lr_end: Some(0.052),
        lr_decay_epochs: 2,
        epochs: 4,
        lot_size: 4096,
        seed: Some(1),
        ..RunConfig::default()
    });
    let lrs: Vec<f64> = r.iter().map(|e| e.lr).collect();
    assert!((lrs[0] - 0.1).abs() < 1e-12 && (lrs[1] - 0.076).abs() < 1e-12);
    assert!((lrs[2] - 0.052).abs() < 1e-12 && (lrs[3] - 0.052).abs() < 1e-12);
}

#[test]
fn batch_size_is_only_a_memory_bound() {
    let run = |batch_size| {
        let cfg = RunConfig {
            model: ModelKind::Mlp,
            hidden: vec![16],
            batch_size,
            lot_size: 700,
            epochs: 1,
            seed: Some(8),
            ..RunConfig::default()
        };
        let mut t = Trainer::new(cfg, common::adult()).unwrap();
        t.run_epoch().unwrap();
        t.model().params().to_vec()
    };
    let (small, large) = (run(37), run(4096));
    let scale = large.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    for (a, b) in small.iter().zip(&large) {
        assert!((a - b).abs() <= 1e-4 * scale, "{a} vs {b}");
    }
}

#[test]
fn budget_mode_stops_before_the_step_that_would_exceed_it() {
    let cfg = RunConfig {
        sigma: 1.0,
        lot_size: 256,
        epochs: 20,
        seed: Some(3),
        budget_epsilon: Some(1.7),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg.clone(), common::adult()).unwrap();
    let reports: Vec<_> = std::iter::from_fn(|| t.run_epoch()).collect();
    let last = reports.last().unwrap();
    assert!(last.stopped_by_budget && t.is_finished() && reports.len() < 20);
    assert!(reports[..reports.len() - 1]
        .iter()
        .all(|r| !r.stopped_by_budget));
    assert!(
        last.epsilon.moments <= 1.7,
        "ε {} over the budget",
        last.epsilon.moments
    );
    assert!(
        t.epsilon_after(last.steps + 1).moments > 1.7,
        "one more step would still fit"
    );
    assert_eq!(
        last.budget_stop.as_deref(),
        Some("one more step would spend more than ε = 1.7 with the moments accountant")
    );
    assert!(reports[..reports.len() - 1]
        .iter()
        .all(|r| r.budget_stop.is_none()));
    // The noise view places the cut epoch's lots where they were: the last before the end.
    let spe = t.steps_per_epoch();
    let lots_in_last = last.steps - (reports.len() as u64 - 1) * spe;
    let position = last.diag().lot_signal_noise.last().unwrap()[0] as f64;
    assert!(
        position <= lots_in_last as f64 / spe as f64 + 1e-6 && lots_in_last < spe,
        "last sampled lot at {position} of an epoch cut after {lots_in_last} of {spe} lots"
    );
    // A budget the run fits in changes nothing.
    let roomy = RunConfig {
        epochs: 2,
        budget_epsilon: Some(100.0),
        ..cfg
    };
    let mut t = Trainer::new(roomy, common::adult()).unwrap();
    let r: Vec<_> = std::iter::from_fn(|| t.run_epoch()).collect();
    assert_eq!(r.len(), 2);
    assert!(!r[1].stopped_by_budget);
}

#[test]
fn a_naive_budget_is_measured_and_said_to_be_measured_with_the_rigorous_convention() {
    // The report's naive figures follow the paper's optimistic q·ε₀ here; the budget does not.
    let rigorous = RunConfig {
        sigma: 1.0,
        lot_size: 256,
        epochs: 20,
        seed: Some(3),
        ..RunConfig::default()
    };
    let t = Trainer::new(rigorous.clone(), common::adult()).unwrap();
    let budget = t.epsilon_after(30).naive;
    let cfg = RunConfig {
        budget_epsilon: Some(budget),
        budget_accountant: AccountantName::Naive,
        amplification: Amplification::Paper,
        ..rigorous
    };
    let mut t = Trainer::new(cfg, common::adult()).unwrap();
    let last = std::iter::from_fn(|| t.run_epoch()).last().unwrap();
    assert_eq!(
        last.steps, 30,
        "the budget is the rigorous naive ε after 30 steps"
    );
    let why = last.budget_stop.expect("stopped by the budget");
    assert!(
        why.ends_with("with the naive accountant (rigorous convention)"),
        "{why}"
    );
    assert!(
        last.epsilon.naive < budget,
        "the report's paper-convention naive ε is lower"
    );
}

#[test]
fn a_budget_smaller_than_one_step_is_refused_with_the_cost_of_a_step() {
    // The moments accountant's bound after one step at σ = 1 (q ≈ 0.008) is 1.28: a budget of
    // 1.2 allows no step at all, which must be said, not left as a run that never reports.
    let cfg = RunConfig {
        budget_epsilon: Some(1.2),
        seed: Some(1),
        ..RunConfig::default()
    };
    let e = Trainer::new(cfg, common::adult()).err().expect("refused");
    assert_eq!(e.field, "budget_epsilon");
    assert!(
        e.message.contains("before the first step") && e.message.contains("1.284"),
        "{e}"
    );
}
