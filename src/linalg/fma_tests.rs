//! The fused kernel's blocking on portable lanes against an f64 product.

use super::*;
use ndarray::{s, Array2};

fn reference(a: &ArrayView2<Real>, b: &ArrayView2<Real>) -> Array2<f64> {
    let a = a.mapv(f64::from);
    let b = b.mapv(f64::from);
    a.dot(&b)
}

/// Every edge case of the tiling (m, n not multiples of MR = 3 and NR = 12, k of 1, k over
/// KC, few and many rows), B packed (column-major) and read in place (row-major), a sliced A, both
/// modes: within float rounding of an f64 product.
#[test]
fn the_blocked_product_matches_an_f64_product_on_every_edge() {
    let value = |i: usize, j: usize| ((i * 37 + j * 11) % 19) as Real / 7.0 - 1.3;
    let shapes = [
        (1, 1, 1),
        (4, 3, 8),
        (5, 7, 9),
        (13, 60, 17),
        (60, 600, 33),
        (3, 10, 1000),
        (130, 300, 21),
        (130, 5, 16),
        (131, 5, 24), // B packed, its last whole panel ending the buffer
    ];
    for (m, k, n) in shapes {
        let a = Array2::from_shape_fn((m, k + 2), |(i, j)| value(i, j));
        let bt = Array2::from_shape_fn((n, k), |(i, j)| value(j + 5, i));
        let row_major = bt.t().as_standard_layout().into_owned();
        for b in [bt.t(), row_major.view()] {
            let a = a.slice(s![.., 1..k + 1]);
            let want = reference(&a, &b);
            let mut c = Array2::<Real>::from_elem((m, n), 0.5);
            matmul::<Emulated>(&mut c.view_mut(), &a, &b, true);
            let tol = 1e-5 * k as f64;
            for ((i, j), &v) in c.indexed_iter() {
                assert!(
                    (v as f64 - 0.5 - want[[i, j]]).abs() < tol,
                    "{m}x{k}x{n} at {i},{j}"
                );
            }
            matmul::<Emulated>(&mut c.view_mut(), &a, &b, false);
            for ((i, j), &v) in c.indexed_iter() {
                assert!(
                    (v as f64 - want[[i, j]]).abs() < tol,
                    "{m}x{k}x{n} at {i},{j}"
                );
            }
            // B already in column panels (as the MLP's backward sweep leaves its δ).
            let mut panels = ColumnPanels::default();
            let b_rows = b.as_standard_layout();
            let b_rows = b_rows.as_slice().expect("standard layout");
            panels.relu_mask_from(b_rows, &vec![1.0; b_rows.len()], n, None);
            let mut cp = Array2::<Real>::from_elem((m, n), 0.5);
            matmul_panels::<Emulated>(&mut cp.view_mut(), &a, &panels, true);
            for ((i, j), &v) in cp.indexed_iter() {
                assert!(
                    (v as f64 - 0.5 - want[[i, j]]).abs() < tol,
                    "panels {m}x{k}x{n} at {i},{j}"
                );
            }
            // Into a column-major C (the tile path rather than whole rows).
            let mut ct = Array2::<Real>::zeros((n, m));
            matmul::<Emulated>(&mut ct.view_mut().reversed_axes(), &a, &b, false);
            assert!(ct
                .t()
                .indexed_iter()
                .all(|((i, j), &v)| (v as f64 - want[[i, j]]).abs() < tol));
        }
    }
}

/// k = 0 is an empty sum: c = 0, or c unchanged when accumulating.
#[test]
fn an_empty_inner_dimension_adds_nothing() {
    let (a, b) = (Array2::<Real>::zeros((3, 0)), Array2::<Real>::zeros((0, 5)));
    let mut c = Array2::<Real>::from_elem((3, 5), 2.0);
    matmul::<Emulated>(&mut c.view_mut(), &a.view(), &b.view(), true);
    assert!(c.iter().all(|&v| v == 2.0));
    matmul::<Emulated>(&mut c.view_mut(), &a.view(), &b.view(), false);
    assert!(c.iter().all(|&v| v == 0.0));
}
