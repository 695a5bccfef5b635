//! The pixel size of a raster image, read from its header. Typst decodes
//! every raster image of the paper whole, whatever its size, and a PNG of a
//! few bytes can claim 100,000 × 100,000 pixels (40 GB decoded): such images
//! are refused before Typst sees them.

/// Most pixels of one image of the paper: 100 megapixels, 400 MB decoded
/// (a figure rarely needs a tenth of that).
pub const MAX_PIXELS: u64 = 100_000_000;

/// Width and height of a PNG, JPEG, GIF or WebP image, if `bytes` is one
/// whose header says.
pub fn size(bytes: &[u8]) -> Option<(u32, u32)> {
    let le16 = |at: usize| Some(u32::from(u16::from_le_bytes(*bytes.get(at..)?.first_chunk()?)));
    let le24 = |at: usize| Some(le16(at)? | u32::from(*bytes.get(at + 2)?) << 16);
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.get(12..16) == Some(&b"IHDR"[..]) {
        let be32 = |at: usize| Some(u32::from_be_bytes(*bytes.get(at..)?.first_chunk()?));
        return Some((be32(16)?, be32(20)?));
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some((le16(6)?, le16(8)?));
    }
    if bytes.starts_with(b"\xff\xd8") {
        return jpeg(bytes);
    }
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(&b"WEBP"[..]) {
        return match bytes.get(12..16)? {
            b"VP8X" => Some((le24(24)? + 1, le24(27)? + 1)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(*bytes.get(21..)?.first_chunk()?);
                Some(((bits & 0x3fff) + 1, (bits >> 14 & 0x3fff) + 1))
            }
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            _ => None,
        };
    }
    None
}

/// The size in a JPEG's start-of-frame segment, found by walking the
/// segments from the start.
fn jpeg(bytes: &[u8]) -> Option<(u32, u32)> {
    let be16 = |at: usize| Some(usize::from(u16::from_be_bytes(*bytes.get(at..)?.first_chunk()?)));
    let mut at = 2;
    loop {
        if *bytes.get(at)? != 0xff {
            return None;
        }
        let marker = *bytes.get(at + 1)?;
        // Start of frame: every SOFn but DHT (C4), JPG (C8) and DAC (CC).
        if matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
            let (height, width) = (be16(at + 5)?, be16(at + 7)?);
            return Some((u32::try_from(width).ok()?, u32::try_from(height).ok()?));
        }
        at += 2 + be16(at + 2)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_size_of_each_format() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend([100_000u32.to_be_bytes(), 3u32.to_be_bytes()].concat());
        assert_eq!(size(&png), Some((100_000, 3)));
        assert_eq!(size(b"GIF89a\x10\x00\x20\x00"), Some((16, 32)));
        // SOI, an APP0 segment of 4 bytes, then SOF0: precision, height 3, width 513.
        let jpeg = b"\xff\xd8\xff\xe0\x00\x04ab\xff\xc0\x00\x11\x08\x00\x03\x02\x01";
        assert_eq!(size(jpeg), Some((513, 3)));
        let webp = |chunk: &[u8], header: &[u8]| [b"RIFF\0\0\0\0WEBP", chunk, header].concat();
        let vp8x = webp(b"VP8X", b"\0\0\0\0\0\0\0\0\xff\x00\x00\x01\x00\x00");
        assert_eq!(size(&vp8x), Some((256, 2)));
        let vp8l = webp(b"VP8L", &[0, 0, 0, 0, 0x2f, 0x03, 0xc0, 0x00, 0x00]);
        assert_eq!(size(&vp8l), Some((4, 4)));
        let vp8 = webp(b"VP8 ", &[0, 0, 0, 0, 0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01]);
        assert_eq!(size(&vp8), Some((640, 480)));
        assert_eq!(size(b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), None);
        assert_eq!(size(b"\xff\xd8\xff"), None);
        assert_eq!(size(b"\x89PNG\r\n\x1a\n"), None);
    }
}
