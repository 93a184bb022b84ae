//! Tests of the configuration: defaults, validation messages, the schedule and accounting.
use super::*;

#[test]
fn defaults_are_valid_and_bad_values_name_their_field() {
    let c = RunConfig::default();
    assert!(c.validate(1000).is_ok());
    let bad = RunConfig {
        lot_size: 2000,
        ..c.clone()
    };
    let e = bad.validate(1000).unwrap_err();
    assert_eq!(e.field, "lot_size");
    assert!(e.message.contains("N = 1000"), "{e}");
    assert_eq!(
        RunConfig {
            sigma: -1.0,
            ..c.clone()
        }
        .validate(1000)
        .unwrap_err()
        .field,
        "sigma"
    );
    assert_eq!(
        RunConfig {
            sigma: f64::NAN,
            ..c.clone()
        }
        .validate(1000)
        .unwrap_err()
        .field,
        "sigma"
    );
    assert_eq!(
        RunConfig {
            clip: 0.0,
            ..c.clone()
        }
        .validate(1000)
        .unwrap_err()
        .field,
        "clip"
    );
    assert_eq!(
        RunConfig {
            delta: 1.0,
            ..c.clone()
        }
        .validate(1000)
        .unwrap_err()
        .field,
        "delta"
    );
    assert_eq!(
        RunConfig {
            epochs: 0,
            ..c.clone()
        }
        .validate(1000)
        .unwrap_err()
        .field,
        "epochs"
    );
    assert!(
        RunConfig { sigma: 0.0, ..c }.validate(1000).is_ok(),
        "σ = 0 is allowed (ε = ∞)"
    );
}

#[test]
fn schedule_layers_and_accounting() {
    let c = RunConfig {
        lr: 0.1,
        lr_end: Some(0.052),
        lr_decay_epochs: 10,
        ..RunConfig::default()
    };
    assert_eq!(c.lr_at(0), 0.1);
    assert!((c.lr_at(5) - 0.076).abs() < 1e-12);
    assert!((c.lr_at(10) - 0.052).abs() < 1e-12 && (c.lr_at(50) - 0.052).abs() < 1e-12);
    let mlp = RunConfig {
        model: ModelKind::Mlp,
        hidden: vec![100, 50],
        clipping: Clipping::PerLayer,
        clip: 3.0,
        sigma: 4.0,
        ..RunConfig::default()
    };
    assert_eq!(mlp.n_layers(), 3);
    assert!(mlp.validate(1000).is_ok());
    assert!((mlp.clip_bounds().iter().map(|c| c * c).sum::<f64>().sqrt() - 3.0).abs() < 1e-12);
    assert!((mlp.accounted_sigma() - 4.0 / 3f64.sqrt()).abs() < 1e-12);
    assert_eq!(
        RunConfig {
            mode: Mode::ClipOnly,
            ..mlp.clone()
        }
        .accounted_sigma(),
        0.0
    );
    assert_eq!(
        RunConfig {
            hidden: vec![4],
            ..mlp.clone()
        }
        .validate(1000)
        .unwrap_err()
        .field,
        "hidden"
    );
    assert_eq!(
        RunConfig {
            layer_clips: Some(vec![1.0]),
            ..mlp
        }
        .validate(1000)
        .unwrap_err()
        .field,
        "layer_clips"
    );
    let j = RunConfig::from_json(
        r#"{"model": "mlp", "clipping": "per-layer", "mode": "clip-only", "sampling": "shuffle"}"#,
    )
    .unwrap();
    assert_eq!(
        (j.model, j.clipping, j.mode, j.sampling),
        (
            ModelKind::Mlp,
            Clipping::PerLayer,
            Mode::ClipOnly,
            Sampling::Shuffle
        )
    );
}

#[test]
fn json_fills_defaults_and_rejects_unknown_fields() {
    let c = RunConfig::from_json(r#"{"sigma": 2.5, "seed": 7}"#).unwrap();
    assert_eq!(c.sigma, 2.5);
    assert_eq!(c.seed, Some(7));
    assert_eq!(c.clip, RunConfig::default().clip);
    assert!(RunConfig::from_json(r#"{"sigmaa": 1}"#).is_err());
    assert!(RunConfig::from_json("not json").is_err());
}

#[test]
fn json_errors_name_the_field_in_plain_words() {
    // Pins in a link carry such values (#13): serde's "floating point `1e308`, expected usize"
    // must not reach the page.
    let msg = |text: &str| RunConfig::from_json(text).unwrap_err().to_string();
    assert_eq!(msg(r#"{"pca": 1e308}"#), "pca: pca = 1e308 is too large");
    assert_eq!(
        msg(r#"{"epochs": 2.5}"#),
        "epochs: epochs = 2.5 is not a whole number ≥ 0"
    );
    assert_eq!(
        msg(r#"{"lot_size": -3}"#),
        "lot_size: lot_size = -3 is not a whole number ≥ 0"
    );
    let unchecked_lot = RunConfig {
        lot_size: 0,
        ..RunConfig::default()
    };
    assert_eq!(
        unchecked_lot.validate(usize::MAX).unwrap_err().message,
        "lot size L must be at least 1"
    );
}

/// The field list the error messages name fields from is RunConfig's own (a field missing
/// from it was called an "unknown setting" when its value was wrong).
#[test]
fn the_field_list_is_every_field_of_the_config() {
    let every = RunConfig {
        groups: Some(crate::config::GroupBy::Sex),
        ..RunConfig::default()
    };
    let serde_json::Value::Object(fields) = serde_json::to_value(every).expect("serialises") else {
        panic!("an object")
    };
    let mut ours: Vec<&str> = super::validate::FIELDS.to_vec();
    let mut theirs: Vec<&str> = fields.keys().map(String::as_str).collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    assert_eq!(ours, theirs);
}
