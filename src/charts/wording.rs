//! Words that fit: a label or a note has a few wordings, longest first, each saying the same
//! thing; a chart takes the longest that fits the room it has, and cuts a word with "…" only
//! when even the shortest does not fit. (The audit's ε bars once showed "…" alone beside an
//! outline at a projector's largest Text, where "0; could show ≤ 0.53" had no room.)

use super::{fit_text, text_width};

/// The first of `wordings` (longest first) that fits one of `rooms` (widths, in the order they
/// are preferred) at `font_px`: the wording and the index of its room. A longer wording in a
/// later room is preferred to a shorter one in an earlier room. None when none fits any.
pub fn place_wording(wordings: &[String], rooms: &[f64], font_px: f64) -> Option<(usize, String)> {
    wordings.iter().find_map(|w| {
        let width = text_width(w, font_px);
        rooms
            .iter()
            .position(|&room| width <= room)
            .map(|at| (at, w.clone()))
    })
}

/// The longest of `wordings` that fits `max_width` at `font_px`, else the shortest (the last)
/// cut with "…" to fit.
pub fn fit_wording(wordings: &[String], max_width: f64, font_px: f64) -> String {
    match place_wording(wordings, &[max_width], font_px) {
        Some((_, w)) => w,
        None => fit_text(wordings.last().map_or("", |w| w), max_width, font_px),
    }
}

/// One wording of each of `lists` (each longest first), all at the same tier: the fullest tier
/// at which every name fits `max_width` (a list shorter than the tier gives its last), so that
/// rows named alike stay alike ("ε_lower, realistic" beside "worst-case attack" read as two
/// kinds of bar). Where no tier fits them all, each list's longest that fits, else its last cut
/// with "…" ([`fit_wording`]).
pub fn fit_wordings_together(lists: &[Vec<String>], max_width: f64, font_px: f64) -> Vec<String> {
    let at = |list: &Vec<String>, tier: usize| list[tier.min(list.len() - 1)].clone();
    let tiers = lists.iter().map(Vec::len).max().unwrap_or(0);
    (0..tiers)
        .find(|&t| {
            lists
                .iter()
                .all(|l| text_width(&at(l, t), font_px) <= max_width)
        })
        .map(|t| lists.iter().map(|l| at(l, t)).collect())
        .unwrap_or_else(|| {
            lists
                .iter()
                .map(|l| fit_wording(l, max_width, font_px))
                .collect()
        })
}

/// The wordings of the note beside an audit's ε_lower bar of 0, whose outline reaches `most`:
/// what the runs could have proved at most. Each keeps "could show": a bare "≤ 0.53" beside a
/// bar of ε would read as a guarantee (ε ≤ 0.53), which it is not.
pub fn could_show_wordings(most: &str) -> [String; 3] {
    [
        format!("0 proved; the runs could show ≤ {most}"),
        format!("0; could show ≤ {most}"),
        format!("could show ≤ {most}"),
    ]
}

/// The wordings of an audit ε bar's row name, longest first: `who` is the attack ("worst case",
/// "realistic"); `one_run` for the one-run audit's bar. The shorter ones are the ROC legend's
/// own names of the attacks, then the attack alone (its colour is the legend's).
pub fn epsilon_lower_names(who: &str, one_run: bool) -> Vec<String> {
    if one_run {
        vec![
            format!("ε_lower, {who}, one run"),
            format!("{who}, one run"),
            format!("{who}, 1 run"),
        ]
    } else {
        let attack = match who {
            "worst case" => "worst-case attack".to_string(),
            other => format!("{other} attack"),
        };
        vec![format!("ε_lower, {who}"), attack, who.to_string()]
    }
}

