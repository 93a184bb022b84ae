//! Tests of the PLD accountant as a running composition: epoch by epoch equals composing at
//! once (and outgrowing the planned grid re-plans), heterogeneous parts compose in any order,
//! and the edge cases of nothing noisy and no noise.

use super::*;

#[test]
fn epoch_by_epoch_matches_composing_at_once_and_outgrowing_the_plan_replans() {
    let (q, sigma, spe, delta) = (0.02, 1.5, 50u64, 1e-5);
    let one = SampledGaussian::new(q, sigma, spe).unwrap();
    let mut running = PldAccountant::with_interval(
        1e-3,
        &[SampledGaussian {
            steps: 6 * spe,
            ..one
        }],
    );
    let mut unplanned = PldAccountant::with_interval(1e-3, &[]);
    for e in 1..=6u64 {
        running.compose(&one);
        unplanned.compose(&one);
        let whole = SampledGaussian {
            steps: e * spe,
            ..one
        };
        let mut direct = PldAccountant::with_interval(1e-3, &[whole]);
        direct.compose(&whole);
        let (a, b, c) = (
            running.epsilon(delta),
            direct.epsilon(delta),
            unplanned.epsilon(delta),
        );
        assert!(
            (a - b).abs() < 1e-6 * b,
            "epoch {e}: running {a} vs direct {b}"
        );
        assert!(
            (c - b).abs() < 1e-6 * b,
            "epoch {e}: replanned {c} vs direct {b}"
        );
    }
}

#[test]
fn heterogeneous_parts_compose_in_any_order() {
    let pca = SampledGaussian::new(1.0, 7.0, 1).unwrap();
    let train = SampledGaussian::new(0.01, 2.0, 500).unwrap();
    let eval = SampledGaussian::new(1.0, 30.0, 5).unwrap();
    let parts = [pca, train, eval];
    let mut forward = PldAccountant::new(&parts);
    let mut backward = PldAccountant::new(&parts);
    for p in &parts {
        forward.compose(p);
    }
    for p in parts.iter().rev() {
        backward.compose(p);
    }
    let (a, b) = (forward.epsilon(1e-5), backward.epsilon(1e-5));
    assert!((a - b).abs() < 1e-9 * a, "{a} vs {b}");
    let mut alone = PldAccountant::new(&[train]);
    alone.compose(&train);
    assert!(a > alone.epsilon(1e-5), "the extra releases cost privacy");
    // δ(ε) inverts ε(δ).
    let d = forward.delta(a).unwrap();
    assert!(d <= 1e-5 * (1.0 + 1e-6) && d > 0.5e-5, "δ(ε(1e-5)) = {d}");
}

#[test]
fn nothing_noisy_and_no_noise() {
    let mut acc = PldAccountant::new(&[]);
    assert_eq!(acc.epsilon(1e-5), 0.0);
    acc.compose(&SampledGaussian::new(0.0, 1.0, 100).unwrap());
    assert_eq!(acc.epsilon(1e-5), 0.0);
    acc.compose(&SampledGaussian::new(0.1, 0.0, 1).unwrap());
    assert_eq!(acc.epsilon(1e-5), f64::INFINITY);
}

#[test]
fn the_blocked_moment_table_places_the_windows_where_the_term_by_term_one_did() {
    use super::super::log_mgf::log_mgf_term_by_term;
    // Settings from little noise to much, rare to frequent sampling, both directions, and
    // compositions from one step to a long run: the Chernoff window's ends are the same
    // (`log_mgf`'s blocks against the sum term by term it replaced).
    for (q, sigma) in [
        (0.0085, 1.0),
        (0.01, 0.3),
        (0.05, 4.0),
        (0.3, 0.8),
        (1.0, 2.0),
    ] {
        for dir in [Direction::Add, Direction::Remove] {
            let h = 1e-3;
            let pld = Pld::subsampled_gaussian(q, sigma, h, dir);
            let blocked = pld.mgf_table();
            let term_by_term: Mgf = blocked
                .iter()
                .map(|&(u, _, _)| {
                    let m = |u| log_mgf_term_by_term(&pld.pmf, pld.offset, u);
                    (u, m(u), m(-u))
                })
                .collect();
            let top = pld.offset + pld.pmf.len() as i64 - 1;
            for steps in [1i64, 10, 118, 2_360, 50_000] {
                let scaled = |t: &Mgf| -> Mgf {
                    let s = steps as f64;
                    t.iter().map(|&(u, p, n)| (u, s * p, s * n)).collect()
                };
                assert_eq!(
                    chernoff_window(&scaled(&blocked), steps * pld.offset, steps * top),
                    chernoff_window(&scaled(&term_by_term), steps * pld.offset, steps * top),
                    "q = {q}, σ = {sigma}, h = {h}, {dir:?}, {steps} steps"
                );
            }
        }
    }
}

#[test]
fn an_early_read_on_the_windows_transform_is_the_whole_grids_read() {
    // Planned for 40 epochs, read after 1 and 5: the window is a fraction of the grid, so the
    // read folds the spectrum to a shorter transform (`Side::read`). Point by point it is
    // what the whole grid's inverse transform gives.
    let one = SampledGaussian::new(0.01, 1.0, 100).unwrap();
    let mut acc = PldAccountant::with_interval(
        1e-4,
        &[SampledGaussian {
            steps: 4_000,
            ..one
        }],
    );
    let mut planner = FftPlanner::new();
    for epochs in 1..=5 {
        acc.compose(&one);
        if ![1, 5].contains(&epochs) {
            continue;
        }
        for side in acc.sides.as_ref().unwrap() {
            let (lo, hi) = chernoff_window(&side.mgf, side.base, side.top);
            let m = ((hi - lo + 1) as usize).next_power_of_two();
            assert!(
                m <= side.size / 2,
                "{epochs} epochs, {:?}: {m} of {}",
                side.dir,
                side.size
            );
            let mut whole = side.spectrum.clone();
            planner.plan_fft_inverse(side.size).process(&mut whole);
            let size = side.size as i64;
            let read = side.read(&mut planner);
            assert_eq!((read.offset, read.pmf.len() as i64), (lo, hi - lo + 1));
            for (s, &p) in (lo..=hi).zip(&read.pmf) {
                let want =
                    (whole[(s - side.base).rem_euclid(size) as usize].re / size as f64).max(0.0);
                assert!(
                    (p - want).abs() < 1e-14,
                    "{epochs} epochs, {:?}, {s}: {p} vs {want}",
                    side.dir
                );
            }
        }
    }
}
