//! The generator Algorithm 1's noise is drawn from: the run's own ChaCha8 stream (rand_chacha's
//! `ChaCha8Rng`), word for word, computed four blocks at a time in wasm's simd128 lanes.
//!
//! rand_chacha computes its blocks with ppv-lite86, which has no wasm SIMD backend: in wasm a
//! standard normal costs ~14.5 ns, ~12.5 of them in ChaCha8. Here a refill's four blocks are the
//! four lanes of one `v128` per state word (ChaCha's "vertical" layout): ~3.8 ns a u64 and
//! ~5.8 ns a normal (docs/performance.md, "The noise's generator"). The words are the same, so
//! every run draws the same noise as before. Natively rand_chacha's SSE2 path is kept (3.4 ns a
//! u64, faster than these portable lanes), and the portable lanes are the reference the simd128
//! ones are tested against (tests/common/noise_rng.rs, natively and in the browser).

use rand::RngCore;
use rand_chacha::ChaCha8Rng;

/// The generator noise draws take: [`ChaCha8Lanes`] in wasm with simd128, rand_chacha elsewhere.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub type NoiseRng = ChaCha8Lanes;
/// The generator noise draws take: [`ChaCha8Lanes`] in wasm with simd128, rand_chacha elsewhere.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub type NoiseRng = ChaCha8Rng;

/// Runs `draw` on `rng`'s stream from its next word, then moves `rng` past every word `draw`
/// read: `rng` ends where it would had `draw` used it directly.
pub fn with_noise_rng<T>(rng: &mut ChaCha8Rng, draw: impl FnOnce(&mut NoiseRng) -> T) -> T {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        let mut lanes = ChaCha8Lanes::at(rng);
        let out = draw(&mut lanes);
        lanes.move_past(rng);
        out
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    draw(rng)
}

/// Words per block, and blocks per refill.
const BLOCK_WORDS: usize = 16;
const BLOCKS: usize = 4;
const WORDS: usize = BLOCK_WORDS * BLOCKS;
/// "expand 32-byte k", ChaCha's first four state words.
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// A reader of a `ChaCha8Rng`'s stream from a given word (see [`ChaCha8Lanes::at`]): the same
/// `next_u32` / `next_u64` / `fill_bytes` values, four blocks computed at once.
pub struct ChaCha8Lanes {
    key: [u32; 8],
    stream: [u32; 2],
    /// The block counter of `words[0]`.
    block: u64,
    words: [u32; WORDS],
    /// The next word of `words` to read; `WORDS` when all are read.
    next: usize,
}

impl ChaCha8Lanes {
    /// Reads `rng`'s stream from `rng`'s next word (its key, stream and word position); `rng`
    /// itself is left as it is (see [`ChaCha8Lanes::move_past`]).
    pub fn at(rng: &ChaCha8Rng) -> Self {
        let seed = rng.get_seed();
        let key = std::array::from_fn(|i| {
            u32::from_le_bytes([
                seed[4 * i],
                seed[4 * i + 1],
                seed[4 * i + 2],
                seed[4 * i + 3],
            ])
        });
        let stream = rng.get_stream();
        let pos = rng.get_word_pos();
        let mut lanes = Self {
            key,
            stream: [stream as u32, (stream >> 32) as u32],
            block: (pos / BLOCK_WORDS as u128) as u64,
            words: [0; WORDS],
            next: WORDS,
        };
        lanes.refill_at(lanes.block);
        lanes.next = (pos % BLOCK_WORDS as u128) as usize;
        lanes
    }

    /// Moves `rng` to the first word this reader has not read.
    pub fn move_past(&self, rng: &mut ChaCha8Rng) {
        rng.set_word_pos(u128::from(self.block) * BLOCK_WORDS as u128 + self.next as u128);
    }

    fn refill_at(&mut self, block: u64) {
        self.block = block;
        self.next = 0;
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        simd128::blocks(&self.key, self.stream, block, &mut self.words);
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        portable::blocks(&self.key, self.stream, block, &mut self.words);
    }

