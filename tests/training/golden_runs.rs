//! The golden runs (tests/fixtures/golden_run.json, which the browser test reproduces in
//! wasm) and what must not change them: data-parallel training with any number of workers
//! and either channel, a helper's sum accepted only as the part of the open lot it was sent,
//! noise drawn ahead of the step, bit for bit, and the noise's generator, which reads the run's
//! own ChaCha8 stream word for word.

use crate::{common, golden};
use dpsgd_lab::config::{Mode, RunConfig};
use dpsgd_lab::train::part::{PartError, PartErrorKind};
use dpsgd_lab::train::Trainer;

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
    // Each refused as not that part, and named by its index (#54 §3).
    let refused = |r: Result<(), PartError>| r.map_err(|e| (e.kind, e.part)).unwrap_err();
    let not_part = |i| (PartErrorKind::NotThatPart, Some(i));
    let said = "part 2's sum as part 1";
    assert_eq!(
        refused(t.receive_part(1, 3, two.clone())),
        not_part(1),
        "{said}"
    );
    let said = "part 2 of 3 as part 2 of 4";
    assert_eq!(
        refused(t.receive_part(2, 4, two.clone())),
        not_part(2),
        "{said}"
    );
    let mut short = one.clone();
    short.norms.pop();
    assert_eq!(
        refused(t.receive_part(1, 3, short)),
        not_part(1),
        "a norm missing"
    );
    let mut miscounted = one.clone();
    miscounted.clipped += 1;
    let said = "counts that do not add up";
    assert_eq!(
        refused(t.receive_part(1, 3, miscounted)),
        not_part(1),
        "{said}"
    );
    t.receive_part(1, 3, one.clone()).unwrap();
    t.receive_part(2, 3, two).unwrap();
    t.sum_own_part(0, 3);
    t.finish_lot(3);
    // The next lot: last lot's part 1 is refused, this lot's accepted.
    t.draw_lot();
    assert_eq!(
        refused(t.receive_part(1, 3, one)),
        not_part(1),
        "a part of the last lot"
    );
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

#[test]
fn the_noise_generator_reads_the_runs_stream_word_for_word() {
    super::noise_rng::check_words();
    super::noise_rng::check_normals();
}
