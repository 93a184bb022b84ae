//! Who pays for privacy (#41, 1): `--groups` adds each group's sizes and test accuracy to every
//! report, the same as a direct computation on the group's test rows; refused on a file of
//! one's own and for a column the data set does not have.

mod common;

use dpsgd_lab::config::{GroupBy, RunConfig};
use dpsgd_lab::model::{evaluate, Model};
use dpsgd_lab::train::Trainer;
use std::sync::Arc;

#[test]
fn per_group_accuracy_is_the_accuracy_on_each_groups_test_rows() {
    let data = common::adult();
    let cfg = RunConfig {
        epochs: 1,
        seed: Some(3),
        groups: Some(GroupBy::Sex),
        ..RunConfig::default()
    };
    let mut t = Trainer::new(cfg, Arc::clone(&data)).expect("a valid run");
    let report = t.run_epoch().expect("an epoch");
    let groups = report.groups.expect("groups in the report");
    let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["Female", "Male"]);
    let column = |name: &str| {
        data.feature_names
            .iter()
            .position(|f| f == &format!("sex={name}"))
            .expect("a sex column")
    };
    let mut n_train = 0;
    for g in &groups {
        let j = column(&g.name);
        let rows: Vec<usize> = (0..data.test.len())
            .filter(|&i| data.test.x[[i, j]] > 0.0)
            .collect();
        let train = (0..data.train.len())
            .filter(|&i| data.train.x[[i, j]] > 0.0)
            .count();
        let x = data.test.x.select(ndarray::Axis(0), &rows);
        let y: Vec<usize> = rows.iter().map(|&i| data.test.y[i]).collect();
        let (_, acc) = evaluate(t.model(), x.view(), &y);
        assert_eq!((g.n_test, g.n_train), (rows.len(), train), "{}", g.name);
        assert_eq!(g.test_acc, Some(acc), "{}", g.name);
        n_train += g.n_train;
    }
    assert_eq!(n_train, data.train.len(), "every training row in one group");
    // The overall accuracy is the groups' weighted by their test sizes.
    let weighted: f64 = groups
        .iter()
        .map(|g| g.test_acc.unwrap() * g.n_test as f64)
        .sum::<f64>()
        / data.test.len() as f64;
    assert!((weighted - report.test_acc.unwrap()).abs() < 1e-9);
    assert!(t.model().params().iter().all(|v| v.is_finite()));
}