    #[inline]
    fn word(&mut self) -> u32 {
        if self.next == WORDS {
            self.refill_at(self.block.wrapping_add(BLOCKS as u64));
        }
        let w = self.words[self.next];
        self.next += 1;
        w
    }

    /// Offers `take` the buffered words as the u64s `next_u64` would return, one after another,
    /// and moves past each it takes (returns true for), up to the first it refuses or the last
    /// whole u64 of the refill: the normals' common case reads the stream here, in a loop with
    /// its position in a local (`privacy::normals`).
    #[inline]
    pub fn take_buffered_u64s(&mut self, mut take: impl FnMut(u64) -> bool) {
        let mut next = self.next;
        while next + 1 < WORDS {
            let bits = u64::from(self.words[next]) | (u64::from(self.words[next + 1]) << 32);
            if !take(bits) {
                break;
            }
            next += 2;
        }
        self.next = next;
    }
}

impl RngCore for ChaCha8Lanes {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.word()
    }

    /// Two words, the first one low, as rand_core's `BlockRng` reads them (across refills too).
    #[inline]
    fn next_u64(&mut self) -> u64 {
        if self.next + 1 < WORDS {
            let (lo, hi) = (self.words[self.next], self.words[self.next + 1]);
            self.next += 2;
            return u64::from(lo) | (u64::from(hi) << 32);
        }
        let lo = self.word();
        u64::from(lo) | (u64::from(self.word()) << 32)
    }

    /// Whole words, little-endian, a last partial one cut (as `BlockRng` consumes them).
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(4) {
            let w = self.word().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }
}

/// ChaCha's quarter round on four state words (RFC 8439 §2.1), generic over what a word is: one
/// `u32` lane set ([u32; 4]) in the portable code, one `v128` in the simd128 code.
macro_rules! quarter_round {
    ($x:ident, $add:ident, $xor_rotl:ident, $a:expr, $b:expr, $c:expr, $d:expr) => {
        $x[$a] = $add($x[$a], $x[$b]);
        $x[$d] = $xor_rotl($x[$d], $x[$a], 16);
        $x[$c] = $add($x[$c], $x[$d]);
        $x[$b] = $xor_rotl($x[$b], $x[$c], 12);
        $x[$a] = $add($x[$a], $x[$b]);
        $x[$d] = $xor_rotl($x[$d], $x[$a], 8);
        $x[$c] = $add($x[$c], $x[$d]);
        $x[$b] = $xor_rotl($x[$b], $x[$c], 7);
    };
}

/// ChaCha8's eight rounds (four double rounds: columns, then diagonals) on a 16-word state.
macro_rules! eight_rounds {
    ($x:ident, $add:ident, $xor_rotl:ident) => {
        for _ in 0..4 {
            quarter_round!($x, $add, $xor_rotl, 0, 4, 8, 12);
            quarter_round!($x, $add, $xor_rotl, 1, 5, 9, 13);
            quarter_round!($x, $add, $xor_rotl, 2, 6, 10, 14);
            quarter_round!($x, $add, $xor_rotl, 3, 7, 11, 15);
            quarter_round!($x, $add, $xor_rotl, 0, 5, 10, 15);
            quarter_round!($x, $add, $xor_rotl, 1, 6, 11, 12);
            quarter_round!($x, $add, $xor_rotl, 2, 7, 8, 13);
            quarter_round!($x, $add, $xor_rotl, 3, 4, 9, 14);
        }
    };
}

/// ChaCha's initial state for the four blocks from `block` on (RFC 8439 §2.3, with rand_chacha's
/// 64-bit block counter in words 12–13 and its stream in 14–15), one lane set per word:
/// `splat` puts one value in every lane, `lanes` one value per lane (block `block + b` in lane b).
fn initial_state<L>(
    key: &[u32; 8],
    stream: [u32; 2],
    block: u64,
    splat: impl Fn(u32) -> L,
    lanes: impl Fn([u32; BLOCKS]) -> L,
) -> [L; BLOCK_WORDS] {
    let counter: [u64; BLOCKS] = std::array::from_fn(|b| block.wrapping_add(b as u64));
    std::array::from_fn(|w| match w {
        0..=3 => splat(SIGMA[w]),
        4..=11 => splat(key[w - 4]),
        12 => lanes(counter.map(|c| c as u32)),
        13 => lanes(counter.map(|c| (c >> 32) as u32)),
        _ => splat(stream[w - 14]),
    })
}

