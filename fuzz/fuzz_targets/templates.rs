//! Any page template: loading, checking and rendering it against the minimal
//! study never panics, overflows the stack or runs without end; a bad one is a
//! located error.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use report::pipeline::{self, Analyzed, Timings};
use report::project::{Project, SourceFile};

/// The minimal fixture study, loaded and analysed once.
fn study() -> &'static (Project, Analyzed) {
    static STUDY: OnceLock<(Project, Analyzed)> = OnceLock::new();
    STUDY.get_or_init(|| {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/minimal");
        let project = report::project::load(std::path::Path::new(root)).expect("fixture loads");
        let analyzed = pipeline::analyze(&project).expect("fixture analyses");
        (project, analyzed)
    })
}

fuzz_target!(|data: &[u8]| {
    let (project, analyzed) = study();
    let mut project = project.clone();
    // The first byte picks which template the input replaces.
    let Some((&pick, text)) = data.split_first() else { return };
    let name = ["page.html", "base.html", "partials/footer.html"][usize::from(pick) % 3];
    project.templates = vec![SourceFile::new(format!("templates/{name}"), text.to_vec())];
    let _ = pipeline::prepare(&project, analyzed, Some(0), &mut Timings::default());
});
