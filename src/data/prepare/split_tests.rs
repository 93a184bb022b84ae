//! Tests of the split and scaling: a public table's seeded split standardised on training
//! statistics, and a private file's split by coins, clipped to its bounds and never
//! standardised.

use super::*;
use crate::data::csv::parse_csv;
use crate::data::prepare::stated::stated_with;

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
        .message;
    assert!(
        e.contains("'colour', which is not a numeric column") && e.contains("age"),
        "{e}"
    );
    let tiny = parse_csv(b"a,y\n1,0\n2,1\n", "y").unwrap();
    let e = private_dataset("own", tiny, None, &PrivatePrep::default(), &mut rng)
        .unwrap_err()
        .error
        .message;
    assert!(e.contains("at least 10"), "{e}");
}

/// A table of `rows` rows and `columns` numeric columns c0, c1, … (values 100 to 199) and a
/// label y.
fn numeric_table(rows: usize, columns: usize) -> Table {
    let head: Vec<String> = (0..columns).map(|j| format!("c{j}")).collect();
    let text: String = std::iter::once(format!("{},y\n", head.join(",")))
        .chain((0..rows).map(|i| {
            let cells: Vec<String> = (0..columns)
                .map(|j| (100 + (i * 7 + j) % 100).to_string())
                .collect();
            format!("{},{}\n", cells.join(","), i % 2)
        }))
        .collect();
    parse_csv(text.as_bytes(), "y").unwrap()
}

