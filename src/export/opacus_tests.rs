//! The Opacus script's text: every number in it is the run's own (change a setting, see it
//! change in the script), and what Opacus cannot express exactly is refused in one line.

use super::*;
use crate::data::builtin::load_builtin;
use crate::privacy::accountant::AccountErrorKind::UnknownName;

/// A change to a run's settings.
type Change = fn(&mut RunConfig);

fn blobs() -> Dataset {
    load_builtin("blobs", &[], 7, 0.1).expect("blobs")
}

fn base() -> RunConfig {
    RunConfig {
        dataset: "blobs".into(),
        seed: Some(3),
        lot_size: 60,
        epochs: 4,
        ..RunConfig::default()
    }
}

fn script_of(cfg: &RunConfig, data: ExportData<'_>) -> String {
    let facts = blobs().facts();
    let files = export_opacus(cfg, &facts, data, OpacusAccountant::Rdp).expect("exported");
    assert_eq!(files[0].name, SCRIPT_NAME);
    String::from_utf8(files[0].bytes.clone()).unwrap()
}

fn script(cfg: &RunConfig) -> String {
    script_of(cfg, ExportData::Prepared(&blobs()))
}

/// The Python literal a constant `NAME = value  # ...` is set to.
fn constant(script: &str, name: &str) -> String {
    let line = script
        .lines()
        .find(|l| l.starts_with(&format!("{name} = ")))
        .unwrap_or_else(|| panic!("no {name} in the script"));
    let value = &line[name.len() + 3..];
    value.split("  #").next().unwrap().trim().to_string()
}

fn number(script: &str, name: &str) -> f64 {
    constant(script, name).parse().unwrap()
}

