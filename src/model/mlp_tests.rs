//! Tests of the MLP's gradients, norms and clipped sums against finite differences and
//! brute-force per-example gradients.

use super::*;
use crate::model::evaluate;
use ndarray::Array1;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn random_problem(n: usize, d: usize, k: usize, seed: u64) -> (Array2<Real>, Vec<usize>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x = Array2::from_shape_fn((n, d), |_| rng.random_range(-1.0..1.0));
    let y = (0..n).map(|_| rng.random_range(0..k)).collect();
    (x, y)
}

fn full_grad(
    m: &mut Mlp,
    x: &Array2<Real>,
    y: &[usize],
    weights: Option<ArrayView2<Real>>,
) -> Vec<Real> {
    let mut g = vec![0.0; m.n_params()];
    m.forward_backward(x.view(), y, None);
    m.add_grad_sum(x.view(), weights, &mut g);
    g
}

#[test]
fn gradients_match_finite_differences() {
    for hidden in [vec![], vec![6], vec![5, 4]] {
        let (n, d, k) = (7, 5, 3);
        let (x, y) = random_problem(n, d, k, 1);
        let mut m = Mlp::new(d, &hidden, k, &mut ChaCha8Rng::seed_from_u64(2));
        for b in m.params_mut() {
            *b += 0.05; // non-zero biases too
        }
        let g = full_grad(&mut m, &x, &y, None);
        let h = 1e-3f32;
        let loss = |m: &Mlp| evaluate(m, x.view(), &y).0 * n as f64; // the summed loss
        let base = loss(&m);
        let mut kinks = 0;
        for (j, &gj) in g.iter().enumerate() {
            let mut plus = m.clone();
            plus.params_mut()[j] += h;
            let mut minus = m.clone();
            minus.params_mut()[j] -= h;
            let (up, down) = (
                (loss(&plus) - base) / h as f64,
                (base - loss(&minus)) / h as f64,
            );
            let fd = 0.5 * (up + down);
            // A ReLU switching inside ±h makes the one-sided slopes disagree: skip it.
            if (up - down).abs() > 2e-3 * (1.0 + fd.abs()) {
                kinks += 1;
                continue;
            }
            assert!(
                (fd - gj as f64).abs() < 5e-3 * (1.0 + fd.abs()),
                "hidden {hidden:?} param {j}: finite difference {fd} vs analytic {gj}"
            );
        }
        assert!(
            kinks * 10 <= g.len(),
            "{kinks} of {} parameters straddle a kink",
            g.len()
        );
    }
}

#[test]
fn per_example_norms_and_clipped_sums_match_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for trial in 0..6 {
        let (n, d, k) = (
            rng.random_range(1..20),
            rng.random_range(1..12),
            rng.random_range(2..6),
        );
        let hidden: Vec<usize> = (0..trial % 3).map(|_| rng.random_range(1..10)).collect();
        let (x, y) = random_problem(n, d, k, trial);
        let mut m = Mlp::new(d, &hidden, k, &mut rng);
        let layers = m.n_layers();
        let mut norms = Array2::zeros((0, 0));
        m.forward_backward(x.view(), &y, Some(&mut norms));
        let w = Array2::from_shape_fn((n, layers), |_| rng.random_range(0.0..1.0));
        let mut clipped = vec![0.0; m.n_params()];
        m.add_grad_sum(x.view(), Some(w.view()), &mut clipped);

        // Brute force: each example's gradient alone, materialised.
        let mut want = vec![0.0f64; m.n_params()];
        for i in 0..n {
            let xi = x.slice(s![i..i + 1, ..]).to_owned();
            let gi = full_grad(&mut m.clone(), &xi, &y[i..i + 1], None);
            for (l, r) in m.layer_ranges().into_iter().enumerate() {
                let brute = gi[r.clone()]
                    .iter()
                    .map(|v| (*v as f64).powi(2))
                    .sum::<f64>()
                    .sqrt();
                let trick = norms[[i, l]] as f64;
                assert!(
                    (brute - trick).abs() <= 1e-5 * brute.max(1e-3),
                    "layer {l}: {brute} vs {trick}"
                );
                for j in r {
                    want[j] += w[[i, l]] as f64 * gi[j] as f64;
                }
            }
        }
        let scale = want.iter().map(|v| v.abs()).fold(1e-3, f64::max);
        for (a, b) in clipped.iter().zip(&want) {
            assert!(
                (*a as f64 - b).abs() <= 1e-5 * scale,
                "clipped sum {a} vs {b}"
            );
        }
    }
}