#[test]
fn the_cli_reports_groups_and_refuses_a_column_the_data_has_not() {
    let (code, out, err) =
        common::dpsgd(&["train", "--epochs", "1", "--seed", "1", "--groups", "race"]);
    assert_eq!(code, Some(0), "{err}");
    let report: serde_json::Value =
        serde_json::from_str(out.lines().next().expect("a report")).expect("JSON");
    let groups = report["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 5, "{groups:?}");
    for g in groups {
        for key in ["name", "n_train", "n_test", "test_acc"] {
            assert!(g.get(key).is_some(), "{key} in {g}");
        }
    }
    // The sizes are counted without noise: outside ε, so listed (the accuracies are not).
    let outside: Vec<&str> = report["not_private"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        outside.contains(&"groups.n_train") && outside.contains(&"groups.n_test"),
        "{outside:?}"
    );
    assert!(!outside.contains(&"groups"), "{outside:?}");
    let classes = common::dpsgd(&[
        "train",
        "--dataset",
        "blobs",
        "--epochs",
        "1",
        "--groups",
        "class",
    ]);
    assert_eq!(classes.0, Some(0), "{}", classes.2);
    // A name that is no grouping, a prototype key, an empty one: the setting is named.
    for bad in ["__proto__", "", "sexes"] {
        let e = common::refused(&["train", "--groups", bad]);
        assert!(
            e.contains("groups") && !e.contains("unknown setting"),
            "{e}"
        );
    }
    let refused = common::refused(&["train", "--dataset", "blobs", "--groups", "sex"]);
    assert!(refused.contains("no 'sex' column"), "{refused}");
}

#[test]
fn a_file_of_ones_own_gets_no_groups() {
    use dpsgd_lab::data::builtin::load_builtin;
    let mut own = load_builtin("blobs", &[], 0, 0.1).expect("blobs");
    own.private = true;
    let cfg = RunConfig {
        dataset: "blobs".into(),
        groups: Some(GroupBy::Class),
        ..RunConfig::default()
    };
    let err = Trainer::new(cfg, Arc::new(own)).err().expect("refused");
    assert_eq!(err.field, "groups");
    assert!(
        err.message.contains("private rows without noise"),
        "{}",
        err.message
    );
}

#[test]
fn the_groupings_offered_are_those_the_data_sets_have() {
    use dpsgd_lab::train::groups::Groups;
    for name in ["adult", "mnist", "breast-cancer", "blobs"] {
        let data = common::builtin(name, 1);
        for by in GroupBy::ALL {
            let offered = GroupBy::offered(name).contains(&by);
            assert_eq!(Groups::of(&data, by).is_ok(), offered, "{name} by {by:?}");
        }
    }
    assert!(GroupBy::offered("own").is_empty());
    assert!(GroupBy::offered("__proto__").is_empty());
}

#[test]
fn what_eps_covers_names_the_groups_accuracy_and_their_public_sizes() {
    let (code, out, err) = common::dpsgd(&["coverage", "--groups", "race"]);
    assert_eq!(code, Some(0), "{err}");
    let c: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let has = |list: &str, part: &str| {
        c[list]
            .as_array()
            .expect("a list")
            .iter()
            .any(|s| s.as_str().is_some_and(|s| s.contains(part)))
    };
    assert!(
        has("covered", "Each group's test accuracy (by race)"),
        "{c}"
    );
    assert!(
        has(
            "outside",
            "Each group's size in the training data (by race): a public fact"
        ),
        "{c}"
    );
    let (_, plain, _) = common::dpsgd(&["coverage"]);
    assert!(!plain.contains("group"), "{plain}");
}

/// The "Who pays for privacy?" lesson's settings (www/lessons/lesson-who-pays.js): MNIST by class,
/// non-private against DP-SGD with the same seed. The gap between the best and the worst class
/// widens under DP-SGD, and the class that loses most is the rarest in the training data.
#[test]
fn at_the_lessons_settings_dp_sgd_widens_the_gap_and_the_rarest_class_pays_most() {
    use dpsgd_lab::charts::groups::{compare, RunGroups};
    use dpsgd_lab::config::Mode;
    let data = common::builtin("mnist", 1);
    let run = |mode: Mode| {
        let cfg = RunConfig {
            dataset: "mnist".into(),
            sigma: 2.0,
            lr: 0.5,
            lot_size: 256,
            epochs: 5,
            seed: Some(1),
            mode,
            groups: Some(GroupBy::Class),
            ..RunConfig::default()
        };
        let mut t = Trainer::new(cfg, Arc::clone(&data)).expect("a valid run");
        (0..5)
            .map(|_| t.run_epoch().expect("an epoch").groups)
            .collect::<Vec<_>>()
    };
    let (np, dp) = (run(Mode::NonPrivate), run(Mode::Dp));
    let runs = [(Mode::NonPrivate, &np), (Mode::Dp, &dp)].map(|(mode, h)| RunGroups {
        mode: Some(mode),
        epochs: h.iter().map(Option::as_deref).collect(),
    });
    let c = compare(&runs).expect("compared");
    println!("{c:?}");
    assert!(c.gap_dp > c.gap_non_private + 10.0, "{c:?}");
    // Beyond its ± on MNIST's test images (the lesson's "widens" is said only so, #53 §2).
    assert!(c.gap_widened_clear, "{c:?}");
    assert_eq!(c.most_lost, c.rarest, "{c:?}");
    // Ahead of the next class's fall beyond chance: the lesson's "loses most" (a ranking).
    assert!(c.most_lost_ahead_clear, "{c:?}");
}

/// What the lesson says of Adult: at the default settings (σ = 1, seed 1) DP-SGD moves every
/// race and sex group's test accuracy by under a point against non-private training — why the
/// lesson shows the effect on MNIST instead.
#[test]
fn on_adult_at_the_defaults_dp_sgd_barely_moves_any_group() {
    use dpsgd_lab::config::Mode;
    let data = common::adult();
    for by in [GroupBy::Race, GroupBy::Sex] {
        let last = |mode: Mode| {
            let cfg = RunConfig {
                seed: Some(1),
                mode,
                groups: Some(by),
                ..RunConfig::default()
            };
            let mut t = Trainer::new(cfg, Arc::clone(&data)).expect("a valid run");
            let mut groups = None;
            for _ in 0..20 {
                groups = t.run_epoch().expect("an epoch").groups;
            }
            groups.expect("groups")
        };
        let (np, dp) = (last(Mode::NonPrivate), last(Mode::Dp));
        for (a, b) in np.iter().zip(&dp) {
            let fall = 100.0 * (a.test_acc.unwrap() - b.test_acc.unwrap());
            println!("{by:?} {}: {fall:+.2} points", a.name);
            assert!(fall.abs() < 1.0, "{by:?} {}: {fall}", a.name);
            // Nor beyond the noise of the group's test rows: the lesson's last step says so.
            let gap = dpsgd_lab::train::gap::accuracy_gap(
                b.test_acc.unwrap(),
                a.test_acc.unwrap(),
                a.n_test,
            );
            assert!(!gap.unwrap().clear, "{by:?} {}: {gap:?}", a.name);
        }
    }
}
