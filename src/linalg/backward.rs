//! The first hidden layer's back-propagation through its ReLU in one sweep (Algorithm 1's
//! "Compute gradient", the relaxed-SIMD build's layout): δ = (δ_next · W_nextᵀ) ⊙ 1[a > 0],
//! written straight into the column panels its gradient product reads ([`super::panels`]),
//! with each row's Σ δ² for the per-example norm.
//!
//! The product has a short k (the next layer's width: 10 classes on the benchmark MLPs), so it
//! is bound by writing its n × width result, which the ReLU sweep then read back beside the
//! activations and wrote again into panels: three passes over a 1.2 MB matrix for a lot's part
//! of the MLP 60→1000→10. Here each 3 × 12 tile of the product is masked and written into its
//! panel from the fused kernel's accumulators, so δ is written once. The tile is the fused
//! kernel's own ([`super::fma`]: the same packing, micro-kernel and order of additions), and
//! the mask and the squares are the sweep's ([`ColumnPanels::relu_mask_from`]), so the panels
//! and the norms are bit for bit those of the product followed by the sweep.

use super::fma::{self, Lanes, KC, MR, NR};
use super::panels::{masked_chunk, ColumnPanels, RowSquares};
use super::SUM_LANES;
use crate::Real;
use ndarray::ArrayView2;

/// Rows per block: a multiple of the tile's rows, about the sweep's 16 (a block writes a short
/// run into every panel and reads a few pages of activations).
const ROW_BLOCK: usize = 5 * MR;

/// Whether [`backward_relu_into`] takes a product with this k (the next layer's width): one
/// pass of the fused kernel's k blocks, so that its additions are the kernel's.
pub fn fits(next_width: usize) -> bool {
    next_width <= KC
}

/// `out` ← (δ_next · W_nextᵀ) ⊙ 1[a > 0] in column panels, pushing each row's Σ δ² onto `sums`
/// when given. `delta_next` is n × o (the next layer's δ), `w_next` that layer's weights,
/// cols × o (its input width × its output width), `a` the n × cols activations, row-major.
pub fn backward_relu_into<L: Lanes>(
    out: &mut ColumnPanels,
    delta_next: &ArrayView2<Real>,
    w_next: &ArrayView2<Real>,
    a: &[Real],
    mut sums: Option<&mut Vec<Real>>,
) {
    let ((n, o), (cols, o2)) = (delta_next.dim(), w_next.dim());
    assert!(o == o2 && fits(o) && cols > 0, "backward shapes");
    assert_eq!(a.len(), n * cols, "activations");
    let data = out.reshape_for_sweep(n, cols);
    let (full, edge) = (cols / NR, cols % NR);
    let in_lanes = cols - cols % SUM_LANES;
    fma::with_buffers(|ap, bp| {
        fma::pack(ap, delta_next, MR, false);
        fma::pack(bp, &w_next.t(), NR, true);
        for r0 in (0..n).step_by(ROW_BLOCK) {
            let rb = ROW_BLOCK.min(n - r0);
            let mut squares = [RowSquares::default(); ROW_BLOCK];
            for p in 0..=full {
                let w = if p < full { NR } else { edge };
                if w == 0 {
                    continue;
                }
                let b_panel = &bp[p * o * NR..][..o * NR];
                for i0 in (r0..r0 + rb).step_by(MR) {
                    let a_panel = &ap[(i0 / MR) * o * MR..][..o * MR];
                    let acc = fma::micro_kernel::<L>(a_panel, b_panel.chunks_exact(NR), o);
                    for (r, lanes) in acc.iter().enumerate().take(n - i0) {
                        let mut tile = [0.0 as Real; NR];
                        for (v, l) in lanes.iter().enumerate() {
                            l.store(&mut tile[4 * v..]);
                        }
                        let row = i0 + r;
                        let at = row * cols + p * NR;
                        let dst = &mut data[(p * n + row) * NR..][..NR];
                        let dst: &mut [Real; NR] = dst.try_into().expect("NR values");
                        masked_chunk(dst, &tile, &a[at..], w);
                        if sums.is_some() {
                            squares[row - r0].add(&dst[..w], p * NR, in_lanes);
                        }
                    }
                }
            }
            if let Some(s) = sums.as_deref_mut() {
                s.extend(squares[..rb].iter().map(RowSquares::total));
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::fma::Emulated;
    use ndarray::Array2;

    use crate::linalg::test_matrix as filled;

    /// Against the two steps it fuses — the fused kernel's product, then the panels' sweep —
    /// bit for bit, norms included: rows a multiple of the tile and of the block or not, whole
    /// panels and an edge one, k of 1, 10 and the most it takes; then a smaller shape into the
    /// same panels.
    #[test]
    fn matches_the_product_then_the_sweep_bit_for_bit() {
        let mut out = ColumnPanels::default();
        for (n, o, cols) in [
            (1, 1, 1),
            (4, 10, 13),
            (15, 10, 12),
            (31, 10, 1000),
            (300, 10, 128),
            (17, 256, 40),
            (2, 3, 5),
        ] {
            let delta = filled(n, o, 1);
            let w = filled(cols, o, 2);
            let acts = filled(n, cols, 3);
            let a = acts.as_slice().unwrap();
            let mut d = Array2::from_elem((n, cols), Real::NAN);
            fma::matmul::<Emulated>(&mut d.view_mut(), &delta.view(), &w.t(), false);
            let (mut want, mut want_sums) = (ColumnPanels::default(), Vec::new());
            want.relu_mask_from(d.as_slice().unwrap(), a, cols, Some(&mut want_sums));
            let mut sums = Vec::new();
            backward_relu_into::<Emulated>(&mut out, &delta.view(), &w.view(), a, Some(&mut sums));
            assert_eq!((out.rows(), out.cols()), (n, cols));
            assert_eq!(
                out.as_slice(),
                want.as_slice(),
                "{n}×{o}·{o}×{cols}: panels"
            );
            assert_eq!(sums, want_sums, "{n}×{o}·{o}×{cols}: row sums");
            assert!(out.as_slice().iter().any(|&v| v != 0.0));
        }
        // Without sums (a non-private run): the same panels.
        let (delta, w, acts) = (filled(7, 10, 4), filled(30, 10, 5), filled(7, 30, 6));
        let mut with = ColumnPanels::default();
        backward_relu_into::<Emulated>(
            &mut with,
            &delta.view(),
            &w.view(),
            acts.as_slice().unwrap(),
            Some(&mut Vec::new()),
        );
        backward_relu_into::<Emulated>(
            &mut out,
            &delta.view(),
            &w.view(),
            acts.as_slice().unwrap(),
            None,
        );
        assert_eq!(out.as_slice(), with.as_slice());
    }
}
