//! A row chart's labels, each a name and its size ("Asian-Pac-Islander (1039)"): whole where
//! the plot can spare the room, else without the axis title beside them, else in a shorter
//! wording of the name — never a name cut mid-word while a wording fits. At 1280 × 720 on a
//! projector the groups chart read "Amer-I… (311)" and "Asian… (1039)" (Adult by race).

use super::layout::{label_area, Frame};
use super::text_width;
use super::wording::{fit_wording, fit_wordings_together};

/// The share of a row chart's width its plot keeps, however long the labels.
pub const MIN_ROW_PLOT_SHARE: f64 = 0.2;

/// A name in shorter wordings, longest first: the name, then, for a hyphenated one (Adult's
/// "Asian-Pac-Islander"), its later parts shortened to three letters ("Asian-Pac-Isl"), then
/// its first two parts alone ("Asian-Pac").
pub fn name_wordings(name: &str) -> Vec<String> {
    let parts: Vec<&str> = name.split('-').collect();
    let short = |p: &&str| p.chars().take(3).collect::<String>();
    let mut out = vec![name.to_string()];
    if parts.len() > 1 {
        let later = parts[1..].iter().map(short);
        out.push(
            std::iter::once(parts[0].to_string())
                .chain(later)
                .collect::<Vec<_>>()
                .join("-"),
        );
        out.push(format!("{}-{}", parts[0], short(&parts[1])));
    }
    out.dedup();
    out
}

/// The labels of rows `(name, size)` on `frame`, and whether the axis keeps its title: a
/// label area as wide as the widest label whole, up to what leaves the plot
/// [`MIN_ROW_PLOT_SHARE`] of the width (never less than `least` of it, the share a row label
/// always had); where a label does not fit whole beside the title, the title gives its line
/// to the labels (the labels say "name (size)" themselves), and names still too long take
/// shorter wordings ([`name_wordings`]), all at one tier where they can, so that names
/// shortened alike read alike ([`fit_wordings_together`]); past the shortest, a name is cut,
/// never its size.
pub fn row_labels(rows: &[(String, usize)], frame: &Frame, least: f64) -> (Vec<String>, bool) {
    let font = frame.tick_font;
    let size = |n: usize| format!(" ({n})");
    let whole: Vec<String> = rows
        .iter()
        .map(|(name, n)| format!("{name}{}", size(*n)))
        .collect();
    let widest = whole
        .iter()
        .map(|l| text_width(l, font))
        .fold(0.0, f64::max);
    // What the labels may take: the width the y axis may have, less its ticks, gap and title.
    let axis = frame.width - frame.left - frame.right - MIN_ROW_PLOT_SHARE * frame.width;
    let room = |titled: bool| (axis - label_area(frame, 0.0, titled)).max(least * frame.width);
    if widest <= room(true) {
        return (whole, true);
    }
    let room = room(false);
    let worded: Vec<Vec<String>> = rows
        .iter()
        .map(|(name, n)| {
            let size = size(*n);
            name_wordings(name).into_iter().map(|w| w + &size).collect()
        })
        .collect();
    let labels = fit_wordings_together(&worded, room, font)
        .into_iter()
        .zip(rows)
        .map(|(label, (name, n))| match label.contains('…') {
            // Past its shortest wording a name is cut, never its size.
            true => {
                let name_room = room - text_width(&size(*n), font);
                format!(
                    "{}{}",
                    fit_wording(&name_wordings(name), name_room, font),
                    size(*n)
                )
            }
            false => label,
        })
        .collect();
    (labels, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(width: f64, font: f64) -> Frame {
        Frame {
            width,
            height: 340.0,
            top: 80.0,
            right: 9.0 * font,
            bottom: 10.0,
            left: 10.0,
            tick_font: font,
            title_font: font,
            tick_len: 8.0,
        }
    }

    fn adult_race() -> Vec<(String, usize)> {
        [
            ("Other", 271),
            ("Amer-Indian-Eskimo", 311),
            ("Asian-Pac-Islander", 1039),
        ]
        .into_iter()
        .chain([("Black", 3124), ("White", 27816)])
        .map(|(n, s)| (n.to_string(), s))
        .collect()
    }

    #[test]
    fn a_hyphenated_name_shortens_part_by_part() {
        assert_eq!(
            name_wordings("Asian-Pac-Islander"),
            ["Asian-Pac-Islander", "Asian-Pac-Isl", "Asian-Pac"]
        );
        assert_eq!(name_wordings("White"), ["White"]);
        assert_eq!(name_wordings("Self-emp"), ["Self-emp"]);
    }

    /// Wide: whole, titled. Narrower: whole without the title, then shorter wordings, each
    /// label within its room and none cut with "…" on a projector's chart at large type.
    #[test]
    fn labels_keep_whole_words_as_the_room_narrows() {
        let rows = adult_race();
        let (labels, titled) = row_labels(&rows, &frame(1200.0, 20.0), 0.3);
        assert!(titled);
        assert_eq!(labels[1], "Amer-Indian-Eskimo (311)");
        let mut seen_short = false;
        for (width, font) in [(924.0, 26.0), (604.0, 17.0), (604.0, 20.0), (604.0, 22.0)] {
            let f = frame(width, font);
            let (labels, titled) = row_labels(&rows, &f, 0.3);
            let widest = labels
                .iter()
                .map(|l| text_width(l, font))
                .fold(0.0, f64::max);
            let plot = f.width - f.left - f.right - widest;
            assert!(
                plot >= MIN_ROW_PLOT_SHARE * width,
                "{width} {font}: {labels:?}"
            );
            assert!(
                labels.iter().all(|l| !l.contains('…')),
                "{width} {font}: {labels:?}"
            );
            assert!(labels[4].ends_with("(27816)") && labels[0] == "Other (271)");
            seen_short |= !titled && labels[2] != "Asian-Pac-Islander (1039)";
            // Shortened alike: both at the same tier.
            let tier = |l: &str, words: &[&str]| words.iter().position(|w| l.starts_with(w));
            let amer = ["Amer-Indian-Eskimo ", "Amer-Ind-Esk ", "Amer-Ind "];
            let asian = ["Asian-Pac-Islander ", "Asian-Pac-Isl ", "Asian-Pac "];
            assert_eq!(
                tier(&labels[1], &amer),
                tier(&labels[2], &asian),
                "{labels:?}"
            );
        }
        assert!(seen_short, "the narrowest rooms take a shorter wording");
        // Past the shortest wording a name is cut, its size never.
        let (labels, _) = row_labels(&rows, &frame(300.0, 22.0), 0.3);
        assert!(
            labels[1].contains('…') && labels[1].ends_with(" (311)"),
            "{labels:?}"
        );
    }
}
