//! Tests of the split and scaling: a public table's seeded split standardised on training
//! statistics, and a private file's split by coins, clipped to its bounds and never
//! standardised.

use super::*;
use crate::data::csv::parse_csv;

#[test]
fn split_is_seeded_and_disjoint_and_scaling_uses_train_statistics() {
    let text: String = std::iter::once("a,c,y\n".to_string())
        .chain((0..50).map(|i| format!("{},{},{}\n", i, if i % 2 == 0 { "u" } else { "v" }, i % 3)))
        .collect();
    let t = parse_csv(text.as_bytes(), "y").unwrap();
    let (tr, te) = split_table(&t, 0.2, 7);
    assert_eq!((tr.len(), te.len()), (40, 10));
    let (tr2, _) = split_table(&t, 0.2, 7);
    assert_eq!(tr.x, tr2.x, "same seed, same split");
    let mut all: Vec<Real> =
        tr.x.column(0)
            .iter()
            .chain(te.x.column(0).iter())
            .cloned()
            .collect();
    all.sort_by(|a, b| a.total_cmp(b));
    assert_eq!(
        all,
        (0..50).map(|i| i as Real).collect::<Vec<_>>(),
        "disjoint and complete"
    );
    let d = dataset_from_tables("t", t, None, Scale::Standard, 7);
    let col = d.train.x.column(0);
    let mean = col.sum() / col.len() as Real;
    let var = col.mapv(|v| (v - mean).powi(2)).sum() / col.len() as Real;
    assert!(
        mean.abs() < 1e-5 && (var - 1.0).abs() < 1e-4,
        "mean {mean} var {var}"
    );
    assert!(
        d.train.x.column(1).iter().all(|&v| v == 0.0 || v == 1.0),
        "one-hot untouched"
    );
}

#[test]
fn a_private_file_is_split_by_coins_clipped_to_its_bounds_and_never_standardised() {
    let text: String = std::iter::once("age,colour,y\n".to_string())
        .chain((0..500).map(|i| format!("{},{},{}\n", 17 + i % 80, ["r", "g"][i % 2], i % 3)))
        .collect();
    let t = parse_csv(text.as_bytes(), "y").unwrap();
    assert_eq!(t.columns, 2);
    let prep = PrivatePrep {
        stated: vec![("age".into(), Range { lo: 20.0, hi: 60.0 })],
        ..PrivatePrep::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let d = private_dataset("own", t.clone(), None, &prep, &mut rng).unwrap();
    assert!(
        d.private && d.releases.is_empty(),
        "stated bounds cost nothing"
    );
    let n = d.train.len() as f64;
    assert!((n / 500.0 - 0.8).abs() < 0.06, "{n} training rows");
    let s = 1.0 / (2.0 as Real).sqrt();
    // Ages below 20 clip to 0, above 60 to 1 (times 1/√2); one-hot stays 0 or 1/√2.
    assert!(d
        .train
        .x
        .column(0)
        .iter()
        .all(|&v| (0.0..=s + 1e-6).contains(&v)));
    assert!(d.train.x.iter().all(|&v| v.is_finite()));
    let norms_ok = d
        .train
        .x
        .rows()
        .into_iter()
        .all(|r| r.dot(&r) <= 1.0 + 1e-5);
    assert!(norms_ok, "every example has norm at most 1");
    // Without stated bounds the range is estimated, and that release is recorded.
    let d = private_dataset("own", t.clone(), None, &PrivatePrep::default(), &mut rng).unwrap();
    assert_eq!(d.releases.len(), 1);
    let bad = PrivatePrep {
        stated: vec![("colour".into(), Range { lo: 0.0, hi: 1.0 })],
        ..PrivatePrep::default()
    };
    let e = private_dataset("own", t, None, &bad, &mut rng)
        .unwrap_err()
        .error
        .0;
    assert!(
        e.contains("'colour', which is not a numeric column") && e.contains("age"),
        "{e}"
    );
    let tiny = parse_csv(b"a,y\n1,0\n2,1\n", "y").unwrap();
    let e = private_dataset("own", tiny, None, &PrivatePrep::default(), &mut rng)
        .unwrap_err()
        .error
        .0;
    assert!(e.contains("at least 10"), "{e}");
}
