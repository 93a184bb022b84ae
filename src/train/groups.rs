//! Who pays for privacy: test accuracy per group (Bagdasaryan, Poursaeed & Shmatikov 2019,
//! "Differential Privacy Has Disparate Impact on Model Accuracy"). DP-SGD's clipping and noise
//! cost the groups that are rare in the data most; the report shows each group's size in the
//! training data beside its test accuracy, epoch by epoch.
//!
//! Groups are Adult's `sex` or `race` (read off the one-hot columns of the features, before any
//! DP-PCA) or the class, on the built-in data sets only: their test set is public, so the
//! per-group accuracy is a function of the released model and a public set (covered), and the
//! training-set group sizes are a public fact of a public data set. On a file of one's own the
//! groups of its private rows would be released without noise: refused.

use crate::config::{ConfigError, GroupBy};
use crate::data::{Dataset, Split};
use crate::model::{evaluate, Mlp};
use ndarray::Axis;
use serde::{Deserialize, Serialize};

/// One group's line of an epoch's report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupAccuracy {
    pub name: String,
    /// Rows of the group in the training set and in the test set.
    pub n_train: usize,
    pub n_test: usize,
    /// The model's accuracy on the group's test rows (None: the group has none).
    pub test_acc: Option<f64>,
}

/// The groups of a data set: their names, training sizes and test rows.
#[derive(Clone, Debug)]
pub struct Groups {
    names: Vec<String>,
    n_train: Vec<usize>,
    /// The test rows of each group.
    test_rows: Vec<Vec<usize>>,
}

/// The group of each row of `split`: the one-hot column (of `columns`) that is largest.
fn assign(split: &Split, columns: &[usize]) -> Vec<usize> {
    split
        .x
        .rows()
        .into_iter()
        .map(|row| {
            (0..columns.len())
                .max_by(|&a, &b| row[columns[a]].total_cmp(&row[columns[b]]))
                .unwrap_or(0)
        })
        .collect()
}

impl Groups {
    /// The groups of `data` by `by`, or why there are none.
    pub fn of(data: &Dataset, by: GroupBy) -> Result<Groups, ConfigError> {
        let refuse = |message: String| ConfigError {
            field: "groups",
            message,
        };
        if data.private {
            return Err(refuse(
                "per-group accuracy is for the built-in data sets: on a file of your own it \
                 would release the groups of its private rows without noise"
                    .into(),
            ));
        }
        let (names, train_of, test_of) = match by.column() {
            None => (
                data.class_names.clone(),
                data.train.y.clone(),
                data.test.y.clone(),
            ),
            Some(column) => {
                let prefix = format!("{column}=");
                let columns: Vec<usize> = (0..data.feature_names.len())
                    .filter(|&j| data.feature_names[j].starts_with(&prefix))
                    .collect();
                if columns.len() < 2 {
                    return Err(refuse(format!(
                        "the {} data set has no '{column}' column: group it by class",
                        data.name
                    )));
                }
                let names = columns
                    .iter()
                    .map(|&j| data.feature_names[j][prefix.len()..].to_string())
                    .collect();
                (
                    names,
                    assign(&data.train, &columns),
                    assign(&data.test, &columns),
                )
            }
        };
        let mut n_train = vec![0; names.len()];
        for &g in &train_of {
            n_train[g] += 1;
        }
        let mut test_rows = vec![Vec::new(); names.len()];
        for (i, &g) in test_of.iter().enumerate() {
            test_rows[g].push(i);
        }
        Ok(Groups {
            names,
            n_train,
            test_rows,
        })
    }

    /// Each group's size and the accuracy of `model` on its rows of `test` (the rows the model
    /// reads: projected when the run has DP-PCA).
    pub fn accuracy(&self, model: &Mlp, test: &Split) -> Vec<GroupAccuracy> {
        self.names
            .iter()
            .zip(&self.n_train)
            .zip(&self.test_rows)
            .map(|((name, &n_train), rows)| {
                let test_acc = (!rows.is_empty()).then(|| {
                    let x = test.x.select(Axis(0), rows);
                    let y: Vec<usize> = rows.iter().map(|&i| test.y[i]).collect();
                    evaluate(model, x.view(), &y).1
                });
                GroupAccuracy {
                    name: name.clone(),
                    n_train,
                    n_test: rows.len(),
                    test_acc,
                }
            })
            .collect()
    }
}
