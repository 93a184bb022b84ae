//! The core's rooms stand in layers (#54 §3, ARCHITECTURE.md "The core's layers"): a module
//! uses its own room or the rooms below it, never one above, so no circle runs across rooms.
//! Every `crate::…` and `super::…` path of every file under `src/` (but the CLI in `src/bin/`
//! and the unit tests) is read and resolved to the room it names. Before this test the core had
//! seven such circles (the accountants importing the mechanism that imported them, `config`
//! re-exporting a type of `train`, `data` calling `train` for words, the ledger in `privacy`
//! reading `config` and `data`).
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// The rooms from the bottom up: words and numbers; linear algebra; the accountants and the
/// mechanisms they account (maths only); the sanitizer and sampling; the data sets; a run's
/// settings; the models; training; then what uses a trained run (audit, export, charts,
/// benchmarks, links) and the wasm facade on top: its values across the boundary (`web::js`),
/// its charts (`web::draw`), then its entry points.
const LAYERS: [&str; 16] = [
    "text",
    "linalg",
    "privacy::accountant",
    "privacy",
    "data",
    "config",
    "model",
    "train",
    "audit",
    "export",
    "charts",
    "bench",
    "share",
    "web::js",
    "web::draw",
    "web",
];

/// The room of a module path (its components after `crate`).
fn room_of(path: &[String]) -> Option<&'static str> {
    let first = path.first()?.as_str();
    let second = path.get(1).map(String::as_str);
    if first == "privacy" && second == Some("accountant") {
        return Some("privacy::accountant");
    }
    if first == "web" && matches!(second, Some("draw" | "js")) {
        return Some(if second == Some("js") {
            "web::js"
        } else {
            "web::draw"
        });
    }
    LAYERS.iter().copied().find(|r| *r == first)
}

/// The module path of the file `rel` (relative to src/, with `/`): `train/ledger.rs` is
/// `train::ledger`, `data/csv/mod.rs` is `data::csv`.
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Every module path `text` names (`crate::a::b`, `super::super::c`), resolved from the module
/// `me`: each as its first two components.
fn paths_named(text: &str, me: &[String]) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let before = text[..at].chars().last();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        let first = ident(rest);
        let second = rest[first.len()..]
            .strip_prefix("::")
            .map(ident)
            .unwrap_or_default();
        found.push(vec![first, second]);
    }
    for (at, _) in text.match_indices("super::") {
        let before = text[..at].chars().last();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut rest = &text[at..];
        let mut base = me.to_vec();
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        base.push(ident(rest));
        found.push(base.into_iter().take(2).collect());
    }
    found
}

/// The code of a file without its comments and its `#[cfg(test)] mod tests { … }` at the end.
fn code_of(text: &str) -> String {
    let text = text
        .split("#[cfg(test)]\nmod tests {")
        .next()
        .unwrap_or(text);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("bin") {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_name().unwrap().to_string_lossy();
            if !name.ends_with("_tests.rs") && name != "tests.rs" {
                out.push(path);
            }
        }
    }
}

/// Every arrow from a room up to a higher one, as "file → room".
fn upward(files: &[(String, String)]) -> Vec<String> {
    let rank = |r: &str| LAYERS.iter().position(|l| *l == r);
    let mut arrows = Vec::new();
    for (rel, text) in files {
        let me = module_of(rel);
        let Some(mine) = room_of(&me).and_then(rank) else {
            continue;
        };
        for path in paths_named(&code_of(text), &me) {
            if let Some(theirs) = room_of(&path) {
                if rank(theirs).is_some_and(|t| t > mine) {
                    arrows.push(format!("{rel} → {theirs}"));
                }
            }
        }
    }
    arrows.sort();
    arrows.dedup();
    arrows
}

#[test]
fn each_room_of_the_core_uses_only_its_own_and_the_rooms_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    let files: Vec<(String, String)> = paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    // Every room is a folder or a file of src/, and each has modules.
    for room in LAYERS {
        let first = room.split("::").next().unwrap();
        assert!(
            files
                .iter()
                .any(|(rel, _)| module_of(rel).first().map(String::as_str) == Some(first)),
            "{room} is a room of src/"
        );
    }
    let named: usize = files
        .iter()
        .map(|(rel, text)| paths_named(&code_of(text), &module_of(rel)).len())
        .sum();
    assert!(named > 300, "{named} paths read");
    assert_eq!(upward(&files), Vec::<String>::new());
}

#[test]
fn the_check_finds_an_arrow_up() {
    // The two that made a circle before: the accountants' composition importing the mechanism
    // from the room above, and config re-exporting a type of train.
    let files = [
        (
            "privacy/accountant/compose.rs".to_string(),
            "use crate::privacy::sanitizer::Sanitizer;\nuse super::mechanism::Mechanism;".into(),
        ),
        (
            "config/mod.rs".to_string(),
            "// crate::web::x in a comment is no arrow\npub use crate::train::groups::GroupBy;"
                .into(),
        ),
        (
            "data/refusal.rs".to_string(),
            "fn f() { super::super::train::noise(1.0) }".into(),
        ),
        // A chart reaching for the wasm entry points beside it.
        (
            "web/draw/epsilon_chart.rs".to_string(),
            "use super::super::accounting::format_eps;\nuse super::chart_kit::BLUE;".into(),
        ),
    ];
    assert_eq!(
        upward(&files),
        [
            "config/mod.rs → train",
            "data/refusal.rs → train",
            "privacy/accountant/compose.rs → privacy",
            "web/draw/epsilon_chart.rs → web",
        ]
    );
}

/// Inside `data::prepare` the same (#54 §3): its leaf of words (`types`) uses none of the
/// others, the refusals only it, the ranges' estimate and statement those two, the split all.
#[test]
fn the_preparation_of_a_file_stands_on_its_leaf_of_types() {
    const ORDER: [(&str, usize); 5] = [
        ("types", 0),
        ("refusal", 1),
        ("bounds", 2),
        ("stated", 2),
        ("split", 3),
    ];
    let rank = |m: &str| ORDER.iter().find(|(n, _)| *n == m).map(|(_, r)| *r);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/data/prepare");
    let mut arrows = Vec::new();
    for (file, mine) in ORDER {
        let text = code_of(&std::fs::read_to_string(dir.join(format!("{file}.rs"))).unwrap());
        for (at, _) in text.match_indices("super::") {
            let name: String = text[at + "super::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if rank(&name).is_some_and(|theirs| theirs >= mine && name != file) {
                arrows.push(format!("{file} → {name}"));
            }
        }
    }
    assert_eq!(arrows, Vec::<String>::new());
}
