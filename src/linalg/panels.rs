//! A matrix stored as column panels of [`NR`](super::fma::NR): panel p holds columns p·NR…
//! as rows × NR (row-major inside the panel, the last panel zero-padded) — the layout the fused
//! kernel reads B in ([`super::fma`]). The MLP's first hidden layer keeps its δ this way in the
//! relaxed-SIMD build: the backward ReLU sweep, which reads and writes every δ anyway, writes
//! it here instead of in place, so the gradient product Xᵀ·Δ (the paper's layer: 60 rows, each
//! value of Δ used 60 times) reads contiguous panels rather than NR values of every 4 KB row
//! (docs/performance.md has the figures). Where the next layer is narrow, the backward
//! product itself writes the panels through the same mask (`super::backward`), and this
//! sweep is its reference. The row-wise steps of clipping
//! (zero a dropped example, scale by the clip factors, the bias's weighted sum) work on it in
//! place.

use super::fma::NR;
use super::{lanes_total, relu_mask, SUM_LANES};
use crate::Real;
use ndarray::ArrayView1;

/// Rows per block of the backward sweep ([`ColumnPanels::relu_mask_from`]).
const ROW_BLOCK: usize = 16;

#[derive(Clone, Debug, Default)]
pub struct ColumnPanels {
    data: Vec<Real>,
    rows: usize,
    cols: usize,
}

impl ColumnPanels {
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    fn panels(&self) -> usize {
        self.cols.div_ceil(NR)
    }

    /// The panels in order, each `rows × NR`.
    pub fn as_slice(&self) -> &[Real] {
        &self.data
    }

    /// Sets the shape, reusing the allocation; the contents are then written by a sweep.
    fn reshape(&mut self, rows: usize, cols: usize) {
        (self.rows, self.cols) = (rows, cols);
        self.data.resize(self.panels() * rows * NR, 0.0);
    }

    /// Sets the shape for a sweep that writes every value, padding included
    /// (`linalg::backward`), and hands it the panels.
    pub(super) fn reshape_for_sweep(&mut self, rows: usize, cols: usize) -> &mut [Real] {
        self.reshape(rows, cols);
        &mut self.data
    }

    /// The ReLU's backward mask of Algorithm 1's back-propagation, `δ = d ⊙ 1[a > 0]`, from the
    /// row-major `d` and activations `a` (`rows × cols` each) into these panels — the same
    /// values `relu_mask` leaves in place, in this layout. With `sums`, pushes each row's
    /// Σ δ² (summed as `linalg::sum_squares` sums a row, so bit for bit the same).
    pub fn relu_mask_from(
        &mut self,
        d: &[Real],
        a: &[Real],
        cols: usize,
        mut sums: Option<&mut Vec<Real>>,
    ) {
        assert!(cols > 0 && d.len() == a.len() && d.len().is_multiple_of(cols));
        self.reshape(d.len() / cols, cols);
        let (rows, full, edge) = (self.rows, cols / NR, cols % NR);
        let in_lanes = cols - cols % SUM_LANES;
        // Rows in blocks: each block reads ROW_BLOCK rows (a few pages) and writes a short run
        // into every panel. Row by row, each row's NR values would land on a new page.
        for r0 in (0..rows).step_by(ROW_BLOCK) {
            let rb = ROW_BLOCK.min(rows - r0);
            let mut squares = [RowSquares::default(); ROW_BLOCK];
            for p in 0..=full {
                let w = if p < full { NR } else { edge };
                if w == 0 {
                    continue;
                }
                let panel = &mut self.data[(p * rows + r0) * NR..][..rb * NR];
                for (j, dst) in panel.chunks_exact_mut(NR).enumerate() {
                    let at = (r0 + j) * cols + p * NR;
                    let dst: &mut [Real; NR] = dst.try_into().expect("NR values");
                    masked_chunk(dst, &d[at..], &a[at..], w);
                    // Without norms (non-private runs), no Σδ² to add up.
                    if sums.is_some() {
                        squares[j].add(&dst[..w], p * NR, in_lanes);
                    }
                }
            }
            if let Some(s) = sums.as_deref_mut() {
                s.extend(squares[..rb].iter().map(RowSquares::total));
            }
        }
    }

    /// Row `r`'s values in panel `p` (NR of them, the last panel's padded).
    fn chunk_mut(&mut self, p: usize, r: usize) -> &mut [Real] {
        assert!(r < self.rows, "row {r} of {}", self.rows);
        &mut self.data[(p * self.rows + r) * NR..][..NR]
    }

    /// Row `r` set to zero.
    pub fn zero_row(&mut self, r: usize) {
        for p in 0..self.panels() {
            self.chunk_mut(p, r).fill(0.0);
        }
    }

