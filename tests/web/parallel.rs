//! Data-parallel training in wasm: a gradient helper sums what the trainer sums (and refuses
//! what does not fit), the training worker shares its parameters only into a buffer of their
//! length, and the coordinator refuses to mix two lots or count a part twice.

use super::{js, ADULT};
use dpsgd_lab::config::RunConfig;
use dpsgd_lab::data::decode_packed;
use std::sync::Arc;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn a_gradient_helper_sums_what_the_trainer_sums_and_refuses_what_does_not_fit() {
    use dpsgd_lab::config::{Clipping, Mode, ModelKind};
    use dpsgd_lab::train::part::{part_digest, PartSum, PartWork};
    use dpsgd_lab::train::Trainer;
    use dpsgd_lab::web::GradientWorker;
    let data = Arc::new(decode_packed(ADULT).unwrap());
    let cfg = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![16],
        clipping: Clipping::PerLayer,
        lot_size: 600,
        seed: Some(4),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, data.clone()).unwrap();
    t.draw_lot();
    let rows = t.lot_part(1, 2).to_vec();
    let part: Vec<u32> = rows.iter().map(|&i| i as u32).collect();
    // What the training worker sums for part 1 of 2 (`Trainer::sum_own_part`).
    let mut want = PartSum::default();
    want.reset(t.params().len());
    let mut model = t.model().clone();
    PartWork::new(256, data.n_features()).sum_part(
        &mut model,
        (&data.train).into(),
        &rows,
        Mode::Dp,
        t.clip_bounds(),
        &mut want,
    );
    // A helper given the rows, the run's spec and the parameters sums the same, bit for bit.
    let x: Vec<f32> = data.train.x.iter().copied().collect();
    let y: Vec<u32> = data.train.y.iter().map(|&c| c as u32).collect();
    let mut helper = GradientWorker::new(x, y.clone()).unwrap();
    let spec = format!(
        r#"{{"sizes": [{}, 16, 2], "mode": "dp", "batch": 256}}"#,
        data.n_features()
    );
    helper.configure(js(&spec)).unwrap();
    let params = t.params().to_vec();
    helper.sum(&params, &part, t.clip_bounds()).unwrap();
    let grad = js_sys::Float32Array::new_with_length(params.len() as u32);
    helper.grad_into(&grad).unwrap();
    assert_eq!(grad.to_vec(), want.grad);
    // A buffer of the wrong length is refused, not a panic.
    let short = js_sys::Float32Array::new_with_length(params.len() as u32 - 1);
    assert!(helper.grad_into(&short).is_err());
    assert_eq!(helper.norms(), want.norms);
    let counts = [want.examples, want.clipped, want.unclipped].map(|c| c as u32);
    assert_eq!(
        helper.counts(),
        [&counts[..], &[part_digest(&rows)]].concat()
    );
    assert!(want.examples == rows.len() && want.grad.iter().any(|&g| g != 0.0));
    // Refusals: a row beyond the data, the wrong parameter count, a bound of 0, bad rows.
    let n = y.len() as u32;
    assert!(helper.sum(&params, &[n], t.clip_bounds()).is_err());
    assert!(helper.sum(&params[1..], &part, t.clip_bounds()).is_err());
    assert!(helper.sum(&params, &part, &[0.0, 1.0]).is_err());
    let wrong = r#"{"sizes": [3, 2], "mode": "dp", "batch": 1}"#;
    assert!(helper.configure(js(wrong)).is_err());
    assert!(GradientWorker::new(vec![1.0; 5], vec![0, 1]).is_err());
}

#[wasm_bindgen_test]
fn the_training_worker_writes_its_parameters_into_a_helpers_buffer_of_their_length_only() {
    let session = dpsgd_lab::web::bench_session("mlp 60-1000-10", None).unwrap();
    let n = session.n_params();
    assert_eq!(n, 60 * 1000 + 1000 + 1000 * 10 + 10);
    let buffer = js_sys::Float32Array::new_with_length(n);
    session.params_into(&buffer).unwrap();
    let params = buffer.to_vec();
    assert!(params.iter().all(|p| p.is_finite()) && params.iter().any(|&p| p != 0.0));
    let long = js_sys::Float32Array::new_with_length(n + 1);
    assert!(session.params_into(&long).is_err());
}

#[wasm_bindgen_test]
fn the_coordinator_refuses_to_mix_two_lots_or_count_a_part_twice() {
    // A lot split over messages: a second lot drawn while the first is out (a pause and a play
    // during one lot) or a part that comes twice would give the step a sensitivity the
    // accountants never assumed, so each is an error, not a quiet step.
    let mut s = dpsgd_lab::web::bench_session("logistic 784-10", None).unwrap();
    let n = s.n_params() as usize;
    s.draw_lot().unwrap();
    assert!(
        s.draw_lot().is_err(),
        "a second lot while the first is open"
    );
    s.sum_own_part(0, 2).unwrap();
    assert!(s.sum_own_part(0, 2).is_err(), "part 0 twice");
    assert!(s.finish_lot(2).is_err(), "part 1 is not in");
    // What a helper reports for a part: its examples (clipped, unclipped) and their digest.
    let reported = |rows: Vec<u32>| {
        let rows: Vec<usize> = rows.into_iter().map(|r| r as usize).collect();
        let digest = dpsgd_lab::train::part::part_digest(&rows);
        let e = rows.len() as u32;
        (vec![1.0; rows.len()], [e, e, 0, digest])
    };
    let (norms, counts) = reported(s.lot_part(1, 2));
    let (_, other) = reported(s.lot_part(0, 2));
    // The channel cuts the lot (shared memory gives the coordinator less): it may not change
    // while the parts are out; saying the same again is no change.
    s.set_part_channel(false).unwrap();
    assert!(
        s.set_part_channel(true).is_err(),
        "the channel changed mid-lot"
    );
    assert_eq!(s.lot_part(1, 2).len(), norms.len(), "the lot as it was cut");
    assert!(
        s.receive_part(1, 2, vec![0.0; n], norms.clone(), &other)
            .is_err(),
        "part 0's rows as part 1"
    );
    assert!(
        s.receive_part(1, 2, vec![0.0; n], norms.clone(), &counts[..3])
            .is_err(),
        "no digest"
    );
    s.receive_part(1, 2, vec![0.0; n], norms.clone(), &counts)
        .unwrap();
    assert!(
        s.receive_part(1, 2, vec![0.0; n], norms, &counts).is_err(),
        "part 1 twice"
    );
    s.finish_lot(2).unwrap();
    assert!(s.finish_lot(2).is_err(), "finished already");
    assert!(s.sum_own_part(0, 1).is_err(), "no lot open");
    // The next lot goes as usual, in one part or in two; between lots the channel may change.
    s.draw_lot().unwrap();
    s.sum_own_part(0, 1).unwrap();
    s.finish_lot(1).unwrap();
    let by_message = s.lot_part(1, 2).len();
    s.set_part_channel(true).unwrap();
    assert!(
        s.lot_part(1, 2).len() > by_message,
        "through shared memory a helper takes more of the lot"
    );
}
