//! Why typesetting ended without a paper (out of time or memory, a crash),
//! said in terms of what the paper holds: the study's own template when it
//! has one, the largest page when it is large. A study without a template
//! is never asked about `range(5000000000)`.

use std::path::Path;

use crate::diagnostic::{Diagnostic, Location};
use crate::render::sandbox::{self, Cause, Failure, Job};

/// A page of at least this much Typst markup is large enough to explain a
/// paper that runs out of time or memory (a long page is about 50 KB).
pub const LARGE_PAGE: usize = 1 << 20;

/// What the paper that failed was made of.
pub struct Paper<'a> {
    /// The study's template (`templates/paper.typ`), or `None` for the built-in one.
    pub own_template: Option<&'a Path>,
    /// Where errors of the template as a whole point (the built-in one's name without one).
    pub template: &'a Path,
    /// Each page of the content and its length as Typst markup, in bytes.
    pub pages: Vec<(&'a Path, usize)>,
}

/// The error of a typesetting child that gave no paper: located at the
/// largest page if it explains the failure and the template is built in,
/// else at the template; its hint about what the study can change.
pub fn explain(failed: &Failure, paper: &Paper) -> Diagnostic {
    let largest = paper.pages.iter().copied().max_by_key(|(_, len)| *len);
    let large = largest.filter(|(_, len)| *len >= LARGE_PAGE);
    let at = match (paper.own_template, large) {
        (None, Some((page, _))) => page,
        _ => paper.template,
    };
    let page = large.and_then(|(page, len)| page_hint(failed.cause, page, len));
    let template = paper.own_template.and_then(|_| template_hint(failed.cause));
    let hint = match (template, page) {
        (Some(template), Some(page)) => format!("{template} Or: {page}"),
        (Some(hint), None) | (None, Some(hint)) => hint,
        (None, None) => other_hint(failed, paper),
    };
    Diagnostic::new(Location::file(at), format!("paper: {}", failed.message)).hint(hint)
}

/// What in the study's own template may need that much time or memory.
fn template_hint(cause: Cause) -> Option<String> {
    Some(match cause {
        Cause::Deadline => "does a loop or a recursion of the template never end? Typst stops \
                            `while` loops after 10000 rounds, but not `for` loops over huge \
                            ranges or recursion that branches"
            .into(),
        Cause::Memory => "does the template build a huge value, such as `range(5000000000)` or \
                          `\"x\" * 50000000000`, or grow an array without end?"
            .into(),
        Cause::Stack => "is something in the template nested thousands of levels deep?".into(),
        Cause::Start | Cause::Crash | Cause::Exchange => return None,
    })
}

/// How a large `page` (`len` bytes of markup) can fit the limit that `cause` names.
fn page_hint(cause: Cause, page: &Path, len: usize) -> Option<String> {
    let (limit, what) = match cause {
        Cause::Deadline => (0, "more time"),
        Cause::Memory => (1, "more memory"),
        _ => return None,
    };
    let [time, memory] = Job::Typeset.overrides();
    let (deadline, memory_mb) = sandbox::limits(Job::Typeset);
    let raise = match limit {
        0 => format!("{time} (now {})", deadline.as_secs()),
        _ => format!("{memory} (now {memory_mb})"),
    };
    Some(format!(
        "`{}` is {} of Typst markup, and a page that large needs {what} than the paper is \
         given: shorten it (thousands of rows belong in results/, shown by a table or a chart), \
         keep it on the web page only (`outputs = [\"page\"]` in its front matter), or raise \
         {raise}",
        page.display(),
        megabytes(len)
    ))
}

/// The hint without a template or a large page to blame: the size of the
/// content against the limit, or the cause's own hint.
fn other_hint(failed: &Failure, paper: &Paper) -> String {
    let [time, memory] = Job::Typeset.overrides();
    let total: usize = paper.pages.iter().map(|(_, len)| len).sum();
    let pages = paper.pages.len();
    let raise = match failed.cause {
        Cause::Deadline => time,
        Cause::Memory => memory,
        _ => return failed.hint().to_string(),
    };
    format!(
        "the content is {} of Typst markup in {pages} page{}, with the built-in template; \
         raise {raise} if the paper is meant to be this large",
        megabytes(total),
        if pages == 1 { "" } else { "s" }
    )
}

/// `bytes` in MB, one decimal.
fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / f64::from(1 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(cause: Cause) -> Failure {
        Failure { cause, message: "typesetting needed more than 4096 MB of memory".into() }
    }

    #[test]
    fn a_large_page_is_blamed_not_a_template_the_study_does_not_have() {
        let (index, big) = (Path::new("content/index.md"), Path::new("content/big.md"));
        let paper = Paper {
            own_template: None,
            template: Path::new("paper.typ (built-in)"),
            pages: vec![(index, 4000), (big, 20 << 20)],
        };
        let d = explain(&failure(Cause::Memory), &paper);
        assert_eq!(d.location.path, big);
        let hint = d.hint.unwrap();
        assert!(hint.starts_with("`content/big.md` is 20.0 MB of Typst markup"), "{hint}");
        assert!(hint.contains("REPORT_PAPER_MEMORY_MB") && !hint.contains("range("), "{hint}");
        // With its own template, the study hears of both, at the template.
        let own = Paper { own_template: Some(Path::new("templates/paper.typ")), ..paper };
        let d =
            explain(&failure(Cause::Memory), &Paper { template: own.own_template.unwrap(), ..own });
        assert_eq!(d.location.path, Path::new("templates/paper.typ"));
        let hint = d.hint.unwrap();
        assert!(hint.contains("range(5000000000)") && hint.contains("20.0 MB"), "{hint}");
    }

    #[test]
    fn small_pages_and_the_built_in_template_name_the_size_and_the_limit() {
        let paper = Paper {
            own_template: None,
            template: Path::new("paper.typ (built-in)"),
            pages: vec![(Path::new("content/index.md"), 700 << 10)],
        };
        let d = explain(&failure(Cause::Deadline), &paper);
        assert_eq!(d.location.path, Path::new("paper.typ (built-in)"));
        assert_eq!(
            d.hint.unwrap(),
            "the content is 0.7 MB of Typst markup in 1 page, with the built-in template; \
             raise REPORT_PAPER_TIMEOUT if the paper is meant to be this large"
        );
        let crash = explain(&failure(Cause::Crash), &paper).hint.unwrap();
        assert!(crash.contains("bug in report"), "{crash}");
    }
}
