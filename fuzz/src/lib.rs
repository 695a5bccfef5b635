//! The body of every fuzz target, one function each: the fuzz targets under
//! `fuzz_targets/` call them on what libFuzzer generates, and the test suite
//! (tests/fuzz_corpus.rs, which includes this file) calls them on every
//! committed seed input and real benchmark output, in every CI run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use report::charts::spec;
use report::config::Config;
use report::diagnostic::Location;
use report::markdown::expand::{Fields, Shortcodes};
use report::markdown::shortcodes::{Code, Item, scan};
use report::pipeline::{self, Prepared, Timings};
use report::project::SourceFile;
use report::render::html::{self, PageContexts};
use report::render::{Refs, typst_markup};

/// Any chart block body: the directive parser never panics.
pub fn chart_spec(body: &str) {
    if let Ok(chart) = spec::parse(body, &Location::new("content/index.md", 3, 1)) {
        let _ = chart.key_location("x");
    }
}

fn csv_config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        report::config::parse(Path::new("book.toml"), "[book]\ntitle = \"F\"\n[study]\nbaseline = \"a\"\n\
            [environments.a]\nlabel = \"A\"\n[environments.b]\nlabel = \"B\"\n[data.f]\nkey = [\"environment\", \"run\"]\n\
            columns = { environment = \"text\", run = \"integer\", t = \"positive\" }\n").expect("a valid config")
    })
}

/// Any bytes as a results file: the loader answers with a table or located
/// diagnostics, never a panic.
pub fn csv_load(data: &[u8]) {
    let files = [
        SourceFile::new("results/f.csv", data.to_vec()),
        SourceFile::new("results/g.csv", data.to_vec()),
    ];
    if let Ok(results) = report::results::load(&files, csv_config()) {
        let _ = report::analysis::analyze(&results, csv_config());
    }
}

/// Any bytes as a Parquet results file: the reader answers with a table or
/// located diagnostics (a corrupt footer, a wrong type), never a panic.
pub fn parquet_load(data: &[u8]) {
    let files = [SourceFile::new("results/f.parquet", data.to_vec())];
    if let Ok(results) = report::results::load(&files, csv_config()) {
        let _ = report::analysis::analyze(&results, csv_config());
    }
}

/// Any text as a LAMMPS log: the importer yields a run or a refusal.
pub fn lammps_import(text: &str) {
    let _ = report::import::lammps::parse(text);
}

/// Any bytes as the output of a harness: the first byte picks the format
/// among every registered one but LAMMPS and OSU, which have targets of
/// their own (hyperfine, gbench, pytest-benchmark, reframe, criterion, log
/// with two figures, then any format added later), the rest is the file.
/// Each yields tables or a refusal.
pub fn harness_import(data: &[u8]) {
    let formats: Vec<_> =
        report::import::FORMATS.iter().filter(|f| !["lammps", "osu"].contains(&f.name())).collect();
    let Some((first, rest)) = data.split_first() else { return };
    let format = *formats[*first as usize % formats.len()];
    let text = String::from_utf8_lossy(rest);
    let path = Path::new("fuzz/new/sample.json");
    let figures = ["gflops=WR\\S+(?:\\s+\\S+){5}\\s+(\\S+)", "triad=Triad:\\s+(?P<value>\\S+)"];
    let options = report::import::ImportOptions {
        root: PathBuf::from("."),
        format,
        paths: Vec::new(),
        env: Some("fuzz".into()),
        nodes: None,
        procs: None,
        pattern: None,
        into: None,
        dry_run: true,
        values: figures.iter().map(|f| ("figure".to_string(), f.to_string())).collect(),
    };
    let lines = report::import::unwrap::lines(path, &text).1;
    let input = report::import::format::Input {
        path,
        bytes: rest,
        text: &text,
        lines: &lines,
        options: &options,
    };
    let _ = format.read(&input);
}

