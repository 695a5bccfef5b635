//! What makes a file not CSV as declared, named at its place before any
//! cell is read: a UTF-16 export, bytes of a legacy code page (Windows-1252)
//! in the header, fields separated by `;` with decimal commas (a
//! spreadsheet's export in many locales), a `.tsv` file whose fields hold
//! what a tab-separated file cannot.

use csv::ByteRecord;

use super::position::field_column;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::SourceFile;

/// An error when `bytes` (a results file past its UTF-8 byte order mark)
/// is UTF-16 or its first line is not UTF-8.
pub(super) fn check(file: &SourceFile, bytes: &[u8]) -> Result<(), Diagnostics> {
    let head = &bytes[..bytes.len().min(4096)];
    let utf16 = head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF");
    let nuls = head.iter().filter(|b| **b == 0).count();
    if utf16 || (head.len() >= 4 && nuls * 4 >= head.len()) {
        return Err(Diagnostic::new(
            Location::new(&file.path, 1, 1),
            "this file is UTF-16 (two bytes a character), not UTF-8 text",
        )
        .hint("save it as UTF-8: Excel's \"CSV UTF-8 (Comma delimited)\", LibreOffice's \"Text CSV\" with character set UTF-8, or `iconv -f UTF-16 -t UTF-8`")
        .into());
    }
    let line_end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    let first = &head[..line_end];
    match std::str::from_utf8(first) {
        Ok(_) => Ok(()),
        Err(err) => {
            let at = err.valid_up_to();
            let valid = String::from_utf8_lossy(&first[..at]);
            let byte = first[at];
            let guess = windows_1252(byte)
                .map(|c| format!(" (in Windows-1252, `{c}`)"))
                .unwrap_or_default();
            Err(Diagnostic::new(
                Location::new(&file.path, 1, valid.chars().count() + 1),
                format!("the header holds byte 0x{byte:02X}{guess}, which is not UTF-8: the file was saved in a legacy code page"),
            )
            .hint("save it as UTF-8 (Excel: \"CSV UTF-8\"; or `iconv -f WINDOWS-1252 -t UTF-8`), so that every name and label reads as written")
            .into())
        }
    }
}

/// The character of a Windows-1252 byte past ASCII, for the usual ones in
/// column names (`µ`, `°`, `²`, accented letters).
fn windows_1252(byte: u8) -> Option<char> {
    match byte {
        0x80 => Some('€'),
        0xA0..=0xFF => char::from_u32(u32::from(byte)),
        _ => None,
    }
}

/// An error when the header is one column holding `;` between names: the
/// fields are separated by semicolons, as a spreadsheet writes CSV where the
/// comma is the decimal mark.
pub(super) fn separator(
    file: &SourceFile,
    headers: &ByteRecord,
    bytes: &[u8],
) -> Result<(), Diagnostics> {
    let [only] = headers.iter().collect::<Vec<_>>()[..] else { return Ok(()) };
    let Some(at) = memchr::memchr(b';', only) else { return Ok(()) };
    let decimal_commas =
        bytes.windows(3).any(|w| w[0].is_ascii_digit() && w[1] == b',' && w[2].is_ascii_digit());
    let why =
        if decimal_commas { ", and numbers are written with decimal commas (`10,2`)" } else { "" };
    Err(Diagnostic::new(
        Location::new(&file.path, 1, field_column(only, 0, 0) + at),
        format!("the fields are separated by `;`, not `,`{why}: the whole header reads as one column"),
    )
    .hint("export CSV with `,` between fields and `.` as the decimal mark: LibreOffice's Text CSV with field delimiter `,` (and an English locale for numbers), or in Excel set the list separator to `,`; report never guesses, so that no number is read wrong")
    .into())
}

/// The bytes of a `.tsv` file as CSV: each tab a comma, one for one, so
/// that every line and column of a message is the file's. A field holding a
/// comma or a double quote cannot be read so, and is an error at its place.
pub(super) fn tsv_as_csv(file: &SourceFile) -> Result<Vec<u8>, Diagnostics> {
    let bytes = &file.bytes;
    if let Some(at) = memchr::memchr2(b',', b'"', bytes) {
        let before = &bytes[..at];
        let line = 1 + memchr::memchr_iter(b'\n', before).count();
        let start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&bytes[start..at]).chars().count() + 1;
        return Err(Diagnostic::new(
            Location::new(&file.path, line, column),
            format!("this tab-separated file holds `{}` in a field", bytes[at] as char),
        )
        .hint("a .tsv results file is read with a tab between fields and nothing quoted: remove the comma or quote, or export the table as CSV")
        .into());
    }
    Ok(bytes.iter().map(|b| if *b == b'\t' { b',' } else { *b }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(bytes: &[u8]) -> SourceFile {
        SourceFile::new("results/r.csv", bytes.to_vec())
    }

    /// The first message of `result`, with its place.
    fn said<T>(result: Result<T, Diagnostics>) -> String {
        let d = &result.err().expect("an error").0[0];
        format!("{}: {}", d.location, d.message)
    }

    #[test]
    fn utf16_and_legacy_code_pages_are_named_at_their_place() {
        let text = "environment,latency_µs\nx,1\n";
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert!(said(check(&file(&utf16), &utf16)).contains("UTF-16"));
        // Without its byte order mark, by the zero bytes.
        let bare: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert!(said(check(&file(&bare), &bare)).contains("UTF-16"));
        let cp1252 = b"environment,latency_\xB5s\nx,1\n";
        assert_eq!(
            said(check(&file(cp1252), cp1252)),
            "results/r.csv:1:21: the header holds byte 0xB5 (in Windows-1252, `µ`), which is not UTF-8: the file was saved in a legacy code page"
        );
        assert!(check(&file(text.as_bytes()), text.as_bytes()).is_ok());
    }

    #[test]
    fn semicolons_and_tabs_are_said() {
        let text = b"environment;run;seconds\nbefore;1;10,2\n";
        let headers =
            csv::ReaderBuilder::new().from_reader(&text[..]).byte_headers().unwrap().clone();
        let got = said(separator(&file(text), &headers, text));
        assert!(got.starts_with("results/r.csv:1:12: the fields are separated by `;`"), "{got}");
        assert!(got.contains("decimal commas"), "{got}");
        let tsv = SourceFile::new("results/r.tsv", b"a\tb\n1\t2.5\n".to_vec());
        assert_eq!(tsv_as_csv(&tsv).unwrap(), b"a,b\n1,2.5\n");
        let comma = SourceFile::new("results/r.tsv", b"a\tb\n1\t2,5\n".to_vec());
        assert_eq!(
            said(tsv_as_csv(&comma)),
            "results/r.tsv:2:4: this tab-separated file holds `,` in a field"
        );
    }
}
