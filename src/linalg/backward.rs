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

// Each row's squares are two vectors of four: lanes 0–3 and 4–7 of `sum_squares`' eight.
const _: () = assert!(SUM_LANES == 8 && NR.is_multiple_of(4));

/// Rows per block: a multiple of the tile's rows, about the sweep's 16 (a block writes a short
/// run into every panel and reads a few pages of activations).
const ROW_BLOCK: usize = 5 * MR;

/// Whether [`backward_relu_into`] takes a product with this k (the next layer's width): one
/// pass of the fused kernel's k blocks, so that its additions are the kernel's.
pub fn fits(next_width: usize) -> bool {
    next_width <= KC
}

/// What the sweep needs of four lanes beyond the product: the mask and the squares, done on the
/// accumulators as the panels' sweep does them one value at a time (so the same bits).
pub trait SweepLanes: Lanes {
    /// `self` where `a > 0`, else +0, lane by lane (as bits: an `a` of NaN keeps nothing).
    fn keep_where_positive(self, a: Self) -> Self;
    /// `self + x·x`, a multiply then an add (two roundings, as `s += x * x`).
    fn add_square(self, x: Self) -> Self;
}

impl SweepLanes for fma::Emulated {
    fn keep_where_positive(self, a: Self) -> Self {
        fma::Emulated(std::array::from_fn(|i| {
            let keep = ((a.0[i] > 0.0) as u32).wrapping_neg();
            Real::from_bits(self.0[i].to_bits() & keep)
        }))
    }
    fn add_square(self, x: Self) -> Self {
        fma::Emulated(std::array::from_fn(|i| self.0[i] + x.0[i] * x.0[i]))
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "relaxed-simd"))]
impl SweepLanes for fma::Relaxed {
    #[inline(always)]
    fn keep_where_positive(self, a: Self) -> Self {
        use core::arch::wasm32::{f32x4_gt, f32x4_splat, v128_and};
        fma::Relaxed(v128_and(self.0, f32x4_gt(a.0, f32x4_splat(0.0))))
    }
    #[inline(always)]
    fn add_square(self, x: Self) -> Self {
        use core::arch::wasm32::{f32x4_add, f32x4_mul};
        fma::Relaxed(f32x4_add(self.0, f32x4_mul(x.0, x.0)))
    }
}

/// `out` ← (δ_next · W_nextᵀ) ⊙ 1[a > 0] in column panels, pushing each row's Σ δ² onto `sums`
/// when given. `delta_next` is n × o (the next layer's δ), `w_next` that layer's weights,
/// cols × o (its input width × its output width), `a` the n × cols activations, row-major.
pub fn backward_relu_into<L: SweepLanes>(
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
        // Panels whose every column is whole and in `sum_squares`' lanes: masked and squared on
        // the accumulators, each row's lanes in two vectors (columns c → lane c mod 8: a
        // panel's three vectors go to lanes 0–3, 4–7, 0–3 or 4–7, 0–3, 4–7, in column order);
        // the others (the last panel, and those past the lanes) a value at a time.
        let in_vectors = (0..full).take_while(|&p| p * NR + NR <= in_lanes).count();
        for r0 in (0..n).step_by(ROW_BLOCK) {
            let rb = ROW_BLOCK.min(n - r0);
            let mut squares = [RowSquares::default(); ROW_BLOCK];
            let mut lanes_sq = [[L::zero(); 2]; ROW_BLOCK];
            let flush = |squares: &mut [RowSquares; ROW_BLOCK], lanes_sq: &[[L; 2]; ROW_BLOCK]| {
                for (sq, v) in squares.iter_mut().zip(lanes_sq) {
                    let mut lanes = [0.0 as Real; SUM_LANES];
                    v[0].store(&mut lanes[..4]);
                    v[1].store(&mut lanes[4..]);
                    sq.set_lanes(lanes);
                }
            };
            for p in 0..=full {
                let w = if p < full { NR } else { edge };
                if p == in_vectors {
                    flush(&mut squares, &lanes_sq); // (in_vectors ≤ full: always reached)
                }
                if w == 0 {
                    continue;
                }
                let b_panel = &bp[p * o * NR..][..o * NR];
                for i0 in (r0..r0 + rb).step_by(MR) {
                    let a_panel = &ap[(i0 / MR) * o * MR..][..o * MR];
                    let acc = fma::micro_kernel::<L>(a_panel, b_panel.chunks_exact(NR), o);
                    for (r, lanes) in acc.iter().enumerate().take(n - i0) {
                        let row = i0 + r;
                        let at = row * cols + p * NR;
                        let dst = &mut data[(p * n + row) * NR..][..NR];
                        if p < in_vectors {
                            let sq = &mut lanes_sq[row - r0];
                            for (v, l) in lanes.iter().enumerate() {
                                let kept = l.keep_where_positive(L::load(&a[at + 4 * v..]));
                                kept.store(&mut dst[4 * v..]);
                                if sums.is_some() {
                                    let half = (p * NR + 4 * v) % SUM_LANES / 4;
                                    sq[half] = sq[half].add_square(kept);
                                }
                            }
                            continue;
                        }
                        let mut tile = [0.0 as Real; NR];
                        for (v, l) in lanes.iter().enumerate() {
                            l.store(&mut tile[4 * v..]);
                        }
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
            // Whole panels past the last whole group of lanes (36), and an edge one across it.
            (5, 10, 36),
            (6, 10, 20),
        ] {
            let delta = filled(n, o, 1);
            let w = filled(cols, o, 2);
            let mut acts = filled(n, cols, 3);
            // What the mask must treat as "off" (NaN, −0, 0) and "on" (∞), on the larger shapes.
            if n * cols >= 64 {
                let specials = [Real::NAN, -0.0, 0.0, Real::INFINITY];
                for (i, v) in specials.into_iter().enumerate() {
                    acts.as_slice_mut().unwrap()[7 * i] = v;
                }
            }
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