#[test]
fn every_setting_reaches_the_script() {
    let n = blobs().train.len() as f64;
    let before = script(&base());
    // (what changes, the change, the constants that must move, and a check of their values)
    type Check = fn(&RunConfig, &str, f64);
    type Case = (&'static str, Change, &'static [&'static str], Check);
    let cases: Vec<Case> = vec![
        (
            "sigma",
            |c| c.sigma = 2.5,
            &["SIGMA", "NOISE_MULTIPLIER"],
            |c, s, _| {
                assert_eq!(number(s, "SIGMA"), c.sigma);
                assert_eq!(number(s, "NOISE_MULTIPLIER"), c.sigma);
            },
        ),
        (
            "clip",
            |c| c.clip = 0.7,
            &["CLIP"],
            |c, s, _| assert_eq!(number(s, "CLIP"), c.clip),
        ),
        (
            "lot size",
            |c| c.lot_size = 50,
            &["LOT_SIZE", "SAMPLE_RATE", "STEPS_PER_EPOCH"],
            |c, s, n| {
                assert_eq!(number(s, "LOT_SIZE"), c.lot_size as f64);
                assert_eq!(number(s, "SAMPLE_RATE"), c.lot_size as f64 / n);
                assert_eq!(
                    number(s, "STEPS_PER_EPOCH"),
                    (n / c.lot_size as f64).round()
                );
            },
        ),
        (
            "lr",
            |c| c.lr = 0.3,
            &["LR"],
            |c, s, _| assert_eq!(number(s, "LR"), c.lr),
        ),
        (
            "lr schedule",
            |c| {
                c.lr_end = Some(0.125);
                c.lr_decay_epochs = 3;
            },
            &["LR_END", "LR_DECAY_EPOCHS"],
            |c, s, _| {
                assert_eq!(number(s, "LR_END"), c.lr_end.unwrap());
                assert_eq!(number(s, "LR_DECAY_EPOCHS"), c.lr_decay_epochs as f64);
            },
        ),
        (
            "epochs",
            |c| c.epochs = 7,
            &["EPOCHS", "TOTAL_STEPS"],
            |c, s, _| {
                assert_eq!(number(s, "EPOCHS"), c.epochs as f64);
                let t = number(s, "EPOCHS") * number(s, "STEPS_PER_EPOCH");
                assert_eq!(number(s, "TOTAL_STEPS"), t);
            },
        ),
        (
            "delta",
            |c| c.delta = 1e-7,
            &["DELTA"],
            |c, s, _| assert_eq!(number(s, "DELTA"), c.delta),
        ),
        (
            "seed",
            |c| c.seed = Some(99),
            &["SEED"],
            |c, s, _| assert_eq!(number(s, "SEED"), c.seed.unwrap() as f64),
        ),
        (
            "model",
            |c| {
                c.model = ModelKind::Mlp;
                c.hidden = vec![16, 9];
            },
            &["MODEL", "HIDDEN"],
            |_, s, _| {
                assert_eq!(constant(s, "MODEL"), "\"mlp\"");
                assert_eq!(constant(s, "HIDDEN"), "[16, 9]");
            },
        ),
        (
            "per-layer clipping",
            |c| {
                c.model = ModelKind::Mlp;
                c.hidden = vec![16];
                c.clipping = Clipping::PerLayer;
                c.clip = 3.0;
            },
            &["CLIPPING", "LAYER_CLIPS", "NOISE_MULTIPLIER"],
            |c, s, _| {
                assert_eq!(constant(s, "CLIPPING"), "\"per_layer\"");
                let each = c.clip / 2f64.sqrt();
                assert_eq!(constant(s, "LAYER_CLIPS"), format!("[{each:?}, {each:?}]"));
                assert!((number(s, "NOISE_MULTIPLIER") - c.sigma / 2f64.sqrt()).abs() < 1e-12);
            },
        ),
        (
            "budget",
            |c| {
                c.epochs = 400;
                c.budget_epsilon = Some(3.0);
            },
            &["EPOCHS", "TOTAL_STEPS"],
            |c, s, _| {
                let steps = number(s, "TOTAL_STEPS");
                assert!(steps > 0.0 && steps < c.epochs as f64 * number(s, "STEPS_PER_EPOCH"));
            },
        ),
    ];
    for (what, change, moved, check) in cases {
        let mut cfg = base();
        change(&mut cfg);
        let after = script(&cfg);
        for name in moved {
            assert_ne!(
                constant(&before, name),
                constant(&after, name),
                "{what}: {name}"
            );
        }
        check(&cfg, &after, n);
    }
}

#[test]
fn the_accountant_is_opacuss_rdp_or_prv() {
    let facts = blobs().facts();
    let prv = export_opacus(
        &base(),
        &facts,
        ExportData::Prepared(&blobs()),
        OpacusAccountant::Prv,
    )
    .unwrap();
    let prv = String::from_utf8(prv[0].bytes.clone()).unwrap();
    assert_eq!(constant(&prv, "ACCOUNTANT"), "\"prv\"");
    assert_eq!(number(&prv, "PRV_EPS_ERROR"), PRV_EPS_ERROR);
    let rdp = script(&base());
    assert_eq!(constant(&rdp, "ACCOUNTANT"), "\"rdp\"");
    // Opacus's RDP minimises over the lab's orders, not its own (which stop at 63).
    let orders = constant(&rdp, "RDP_ORDERS");
    let orders: Vec<f64> = orders[1..orders.len() - 1]
        .split(", ")
        .map(|a| a.parse().unwrap())
        .collect();
    assert_eq!(orders, crate::privacy::accountant::rdp::default_orders());
    let e = OpacusAccountant::parse("pld").unwrap_err();
    assert_eq!((e.kind, e.argument), (UnknownName, Some("accountant")));
    assert!(e.message.contains("rdp or prv"), "{e}");
}

#[test]
fn the_prepared_data_is_written_beside_the_script() {
    let data = blobs();
    let files = export_opacus(
        &base(),
        &data.facts(),
        ExportData::Prepared(&data),
        OpacusAccountant::Rdp,
    )
    .unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, [SCRIPT_NAME, "train.csv", "test.csv"]);
    let rows = |i: usize| String::from_utf8_lossy(&files[i].bytes).lines().count() - 1;
    assert_eq!((rows(1), rows(2)), (data.train.len(), data.test.len()));
    assert_eq!(
        constant(&script(&base()), "N_TRAIN"),
        data.train.len().to_string()
    );
}

#[test]
fn dp_pca_is_named_with_its_epsilon_and_images_read_their_basis() {
    let mut cfg = base();
    cfg.pca = Some(2);
    let words = |sigma: f64| {
        let mut c = cfg.clone();
        c.pca_sigma = sigma;
        let s = script(&c);
        s.lines()
            .find(|l| l.starts_with("Releases before training"))
            .unwrap()
            .to_string()
    };
    let (seven, three) = (words(7.0), words(3.0));
    assert!(
        seven.contains("DP-PCA") && seven.contains("epsilon = "),
        "{seven}"
    );
    assert_ne!(seven, three, "the ε named follows σ_p");
    assert!(script(&base()).contains("Releases before training: none."));

    let p = Projection {
        basis: ndarray::Array2::from_elem((4, 2), 0.5),
        sample_size: 10,
    };
    let images = ExportData::Images {
        dataset: "mnist",
        projection: Some(&p),
    };
    let facts = blobs().facts();
    let files = export_opacus(&cfg, &facts, images, OpacusAccountant::Rdp).unwrap();
    assert_eq!(files[1].name, "pca_basis.csv");
    assert_eq!(String::from_utf8_lossy(&files[1].bytes).lines().count(), 4);
    let s = String::from_utf8(files[0].bytes.clone()).unwrap();
    assert_eq!(constant(&s, "DATA"), "\"idx\"");
    assert!(constant(&s, "IDX_FILES").contains("mnist-train-images"));
}

#[test]
fn ones_own_file_is_exported_as_its_prepared_rows_and_called_private() {
    let mut own = blobs();
    own.private = true;
    let files = export_opacus(
        &base(),
        &own.facts(),
        ExportData::Prepared(&own),
        OpacusAccountant::Rdp,
    )
    .expect("exported");
    let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, [SCRIPT_NAME, "train.csv", "test.csv"]);
    let rows = |i: usize| String::from_utf8_lossy(&files[i].bytes).lines().count() - 1;
    assert_eq!((rows(1), rows(2)), (own.train.len(), own.test.len()));
    let s = String::from_utf8(files[0].bytes.clone()).unwrap();
    assert_eq!(constant(&s, "DATA"), "\"csv\"");
    assert_eq!(constant(&s, "DATASET"), "\"own\""); // not the config's default set
    assert!(
        s.contains("your private data itself") && s.contains("share neither"),
        "the header says what the two files are"
    );
}

