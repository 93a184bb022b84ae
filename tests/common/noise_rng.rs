//! The noise's generator (src/privacy/noise_rng.rs) reads the run's ChaCha8 stream word for
//! word: checked natively (its portable lanes) by tests/training.rs and in the browser (its
//! simd128 lanes) by tests/web.rs.
#![allow(dead_code)]

use dpsgd_lab::privacy::noise_rng::{with_noise_rng, ChaCha8Lanes};
use dpsgd_lab::privacy::normals::FillNormals;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

/// From many starting words (block edges, refill edges, odd words) and streams, the lanes read
/// what the rng itself reads, in mixed widths, and leave the rng where it would be.
pub fn check_words() {
    for (seed, stream) in [(1u64, 0u64), (42, 7), (u64::MAX, u64::MAX)] {
        for skip in [0u32, 1, 15, 16, 17, 63, 64, 65, 127, 200, 1001] {
            let mut plain = ChaCha8Rng::seed_from_u64(seed);
            plain.set_stream(stream);
            for _ in 0..skip {
                plain.next_u32();
            }
            let mut rng = plain.clone();
            let mut lanes = ChaCha8Lanes::at(&rng);
            for i in 0..300 {
                match i % 7 {
                    0 | 3 => assert_eq!(lanes.next_u32(), plain.next_u32(), "word {i}"),
                    5 => {
                        let (mut a, mut b) = ([0u8; 11], [0u8; 11]);
                        lanes.fill_bytes(&mut a);
                        plain.fill_bytes(&mut b);
                        assert_eq!(a, b, "bytes {i}");
                    }
                    _ => assert_eq!(lanes.next_u64(), plain.next_u64(), "u64 {i}"),
                }
            }
            lanes.move_past(&mut rng);
            assert_eq!(
                rng.get_word_pos(),
                plain.get_word_pos(),
                "seed {seed}, skip {skip}"
            );
            assert_eq!(rng.next_u64(), plain.next_u64(), "after moving past");
        }
    }
}

/// The noise draws themselves: the same standard normals through the lanes and through
/// `with_noise_rng` (the lanes in the browser, rand_chacha itself natively), and the run's rng
/// left past them.
pub fn check_normals() {
    let mut plain = ChaCha8Rng::seed_from_u64(3);
    plain.next_u32();
    let mut rng = plain.clone();
    let mut via = plain.clone();
    let want: Vec<f64> = (0..5000).map(|_| plain.sample(StandardNormal)).collect();
    let mut lanes = ChaCha8Lanes::at(&rng);
    let got: Vec<f64> = (0..5000).map(|_| lanes.sample(StandardNormal)).collect();
    let through: Vec<f64> = with_noise_rng(&mut via, |r| {
        (0..5000).map(|_| r.sample(StandardNormal)).collect()
    });
    assert_eq!(got, want);
    assert_eq!(through, want);
    lanes.move_past(&mut rng);
    assert_eq!(rng.get_word_pos(), plain.get_word_pos());
    assert_eq!(via.get_word_pos(), plain.get_word_pos());
    check_filled_normals();
}

/// `fill_standard_normals` (the sanitizer's draws: the ziggurat's common case over the lanes'
/// buffered words, the rest by rand_distr) gives rand_distr's normals as f32, one by one, and
/// leaves the stream where they would: from odd words, in fills of ten sizes from 0 to past a
/// refill (32 u64s) and past the sanitizer's block, over 300,000 draws a seed — enough for the
/// wedges (about 1 draw in 100) and the tail (about 1 in 3,700) many times over.
fn check_filled_normals() {
    let sizes = [0usize, 1, 2, 31, 32, 33, 64, 1000, 1024, 4099];
    for (seed, skip) in [(3u64, 1u32), (17, 0), (99, 63)] {
        let mut plain = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..skip {
            plain.next_u32();
        }
        let mut rng = plain.clone();
        let mut lanes = ChaCha8Lanes::at(&rng);
        let mut via = plain.clone();
        let (mut drawn, mut turn) = (0, 0);
        while drawn < 300_000 {
            let n = sizes[turn % sizes.len()];
            turn += 1;
            let want: Vec<f32> = (0..n).map(|_| plain.sample(StandardNormal)).collect();
            let mut got = vec![f32::NAN; n];
            lanes.fill_standard_normals(&mut got);
            assert!(
                got.iter()
                    .zip(&want)
                    .all(|(g, w)| g.to_bits() == w.to_bits()),
                "seed {seed}, fill {turn} of {n}"
            );
            let mut through = vec![f32::NAN; n];
            with_noise_rng(&mut via, |r| r.fill_standard_normals(&mut through));
            assert_eq!(
                through, want,
                "seed {seed}, fill {turn}, through the noise generator"
            );
            drawn += n;
        }
        lanes.move_past(&mut rng);
        assert_eq!(rng.get_word_pos(), plain.get_word_pos(), "seed {seed}");
        assert_eq!(via.get_word_pos(), plain.get_word_pos(), "seed {seed}");
    }
}
