//! The integration tests, one crate (as ripgrep lays them out): each
//! `tests/NAME.rs` is a module of it, so that the library and the binary are
//! linked into one test program instead of one per file. Cargo finds no other
//! test here (`autotests = false`): a new file of tests is declared below, and
//! [`every_test_file_is_a_module`] fails until it is.

mod action_steps;
mod common;
mod stats_oracle;

mod action;
mod bad_inputs;
mod browser;
mod browser_shapes;
mod charts;
mod charts_categories;
mod charts_ratio;
mod children;
mod claims;
mod claims_agree;
mod cli;
mod cli_conventions;
mod cross_references;
mod datasets;
mod diagnostics_grouped;
mod docs;
mod errors;
mod example_compressors;
mod example_usernetes;
mod export;
mod factors;
mod factors_claims;
mod facts;
mod files_as_saved;
mod fuzz_corpus;
mod history;
mod history_published;
mod hostile_data;
mod hostile_fs;
mod hostile_fs_import;
mod hostile_fs_special;
mod hostile_html;
mod hostile_templates;
mod hostile_typst;
mod import;
mod import_cli;
mod import_cli_data;
mod import_identity;
mod import_tools;
mod import_values;
mod independent;
mod injection;
mod large_results;
mod layout;
mod missing_values;
mod paper;
mod paper_layout;
mod paper_reads;
mod paper_text;
mod parquet;
mod portfolio;
mod provenance;
mod publish;
mod quantiles;
mod readme;
mod renderers;
mod serve;
mod site;
mod snapshots;
mod stats_cases;
mod stats_exclude;
mod stats_generated;
mod stats_influence;
mod stats_real;
mod study;
mod table_numbers;
mod words;
mod workflow;
mod workflow_scaffold;

/// Every `tests/*.rs` file (but this one) is declared above: with
/// `autotests = false`, an undeclared one would silently never run.
#[test]
fn every_test_file_is_a_module() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let here = std::fs::read_to_string(tests.join("tests.rs")).unwrap();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix(".rs") else { continue };
        if module != "tests" {
            let declared = format!("\nmod {module};\n");
            assert!(here.contains(&declared), "tests/{name} is not declared in tests/tests.rs");
        }
    }
}
