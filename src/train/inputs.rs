//! What a run's model reads, as one table read in place: the data set's rows (projected by
//! the run's DP-PCA when PCA is on), an audit run's member canaries after them, and each row
//! ending with the worst case's all-zero canary features ([`Rows`]). Nothing is copied
//! together: on Fashion-MNIST each copy was 188 MB in every worker that made one.

use crate::config::{ConfigError, RunConfig};
use crate::data::pca::{dp_pca, project, Projection};
use crate::data::{DataFacts, Dataset, Split};
use crate::model::{evaluate, Mlp};
use crate::Real;
use ndarray::{s, Array2, ArrayView1, ArrayViewMut1};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// The rows a lot's indices refer to, as one table, read in place: a data set's own, then any
/// appended after them (an audit run's member canaries, `Trainer::for_audit`); each row as the
/// model reads it ends with `zeros` all-zero features (the worst case's canaries' coordinates),
/// which are not stored.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    pub own: &'a Split,
    pub appended: Option<&'a Split>,
    pub zeros: usize,
}

impl<'a> Rows<'a> {
    pub fn len(&self) -> usize {
        self.own.len() + self.appended.map_or(0, Split::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Features of a row as the model reads them: the stored ones and the zeros.
    pub fn width(&self) -> usize {
        self.own.n_features() + self.zeros
    }

    /// Row `i` of the table: its stored features (without the zeros) and label.
    pub fn get(&self, i: usize) -> (ArrayView1<'a, Real>, usize) {
        let (split, r) = self.locate(i);
        (split.x.row(r), split.y[r])
    }

    /// The split row `i` of the table is in, and its index there.
    fn locate(&self, i: usize) -> (&'a Split, usize) {
        match (i.checked_sub(self.own.len()), self.appended) {
            (Some(r), Some(a)) => (a, r),
            _ => (self.own, i),
        }
    }

    /// Copies the rows `indices` into the first rows of `out` (as wide as the model reads
    /// them) and their labels into `labels`.
    ///
    /// Row by row as slices: through ndarray's slicing and `assign` each row cost more than
    /// its copy (22% of the default run natively, a lot's rows being 105 floats).
    pub fn gather(&self, indices: &[usize], out: &mut Array2<Real>, labels: &mut Vec<usize>) {
        let (stored, width) = (self.own.n_features(), self.width());
        assert_eq!(out.ncols(), width, "rows as wide as the model reads");
        assert!(
            indices.len() <= out.nrows(),
            "more rows than the batch holds"
        );
        if let Some(a) = self.appended {
            assert_eq!(
                a.n_features(),
                stored,
                "appended rows as wide as the data set's"
            );
        }
        labels.clear();
        let Some(dst) = out.as_slice_mut() else {
            for (r, &i) in indices.iter().enumerate() {
                let (x, y) = self.get(i);
                let mut row = out.row_mut(r);
                row.slice_mut(s![..stored]).assign(&x);
                row.slice_mut(s![stored..]).fill(0.0);
                labels.push(y);
            }
            return;
        };
        for (row, &i) in dst.chunks_exact_mut(width).zip(indices) {
            let (split, r) = self.locate(i);
            let (features, zeros) = row.split_at_mut(stored);
            match split.x.as_slice() {
                Some(x) => features.copy_from_slice(&x[r * stored..(r + 1) * stored]),
                None => ArrayViewMut1::from(features).assign(&split.x.row(r)),
            }
            zeros.fill(0.0);
            labels.push(split.y[r]);
        }
    }

    /// Mean cross-entropy loss and accuracy of `model` on every row, read in blocks.
    pub fn evaluate(&self, model: &Mlp) -> (f64, f64) {
        if let (None, 0) = (self.appended, self.zeros) {
            return evaluate(model, self.own.x.view(), &self.own.y);
        }
        const BLOCK: usize = 4096;
        let n = self.len();
        let mut x = Array2::zeros((BLOCK.min(n), self.width()));
        let (mut y, mut loss, mut correct) = (Vec::new(), 0.0, 0.0);
        let indices: Vec<usize> = (0..n).collect();
        for block in indices.chunks(BLOCK) {
            self.gather(block, &mut x, &mut y);
            let (l, a) = evaluate(model, x.slice(s![..block.len(), ..]), &y);
            loss += l * block.len() as f64;
            correct += a * block.len() as f64;
        }
        let n = n.max(1) as f64;
        (loss / n, correct / n)
    }
}

impl<'a> From<&'a Split> for Rows<'a> {
    fn from(own: &'a Split) -> Rows<'a> {
        Rows {
            own,
            appended: None,
            zeros: 0,
        }
    }
}

/// A run's checked inputs: the data it trains on (projected when PCA is on), the member
/// canaries read after its training rows (projected too), the projection, and the data's
/// facts — with the data's own N, not counting the members: the mechanism (q = L/N and the
/// steps of an epoch) is the run audited, and each member canary joins a lot with that same q,
/// so the worlds with and without a canary differ by its row alone (Steinke, Nasr & Jagielski
/// 2023, Theorem 3.1 assumes exactly this).
pub(super) struct Inputs {
    pub data: Arc<Dataset>,
    pub appended: Option<Split>,
    pub projection: Option<Projection>,
    pub facts: DataFacts,
}

impl Inputs {
    /// Checks `data` and `members` against `cfg` (its lot against `population` rows if more:
    /// an audit plan's, `Trainer::for_audit_of`) and runs its DP-PCA (paper Section 4) on
    /// both, from its own stream of `seed`.
    pub fn prepare(
        cfg: &RunConfig,
        data: Arc<Dataset>,
        members: Option<&Split>,
        seed: u64,
        population: usize,
    ) -> Result<Inputs, ConfigError> {
        // Input canaries join the training rows, read after the data's own ([`Rows`]) and
        // never copied in with them: an audit of Fashion-MNIST kept a copy of its 188 MB of
        // training rows per plan for its canary and another per one-run audit's run.
        let members = members.filter(|m| !m.is_empty());
        let n = data.train.len() + members.map_or(0, Split::len);
        cfg.validate(n.max(population))?;
        if let Some(m) = members {
            if m.n_features() != data.n_features() || m.x.iter().any(|v| !v.is_finite()) {
                return Err(ConfigError {
                    field: "dataset",
                    message: "the audit's canaries are not finite rows of the data's features"
                        .into(),
                });
            }
        }
        if let Some((split, row, name)) = data.first_non_finite() {
            return Err(ConfigError {
                field: "dataset",
                message: format!(
                    "the {split} set has a value that is not a finite number (row {}, feature '{}')",
                    row + 1,
                    crate::text::shown(name)
                ),
            });
        }
        let facts = data.facts();
        let (data, projection) = match cfg.pca {
            None => (data, None),
            Some(k) if k > data.n_features() => {
                return Err(ConfigError {
                    field: "pca",
                    message: format!(
                        "PCA to {k} dimensions, but the data has only {}",
                        data.n_features()
                    ),
                })
            }
            Some(k) => {
                // Its own random stream, so turning PCA on does not change the training's draws.
                let mut pca_rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0bca_0bca);
                let mut parts = vec![data.train.x.view()];
                parts.extend(members.map(|m| m.x.view()));
                let p = dp_pca(&parts, k, cfg.pca_noise(), cfg.pca_sample, &mut pca_rng);
                (Arc::new(project(&data, &p)), Some(p))
            }
        };
        let appended = members.map(|m| match &projection {
            Some(p) => Split {
                x: p.apply(m.x.view()),
                y: m.y.clone(),
            },
            None => m.clone(),
        });
        Ok(Inputs {
            data,
            appended,
            projection,
            facts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table `Rows` reads in place is the table put together: the data's rows, then the
    /// appended ones, each widened by its zeros — in a gather and in an evaluation.
    #[test]
    fn rows_read_in_place_are_the_table_put_together() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut split = |n: usize| Split {
            x: Array2::from_shape_fn((n, 3), |_| rng.random_range(-1.0..1.0)),
            y: (0..n).map(|i| i % 3).collect(),
        };
        let (own, appended) = (split(5000), split(7));
        let rows = Rows {
            own: &own,
            appended: Some(&appended),
            zeros: 2,
        };
        assert_eq!((rows.len(), rows.width()), (5007, 5));
        let mut whole = Array2::<Real>::zeros((5007, 5));
        whole.slice_mut(s![..5000, ..3]).assign(&own.x);
        whole.slice_mut(s![5000.., ..3]).assign(&appended.x);
        let labels: Vec<usize> = own.y.iter().chain(&appended.y).copied().collect();

        let picks = [5006, 0, 5000, 4999, 17];
        let (mut out, mut y) = (Array2::from_elem((6, 5), 9.0), vec![4]);
        rows.gather(&picks, &mut out, &mut y);
        for (r, &i) in picks.iter().enumerate() {
            assert_eq!(out.row(r), whole.row(i), "row {i}");
            assert_eq!(y[r], labels[i]);
        }
        assert_eq!(y.len(), picks.len());

        let model = Mlp::new(5, &[4], 3, &mut rng);
        let (loss, acc) = rows.evaluate(&model);
        let (want_loss, want_acc) = evaluate(&model, whole.view(), &labels);
        assert!((loss - want_loss).abs() < 1e-9 && (acc - want_acc).abs() < 1e-12);
        let plain = Rows::from(&own);
        let narrow = Mlp::new(3, &[4], 3, &mut rng);
        assert_eq!(
            plain.evaluate(&narrow),
            evaluate(&narrow, own.x.view(), &own.y)
        );
    }
}
