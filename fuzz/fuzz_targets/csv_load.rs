//! Any bytes as a results file: the loader answers with a table or located
//! diagnostics, never a panic.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use report::config::Config;
use report::project::SourceFile;

fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        report::config::parse(std::path::Path::new("book.toml"), "[book]\ntitle = \"F\"\n[study]\nbaseline = \"a\"\n\
            [environments.a]\nlabel = \"A\"\n[environments.b]\nlabel = \"B\"\n[data.f]\nkey = [\"environment\", \"run\"]\n\
            columns = { environment = \"text\", run = \"integer\", t = \"positive\" }\n").expect("a valid config")
    })
}

fuzz_target!(|data: &[u8]| {
    let files = [
        SourceFile::new("results/f.csv", data.to_vec()),
        SourceFile::new("results/g.csv", data.to_vec()),
    ];
    if let Ok(results) = report::results::load(&files, config()) {
        let _ = report::analysis::analyze(&results, config());
    }
});
