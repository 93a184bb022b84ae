//! The accountants the lab reports, enumerated once: their names (the only place they are
//! written as strings), their order in reports, charts and the CLI, their labels, and
//! [`PerAccountant`], the one container of a value per accountant that every report, preview,
//! chart and audit uses. ε = ∞ crosses to and from JSON as `"inf"` here and nowhere else.

use super::Amplification;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

impl Amplification {
    /// What naive and strong composition are in a convention that is no upper bound for every
    /// σ (`None` when rigorous): the ε chart's badge beside their starred names
    /// ([`AccountantName::label_under`]), the report's note, the run log's caption.
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            Amplification::Paper => Some("the paper's convention, not a bound"),
            Amplification::Classical => Some("the classical convention, a bound only if ε0 < 1"),
            Amplification::Rigorous => None,
        }
    }
}

/// An accountant by name: what a budget names, a report's keys, a chart's series. Serde's
/// names are [`AccountantName::name`]'s (a test holds them equal).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum AccountantName {
    /// Basic composition of the per-step (ε0, δ0) bounds.
    Naive,
    /// Advanced composition (Dwork, Rothblum & Vadhan 2010; the paper's Fig. 2 baseline).
    Strong,
    /// The paper's moments accountant (Section 3.2, Theorem 2).
    #[default]
    Moments,
    /// Rényi DP (Mironov 2017) with the improved conversion to (ε, δ).
    Rdp,
    /// The privacy loss distribution (tight; Koskela et al. 2020, dp_accounting's PLD).
    Pld,
}

impl AccountantName {
    /// Every accountant, in the order reports, charts and the CLI list them.
    pub const ALL: [AccountantName; 5] = [
        AccountantName::Naive,
        AccountantName::Strong,
        AccountantName::Moments,
        AccountantName::Rdp,
        AccountantName::Pld,
    ];

    /// Its name in settings, reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            AccountantName::Naive => "naive",
            AccountantName::Strong => "strong",
            AccountantName::Moments => "moments",
            AccountantName::Rdp => "rdp",
            AccountantName::Pld => "pld",
        }
    }

    /// Its name as a chart's legend or the run log's column shows it.
    pub fn label(self) -> &'static str {
        match self {
            AccountantName::Rdp => "RDP",
            AccountantName::Pld => "PLD",
            other => other.name(),
        }
    }

    /// Its name beside a run under `amp`: naive and strong starred where the convention is no
    /// bound for every σ ([`Amplification::caveat`] says what the star means).
    pub fn label_under(self, amp: Amplification) -> String {
        match self {
            AccountantName::Naive | AccountantName::Strong if amp.caveat().is_some() => {
                format!("{}*", self.label())
            }
            _ => self.label().to_string(),
        }
    }

    /// Its name as a list of choices offers it (the page's budget accountant).
    pub fn choice(self) -> &'static str {
        match self {
            AccountantName::Naive => "naive composition",
            AccountantName::Strong => "strong composition",
            AccountantName::Moments => "moments (paper)",
            AccountantName::Rdp => "RDP",
            AccountantName::Pld => "PLD (tightest)",
        }
    }

    /// The accountant named `name`, if one is.
    pub fn parse(name: &str) -> Option<AccountantName> {
        Self::ALL.into_iter().find(|a| a.name() == name)
    }

    /// Every name, as a message lists them ("naive, strong, moments, rdp, pld").
    pub fn names() -> String {
        Self::ALL.map(AccountantName::name).join(", ")
    }
}

/// One value per accountant. Fields are public so that code reads `report.epsilon.moments`;
/// code that goes through every accountant uses [`PerAccountant::iter`] or
/// [`PerAccountant::from_fn`], never a list of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PerAccountant<T> {
    pub naive: T,
    pub strong: T,
    pub moments: T,
    pub rdp: T,
    pub pld: T,
}

impl<T> PerAccountant<T> {
    /// The value of each accountant, `f(accountant)`, called in [`AccountantName::ALL`]'s order.
    pub fn from_fn(mut f: impl FnMut(AccountantName) -> T) -> Self {
        PerAccountant {
            naive: f(AccountantName::Naive),
            strong: f(AccountantName::Strong),
            moments: f(AccountantName::Moments),
            rdp: f(AccountantName::Rdp),
            pld: f(AccountantName::Pld),
        }
    }

