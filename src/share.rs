//! The lab's link as a QR code, for the page's "QR code" button (the `web` facade's
//! `qr_modules`): a lecturer puts it on the projector and the students' phones open the same
//! lesson and settings.
//!
//! A code on a projector is read from across a room, so it is kept coarse: error correction
//! level M (a smudge, glare or a keystoned image leaves 15% of it readable), or L where M would
//! need more than [`MAX_VERSION`], and never a version above it. A longer link is refused with a
//! message saying why, rather than drawn too fine to scan.

use qrcode::{Color, EcLevel, QrCode, Version};

/// The largest QR version drawn: 117 × 117 modules, 125 with the quiet zone, which on a
/// 1280 × 720 projector image (about 600 px left for the code) is still over 4 px a module.
/// A lab link without pinned runs needs version 6 to 9; pins (JSON in the link) make it longer.
pub const MAX_VERSION: i16 = 25;

/// A QR code's modules: `size` × `size`, row-major, 1 for dark and 0 for light, without the
/// quiet zone (the drawing adds it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QrMatrix {
    /// Modules on a side: 17 + 4 · `version`.
    pub size: usize,
    /// The QR version, 1 to [`MAX_VERSION`].
    pub version: i16,
    /// The error correction level: 'M', or 'L' where M would need a version above the largest.
    pub level: char,
    /// `size`² modules, row by row.
    pub modules: Vec<u8>,
}

/// Why a link gets no QR code: its length in characters, the version its code would need
/// when one exists (larger than [`MAX_VERSION`]; None: no QR code holds it), and the sentence
/// for the page (what `Display` prints).
#[derive(Clone, Debug, PartialEq)]
pub struct QrRefusal {
    pub chars: usize,
    pub needed_version: Option<i16>,
    pub message: String,
}

impl std::fmt::Display for QrRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QrRefusal {}

/// The QR code of `text` (the page's URL): level M where it fits in [`MAX_VERSION`], else L.
/// A [`QrRefusal`] when even level L needs a larger version or no QR code can hold the text.
pub fn qr_matrix(text: &str) -> Result<QrMatrix, QrRefusal> {
    // Past any code's capacity: said at once (encoding a 100 KB link only to fail took a
    // quarter of a second on the page's main thread).
    if text.len() > MAX_BYTES {
        return Err(too_long_for_any(text));
    }
    let mut needed = None;
    for (level, name) in [(EcLevel::M, 'M'), (EcLevel::L, 'L')] {
        let code = match QrCode::with_error_correction_level(text, level) {
            Ok(code) => code,
            Err(_) => continue, // too long for any version at this level
        };
        let version = match code.version() {
            Version::Normal(v) => v,
            Version::Micro(_) => unreachable!("with_error_correction_level makes normal codes"),
        };
        if version > MAX_VERSION {
            needed = Some(version);
            continue;
        }
        let modules = code
            .to_colors()
            .into_iter()
            .map(|c| u8::from(c == Color::Dark))
            .collect();
        return Ok(QrMatrix {
            size: code.width(),
            version,
            level: name,
            modules,
        });
    }
    let chars = text.chars().count();
    let limit = 17 + 4 * MAX_VERSION;
    Err(match needed {
        Some(v) => QrRefusal {
            chars,
            needed_version: Some(v),
            message: format!(
                "the link is {chars} characters long: its QR code would need version {v} \
                 ({w} × {w} modules), too fine to scan from across a room (at most version \
                 {MAX_VERSION}, {limit} × {limit})",
                w = 17 + 4 * v
            ),
        },
        None => too_long_for_any(text),
    })
}

/// The most bytes a QR code holds (version 40, level L, byte mode).
const MAX_BYTES: usize = 2953;

fn too_long_for_any(text: &str) -> QrRefusal {
    let chars = text.chars().count();
    QrRefusal {
        chars,
        needed_version: None,
        message: format!(
            "the link is {chars} characters long, more than any QR code holds (2,953 bytes)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link as the page writes it: the lesson, the presenter layout and every setting.
    const LINK: &str = "http://127.0.0.1:8000/#v=1&lesson=clipping&big=1&sigma=1&clip=0.1\
        &lot_size=256&lr=2&epochs=10&delta=0.00001&dataset=adult&model=logistic\
        &report=teaching&amp=rigorous&seed=1";

    fn dark(m: &QrMatrix, row: usize, col: usize) -> bool {
        m.modules[row * m.size + col] == 1
    }

    /// The finder pattern with its top-left module at (`row`, `col`): a dark 7 × 7 ring, a light
    /// ring inside it and a dark 3 × 3 centre.
    fn is_finder(m: &QrMatrix, row: usize, col: usize) -> bool {
        (0..7).all(|r| {
            (0..7).all(|c| {
                let ring = r.min(c).min(6 - r).min(6 - c); // 0: outer ring, 1: light, 2+: centre
                dark(m, row + r, col + c) == (ring != 1)
            })
        })
    }

    #[test]
    fn a_lab_link_is_a_small_level_m_code_with_finders_at_three_corners() {
        let m = qr_matrix(LINK).unwrap();
        assert_eq!(m.level, 'M');
        assert!((5..=10).contains(&m.version), "version {}", m.version);
        assert_eq!(m.size, 17 + 4 * m.version as usize);
        assert_eq!(m.modules.len(), m.size * m.size);
        assert!(m.modules.iter().all(|&x| x <= 1));
        let far = m.size - 7;
        assert!(is_finder(&m, 0, 0) && is_finder(&m, 0, far) && is_finder(&m, far, 0));
        assert!(
            !is_finder(&m, far, far),
            "the bottom-right corner has no finder"
        );
        // The light separator around the top-left finder.
        assert!((0..8).all(|i| !dark(&m, 7, i) && !dark(&m, i, 7)));
    }

    #[test]
    fn the_same_link_gives_the_same_code_and_another_link_another() {
        let a = qr_matrix(LINK).unwrap();
        assert_eq!(a, qr_matrix(LINK).unwrap());
        let b = qr_matrix(&LINK.replace("seed=1", "seed=2")).unwrap();
        assert_eq!(a.size, b.size);
        assert_ne!(a.modules, b.modules);
    }

    #[test]
    fn a_link_too_long_for_level_m_falls_back_to_level_l_within_the_largest_version() {
        // Version 25 holds 997 bytes at level M and 1,273 at level L.
        let text = format!("{LINK}&pins={}", "x".repeat(1100 - LINK.len() - 6));
        let m = qr_matrix(&text).unwrap();
        assert_eq!(m.level, 'L');
        assert!(m.version <= MAX_VERSION);
        assert_eq!(m.size, 17 + 4 * m.version as usize);
    }

    #[test]
    fn a_link_beyond_the_largest_version_is_refused_with_the_version_it_would_need() {
        let text = format!("{LINK}&pins={}", "x".repeat(1400 - LINK.len() - 6));
        let e = qr_matrix(&text).unwrap_err();
        assert_eq!(e.chars, 1400);
        assert!(e.needed_version.is_some_and(|v| v > MAX_VERSION), "{e:?}");
        let e = e.message;
        assert!(e.contains("1400 characters"), "{e}");
        assert!(
            e.contains("would need version 2") && e.contains("at most version 25"),
            "{e}"
        );
        let e = qr_matrix(&"x".repeat(3000)).unwrap_err();
        assert_eq!((e.chars, e.needed_version), (3000, None));
        assert!(e.message.contains("more than any QR code holds"), "{e}");
    }
}
