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
    t.canaries_in_lot = in_lot.to_vec();
    let lot: Vec<usize> = (0..60).collect();
    t.step_on_lot(&lot);
    assert_eq!(t.stats.noisy_counts, 1, "one count released");
    (t.stats.noisy_unclipped, t.stats.clipped, t.stats.examples)
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