    /// As [`PerAccountant::from_fn`], stopping at the first error.
    pub fn try_from_fn<E>(mut f: impl FnMut(AccountantName) -> Result<T, E>) -> Result<Self, E> {
        Ok(PerAccountant {
            naive: f(AccountantName::Naive)?,
            strong: f(AccountantName::Strong)?,
            moments: f(AccountantName::Moments)?,
            rdp: f(AccountantName::Rdp)?,
            pld: f(AccountantName::Pld)?,
        })
    }

    pub fn get(&self, a: AccountantName) -> &T {
        match a {
            AccountantName::Naive => &self.naive,
            AccountantName::Strong => &self.strong,
            AccountantName::Moments => &self.moments,
            AccountantName::Rdp => &self.rdp,
            AccountantName::Pld => &self.pld,
        }
    }

    pub fn get_mut(&mut self, a: AccountantName) -> &mut T {
        match a {
            AccountantName::Naive => &mut self.naive,
            AccountantName::Strong => &mut self.strong,
            AccountantName::Moments => &mut self.moments,
            AccountantName::Rdp => &mut self.rdp,
            AccountantName::Pld => &mut self.pld,
        }
    }

    /// Every accountant with its value, in order.
    pub fn iter(&self) -> impl Iterator<Item = (AccountantName, &T)> {
        AccountantName::ALL
            .into_iter()
            .map(move |a| (a, self.get(a)))
    }

    /// `f(accountant, value)` of each.
    pub fn map<U>(&self, mut f: impl FnMut(AccountantName, &T) -> U) -> PerAccountant<U> {
        PerAccountant::from_fn(|a| f(a, self.get(a)))
    }
}

/// ε as JSON writes it: a number, or `"inf"` for ∞ (JSON has no infinity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epsilon(pub f64);

impl Serialize for Epsilon {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f64(self.0)
        } else {
            s.serialize_str("inf")
        }
    }
}

/// A report's ε: an object keyed by the accountants' names, in order, ∞ as `"inf"`.
impl Serialize for PerAccountant<f64> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.map(|_, &v| Some(v)).serialize(s)
    }
}

/// The same with the accountants not computed (`None`: a preview without PLD) left out.
impl Serialize for PerAccountant<Option<f64>> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (a, v) in self.iter() {
            if let Some(v) = v {
                m.serialize_entry(a.name(), &Epsilon(*v))?;
            }
        }
        m.end()
    }
}

/// Read back from JSON (the charts read reports and previews from the page): a number, `"inf"`
/// (∞), or missing or null (`None`); other keys are not this object's and are skipped.
impl<'de> Deserialize<'de> for PerAccountant<Option<f64>> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Epsilons;
        impl<'de> Visitor<'de> for Epsilons {
            type Value = PerAccountant<Option<f64>>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("ε per accountant")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut out = PerAccountant::default();
                while let Some(key) = map.next_key::<String>()? {
                    let value = map.next_value::<serde_json::Value>()?;
                    if let Some(a) = AccountantName::parse(&key) {
                        *out.get_mut(a) = match value {
                            serde_json::Value::String(s) if s == "inf" => Some(f64::INFINITY),
                            v => v.as_f64(),
                        };
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(Epsilons)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_the_json_keeps_order_and_infinity() {
        for a in AccountantName::ALL {
            assert_eq!(AccountantName::parse(a.name()), Some(a));
            let json = serde_json::to_string(&a).unwrap();
            assert_eq!(json, format!("\"{}\"", a.name()));
            assert_eq!(serde_json::from_str::<AccountantName>(&json).unwrap(), a);
        }
        assert_eq!(AccountantName::parse("__proto__"), None);
        let e = PerAccountant::from_fn(|a| match a {
            AccountantName::Naive => f64::INFINITY,
            other => other as usize as f64 + 0.5,
        });
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            r#"{"naive":"inf","strong":1.5,"moments":2.5,"rdp":3.5,"pld":4.5}"#
        );
        let back: PerAccountant<Option<f64>> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e.map(|_, &v| Some(v)));
        let partial = PerAccountant::from_fn(|a| (a != AccountantName::Pld).then_some(1.0));
        let json = serde_json::to_string(&partial).unwrap();
        assert!(!json.contains("pld"), "{json}");
        let read: PerAccountant<Option<f64>> =
            serde_json::from_str(r#"{"rdp": null, "x": 3, "moments": 2}"#).unwrap();
        assert_eq!((read.rdp, read.moments, read.pld), (None, Some(2.0), None));
    }
}
