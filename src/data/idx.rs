//! IDX files (the MNIST format, gzipped or not): a big-endian header — two zero bytes, the
//! element type, the number of dimensions, each dimension as a u32 — then the data. The lab
//! reads unsigned-byte IDX (images and labels). Every mismatch is reported, nothing panics.

use super::{DataError, Split};
use crate::Real;
use flate2::read::GzDecoder;
use ndarray::Array2;
use std::io::Read;

/// Largest file accepted, before and after decompression.
pub const MAX_BYTES: usize = 100 * 1024 * 1024;
/// Most pixel values of an images file: each becomes a 4-byte number, so 200 MB at most.
pub const MAX_PIXELS: usize = 50_000_000;

/// A decoded unsigned-byte IDX array.
#[derive(Clone, Debug, PartialEq)]
pub struct Idx {
    pub dims: Vec<usize>,
    pub data: Vec<u8>,
}

/// Decodes an IDX file; gzip (magic 1f 8b) is undone first.
pub fn decode_idx(bytes: &[u8], what: &str) -> Result<Idx, DataError> {
    if bytes.len() > MAX_BYTES {
        let said = format!("{what} is larger than {} MB", MAX_BYTES >> 20);
        return Err(DataError::too_large(said));
    }
    let mut owned = Vec::new();
    let gzipped = bytes.starts_with(&[0x1f, 0x8b]);
    let bytes = if gzipped {
        // Sized from the gzip trailer's length (RFC 1952: the input's size mod 2³²; a hint a
        // file can lie in, so bounded by what deflate can expand to, 1032:1, and by the
        // limit): a Vec grown by doubling held up to twice the output, and its old buffer
        // besides while it grew (Fashion-MNIST's 47 MB of pixels), and wasm memory never
        // shrinks. Measured in Chromium: 355 → 268 MB after decoding Fashion-MNIST.
        let hint = bytes.len().checked_sub(4).map_or(0, |at| {
            u32::from_le_bytes(bytes[at..].try_into().expect("4 bytes"))
        });
        let bound = bytes.len().saturating_mul(1032).min(MAX_BYTES + 1);
        let mut out = Vec::with_capacity((hint as usize).min(bound));
        GzDecoder::new(bytes)
            .take(MAX_BYTES as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| DataError::format(format!("{what}: not a valid gzip file ({e})")))?;
        if out.len() > MAX_BYTES {
            return Err(DataError::too_large(format!(
                "{what} decompresses to more than {} MB",
                MAX_BYTES >> 20
            )));
        }
        owned = out;
        &owned[..]
    } else {
        bytes
    };
    if bytes.len() < 4 {
        return Err(DataError::format(format!(
            "{what} is too short for an IDX header ({} bytes)",
            bytes.len()
        )));
    }
    if bytes[0] != 0 || bytes[1] != 0 {
        return Err(DataError::format(format!(
            "{what} is not an IDX file (it must start with two zero bytes)"
        )));
    }
    if bytes[2] != 0x08 {
        return Err(DataError::format(format!(
            "{what}: element type 0x{:02x} is not supported; the lab reads unsigned bytes (0x08)",
            bytes[2]
        )));
    }
    let ndims = bytes[3] as usize;
    if !(1..=4).contains(&ndims) {
        return Err(DataError::format(format!(
            "{what}: {ndims} dimensions; expected 1 to 4"
        )));
    }
    let head = 4 + 4 * ndims;
    if bytes.len() < head {
        return Err(DataError::format(format!(
            "{what}: the header is cut short"
        )));
    }
    let dims: Vec<usize> = bytes[4..head]
        .chunks_exact(4)
        .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]) as usize)
        .collect();
    let expected = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let actual = bytes.len() - head;
    if expected != Some(actual) {
        let shape = dims
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("×");
        return Err(DataError::format(format!(
            "{what}: the header says {shape} values but the file holds {actual} bytes of data"
        )));
    }
    // The values, without a second copy of a decompressed file (its header moved off in place).
    let data = if gzipped {
        owned.drain(..head);
        owned
    } else {
        bytes[head..].to_vec()
    };
    Ok(Idx { dims, data })
}