/// An accountant's ε bar's row name, longest first.
pub fn epsilon_names(accountant: &str) -> Vec<String> {
    vec![format!("ε, {accountant}"), accountant.to_string()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::accountant::AccountantName;

    const FONT: f64 = 24.0;

    #[test]
    fn the_longest_wording_that_fits_is_taken_and_a_cut_is_the_last_resort() {
        let words = could_show_wordings("0.53");
        let wide = text_width(&words[0], FONT) + 1.0;
        assert_eq!(fit_wording(&words, wide, FONT), words[0]);
        // Room for the second but not the first: the second, whole.
        let mid = text_width(&words[1], FONT) + 1.0;
        assert!(mid < wide);
        assert_eq!(fit_wording(&words, mid, FONT), words[1]);
        let short = text_width(&words[2], FONT) + 1.0;
        assert_eq!(fit_wording(&words, short, FONT), words[2]);
        // Only below the shortest is a word cut, and then the shortest.
        let cut = fit_wording(&words, short - 10.0, FONT);
        assert!(
            cut.ends_with('…') && words[2].starts_with(cut.trim_end_matches('…')),
            "{cut}"
        );
    }

    #[test]
    fn a_longer_wording_in_a_later_room_beats_a_shorter_one_in_the_first() {
        let words = could_show_wordings("0.53");
        let rooms = [text_width(&words[2], FONT), text_width(&words[0], FONT)];
        assert_eq!(
            place_wording(&words, &rooms, FONT),
            Some((1, words[0].clone()))
        );
        // Neither room holds any wording: none.
        assert_eq!(place_wording(&words, &[10.0, 20.0], FONT), None);
    }

    #[test]
    fn rows_take_one_tier_together() {
        let lists = [
            epsilon_lower_names("realistic", false),
            epsilon_lower_names("worst case", false),
            epsilon_names(AccountantName::Moments.label()),
        ];
        // Room for the attacks' names but not "ε_lower, worst case": both at the attacks'
        // names, the accountant's at its last.
        let room = text_width(&lists[1][1], FONT).max(text_width(&lists[0][1], FONT)) + 1.0;
        assert!(text_width(&lists[1][0], FONT) > room);
        assert_eq!(
            fit_wordings_together(&lists, room, FONT),
            [
                "realistic attack",
                "worst-case attack",
                AccountantName::Moments.label()
            ]
        );
        let wide = text_width(&lists[1][0], FONT) + 1.0;
        assert_eq!(
            fit_wordings_together(&lists, wide, FONT),
            [
                "ε_lower, realistic".to_string(),
                "ε_lower, worst case".into(),
                format!("ε, {}", AccountantName::Moments.label())
            ]
        );
        // No tier fits: each its shortest, cut.
        let tight = fit_wordings_together(&lists, text_width("worst", FONT), FONT);
        assert!(tight
            .iter()
            .all(|n| text_width(n, FONT) <= text_width("worst", FONT)));
    }

    #[test]
    fn every_could_show_wording_says_could_show_and_the_bound() {
        // Never a bare "≤ x": beside an ε bar it would read as a guarantee.
        for w in could_show_wordings("0.53") {
            assert!(w.contains("could show ≤ 0.53"), "{w}");
        }
    }

    #[test]
    fn row_names_shorten_to_the_legends_names_of_the_attacks() {
        assert_eq!(
            epsilon_lower_names("worst case", false),
            ["ε_lower, worst case", "worst-case attack", "worst case"]
        );
        assert_eq!(
            epsilon_lower_names("realistic", false),
            ["ε_lower, realistic", "realistic attack", "realistic"]
        );
        assert_eq!(
            epsilon_lower_names("realistic", true)[2],
            "realistic, 1 run"
        );
        let pld = AccountantName::Pld.label();
        assert_eq!(epsilon_names(pld), [format!("ε, {pld}"), pld.to_string()]);
        // Each list is longest first, so the first that fits is the fullest.
        for names in [
            epsilon_lower_names("worst case", false),
            epsilon_lower_names("worst case", true),
            epsilon_names(AccountantName::Moments.label()),
        ] {
            let widths: Vec<f64> = names.iter().map(|n| text_width(n, FONT)).collect();
            assert!(widths.windows(2).all(|w| w[0] > w[1]), "{names:?}");
        }
    }
}