#[test]
fn a_file_too_small_for_the_private_estimate_is_refused_before_anything_is_released() {
    // 200 rows, 30 columns (the breast cancer data's shape): about 160 training rows, where the
    // estimate of 30 columns together needs ⌈7.65 · 5 · √30⌉ = 210 even at best.
    assert_eq!(bounds::rows_needed(30, 5.0), 210);
    assert_eq!(bounds::rows_needed(0, 5.0), 0);
    let t = numeric_table(200, 30);
    let prep = PrivatePrep {
        stated: vec![("c3".into(), Range { lo: 0.0, hi: 300.0 })],
        ..PrivatePrep::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let e = private_dataset("own", t.clone(), None, &prep, &mut rng).unwrap_err();
    assert!(e.spent.is_empty(), "nothing released: {e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("200 rows (about 160 for training) are too few to estimate the ranges of 29 numeric columns")
            && msg.contains("Nothing was released")
            && msg.contains("'c0', 'c1'")
            && msg.contains("and 9 more")
            && !msg.contains("'c3'"),
        "{msg}"
    );
    let needs = e.ranges.expect("the columns for the form");
    assert!(!needs.estimated);
    assert_eq!(
        (needs.rows, needs.columns.len()),
        (200, 30),
        "every numeric column"
    );
    assert_eq!(
        needs.rows_needed, 258,
        "⌈206 / 0.8⌉: the rows a file needs for 206 training rows"
    );
    assert_eq!(
        needs.columns[3].range,
        Some(Range { lo: 0.0, hi: 300.0 }),
        "the stated range, filled in"
    );
    assert!(needs
        .columns
        .iter()
        .enumerate()
        .all(|(j, c)| c.name == format!("c{j}") && (j == 3) == c.range.is_some()));
    // Ranges for all 30: no estimate, no release, and the file loads.
    let all = PrivatePrep {
        stated: (0..30)
            .map(|j| {
                (
                    format!("c{j}"),
                    Range {
                        lo: 100.0,
                        hi: 200.0,
                    },
                )
            })
            .collect(),
        ..PrivatePrep::default()
    };
    let d = private_dataset("own", t.clone(), None, &all, &mut rng).unwrap();
    assert!(d.releases.is_empty());
    // The same ranges read off the file: a release without noise, so ε = ∞ from then on.
    let read_off = PrivatePrep {
        read_off: true,
        ..all
    };
    let d = private_dataset("own", t, None, &read_off, &mut rng).unwrap();
    assert_eq!(
        d.releases,
        vec![Release {
            what: ReleaseKind::ReadOff,
            q: 1.0,
            sigma: 0.0
        }]
    );
    // One column, 60 rows (48 for training) clears the 39 the estimate needs: it is made.
    let d = private_dataset(
        "own",
        numeric_table(60, 1),
        None,
        &PrivatePrep::default(),
        &mut rng,
    )
    .unwrap();
    assert_eq!(d.releases.len(), 1);
}

#[test]
fn an_estimate_that_finds_nothing_names_every_such_column_and_its_release() {
    // 120 rows: c0 in one power of two; s1 and s2 each value in a power of two of its own.
    let text: String = std::iter::once("c0,s1,s2,y\n".to_string())
        .chain((0..120).map(|i| {
            format!(
                "{},{},{},{}\n",
                100 + i % 20,
                2f64.powi(i - 60),
                2f64.powi(60 - i),
                i % 2
            )
        }))
        .collect();
    let t = parse_csv(text.as_bytes(), "y").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let e = private_dataset("own", t, None, &PrivatePrep::default(), &mut rng).unwrap_err();
    assert_eq!(e.spent.len(), 1, "the histograms were released");
    let msg = e.to_string();
    assert!(
        msg.starts_with("columns 's1', 's2': too few rows to estimate their ranges privately"),
        "{msg}"
    );
    assert!(
        msg.contains("This attempt already released the noisy histograms"),
        "{msg}"
    );
    let needs = e.ranges.unwrap();
    assert!(
        needs.estimated
            && needs.columns.len() == 3
            && needs.columns.iter().all(|c| c.range.is_none())
    );
}

#[test]
fn the_forms_ranges_join_the_text_fields_and_are_checked_alike() {
    let given = vec![("a,b".to_string(), 0.0, 1.0), ("x".to_string(), -1.0, 2.0)];
    let s = stated_with("x=0:1, y=3:4", &given).unwrap();
    assert_eq!(s.len(), 3);
    assert_eq!(
        s[0],
        ("x".into(), Range { lo: -1.0, hi: 2.0 }),
        "the form's is the later word"
    );
    assert_eq!(
        s[2],
        ("a,b".into(), Range { lo: 0.0, hi: 1.0 }),
        "any name, commas too"
    );
    let twice = vec![("x".to_string(), 0.0, 1.0), ("x".to_string(), 0.0, 2.0)];
    assert!(stated_with("", &twice)
        .unwrap_err()
        .message
        .contains("twice"));
    let bad = vec![("x".to_string(), 2.0, 1.0)];
    assert!(stated_with("", &bad).unwrap_err().message.contains("below"));
    let nan = vec![("x".to_string(), f64::NAN, 1.0)];
    assert!(stated_with("", &nan).is_err());
}

#[test]
fn a_noise_multiplier_outside_its_range_is_refused_before_anything_is_drawn_or_released() {
    let (lo, hi) = bounds::BOUNDS_NOISE_RANGE;
    let t = numeric_table(2000, 2);
    for bad in [0.0, lo / 2.0, hi * 2.0, -1.0, f64::NAN, f64::INFINITY] {
        let prep = PrivatePrep {
            bounds_noise: bad,
            ..PrivatePrep::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let e = private_dataset("own", t.clone(), None, &prep, &mut rng).unwrap_err();
        assert!(e.spent.is_empty(), "{bad}: nothing released");
        assert!(
            e.to_string()
                .contains(&format!("must be from {lo} to {hi}")),
            "{bad}: {e}"
        );
        let fresh = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(
            rng.get_word_pos(),
            fresh.get_word_pos(),
            "{bad}: nothing drawn"
        );
    }
    // The range's ends are taken (at 1000 these rows are too few for the estimate: said so).
    for good in [lo, bounds::DEFAULT_BOUNDS_NOISE, hi] {
        let prep = PrivatePrep {
            bounds_noise: good,
            ..PrivatePrep::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        if let Err(e) = private_dataset("own", t.clone(), None, &prep, &mut rng) {
            assert!(!e.to_string().contains("must be from"), "{good}: {e}");
            assert!(e.to_string().contains("too few"), "{good}: {e}");
        }
    }
}
