//! `dpsgd sigma` and `dpsgd epsilon` against `dpsgd train`: the steps they count for `--epochs`
//! and the steps a run takes, said where they differ, and a σ found for train's count held in
//! train.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::dpsgd;

/// `--epochs` at a q whose 1/q is no whole number of lots: `sigma` counts round(epochs / q)
/// steps (33 at q = 0.61 over 20 epochs), `train` whole lots (2 an epoch: 40), so the σ found
/// spent ε = 8.9 in the run it was asked for at 8. The answer names train's count, and the σ
/// for that count keeps train's own ε within the target.
#[test]
fn sigma_names_the_steps_train_takes_and_that_sigma_holds_in_train() {
    let sigma = |steps: &[&str]| {
        let base = [
            "sigma",
            "--target-epsilon",
            "8",
            "--q",
            "0.61",
            "--delta",
            "1e-5",
        ];
        let args = [&base[..], &["--accountant", "rdp"], steps].concat();
        let (code, out, err) = dpsgd(&args);
        assert_eq!(code, Some(0), "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let by_epochs = sigma(&["--epochs", "20"]);
    assert_eq!(by_epochs["steps"], 33, "{by_epochs}");
    let note = by_epochs["steps_note"].as_str().unwrap_or_default();
    assert!(
        note.contains("40 steps for 20 epochs") && note.contains("--steps 40"),
        "{note}"
    );
    assert!(
        note.contains("this σ spends more than the target there"),
        "{note}"
    );
    let s = sigma(&["--steps", "40"])["sigma"].as_f64().unwrap();
    let s = format!("{s}");
    let args = [
        "train",
        "--dataset",
        "blobs",
        "--lot-size",
        "366",
        "--epochs",
        "20",
    ];
    let (code, out, err) = dpsgd(&[&args[..], &["--sigma", &s, "--delta", "1e-5"]].concat());
    assert_eq!(code, Some(0), "{err}");
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["steps"], 40, "{last}");
    let eps = last["epsilon"]["rdp"].as_f64().unwrap();
    assert!(
        eps <= 8.0,
        "train's rdp ε = {eps} at the σ for its 40 steps"
    );
    // At σ = 0 every ε is ∞ whatever the steps: no note compares them.
    let zero = [
        "epsilon", "--sigma", "0", "--q", "0.61", "--epochs", "20", "--delta", "1e-5",
    ];
    let (_, out, _) = dpsgd(&zero);
    assert!(
        out.contains("\"inf\"") && !out.contains("steps_note"),
        "{out}"
    );
    // Where whole lots and epochs / q agree (q = 0.01), nothing is said.
    let plain = [
        "sigma",
        "--target-epsilon",
        "2",
        "--q",
        "0.01",
        "--epochs",
        "10",
    ];
    let (_, out, _) = dpsgd(&[&plain[..], &["--delta", "1e-5"]].concat());
    assert!(!out.contains("steps_note"), "{out}");
}