/// The four blocks from `block` on, word by word, lane `b` of each state word being block
/// `block + b`: the reference the simd128 code must match.
#[cfg_attr(
    all(target_arch = "wasm32", target_feature = "simd128"),
    allow(dead_code)
)]
mod portable {
    use super::{initial_state, BLOCKS, BLOCK_WORDS, WORDS};
    type Lanes = [u32; BLOCKS];

    fn add(a: Lanes, b: Lanes) -> Lanes {
        std::array::from_fn(|i| a[i].wrapping_add(b[i]))
    }

    fn xor_rotl(a: Lanes, b: Lanes, r: u32) -> Lanes {
        std::array::from_fn(|i| (a[i] ^ b[i]).rotate_left(r))
    }

    pub fn blocks(key: &[u32; 8], stream: [u32; 2], block: u64, out: &mut [u32; WORDS]) {
        let init = initial_state(key, stream, block, |v| [v; BLOCKS], |lanes| lanes);
        let mut x = init;
        eight_rounds!(x, add, xor_rotl);
        for (w, (&lanes, &start)) in x.iter().zip(&init).enumerate() {
            for (b, word) in add(lanes, start).into_iter().enumerate() {
                out[b * BLOCK_WORDS + w] = word;
            }
        }
    }
}

/// The same blocks as [`portable`], one `v128` per state word.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use super::{initial_state, BLOCK_WORDS, WORDS};
    use std::arch::wasm32::*;

    #[inline(always)]
    fn add(a: v128, b: v128) -> v128 {
        u32x4_add(a, b)
    }

    /// (a ^ b) rotated left by r in each u32 lane; 16 and 8 are byte shuffles.
    #[inline(always)]
    fn xor_rotl(a: v128, b: v128, r: u32) -> v128 {
        let v = v128_xor(a, b);
        match r {
            16 => i8x16_shuffle::<2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13>(v, v),
            8 => i8x16_shuffle::<3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14>(v, v),
            _ => v128_or(u32x4_shl(v, r), u32x4_shr(v, 32 - r)),
        }
    }

    /// Not inlined: inlined into the normal sampler's loop it ran ~35% slower in V8.
    #[inline(never)]
    pub fn blocks(key: &[u32; 8], stream: [u32; 2], block: u64, out: &mut [u32; WORDS]) {
        let init = initial_state(
            key,
            stream,
            block,
            |v| u32x4_splat(v),
            |l| u32x4(l[0], l[1], l[2], l[3]),
        );
        let mut x = init;
        eight_rounds!(x, add, xor_rotl);
        // Four words at a time, 4×4-transposed so that each block's words are stored in order.
        for w in (0..BLOCK_WORDS).step_by(4) {
            let [a, b, c, d] = std::array::from_fn(|i| add(x[w + i], init[w + i]));
            let (ab_lo, ab_hi) = (
                i32x4_shuffle::<0, 4, 1, 5>(a, b),
                i32x4_shuffle::<2, 6, 3, 7>(a, b),
            );
            let (cd_lo, cd_hi) = (
                i32x4_shuffle::<0, 4, 1, 5>(c, d),
                i32x4_shuffle::<2, 6, 3, 7>(c, d),
            );
            let rows = [
                i64x2_shuffle::<0, 2>(ab_lo, cd_lo),
                i64x2_shuffle::<1, 3>(ab_lo, cd_lo),
                i64x2_shuffle::<0, 2>(ab_hi, cd_hi),
                i64x2_shuffle::<1, 3>(ab_hi, cd_hi),
            ];
            for (b, row) in rows.into_iter().enumerate() {
                let at = &mut out[b * BLOCK_WORDS + w..b * BLOCK_WORDS + w + 4];
                // SAFETY: `at` is 4 writable u32s (16 bytes); v128_store needs no alignment.
                unsafe { v128_store(at.as_mut_ptr().cast::<v128>(), row) };
            }
        }
    }
}