/// Examples from an images file (n × rows × cols, or n × d) and a labels file (n): pixels
/// scaled to [0, 1]. Returns the split and the number of classes (largest label + 1).
pub fn images_and_labels(images: &[u8], labels: &[u8]) -> Result<(Split, usize), DataError> {
    let img = decode_idx(images, "the images file")?;
    let lab = decode_idx(labels, "the labels file")?;
    if img.dims.len() < 2 {
        return Err(DataError::format(
            "the images file must have at least 2 dimensions (examples × pixels)",
        ));
    }
    if lab.dims.len() != 1 {
        return Err(DataError::format(format!(
            "the labels file must have 1 dimension, not {}",
            lab.dims.len()
        )));
    }
    let n = img.dims[0];
    if lab.dims[0] != n {
        return Err(DataError::rows(format!(
            "{n} images but {} labels",
            lab.dims[0]
        )));
    }
    if n == 0 {
        return Err(DataError::rows("the images file holds no examples"));
    }
    if img.data.len() > MAX_PIXELS {
        return Err(DataError::too_large(format!(
            "the images file holds {} million values; the lab takes at most {} million \
             (60,000 images of 28×28 are 47 million), so that its memory stays bounded",
            img.data.len() / 1_000_000,
            MAX_PIXELS / 1_000_000
        )));
    }
    let d = img.data.len() / n;
    let classes = lab.data.iter().map(|&l| l as usize + 1).max().unwrap_or(0);
    let distinct = (0..classes)
        .filter(|c| lab.data.iter().any(|&l| l as usize == *c))
        .count();
    if distinct < 2 {
        return Err(DataError::format(
            "the labels file has only one class; a classifier needs at least two",
        ));
    }
    if classes > super::csv::MAX_CLASSES {
        return Err(DataError::too_large(format!(
            "label {} exceeds the limit of {} classes",
            classes - 1,
            super::csv::MAX_CLASSES
        )));
    }
    let x = Array2::from_shape_vec(
        (n, d),
        img.data.iter().map(|&p| p as Real / 255.0).collect(),
    )
    .map_err(|e| DataError::format(format!("the images file: {e}")))?;
    Ok((
        Split {
            x,
            y: lab.data.iter().map(|&l| l as usize).collect(),
        },
        classes,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(dims: &[u32], data: &[u8]) -> Vec<u8> {
        let mut v = vec![0, 0, 0x08, dims.len() as u8];
        for d in dims {
            v.extend_from_slice(&d.to_be_bytes());
        }
        v.extend_from_slice(data);
        v
    }

    #[test]
    fn reads_plain_and_gzipped_files() {
        let raw = idx(&[2, 2, 2], &[0, 255, 51, 0, 1, 2, 3, 4]);
        let mut gz = Vec::new();
        {
            use std::io::Write;
            let mut enc = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::default());
            enc.write_all(&raw).unwrap();
        }
        assert_eq!(
            decode_idx(&raw, "f").unwrap(),
            decode_idx(&gz, "f").unwrap()
        );
        let (split, classes) = images_and_labels(&gz, &idx(&[2], &[3, 0])).unwrap();
        assert_eq!(
            (split.x.dim(), classes, split.y.clone()),
            ((2, 4), 4, vec![3, 0])
        );
        assert_eq!(split.x.row(0).to_vec(), [0.0, 1.0, 0.2, 0.0]);
    }

    #[test]
    fn a_gzip_trailer_that_lies_about_the_size_changes_nothing_but_the_first_allocation() {
        let raw = idx(&[3, 4], &(0..12).collect::<Vec<u8>>());
        let want = decode_idx(&raw, "f").unwrap();
        let gz = gzip(&raw);
        let at = gz.len() - 4;
        for claimed in [0u32, 1, raw.len() as u32 - 1, raw.len() as u32, u32::MAX] {
            let mut lying = gz.clone();
            lying[at..].copy_from_slice(&claimed.to_le_bytes());
            // flate2 reports the mismatch as a corrupt stream, or decodes the same values.
            match decode_idx(&lying, "f") {
                Ok(got) => assert_eq!(got, want, "trailer {claimed}"),
                Err(e) => assert!(e.message.contains("not a valid gzip file"), "{e}"),
            }
        }
        assert_eq!(decode_idx(&gz, "f").unwrap(), want);
    }

    #[test]
    fn header_mismatches_are_named() {
        let e = decode_idx(&idx(&[3, 2], &[1, 2, 3]), "f")
            .unwrap_err()
            .message;
        assert!(e.contains("3×2 values but the file holds 3 bytes"), "{e}");
        assert!(decode_idx(&[0, 0, 0x0d, 1, 0, 0, 0, 1, 0, 0, 0, 0], "f")
            .unwrap_err()
            .message
            .contains("0x0d"));
        assert!(decode_idx(&[1, 2, 3], "f")
            .unwrap_err()
            .message
            .contains("too short"));
        assert!(decode_idx(&[7, 7, 8, 1, 0], "f")
            .unwrap_err()
            .message
            .contains("two zero bytes"));
        assert!(decode_idx(&[0x1f, 0x8b, 9, 9], "f")
            .unwrap_err()
            .message
            .contains("gzip"));
        let e = images_and_labels(&idx(&[2, 1], &[0, 1]), &idx(&[3], &[0, 1, 1]))
            .unwrap_err()
            .message;
        assert!(e.contains("2 images but 3 labels"), "{e}");
        let e = images_and_labels(&idx(&[2, 1], &[0, 1]), &idx(&[2], &[1, 1]))
            .unwrap_err()
            .message;
        assert!(e.contains("only one class"), "{e}");
    }

    fn gzip(raw: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut gz = Vec::new();
        let mut enc = flate2::write::GzEncoder::new(&mut gz, flate2::Compression::best());
        enc.write_all(raw).unwrap();
        enc.finish().unwrap();
        gz
    }

    #[test]
    fn a_gzip_bomb_and_too_many_pixels_are_refused_with_bounded_memory() {
        // 200 MB of zeros behind an IDX header gzip to about 200 kB: decompression stops
        // after MAX_BYTES + 1 bytes and says why.
        let mut bomb_raw = idx(&[200 << 20], &[]);
        bomb_raw.resize(bomb_raw.len() + (200 << 20), 0);
        let bomb = gzip(&bomb_raw);
        drop(bomb_raw);
        assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
        let e = decode_idx(&bomb, "the images file").unwrap_err().message;
        assert!(e.contains("decompresses to more than 100 MB"), "{e}");
        // 51 million pixels fit in 100 MB but would take 204 MB as numbers.
        let n = 51_000;
        let mut many = idx(&[n, 1000], &[]);
        many.resize(many.len() + n as usize * 1000, 7);
        let labels = idx(&[n], &(0..n).map(|i| (i % 2) as u8).collect::<Vec<_>>());
        let e = images_and_labels(&many, &labels).unwrap_err().message;
        assert!(
            e.contains("51 million values") && e.contains("at most 50 million"),
            "{e}"
        );
    }
}