/// Every placeholder's name as user text (a class column, a feature's name) stays that text:
/// the template is filled in one pass, so no value is read again as a placeholder.
#[test]
fn a_value_naming_a_placeholder_is_written_as_it_is() {
    let names = [
        "OPACUS_VERSION",
        "SCRIPT_NAME",
        "USAGE_ARGS",
        "RUN_IN_WORDS",
        "DATA_IN_WORDS",
        "BEFORE_IN_WORDS",
        "ACCOUNTANT",
        "DATA_KIND",
        "DATASET",
        "IDX_FILES",
        "PCA_BASIS",
        "MODEL",
        "HIDDEN",
        "N_TRAIN",
        "LOT_SIZE",
        "SAMPLE_RATE",
        "STEPS_PER_EPOCH",
        "EPOCHS",
        "TOTAL_STEPS",
        "SIGMA",
        "CLIPPING",
        "CLIP",
        "LAYER_CLIPS",
        "NOISE_MULTIPLIER",
        "LR",
        "LR_END",
        "LR_DECAY_EPOCHS",
        "DELTA",
        "ACCOUNTANT_NAME",
        "RDP_ORDERS",
        "PRV_EPS_ERROR",
        "SEED",
        "CLASSES",
    ];
    let values: Vec<(&str, String)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, format!("\"@{}@\"", names[(i + 1) % names.len()])))
        .collect();
    let filled = fill(TEMPLATE, &values);
    for (i, n) in names.iter().enumerate() {
        let next = names[(i + 1) % names.len()];
        assert!(
            filled.contains(&format!("\"@{next}@\"")),
            "{n} keeps its value"
        );
    }
    assert!(filled.contains("train[0] @ basis"), "Python's @ is kept");
    // The real export: class names are user text (a file's class column's values).
    let mut own = blobs();
    own.class_names = vec!["@MODEL@".into(), "@SEED@\"".into()];
    let s = script_of(&base(), ExportData::Prepared(&own));
    assert_eq!(constant(&s, "CLASSES"), r#"["@MODEL@", "@SEED@\""]"#);
    assert_eq!(constant(&s, "MODEL"), "\"logistic\"");
    assert_eq!(constant(&s, "SEED"), "3");
}

#[test]
fn a_placeholder_without_a_value_and_a_value_without_a_placeholder_are_caught() {
    assert!(std::panic::catch_unwind(|| fill("a @NOPE@ b", &[])).is_err());
    assert!(std::panic::catch_unwind(|| fill("a b", &[("SEED", "1".into())])).is_err());
    assert_eq!(fill("a @SEED@ b @ c", &[("SEED", "1".into())]), "a 1 b @ c");
}

#[test]
fn what_opacus_cannot_express_is_refused_in_one_line() {
    let refused: Vec<(&str, Change)> = vec![
        ("non-private", |c| c.mode = Mode::NonPrivate),
        ("clip only", |c| c.mode = Mode::ClipOnly),
        ("noise only", |c| c.mode = Mode::NoiseOnly),
        ("σ = 0", |c| c.sigma = 0.0),
        ("shuffled lots", |c| c.sampling = Sampling::Shuffle),
        ("adaptive clipping", |c| c.clip_quantile = Some(0.9)),
        ("a released count", |c| c.count_noise = Some(5.0)),
        ("unequal layer bounds", |c| {
            c.model = ModelKind::Mlp;
            c.clipping = Clipping::PerLayer;
            c.layer_clips = Some(vec![1.0, 2.0]);
        }),
    ];
    let facts = blobs().facts();
    for (what, change) in refused {
        let mut cfg = base();
        change(&mut cfg);
        let why = export_opacus(
            &cfg,
            &facts,
            ExportData::Prepared(&blobs()),
            OpacusAccountant::Rdp,
        )
        .expect_err(what);
        assert!(!why.is_empty() && !why.contains('\n'), "{what}: {why}");
        assert_eq!(refusal(&cfg), Some(why));
    }
    let mut equal = base();
    equal.model = ModelKind::Mlp;
    equal.clipping = Clipping::PerLayer;
    equal.layer_clips = Some(vec![1.5, 1.5]);
    assert_eq!(
        refusal(&equal),
        None,
        "equal per-layer bounds map one to one"
    );
    assert_eq!(refusal(&base()), None);
}
