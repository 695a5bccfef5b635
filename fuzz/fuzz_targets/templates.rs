//! Any page template: loading, checking and rendering it against the minimal
//! study never panics, overflows the stack or runs without end; a bad one is a
//! located error. The study is prepared once; each input only renders the
//! pages, so that the fuzzer spends its time in the templates.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use report::pipeline::{self, Prepared, Timings};
use report::project::SourceFile;
use report::render::html::{self, PageContexts, SiteInputs};

/// The pages of the minimal fixture study, prepared once.
fn study() -> &'static PageContexts {
    static STUDY: OnceLock<PageContexts> = OnceLock::new();
    STUDY.get_or_init(|| {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/minimal");
        let project = report::project::load(std::path::Path::new(root)).expect("fixture loads");
        let analyzed = pipeline::analyze(&project).expect("fixture analyses");
        let prepared: Prepared =
            pipeline::prepare(&project, &analyzed, Some(0), &mut Timings::default())
                .expect("fixture prepares");
        html::contexts(&SiteInputs {
            document: &prepared.document,
            charts: &prepared.charts,
            cited: &prepared.cited,
            book: &prepared.book,
            templates: &[],
            provenance: &prepared.book.provenance,
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let pages = study();
    // The first byte picks which template the input replaces.
    let Some((&pick, text)) = data.split_first() else { return };
    let name = ["page.html", "base.html", "partials/footer.html"][usize::from(pick) % 3];
    let templates = [SourceFile::new(format!("templates/{name}"), text.to_vec())];
    let _ = html::render_pages(&templates, pages.clone());
});