/// Any Markdown: the parse and the Typst and HTML converters never panic.
pub fn markdown_typst(text: &str) {
    let body = report::markdown::parse::text(text);
    let markup = typst_markup::convert(&body, &Refs::none());
    let _ = markup.markdown_offset(markup.text.len());
    let _ = html::to_html(&body, Refs::none());
}

/// Any text as OSU output: the importer yields tables or a refusal.
pub fn osu_import(text: &str) {
    let _ = report::import::osu::parse(text);
}

/// Any content text: the shortcode scanner and the expansion never panic,
/// every span the scanner gives lies on character boundaries of the text
/// (scanned as if nothing were code, so that every `{{` is read), and every
/// offset of the page's document maps back to a place in the file.
pub fn shortcodes(text: &str) {
    let (items, problems) = scan(text, &Code::default());
    let mut last = 0;
    for item in &items {
        match item {
            Item::Call(call) => {
                assert!(call.span.start >= last, "items in order");
                assert!(text.get(call.span.clone()).is_some());
                assert!(text.get(call.name_span.clone()) == Some(call.name.as_str()));
                for arg in &call.args {
                    assert!(text.get(arg.key_span.clone()) == Some(arg.key.as_str()));
                    assert!(text.get(arg.value_span.clone()).is_some());
                }
                last = call.span.end;
            }
            Item::Escape(at) => {
                assert_eq!(text.as_bytes()[*at], b'\\');
                last = at + 1;
            }
        }
    }
    for problem in &problems {
        assert!(text.get(problem.span.clone()).is_some(), "{problem:?}");
    }
    expanded_offsets_map_back(text);
}

/// Every block of the page `text`, its shortcodes expanded, starts on a
/// line of it.
fn expanded_offsets_map_back(text: &str) {
    let fields: Fields = BTreeMap::from([(
        "m".to_string(),
        BTreeMap::from([("full", "+1.0% (n = 3)".to_string()), ("value", "+1.0%".to_string())]),
    )]);
    let shortcodes = Shortcodes { fields: &fields, caveats: true, facts: None };
    let path = Path::new("content/f.md");
    let map = report::markdown::SourceMap::identity(text);
    if let Ok((body, _)) = report::markdown::parse::page(path, text, Some(shortcodes), None) {
        let lines = text.matches('\n').count() + 1;
        for block in report::markdown::document::all_blocks(&body.blocks) {
            let at = map.locate(path, block.at);
            assert!(at.line >= 1 && at.line <= lines, "{} -> {at}", block.at);
        }
    }
}

/// The minimal fixture study of the repository's tests.
fn minimal_fixture() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let inside = here.join("tests/fixtures/minimal");
    if inside.is_dir() { inside } else { here.join("../tests/fixtures/minimal") }
}

/// The pages of the minimal fixture study, prepared once.
fn study() -> &'static PageContexts {
    static STUDY: OnceLock<PageContexts> = OnceLock::new();
    STUDY.get_or_init(|| {
        let project = report::project::load(&minimal_fixture()).expect("fixture loads");
        let analyzed = pipeline::analyze(&project).expect("fixture analyses");
        let prepared: Prepared =
            pipeline::prepare(&project, &analyzed, Some(0), &mut Timings::default())
                .expect("fixture prepares");
        html::contexts(&prepared.resolved(&project, &analyzed))
    })
}

/// Any page template: loading, checking and rendering it against the
/// minimal study never panics, overflows the stack or runs without end; a
/// bad one is a located error. The first byte picks which template the
/// input replaces; the study is prepared once.
pub fn templates(data: &[u8]) {
    let pages = study();
    let Some((&pick, text)) = data.split_first() else { return };
    let name = ["page.html", "base.html", "partials/footer.html"][usize::from(pick) % 3];
    let templates = [SourceFile::new(format!("templates/{name}"), text.to_vec())];
    let _ = html::render_pages(&templates, pages.clone());
}
