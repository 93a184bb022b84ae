//! An uncompressed POSIX ustar archive of an export's files, so that the page downloads the
//! script and its data as one file (`tar xf`, or Python's `tarfile`, unpacks it).

use super::ExportFile;

const BLOCK: usize = 512;

/// The files as one ustar archive, each with mode 0644, under the directory `dir`.
pub fn tar(dir: &str, files: &[ExportFile]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in files {
        let mut header = [0u8; BLOCK];
        let name = format!("{dir}/{}", f.name);
        let name = name.as_bytes();
        header[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
        put_octal(&mut header[100..108], 0o644);
        put_octal(&mut header[108..116], 0);
        put_octal(&mut header[116..124], 0);
        put_octal(&mut header[124..136], f.bytes.len() as u64);
        put_octal(&mut header[136..148], 0);
        header[156] = b'0';
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        header[148..156].fill(b' ');
        let sum: u64 = header.iter().map(|&b| b as u64).sum();
        put_octal(&mut header[148..155], sum);
        out.extend_from_slice(&header);
        out.extend_from_slice(&f.bytes);
        out.resize(out.len().next_multiple_of(BLOCK), 0);
    }
    out.resize(out.len() + 2 * BLOCK, 0);
    out
}

/// `value` in octal, zero-padded to the field's width less its final NUL.
fn put_octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    field[..width].copy_from_slice(&text.as_bytes()[text.len() - width..]);
    field[width] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_ustar_with_a_valid_checksum() {
        let files = vec![
            ExportFile {
                name: "a.py".into(),
                bytes: b"print(1)\n".to_vec(),
            },
            ExportFile {
                name: "b.csv".into(),
                bytes: vec![b'x'; 700],
            },
        ];
        let t = tar("run", &files);
        assert_eq!(t.len(), BLOCK * (1 + 1 + 1 + 2 + 2));
        assert_eq!(&t[..7], b"run/a.p");
        assert_eq!(&t[257..262], b"ustar");
        let mut h = t[..BLOCK].to_vec();
        let stored = u64::from_str_radix(std::str::from_utf8(&h[148..154]).unwrap(), 8).unwrap();
        h[148..156].fill(b' ');
        assert_eq!(stored, h.iter().map(|&b| b as u64).sum::<u64>());
        assert_eq!(&t[BLOCK..BLOCK + 9], b"print(1)\n");
        let size = std::str::from_utf8(&t[2 * BLOCK + 124..2 * BLOCK + 135]).unwrap();
        assert_eq!(u64::from_str_radix(size, 8).unwrap(), 700);
    }
}
