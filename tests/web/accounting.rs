//! The accountants in wasm: the analytic ones against the reference table, PLD and
//! calibration through the page's entry points (with ε's formatting), and the worst-case audit
//! against the trade-off curve.

use super::{adult_facts, config, reference};
use dpsgd_lab::config::RunConfig;
use dpsgd_lab::privacy::accountant::Amplification;
use dpsgd_lab::privacy::accountant::SampledGaussian;
use dpsgd_lab::web::{calibrate, epsilon_for, format_epsilon, preview_keys};
use std::sync::Arc;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

const ACCOUNTANTS: &str = include_str!("../fixtures/reference/accountants.csv");

#[wasm_bindgen_test]
fn accountants_match_the_reference_table_in_wasm() {
    let mut lines = ACCOUNTANTS.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let mut rows = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let v = |n: &str| f[col(n)].parse::<f64>().unwrap();
        let m = SampledGaussian::new(v("q"), v("sigma"), v("steps") as u64).unwrap();
        // The analytic accountants (PLD has a test of its own).
        let analytic = [
            "naive_paper",
            "naive_rigorous",
            "strong_paper",
            "moments",
            "rdp",
        ];
        for (name, ours, tol) in reference::COLUMNS {
            if !analytic.contains(&name) {
                continue;
            }
            let ours = ours.epsilon(&m, v("delta"));
            assert!(
                (ours - v(name)).abs() <= tol * v(name),
                "{name} row {line}: {ours}"
            );
        }
        rows += 1;
    }
    assert!(rows >= 20);
}

#[wasm_bindgen_test]
fn pld_and_calibration_in_wasm() {
    // Reference row q = 0.06, σ = 4, T = 17 (pld 0.227415).
    let pld = epsilon_for("pld", "rigorous", 0.06, 4.0, 17.0, 1e-5).unwrap();
    assert!((pld / 0.227415 - 1.0).abs() < 0.02, "pld {pld}");
    // Calibration of the page's default run: σ rounded up, its ε within the target.
    let cfg = RunConfig {
        epochs: 5,
        ..RunConfig::default()
    };
    let r = calibrate(config(cfg.clone()), adult_facts(), "rdp", 1.5).unwrap();
    let sigma = js_sys::Reflect::get(&r, &"sigma".into())
        .unwrap()
        .as_f64()
        .unwrap();
    let eps = js_sys::Reflect::get(&r, &"epsilon".into())
        .unwrap()
        .as_f64()
        .unwrap();
    assert!(eps <= 1.5 && eps > 1.45, "σ {sigma} spends {eps}");
    assert_eq!(
        format!("{sigma:.4}").parse::<f64>().unwrap(),
        sigma,
        "4 decimals"
    );
    assert_eq!(
        epsilon_for("moments", "rigorous", 0.01, 0.0, 100.0, 1e-5).unwrap(),
        f64::INFINITY
    );
    assert!(epsilon_for("moments", "rigorous", 1.5, 1.0, 100.0, 1e-5).is_err());
    assert!(epsilon_for("bogus", "rigorous", 0.1, 1.0, 100.0, 1e-5).is_err());
    assert!(calibrate(config(cfg), JsValue::from_str("not facts"), "rdp", 1.5).is_err());
    assert_eq!(format_epsilon(JsValue::from_str("inf")), "∞");
    assert_eq!(format_epsilon(JsValue::from_f64(1.4996)), "1.500");
    assert_eq!(
        format_epsilon(JsValue::from_f64(1.5001)),
        "1.501",
        "rounded up, never down"
    );
    assert_eq!(format_epsilon(JsValue::from_f64(999_999.2)), "1000000");
    assert_eq!(
        format_epsilon(JsValue::from_f64(50_555_480_321.0)),
        "5.06e10"
    );
    assert_eq!(
        format_epsilon(JsValue::from_f64(9.999e7)),
        "1.00e8",
        "up across a power of ten"
    );
    assert_eq!(format_epsilon(JsValue::from_f64(2e6)), "2.00e6");
}

#[wasm_bindgen_test]
fn the_worst_case_audit_meets_the_trade_off_curve_in_wasm() {
    use dpsgd_lab::audit::{summarize, AuditPlan, AuditSpec, Threat};
    // Full batch (q = 1), σ = 1, 2 steps: the μ-GDP curve (μ = √2); 40 runs a side (the
    // debug build of the wasm tests is slow; tests/audit.rs does 1000 natively).
    let data = Arc::new(dpsgd_lab::data::builtin::load_builtin("blobs", &[], 0, 0.1).unwrap());
    let cfg = RunConfig {
        sigma: 1.0,
        lot_size: 600,
        epochs: 2,
        dataset: "blobs".into(),
        ..RunConfig::default()
    };
    let spec = AuditSpec {
        threat: Threat::WorstCase,
        runs: 40,
        canaries: 0,
        seed: 4,
        fault: Default::default(),
        alice: None,
    };
    let plan = AuditPlan::new(cfg, data, spec).unwrap();
    let runs = plan.run_all(&mut |_, _| {}).unwrap();
    let r = summarize(&plan, &runs);
    let pld = r.eps_upper["pld"];
    assert!(r.eps_lower <= pld, "ε_lower {} vs PLD {pld}", r.eps_lower);
    for f in ["0.1", "0.2"] {
        assert!(
            (r.tpr_at_fpr[f] - r.theory_tpr_at_fpr[f]).abs() < 0.2,
            "FPR {f}: {} vs {}",
            r.tpr_at_fpr[f],
            r.theory_tpr_at_fpr[f]
        );
    }
}

/// The previews' keys follow the mechanism (#54 §3): C, η, the seed and the amplification
/// convention leave both as they are; σ moves the PLD curve's but not the σ panel's (its
/// unknown); L, the epochs and δ move both.
#[wasm_bindgen_test]
fn preview_keys_change_with_the_mechanism_only() {
    let keys = |cfg: RunConfig| {
        let k = preview_keys(config(cfg), adult_facts()).unwrap();
        let get = |name: &str| {
            js_sys::Reflect::get(&k, &name.into())
                .unwrap()
                .as_string()
                .unwrap()
        };
        (get("pld"), get("sigma_panel"))
    };
    let base = RunConfig::default();
    let (pld, panel) = keys(base.clone());
    let same = [
        RunConfig {
            clip: base.clip * 3.0,
            ..base.clone()
        },
        RunConfig {
            lr: base.lr / 2.0,
            ..base.clone()
        },
        RunConfig {
            seed: Some(12345),
            ..base.clone()
        },
        RunConfig {
            amplification: Amplification::Paper,
            ..base.clone()
        },
    ];
    for cfg in same {
        assert_eq!(keys(cfg), (pld.clone(), panel.clone()));
    }
    let sigma = keys(RunConfig {
        sigma: base.sigma * 2.0,
        ..base.clone()
    });
    assert!(sigma.0 != pld && sigma.1 == panel, "σ: {sigma:?}");
    let moved = [
        RunConfig {
            lot_size: base.lot_size * 2,
            ..base.clone()
        },
        RunConfig {
            epochs: base.epochs + 1,
            ..base.clone()
        },
        RunConfig {
            delta: base.delta / 10.0,
            ..base.clone()
        },
    ];
    for cfg in moved {
        let (p, s) = keys(cfg);
        assert!(p != pld && s != panel);
    }
}