    /// Row r multiplied by `w[r]` (a dropped example's row, weight 0, must be zeroed first:
    /// 0·∞ is NaN).
    pub fn scale_rows(&mut self, w: ArrayView1<Real>) {
        assert_eq!(w.len(), self.rows);
        for panel in self.data.chunks_exact_mut(self.rows.max(1) * NR) {
            for (chunk, &wi) in panel.chunks_exact_mut(NR).zip(&w) {
                chunk.iter_mut().for_each(|v| *v *= wi);
            }
        }
    }

    /// `out[c] += Σ_r w[r]·δ[r][c]` (every weight 1 with `None`), rows added in order as
    /// a row-major loop adds them. A panel's NR sums stay in a fixed-size array over its rows
    /// (three vectors), not in `out`: with `out`'s slice of run-time length they were loaded
    /// and stored at every row, 5% of a lot of the 1000-wide MLP in V8.
    pub fn add_weighted_column_sums(&self, w: Option<ArrayView1<Real>>, out: &mut [Real]) {
        assert_eq!(out.len(), self.cols);
        if self.rows == 0 {
            return;
        }
        let weights: Option<Vec<Real>> = w.map(|w| w.to_vec());
        if let Some(w) = &weights {
            assert_eq!(w.len(), self.rows);
        }
        for (panel, dst) in self
            .data
            .chunks_exact(self.rows * NR)
            .zip(out.chunks_mut(NR))
        {
            let mut sums = [0.0 as Real; NR];
            sums[..dst.len()].copy_from_slice(dst);
            let chunks = panel
                .chunks_exact(NR)
                .map(|c| <&[Real; NR]>::try_from(c).expect("NR values a chunk"));
            match &weights {
                Some(w) => {
                    for (chunk, &wi) in chunks.zip(w) {
                        for (g, &v) in sums.iter_mut().zip(chunk) {
                            *g += wi * v;
                        }
                    }
                }
                None => {
                    for chunk in chunks {
                        for (g, &v) in sums.iter_mut().zip(chunk) {
                            *g += v;
                        }
                    }
                }
            }
            let n = dst.len();
            dst.copy_from_slice(&sums[..n]);
        }
    }

    /// Element (r, c), for tests and checks.
    pub fn get(&self, r: usize, c: usize) -> Real {
        assert!(
            r < self.rows && c < self.panels() * NR,
            "({r}, {c}) outside the panels"
        );
        self.data[((c / NR) * self.rows + r) * NR + c % NR]
    }
}

/// One row's chunk of a panel from the backward product's `w` values `d` and the activations
/// `a` under them: `d · 1[a > 0]`, zeros past `w` (the last panel's padding). Shared by the
/// sweep above and `linalg::backward`, so both mask alike.
#[inline(always)]
pub(super) fn masked_chunk(dst: &mut [Real; NR], d: &[Real], a: &[Real], w: usize) {
    if w == NR {
        let ds: &[Real; NR] = d[..NR].try_into().expect("NR values");
        let xs: &[Real; NR] = a[..NR].try_into().expect("NR values");
        for t in 0..NR {
            // Branch-free (a compare and an and): half the activations of a layer are off, at
            // random, and a branch would mispredict.
            let keep = ((xs[t] > 0.0) as u32).wrapping_neg();
            dst[t] = Real::from_bits(ds[t].to_bits() & keep);
        }
    } else {
        dst.fill(0.0);
        dst[..w].copy_from_slice(&d[..w]);
        relu_mask(&mut dst[..w], &a[..w]);
    }
}

/// A row's Σ δ², added panel by panel in the order and lanes `linalg::sum_squares` adds the
/// row in (column c into lane c mod SUM_LANES, the columns past the last whole group of lanes
/// summed apart), so the norm is bit for bit the row-major one whatever the panel width.
#[derive(Clone, Copy, Default)]
pub(super) struct RowSquares {
    lanes: [Real; SUM_LANES],
    remainder: [Real; SUM_LANES],
    in_remainder: usize,
}

