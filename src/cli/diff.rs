//! `report diff`: how each headline metric moved between two stats.json
//! files, or between the results at a git revision and now, and which cells
//! of their computed tables changed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use report::diagnostic::render::Format;

use super::Cli;

/// Compare `files` (old, new) or the results at `against` with now; one
/// line each, or with `--message-format json` an array of objects.
pub fn run(cli: &Cli, files: &[PathBuf], against: Option<&str>) -> anyhow::Result<ExitCode> {
    let (old, new) = match (files, against) {
        ([old, new], None) => (report::diff::read(old)?, report::diff::read(new)?),
        ([], Some(rev)) => {
            let new = current_stats(&cli.root)?;
            (report::diff::stats_at(&cli.root, rev)?, new)
        }
        _ => anyhow::bail!("give two stats.json files, or --against REV"),
    };
    let changes = report::diff::compare(&old, &new);
    if cli.format == Format::Json {
        let json: Vec<serde_json::Value> = changes
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name, "label": c.label, "before": c.before, "after": c.after,
                    "test": c.test,
                    "verdict": c.verdict.as_ref().map(|(b, a)| serde_json::json!({ "before": b, "after": a })),
                    "text": c.to_string(),
                })
            })
            .collect();
        super::print::line(&serde_json::to_string_pretty(&json)?);
    } else {
        let lines: Vec<String> = changes.iter().map(|c| format!("- {c}\n")).collect();
        super::print::out(&lines.concat());
    }
    Ok(ExitCode::SUCCESS)
}

/// What stats.json of the study in `root` would hold now (nothing is written).
fn current_stats(root: &Path) -> anyhow::Result<report::render::stats::Stats> {
    let project = report::project::load(root)?;
    Ok(report::render::stats::read(&report::pipeline::stats(&project)?)?)
}
