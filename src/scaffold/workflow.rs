//! The publishing workflow `report new` writes, naming report's action by the
//! repository this binary was built for, and the check that no workflow of a
//! study still names a placeholder where that action goes.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Location};

/// Where the scaffold's publishing workflow goes.
pub const WORKFLOW_PATH: &str = ".github/workflows/publish.yml";

/// What the workflow names instead of report's repository when this binary
/// knows none. `<` cannot begin a GitHub account's name, so nobody can
/// register it and have their code run in the workflow.
pub const PLACEHOLDER: &str = "<OWNER>/report";

/// What workflows written by report 0.1.0 named instead: an account that
/// anyone could register.
const OLD_PLACEHOLDER: &str = "OWNER/report";

/// Workflow files read by the check, at most this many bytes each.
const MAX_WORKFLOW_BYTES: u64 = 1 << 20;

/// report's home repository, `OWNER/NAME`: the repository a release was
/// built in, else Cargo.toml's `repository` (build.rs); `None` when the
/// build knew neither.
pub fn home() -> Option<&'static str> {
    Some(env!("REPORT_HOME")).filter(|home| !home.is_empty())
}

/// The `uses:` reference of report's action: `OWNER/NAME@vMAJOR`, the major
/// tag each release moves; the placeholder without a home.
pub fn action(home: Option<&str>) -> String {
    format!("{}@v{}", home.unwrap_or(PLACEHOLDER), env!("CARGO_PKG_VERSION_MAJOR"))
}

/// The scaffold's publishing workflow: it installs this version of report
/// with the action of `home`, or names the placeholder for the author to
/// replace.
pub fn workflow(home: Option<&str>) -> String {
    let uses = match home {
        Some(_) => action(home),
        None => format!("{} # replace {PLACEHOLDER} with report's repository", action(home)),
    };
    include_str!("publish.yml")
        .replace("@ACTION@", &uses)
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
}

/// The warning of `report new` when `workflow` holds the placeholder: at
/// its line of `path`, saying what to write there.
pub fn homeless(path: &Path, workflow: &str) -> Option<Diagnostic> {
    let (line, column, _) = placeholders(workflow).into_iter().next()?;
    Some(
        Diagnostic::new(
            Location::new(path, line, column),
            "this report was built without the repository it is released from, so the workflow \
             cannot name the action that installs report",
        )
        .hint(format!(
            "replace `{PLACEHOLDER}` with the GitHub repository you got report from (OWNER/NAME); \
             `report check` fails until then"
        )),
    )
}

/// The `(line, column, text)` of each `uses:` value in `text` that names a
/// placeholder account instead of report's repository (1-based).
fn placeholders(text: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some(at) = line.find("uses:") else { continue };
        let value = line[at + "uses:".len()..].trim_start();
        let quoted = value.strip_prefix(['"', '\'']).unwrap_or(value);
        if [PLACEHOLDER, OLD_PLACEHOLDER].iter().any(|p| quoted.starts_with(&format!("{p}@"))) {
            let start = line.len() - quoted.len();
            let end = quoted.find([' ', '"', '\'', '#']).unwrap_or(quoted.len());
            found.push((index + 1, line[..start].chars().count() + 1, quoted[..end].to_string()));
        }
    }
    found
}

/// An error at each `uses:` line of the study's workflows
/// (`.github/workflows/*.yml` and `*.yaml`) that names a placeholder account
/// instead of report's repository: GitHub cannot run such a workflow, and
/// whoever registers the account named could run their own code in it.
/// Files that are not regular files inside the study are not read.
pub fn unedited(root: &Path) -> Vec<Diagnostic> {
    let folder = Path::new(".github/workflows");
    let Ok(entries) = std::fs::read_dir(root.join(folder)) else { return Vec::new() };
    let mut names: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| folder.join(e.file_name())))
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    names.sort();
    let mut errors = Vec::new();
    for relative in names {
        let Some(text) = read_workflow(root, &relative) else { continue };
        for (line, column, uses) in placeholders(&text) {
            let fix = match home() {
                Some(_) => format!("write `uses: {}`", action(home())),
                None => "write the GitHub repository report is released from, as `OWNER/NAME`"
                    .to_string(),
            };
            let mut error = Diagnostic::new(
                Location::new(&relative, line, column),
                format!(
                    "`{uses}` names a placeholder, not report's repository: GitHub cannot run \
                     this workflow, and whoever registers the account could run code in it"
                ),
            )
            .hint(fix);
            crate::diagnostic::attach(std::slice::from_mut(&mut error), &relative, text.as_bytes());
            errors.push(error);
        }
    }
    errors
}

/// The text of the workflow `root/relative` if it is a regular file inside
/// the study, read without waiting and at most [`MAX_WORKFLOW_BYTES`].
fn read_workflow(root: &Path, relative: &Path) -> Option<String> {
    let root = dunce::canonicalize(root).ok()?;
    let full = crate::project::regular_file(&root, relative).ok()??;
    let mut bytes = Vec::new();
    crate::project::open_regular(&full)
        .ok()?
        .take(MAX_WORKFLOW_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workflow_names_the_action_of_its_home_or_a_placeholder_nobody_can_own() {
        let major = env!("CARGO_PKG_VERSION_MAJOR");
        let homed = workflow(Some("acme/report"));
        assert!(homed.contains(&format!("      - uses: acme/report@v{major}\n")), "{homed}");
        assert!(placeholders(&homed).is_empty(), "{homed}");
        assert!(!homed.contains("@ACTION@") && !homed.contains("@VERSION@"), "{homed}");
        let version = format!("version: \"{}\"", env!("CARGO_PKG_VERSION"));
        assert!(homed.contains(&version), "{homed}");

        let homeless = workflow(None);
        let found = placeholders(&homeless);
        assert_eq!(found.len(), 1, "{homeless}");
        let (line, column, uses) = &found[0];
        assert_eq!(uses, &format!("<OWNER>/report@v{major}"));
        let text = homeless.lines().nth(line - 1).unwrap();
        assert_eq!(&text[column - 1..column - 1 + uses.len()], uses);
        let warning = super::homeless(Path::new("s/w.yml"), &homeless).unwrap();
        assert_eq!(warning.location, Location::new("s/w.yml", *line, *column));
        assert!(super::homeless(Path::new("w.yml"), &homed).is_none());
    }

    #[test]
    fn placeholders_are_found_quoted_or_not_and_real_actions_are_not() {
        let text = "steps:\n  - uses: OWNER/report@v1 # OWNER: the account\n  - uses: \"<OWNER>/report@v0\"\n  - uses: actions/checkout@v4\n  - uses: owner-co/report@v1\n  - uses: OWNER/report-fork@v1\n";
        let found = placeholders(text);
        assert_eq!(
            found,
            [(2, 11, "OWNER/report@v1".to_string()), (3, 12, "<OWNER>/report@v0".to_string())]
        );
    }
}
