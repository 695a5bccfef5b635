//! What goes between `report` and its typesetting child: the
//! [`PaperProject`] one way, the PDF or Typst's errors the other, as
//! length-prefixed frames (a little-endian `u64` length, then the bytes), so
//! that fonts and images pass as they are.

use super::{PaperProject, TypstError};
use crate::config::PdfStandard;

/// Frames being written.
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.0.extend_from_slice(bytes);
        self
    }

    fn number(&mut self, n: u64) -> &mut Self {
        self.bytes(&n.to_le_bytes())
    }

    fn count(&mut self, n: usize) -> &mut Self {
        self.number(n as u64)
    }
}

/// Frames being read; `None` at the first frame that is cut short.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let (len, rest) = self.0.split_first_chunk::<8>()?;
        let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
        let (frame, rest) = rest.split_at_checked(len)?;
        self.0 = rest;
        Some(frame)
    }

    fn text(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }

    fn number(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(*self.bytes()?.first_chunk::<8>()?))
    }

    /// A count of items, each at least one frame long: never more than the bytes left.
    fn count(&mut self) -> Option<usize> {
        usize::try_from(self.number()?).ok().filter(|&n| n <= self.0.len() / 8)
    }

    fn end(&self) -> Option<()> {
        self.0.is_empty().then_some(())
    }
}

/// The project as frames.
pub(super) fn encode_project(project: &PaperProject) -> Vec<u8> {
    let mut w = Writer::default();
    w.bytes(project.main.as_bytes());
    w.count(project.files.len());
    for (path, bytes) in &project.files {
        w.bytes(path.as_bytes()).bytes(bytes);
    }
    match project.date {
        Some((y, mo, d, h, mi, s)) => {
            w.number(1).number(u64::from(y as u32));
            for part in [mo, d, h, mi, s] {
                w.number(part.into());
            }
        }
        None => {
            w.number(0);
        }
    }
    let standard = match project.standard {
        PdfStandard::Ua1 => 0,
        PdfStandard::A2b => 1,
        PdfStandard::None => 2,
    };
    w.number(standard).count(project.fonts.len());
    for (path, bytes) in &project.fonts {
        w.bytes(path.as_bytes()).bytes(bytes);
    }
    w.count(project.families.len());
    for family in &project.families {
        w.bytes(family.as_bytes());
    }
    w.0
}

/// The project from its frames, or `None` if they are not one.
pub(super) fn decode_project(input: &[u8]) -> Option<PaperProject> {
    let mut r = Reader(input);
    let main = r.text()?;
    let files =
        (0..r.count()?).map(|_| Some((r.text()?, r.bytes()?.to_vec()))).collect::<Option<_>>()?;
    let date = match r.number()? {
        0 => None,
        _ => {
            let year = u32::try_from(r.number()?).ok()? as i32;
            let mut part = || u8::try_from(r.number()?).ok();
            Some((year, part()?, part()?, part()?, part()?, part()?))
        }
    };
    let standard = [PdfStandard::Ua1, PdfStandard::A2b, PdfStandard::None]
        .get(usize::try_from(r.number()?).ok()?)
        .copied()?;
    let fonts =
        (0..r.count()?).map(|_| Some((r.text()?, r.bytes()?.to_vec()))).collect::<Option<_>>()?;
    let families = (0..r.count()?).map(|_| r.text()).collect::<Option<_>>()?;
    r.end()?;
    Some(PaperProject { main, files, date, standard, fonts, families })
}

/// The child's answer as frames: `0` and the PDF, or `1` and the errors.
pub(super) fn encode_answer(answer: &Result<Vec<u8>, Vec<TypstError>>) -> Vec<u8> {
    let mut w = Writer::default();
    match answer {
        Ok(pdf) => {
            w.number(0).bytes(pdf);
        }
        Err(errors) => {
            w.number(1).count(errors.len());
            for e in errors {
                match &e.file {
                    Some(file) => w.number(1).bytes(file.as_bytes()),
                    None => w.number(0),
                };
                w.count(e.offset).bytes(e.message.as_bytes()).count(e.hints.len());
                for hint in &e.hints {
                    w.bytes(hint.as_bytes());
                }
            }
        }
    }
    w.0
}

/// The child's answer from its frames, or `None` if they are not one.
pub(super) fn decode_answer(input: &[u8]) -> Option<Result<Vec<u8>, Vec<TypstError>>> {
    let mut r = Reader(input);
    let answer = match r.number()? {
        0 => Ok(r.bytes()?.to_vec()),
        _ => Err((0..r.count()?).map(|_| decode_error(&mut r)).collect::<Option<_>>()?),
    };
    r.end()?;
    Some(answer)
}

fn decode_error(r: &mut Reader) -> Option<TypstError> {
    let file = match r.number()? {
        0 => None,
        _ => Some(r.text()?),
    };
    let offset = usize::try_from(r.number()?).ok()?;
    let message = r.text()?;
    let hints = (0..r.count()?).map(|_| r.text()).collect::<Option<_>>()?;
    Some(TypstError { file, offset, message, hints })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_and_answers_survive_the_trip() {
        let project = PaperProject {
            main: "= Hi\n#include \"content.typ\"".into(),
            files: [("content.typ".to_string(), b"text".to_vec()), ("a.png".into(), vec![0, 255])]
                .into(),
            date: Some((-44, 3, 15, 23, 59, 1)),
            standard: PdfStandard::A2b,
            fonts: vec![("fonts/x.ttf".into(), vec![1, 2, 3])],
            families: vec!["Libertinus Serif".into(), "Ünïcode".into()],
        };
        let back = decode_project(&encode_project(&project)).unwrap();
        assert_eq!(format!("{back:?}"), format!("{project:?}"));
        let none = PaperProject { date: None, files: Default::default(), ..project };
        assert_eq!(decode_project(&encode_project(&none)).unwrap().date, None);
        let pdf: Result<Vec<u8>, Vec<TypstError>> = Ok(b"%PDF-1.7".to_vec());
        assert_eq!(decode_answer(&encode_answer(&pdf)), Some(pdf));
        let errors = Err(vec![
            TypstError {
                file: Some("main.typ".into()),
                offset: 7,
                message: "m".into(),
                hints: vec![],
            },
            TypstError { file: None, offset: 0, message: String::new(), hints: vec!["h".into()] },
        ]);
        assert_eq!(decode_answer(&encode_answer(&errors)), Some(errors));
    }

    #[test]
    fn cut_or_padded_frames_are_refused() {
        let bytes = encode_answer(&Ok(b"%PDF".to_vec()));
        for len in 0..bytes.len() {
            assert_eq!(decode_answer(&bytes[..len]), None, "{len}");
        }
        let mut padded = bytes.clone();
        padded.push(0);
        assert_eq!(decode_answer(&padded), None);
        // A count larger than the input could hold is refused before anything is allocated.
        let mut huge = Writer::default();
        huge.number(1).number(u64::MAX);
        assert_eq!(decode_answer(&huge.0), None);
        assert!(decode_project(b"").is_none());
    }
}
