//! Training in wasm computes what the native build does: the golden runs to the same numbers
//! (tests/fixtures/golden_run.json), and the matrix kernel the build promises, agreeing with
//! gemm's.

use super::{golden, ADULT};
use dpsgd_lab::config::RunConfig;
use dpsgd_lab::data::decode_packed;
use std::sync::Arc;
use wasm_bindgen_test::*;

const GOLDEN: &str = include_str!("../fixtures/golden_run.json");

/// The simd128 lanes the noise is drawn from compute the run's ChaCha8 words, the very ones
/// rand_chacha does (so the golden runs below draw the same noise as natively).
#[wasm_bindgen_test]
fn the_noise_generators_simd_lanes_read_the_runs_stream_word_for_word() {
    super::noise_rng::check_words();
    super::noise_rng::check_normals();
}

#[wasm_bindgen_test]
fn wasm_training_reproduces_the_native_golden_runs() {
    let fixture: serde_json::Value = serde_json::from_str(GOLDEN).unwrap();
    let data = Arc::new(decode_packed(ADULT).unwrap());
    for run in fixture["runs"].as_array().unwrap() {
        let cfg: RunConfig = serde_json::from_value(run["config"].clone()).unwrap();
        let got = golden::run(cfg, data.clone());
        if let Err(e) = golden::compare(run["reports"].as_array().unwrap(), &got, 1e-5) {
            panic!("wasm differs from native: {e}");
        }
    }
}

/// The kernel this build runs is the one its target features promise, and in the relaxed-SIMD
/// build (`make test` runs this file in both) the fused kernel agrees with gemm's simd128
/// product on the models' shapes and on ragged ones, row- and column-major B.
#[wasm_bindgen_test]
fn the_matrix_kernel_is_the_builds_and_agrees_with_gemm() {
    use dpsgd_lab::linalg::{gemm_matmul, KERNEL};
    use ndarray::Array2;
    // The fused kernel itself on every shape (matmul leaves thin ones to the thin kernel); in
    // the simd128 build, matmul.
    #[cfg(target_feature = "relaxed-simd")]
    let fused_or_matmul = dpsgd_lab::linalg::fma::matmul::<dpsgd_lab::linalg::fma::Relaxed>;
    #[cfg(not(target_feature = "relaxed-simd"))]
    let fused_or_matmul = dpsgd_lab::linalg::matmul;
    let relaxed = cfg!(target_feature = "relaxed-simd");
    assert_eq!(
        KERNEL,
        if relaxed {
            "relaxed-simd fma"
        } else {
            "gemm simd128"
        }
    );
    let value = |i: usize, j: usize| ((i * 37 + j * 11) % 19) as f32 / 7.0 - 1.3;
    for (m, k, n) in [
        (600, 60, 1000),
        (600, 10, 1000),
        (60, 600, 1000),
        (7, 300, 13),
        (130, 5, 9),
        // Fused-kernel edges: a last row panel of 2 (MR = 3), whole 12-column panels only,
        // and a partial last one.
        (131, 40, 48),
        (65, 20, 37),
    ] {
        let a = Array2::from_shape_fn((m, k), |(i, j)| value(i, j));
        let b = Array2::from_shape_fn((k, n), |(i, j)| value(j + 3, i));
        let bt = b.t().as_standard_layout().into_owned();
        for b in [b.view(), bt.t()] {
            let (mut c, mut want) = (
                Array2::from_elem((m, n), 0.25),
                Array2::from_elem((m, n), 0.25),
            );
            fused_or_matmul(&mut c.view_mut(), &a.view(), &b, true);
            gemm_matmul(&mut want.view_mut(), &a.view(), &b, true);
            let worst = (&c - &want).iter().fold(0.0f32, |w, d| w.max(d.abs()));
            assert!(worst <= 2e-6 * k as f32, "{m}x{k}x{n}: {worst}");
        }
    }
}

/// In both builds the thin products (at most 12 columns: logistic regression's, and an MLP's
/// output layer) run on the thin kernel (`linalg::thin`, no indirect call), which agrees with
/// gemm's simd128 product on the models' shapes and ragged ones, A row- or column-major (the
/// forward X·W, the gradient Xᵀ·Δ).
#[wasm_bindgen_test]
fn thin_products_agree_with_gemm() {
    use dpsgd_lab::linalg::{gemm_matmul, matmul};
    use ndarray::Array2;
    let value = |i: usize, j: usize| ((i * 37 + j * 11) % 19) as f32 / 7.0 - 1.3;
    for (m, k, n) in [
        (600, 784, 10),
        (784, 600, 10),
        (600, 128, 10),
        (13, 7, 12),
        (5, 3, 1),
        (130, 5, 9),
    ] {
        let a = Array2::from_shape_fn((m, k), |(i, j)| value(i, j));
        let at = a.t().as_standard_layout().into_owned();
        let b = Array2::from_shape_fn((k, n), |(i, j)| value(j + 3, i));
        for a in [a.view(), at.t()] {
            let (mut c, mut want) = (
                Array2::from_elem((m, n), 0.25),
                Array2::from_elem((m, n), 0.25),
            );
            matmul(&mut c.view_mut(), &a, &b.view(), true);
            gemm_matmul(&mut want.view_mut(), &a, &b.view(), true);
            let worst = (&c - &want).iter().fold(0.0f32, |w, d| w.max(d.abs()));
            assert!(worst <= 2e-6 * k as f32, "{m}x{k}x{n}: {worst}");
        }
    }
}

/// A start parses the run's settings once: `RunSettings::check` parses and checks them, and
/// the worker's plain copy (`toJs`) and the `Session` take them as they are; a preview parses
/// its own copy once. (Before, a start parsed twice: the check, then the session.)
#[wasm_bindgen_test]
fn a_start_and_each_preview_parse_the_settings_once() {
    use dpsgd_lab::web::{config_parses, epsilon_preview, LabData, RunSettings, Session};
    let cfg = RunConfig {
        dataset: "blobs".into(),
        epochs: 1,
        lot_size: 20,
        seed: Some(1),
        ..RunConfig::default()
    };
    let before = config_parses();
    let settings = RunSettings::check(super::config(cfg.clone())).unwrap();
    assert_eq!(config_parses() - before, 1, "the check parses once");
    let plain = settings.to_js().unwrap();
    let data = LabData::builtin("blobs", js_sys::Array::new(), 1.0, 0.1).unwrap();
    let mut session = Session::new(&data, &settings).unwrap();
    assert_eq!(
        config_parses() - before,
        1,
        "the session takes the parsed settings"
    );
    assert!(
        !session.advance(1000).unwrap().is_null(),
        "the run trains an epoch"
    );
    let facts = data.facts().unwrap();
    epsilon_preview(plain, facts).unwrap();
    assert_eq!(
        config_parses() - before,
        2,
        "a preview parses its settings once"
    );
    assert!(RunSettings::check(super::js(r#"{"sigma": -1}"#)).is_err());
}