/// The first δ in column panels (the relaxed-SIMD build's layout) against the row-major path,
/// on both sides of the clipping's choice (scale the input when it is narrower than the layer,
/// else δ), one and two hidden layers (once the second wider than the fused sweep takes), a
/// dropped example (weight 0) whose δ overflowed to ±∞ and NaN, no weights, then a smaller
/// batch on the same models: the same norms and the same, finite sums up to the products'
/// rounding (here the fused kernel's blocking on portable lanes against gemm, in the backward
/// product and the sweep fused with it, `linalg::backward`, as in the gradient's; the sweep
/// itself is bit for bit the row-major one: `linalg::backward`'s and `linalg::panels`' tests).
#[test]
fn the_first_delta_in_panels_gives_the_row_major_results() {
    use crate::model::delta::Delta;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for (d, hidden) in [
        (5, vec![40]),
        (50, vec![33]),
        (12, vec![37, 9]),
        (3, vec![7]),
        // A next layer wider than one of the fused kernel's k blocks: the product, then the
        // sweep (`linalg::backward::fits`).
        (4, vec![33, 260]),
    ] {
        let k = 4;
        let mut plain = Mlp::new(d, &hidden, k, &mut rng);
        plain.first_delta = None; // whatever this build's choice
        let mut panels = plain.clone();
        panels.first_delta = Some(ColumnPanels::default());
        let layers = plain.n_layers();
        for n in [23, 6] {
            let (x, y) = random_problem(n, d, k, 9);
            let mut w = Array2::from_shape_fn((n, layers), |_| rng.random_range(0.0..1.0));
            w.row_mut(3).fill(0.0);
            for weights in [Some(w.view()), None] {
                let (mut norms_a, mut norms_b) = (Array2::zeros((0, 0)), Array2::zeros((0, 0)));
                plain.forward_backward(x.view(), &y, Some(&mut norms_a));
                panels.forward_backward(x.view(), &y, Some(&mut norms_b));
                for (a, b) in norms_a.iter().zip(&norms_b) {
                    assert!(
                        (a - b).abs() <= 1e-5 * a.abs().max(1e-3),
                        "{d} → {hidden:?}: norm {a} vs {b}"
                    );
                }
                if weights.is_some() {
                    // Example 3's δ overflowed: it must be zeroed, never multiplied.
                    let blow_up =
                        Array1::from_shape_fn(n, |r| if r == 3 { Real::INFINITY } else { 1.0 });
                    plain.deltas[0]
                        .slice_mut(s![..n, ..])
                        .scale_rows(blow_up.view());
                    panels
                        .first_delta
                        .as_mut()
                        .unwrap()
                        .scale_rows(blow_up.view());
                }
                let (mut ga, mut gb) = (vec![0.0; plain.n_params()], vec![0.0; plain.n_params()]);
                plain.add_grad_sum(x.view(), weights, &mut ga);
                panels.add_grad_sum(x.view(), weights, &mut gb);
                let scale = ga.iter().map(|v| v.abs()).fold(1e-3, Real::max);
                for (j, (a, b)) in ga.iter().zip(&gb).enumerate() {
                    assert!(a.is_finite(), "{d} → {hidden:?}: param {j} is {a}");
                    assert!(
                        (a - b).abs() <= 1e-5 * scale,
                        "{d} → {hidden:?}: param {j}: {a} vs {b}"
                    );
                }
                assert!(ga.iter().any(|&v| v != 0.0));
            }
        }
    }
}
