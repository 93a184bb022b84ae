//! The Dirac canaries in adaptive clipping's noisy count (#40, item 1.3): a canary in the lot
//! is one more member of it, so it counts in the released unclipped count as any member does
//! (Andrew et al. 2021: b̃ = (Σ_i (b_i − ½) + N(0, σ_b²)) / L + ½, the sum over the lot).

use super::*;
use crate::config::RunConfig;
use crate::data::builtin::load_builtin;
use std::sync::Arc;

/// One step with adaptive clipping on the lot of blobs rows 0..60, with `in_lot` of the run's
/// three member canaries in it (set directly: the lot's draw is not what is tested, and so the
/// main stream, the rows and the count's noise are the same whatever `in_lot` is). Returns the
/// released b̃, and the lot's clipped and examples statistics.
fn one_step(in_lot: &[usize]) -> (f64, usize, usize) {
    let data = Arc::new(load_builtin("blobs", &[], 0, 0.1).expect("blobs"));
    let cfg = RunConfig {
        dataset: "blobs".into(),
        lot_size: 60,
        sigma: 1.0,
        clip_quantile: Some(0.5),
        seed: Some(7),
        ..RunConfig::default()
    };
    let canaries = DiracCanaries::new(vec![true; 3], Fault::None);
    let mut t = Trainer::for_audit(cfg, data, Some(canaries), None, 1).expect("a valid run");
    t.audit.in_lot = in_lot.to_vec();
    let lot: Vec<usize> = (0..60).collect();
    t.step_on_lot(&lot);
    assert_eq!(t.progress.stats.noisy_counts, 1, "one count released");
    (
        t.progress.stats.noisy_unclipped,
        t.progress.stats.clipped,
        t.progress.stats.examples,
    )
}

#[test]
fn a_canary_in_the_lot_counts_in_its_noisy_unclipped_count() {
    let (without, clipped, examples) = one_step(&[]);
    for in_lot in [&[1][..], &[0, 2], &[0, 1, 2]] {
        let (with, c, e) = one_step(in_lot);
        // The canary counts in no statistic of the run: the rows' own are unchanged.
        assert_eq!((c, e), (clipped, examples), "{in_lot:?}");
        // Its raw norm is CANARY_NORM·C > C: clipped, so b_i = 0 and the centred count moves
        // by −½ per canary; the same noise draw, so the released fractions differ by that / L.
        let m = in_lot.len() as f64;
        let (canaries_unclipped, lot) = (0.0, 60.0);
        let want = (canaries_unclipped - 0.5 * m) / lot;
        assert!(
            (with - without - want).abs() < 1e-12,
            "{in_lot:?}: b̃ {with} with, {without} without: moved {} instead of {want}",
            with - without
        );
    }
}

/// A worst-case audit run on blobs (600 rows) with L = `lot` and `canaries` (which are in).
fn audit_trainer(cfg: RunConfig, present: Vec<bool>, fault: Fault) -> Trainer {
    let data = Arc::new(load_builtin("blobs", &[], 0, 0.1).expect("blobs"));
    let canaries = DiracCanaries::new(present, fault);
    Trainer::for_audit(cfg, data, Some(canaries), None, 10_000).expect("a valid run")
}

fn blobs_cfg(lot: usize) -> RunConfig {
    RunConfig {
        dataset: "blobs".into(),
        lot_size: lot,
        sigma: 1.0,
        seed: Some(3),
        ..RunConfig::default()
    }
}

/// #52 item 12: the canaries join the lots by the model's own Poisson draw, so a bug in it
/// shows in the audit: the rate counted (`Draws`) is q for the data's rows and the canaries
/// alike, a canary not in the data set never joins, and a sampler drawing at 2q is counted so.
#[test]
fn the_canaries_are_drawn_by_the_lots_own_draw_and_its_rate_is_counted() {
    let present: Vec<bool> = (0..200).map(|i| i % 4 != 0).collect(); // 150 in, 50 out
    for (fault, rate) in [(Fault::None, 0.1), (Fault::LotRateDoubled, 0.2)] {
        let mut t = audit_trainer(blobs_cfg(60), present.clone(), fault); // q = 60/600
        let (mut rows, mut canaries, steps) = (0usize, 0usize, 2000);
        for _ in 0..steps {
            t.draw_lot();
            assert!(
                t.lot().iter().all(|&i| i < 600),
                "the lot holds the data's rows only"
            );
            assert!(
                t.audit.in_lot.iter().all(|&i| present[i]),
                "{fault:?}: an absent canary joined"
            );
            rows += t.lot().len();
            canaries += t.audit.in_lot.len();
        }
        let draws = t.draws();
        assert_eq!(draws.members, (600 + 150) * steps as u64, "{fault:?}");
        assert_eq!(draws.drawn, (rows + canaries) as u64, "{fault:?}");
        // Each rate within 5 standard deviations of its binomial count.
        for (got, chances) in [(rows, 600 * steps), (canaries, 150 * steps)] {
            let (k, n) = (got as f64, chances as f64);
            let sd = (n * rate * (1.0 - rate)).sqrt();
            assert!(
                (k - rate * n).abs() < 5.0 * sd,
                "{fault:?}: {got} of {chances}, rate {rate}"
            );
        }
    }
}

/// #52 item 12: the canaries' own coordinates in a later layer take the model's per-layer
/// noise, σ·C_l with that layer's C_l (here C = (1, 3)): not layer 0's nor a copy of their own.
#[test]
fn the_canaries_own_coordinates_take_the_layers_noise() {
    let cfg = RunConfig {
        model: crate::config::ModelKind::Mlp,
        hidden: vec![8],
        clipping: crate::config::Clipping::PerLayer,
        layer_clips: Some(vec![1.0, 3.0]),
        ..blobs_cfg(60)
    };
    let m = 4000;
    let mut t = audit_trainer(cfg, vec![true; m], Fault::None);
    assert_eq!(t.clip_bounds(), &[1.0, 3.0]);
    let scale = t.current_lr() / 60.0;
    let lot: Vec<usize> = (0..60).collect();
    t.step_on_lot(&lot); // no canary in the lot: their coordinates move by the noise alone
    let mut reading = Vec::new();
    let moved: Vec<f64> = (0..m)
        .map(|i| {
            t.canary_readings(i, &mut reading);
            assert_eq!(reading.len(), 2, "a coordinate in each layer");
            -f64::from(reading[1]) / scale
        })
        .collect();
    let mean = moved.iter().sum::<f64>() / m as f64;
    let sd = (moved.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (m - 1) as f64).sqrt();
    // σ·C_1 = 3; the sample sd of 4000 draws is within 5% of it (about 4.5 standard errors).
    assert!(
        (sd - 3.0).abs() < 0.15,
        "the noise on layer 1's canary coordinates: sd {sd}"
    );
    assert!(
        mean.abs() < 5.0 * 3.0 / (m as f64).sqrt(),
        "centred: {mean}"
    );
}
