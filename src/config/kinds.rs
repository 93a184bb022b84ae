//! The named choices of a run's configuration (each a JSON string in kebab case).

use serde::{Deserialize, Serialize};
use strum::{EnumIter, IntoEnumIterator};

/// Which model to train.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum ModelKind {
    /// Softmax (multinomial) logistic regression; binary with two classes.
    Logistic,
    /// Input → `hidden` ReLU layers → softmax.
    Mlp,
}

/// How per-example gradients are clipped (paper Section 3.1, "Norm clipping").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum Clipping {
    /// One bound C on the norm of the whole gradient; noise σC on every parameter.
    Flat,
    /// A bound C_l per layer (`layer_clips`, or C/√layers each); noise σC_l on layer l.
    PerLayer,
}

/// What the sanitizer does — full DP-SGD, or one half of it for teaching.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Clip and add noise: differentially private.
    Dp,
    /// Plain SGD: no clipping, no noise (ε = ∞).
    NonPrivate,
    /// Clipping without noise (ε = ∞).
    ClipOnly,
    /// Noise σC without clipping: nothing bounds one example's influence (ε = ∞).
    NoiseOnly,
}

impl Mode {
    /// Whether per-example gradients are clipped.
    pub fn clips(self) -> bool {
        matches!(self, Mode::Dp | Mode::ClipOnly)
    }

    /// Whether noise is added.
    pub fn adds_noise(self) -> bool {
        matches!(self, Mode::Dp | Mode::NoiseOnly)
    }
}

/// How lots are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum Sampling {
    /// Each example joins each lot independently with probability q = L/N (what the
    /// accountants assume).
    Poisson,
    /// Fixed-size lots of L from a fresh shuffle each epoch (common in practice; the
    /// accountants' ε is then only indicative).
    Shuffle,
}

/// What an epoch report releases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseLevel {
    /// Only what ε covers: the model's metrics on a public held-out test set, ε, and the
    /// statistics released with accounted noise.
    Private,
    /// Everything a lesson uses, each field outside the guarantee named in `not_private`.
    #[default]
    Teaching,
}

/// What the rows are grouped by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GroupBy {
    /// Adult's `sex` column.
    Sex,
    /// Adult's `race` column.
    Race,
    /// The label.
    Class,
}

impl GroupBy {
    /// Every grouping, in the order the page offers them.
    pub const ALL: [GroupBy; 3] = [GroupBy::Sex, GroupBy::Race, GroupBy::Class];

    /// Its name, as in a link and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Sex => "sex",
            GroupBy::Race => "race",
            GroupBy::Class => "class",
        }
    }

    /// The groupings the data set named `dataset` offers: Adult's sex and race columns and the
    /// class on Adult, the class on the other built-in sets, none on a file of one's own (its
    /// rows are private: see [`Groups::of`], which a test holds this to).
    pub fn offered(dataset: &str) -> &'static [GroupBy] {
        match dataset {
            "adult" => &GroupBy::ALL,
            d if crate::data::builtin::BUILTIN.contains(&d) => &[GroupBy::Class],
            _ => &[],
        }
    }

    /// Adult's column of the grouping (None: the class).
    pub(crate) fn column(self) -> Option<&'static str> {
        match self {
            GroupBy::Sex => Some("sex"),
            GroupBy::Race => Some("race"),
            GroupBy::Class => None,
        }
    }
}

/// The names a named choice `T` takes in settings, links and on the command line, in the order
/// its variants are declared: each variant's JSON name (serde's), the variants the compiler's
/// (strum's `EnumIter`) — no list by hand to drift from the enum (#54 §4).
pub fn names_of<T: IntoEnumIterator + Serialize>() -> Vec<String> {
    T::iter().map(name_of).collect()
}

/// The name of one choice `v`: its JSON (serde) name.
pub fn name_of<T: Serialize>(v: T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(name)) => name,
        other => panic!("a named choice serialises as its name, not {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_named_and_each_name_parses_back() {
        assert_eq!(
            names_of::<Mode>(),
            ["dp", "non-private", "clip-only", "noise-only"]
        );
        assert_eq!(names_of::<ReleaseLevel>(), ["private", "teaching"]);
        for name in names_of::<Sampling>() {
            let back: Sampling =
                serde_json::from_value(serde_json::Value::String(name.clone())).unwrap();
            assert_eq!(
                serde_json::to_value(back).unwrap(),
                serde_json::Value::String(name)
            );
        }
        assert_eq!(names_of::<ModelKind>().len(), ModelKind::iter().count());
    }
}
