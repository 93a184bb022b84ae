//! A student's file through the worker's entry points: a file too small for the private range
//! estimate is refused as an Error carrying every numeric column (`ranges`) and nothing spent;
//! the form's ranges ([[name, min, max], …]) load it, and ranges read off the file are a release
//! without noise; a refusal after the estimate says the ε it spent; and a lot of 256 on the
//! loaded file is at least its N (`lot_at_least_n`).

use super::{config, js};
use dpsgd_lab::config::RunConfig;
use dpsgd_lab::web::{lot_at_least_n, LabData};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

const BREAST_CANCER: &str = include_str!("../../www/data/breast_cancer.csv");

fn first_rows(n: usize) -> String {
    BREAST_CANCER
        .lines()
        .take(n + 1)
        .map(|l| format!("{l}\n"))
        .collect()
}

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &key.into()).unwrap()
}

/// [[name, 0, 1e4], …] for every feature column: wide enough for every value.
fn form_ranges() -> JsValue {
    let names: Vec<String> = BREAST_CANCER
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(|s| format!("[\"{s}\", 0, 1e4]"))
        .collect();
    js(&format!("[{}]", names[..30].join(",")))
}

#[wasm_bindgen_test]
fn a_small_file_is_refused_unspent_with_every_column_then_loads_with_the_forms_ranges() {
    let bytes = first_rows(200);
    let e = LabData::from_csv(
        bytes.as_bytes(),
        "diagnosis",
        "mean radius=0:40",
        JsValue::NULL,
        false,
        1e-5,
    )
    .err()
    .expect("refused");
    let message = get(&e, "message").as_string().unwrap();
    assert!(
        message.contains("too few to estimate the ranges of 29 numeric columns")
            && message.contains("Nothing was released"),
        "{message}"
    );
    assert!(!message.contains("ε ="), "{message}");
    assert!(get(&e, "spent").is_undefined());
    let columns = get(&get(&e, "ranges"), "columns");
    let columns = js_sys::Array::from(&columns);
    assert_eq!(columns.length(), 30);
    let first = columns.get(0);
    assert_eq!(get(&first, "name").as_string().unwrap(), "mean radius");
    assert_eq!(
        get(&get(&first, "range"), "hi").as_f64(),
        Some(40.0),
        "the text field's range, filled in"
    );
    assert!(get(&columns.get(1), "range").is_null());

    let data = LabData::from_csv(
        bytes.as_bytes(),
        "diagnosis",
        "",
        form_ranges(),
        false,
        1e-5,
    )
    .unwrap();
    let facts = data.facts().unwrap();
    assert_eq!(
        js_sys::Array::from(&get(&facts, "releases")).length(),
        0,
        "public ranges cost nothing"
    );
    let at = lot_at_least_n(config(RunConfig::default()), facts.clone()).unwrap();
    let n = get(&facts, "n_train").as_f64().unwrap();
    assert_eq!(get(&at, "lot").as_f64(), Some(256.0));
    assert_eq!(
        get(&at, "suggested_lot").as_f64(),
        Some((n / 10.0).floor().max(10.0))
    );
    let small = RunConfig {
        lot_size: 20,
        ..RunConfig::default()
    };
    assert!(lot_at_least_n(config(small), facts).unwrap().is_null());

    let read_off =
        LabData::from_csv(bytes.as_bytes(), "diagnosis", "", form_ranges(), true, 1e-5).unwrap();
    let releases = js_sys::Array::from(&get(&read_off.facts().unwrap(), "releases"));
    assert_eq!(
        get(&releases.get(0), "what").as_string().unwrap(),
        "read-off"
    );
    assert_eq!(get(&releases.get(0), "sigma").as_f64(), Some(0.0));
    // A name the form gives twice is refused, by name.
    let twice = js(r#"[["mean radius", 0, 1], ["mean radius", 0, 2]]"#);
    let e = LabData::from_csv(bytes.as_bytes(), "diagnosis", "", twice, false, 1e-5)
        .err()
        .unwrap();
    assert!(get(&e, "message")
        .as_string()
        .unwrap()
        .contains("'mean radius' are given twice"));
}

#[wasm_bindgen_test]
fn a_refusal_after_the_estimate_says_the_epsilon_it_spent() {
    // 100 rows of one column, each value its own power of two: the estimate is made, and finds
    // no bin above the noise.
    let text: String = std::iter::once("x,label\n".to_string())
        .chain((0..100).map(|i| {
            format!(
                "{},{}\n",
                2f64.powi(i - 20),
                if i % 2 == 1 { "a" } else { "b" }
            )
        }))
        .collect();
    let e = LabData::from_csv(text.as_bytes(), "label", "", JsValue::NULL, false, 1e-5)
        .err()
        .unwrap();
    let message = get(&e, "message").as_string().unwrap();
    assert!(
        message.contains("(one Gaussian release, σ = 5)")
            && message.contains("(moments accountant, δ = 1e-5) spent by this attempt alone"),
        "{message}"
    );
    assert_eq!(js_sys::Array::from(&get(&e, "spent")).length(), 1);
    assert!(get(&get(&e, "ranges"), "estimated").as_bool().unwrap());
}

/// The file ledger's key: the same contents whatever their name, an IDX pair in either order
/// (the picker may list the labels first) one key; other contents another.
#[wasm_bindgen_test]
fn an_idx_pair_picked_in_either_order_is_one_file() {
    let (images, labels) = (b"images bytes".as_slice(), b"labels".as_slice());
    assert_eq!(
        LabData::content_key(images, labels),
        LabData::content_key(labels, images)
    );
    assert_ne!(
        LabData::content_key(images, labels),
        LabData::content_key(images, b"other labels")
    );
    let csv = BREAST_CANCER.as_bytes();
    assert_ne!(
        LabData::content_key(csv, &[]),
        LabData::content_key(&csv[1..], &[])
    );
}