impl RowSquares {
    /// Adds the squares of `v`, the row's columns `c0..c0 + v.len()`, of which those below
    /// `in_lanes` go to the lanes.
    #[inline(always)]
    pub(super) fn add(&mut self, v: &[Real], c0: usize, in_lanes: usize) {
        let whole = <&[Real; NR]>::try_from(v)
            .ok()
            .filter(|_| c0 + NR <= in_lanes);
        match (whole, c0 % SUM_LANES) {
            // A whole panel inside the lanes, starting at lane 0 or at lane 4 (NR = 12): the
            // lane of each value known at compile time, so the adds are unrolled.
            (Some(v), 0) => self.add_whole::<0>(v),
            (Some(v), 4) => self.add_whole::<4>(v),
            _ => {
                for (c, &x) in (c0..).zip(v) {
                    if c < in_lanes {
                        self.lanes[c % SUM_LANES] += x * x;
                    } else {
                        self.remainder[self.in_remainder] = x * x;
                        self.in_remainder += 1;
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn add_whole<const LANE: usize>(&mut self, v: &[Real; NR]) {
        for (t, &x) in v.iter().enumerate() {
            self.lanes[(LANE + t) % SUM_LANES] += x * x;
        }
    }

    /// Lane sums added elsewhere, four lanes at a time in the same order (`linalg::backward`),
    /// before any value of the row is added here.
    pub(super) fn set_lanes(&mut self, lanes: [Real; SUM_LANES]) {
        self.lanes = lanes;
    }

    /// The row's Σ δ², ended as `sum_squares` ends it.
    pub(super) fn total(&self) -> Real {
        lanes_total(
            &self.lanes,
            self.remainder[..self.in_remainder].iter().copied(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{relu_mask_sum_squares, sum_squares};

    fn problem(rows: usize, cols: usize) -> (Vec<Real>, Vec<Real>) {
        let d = (0..rows * cols)
            .map(|i| ((i * 29 % 23) as Real - 11.0) / 3.0)
            .collect();
        let a = (0..rows * cols)
            .map(|i| (i * 7 % 5) as Real - 2.0)
            .collect();
        (d, a)
    }

    /// Every width against the in-place sweep: the same values at every (r, c), zero padding,
    /// bit-identical row sums; then the row operations against their row-major meaning.
    #[test]
    fn the_packed_sweep_and_row_steps_match_the_row_major_ones() {
        for (rows, cols) in [
            (1, 1),
            (3, 8),
            (5, 17),
            (7, 1000),
            (4, 100),
            (37, 100),
            (33, 8),
            // Panels of 12 against 8 sum lanes: a whole panel from lane 4 (36), one across
            // the last whole group of lanes (36), a partial one across it (20).
            (6, 36),
            (2, 20),
        ] {
            let (d, a) = problem(rows, cols);
            let mut want = d.clone();
            let want_sums: Vec<Real> = want
                .chunks_exact_mut(cols)
                .zip(a.chunks_exact(cols))
                .map(|(dr, ar)| relu_mask_sum_squares(dr, ar))
                .collect();
            let mut p = ColumnPanels::default();
            let mut sums = Vec::new();
            p.relu_mask_from(&d, &a, cols, Some(&mut sums));
            assert_eq!((p.rows(), p.cols()), (rows, cols));
            assert_eq!(sums, want_sums, "{rows}x{cols} row sums");
            for r in 0..rows {
                for c in 0..cols {
                    assert_eq!(p.get(r, c), want[r * cols + c], "{rows}x{cols} at {r},{c}");
                }
                for c in cols..cols.div_ceil(NR) * NR {
                    assert_eq!(p.get(r, c), 0.0, "padding");
                }
                assert_eq!(sum_squares(&want[r * cols..][..cols]), want_sums[r]);
            }

            let w: Vec<Real> = (0..rows).map(|r| 0.5 + r as Real).collect();
            let mut sums_plain = vec![1.0; cols];
            for (r, row) in want.chunks_exact(cols).enumerate() {
                for (g, &v) in sums_plain.iter_mut().zip(row) {
                    *g += w[r] * v;
                }
            }
            let mut sums_packed = vec![1.0; cols];
            p.add_weighted_column_sums(Some(ArrayView1::from(&w)), &mut sums_packed);
            assert_eq!(sums_packed, sums_plain, "{rows}x{cols} weighted sums");

            p.scale_rows(ArrayView1::from(&w));
            p.zero_row(rows - 1);
            for r in 0..rows {
                for c in 0..cols {
                    let v = if r == rows - 1 {
                        0.0
                    } else {
                        w[r] * want[r * cols + c]
                    };
                    assert_eq!(p.get(r, c), v);
                }
            }
        }
    }

    /// A second sweep of a smaller shape reuses the buffer and leaves no stale values: the same
    /// panels as a fresh one's, padding included.
    #[test]
    fn a_smaller_sweep_reshapes() {
        let mut p = ColumnPanels::default();
        let (d, a) = problem(37, 20);
        p.relu_mask_from(&d, &a, 20, None);
        let (d, a) = problem(3, 9);
        p.relu_mask_from(&d, &a, 9, None);
        let mut fresh = ColumnPanels::default();
        fresh.relu_mask_from(&d, &a, 9, None);
        assert_eq!(p.as_slice(), fresh.as_slice());
        assert_eq!(p.as_slice().len(), 9usize.div_ceil(NR) * 3 * NR);
    }
}
