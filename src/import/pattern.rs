//! Path patterns such as `{env}/lammps-{nodes}-{procs}-{run}.out`: labels that
//! real folders encode in their paths.

use std::path::Path;

use regex::Regex;

use super::{ImportOptions, Refusal};

/// A compiled path pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    regex: Regex,
}

/// Labels of one file: from the pattern, else from the options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels {
    /// Environment.
    pub env: Option<String>,
    /// Node count.
    pub nodes: Option<u64>,
    /// Process count.
    pub procs: Option<u64>,
    /// Run number.
    pub run: Option<u64>,
}

impl std::str::FromStr for Pattern {
    type Err = String;

    /// Compile a pattern; placeholders are `{env}`, `{nodes}`, `{procs}` and
    /// `{run}`, and `*` (any text within one path part) and `**` (any path
    /// parts) match what carries no label.
    fn from_str(text: &str) -> Result<Self, String> {
        let mut regex = String::from("(?:^|/)");
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            regex.push_str(&wildcards(&rest[..open]));
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("unclosed `{{` in pattern `{text}`"))?
                + open;
            let name = &rest[open + 1..close];
            regex.push_str(&match name {
                "env" => "(?P<env>[^/]+?)".to_string(),
                "nodes" | "procs" | "run" => format!("(?P<{name}>[0-9]+)"),
                other => return Err(format!("unknown placeholder `{{{other}}}` in pattern `{text}`; use {{env}}, {{nodes}}, {{procs}} or {{run}}")),
            });
            rest = &rest[close + 1..];
        }
        regex.push_str(&wildcards(rest));
        regex.push('$');
        Ok(Pattern {
            text: text.to_string(),
            regex: Regex::new(&regex).map_err(|e| e.to_string())?,
        })
    }
}

/// The literal text of a pattern as a regular expression, with glob
/// wildcards: `**/` any folders (none included), `**` anything, `*` anything
/// but `/`, `?` one character but `/`. (A glob crate cannot be used here: the
/// placeholders between the wildcards must capture, which only a regular
/// expression does, so the pattern is one.)
fn wildcards(literal: &str) -> String {
    let mut out = String::new();
    let mut rest = literal;
    while let Some(c) = rest.chars().next() {
        let (piece, len) = if rest.starts_with("**/") {
            ("(?:.*/)?".to_string(), 3)
        } else if rest.starts_with("**") {
            (".*".to_string(), 2)
        } else if c == '*' {
            ("[^/]*".to_string(), 1)
        } else if c == '?' {
            ("[^/]".to_string(), 1)
        } else {
            (regex::escape(&rest[..c.len_utf8()]), c.len_utf8())
        };
        out.push_str(&piece);
        rest = &rest[len..];
    }
    out
}

impl Pattern {
    /// The labels in `path`, or why it has none: it does not match, or a
    /// count in it is zero or too large.
    pub fn labels(&self, path: &Path) -> Result<Labels, Refusal> {
        let text = path.to_string_lossy().replace('\\', "/");
        let captures = self.regex.captures(&text).ok_or_else(|| {
            Refusal::new(format!("the path does not match the pattern `{}`", self.text))
                .hint("check the pattern against the file's path, or import this file on its own with --env and --nodes")
        })?;
        let number = |name: &str| match captures.name(name) {
            None => Ok(None),
            Some(m) => count(name, m.as_str()).map(Some),
        };
        Ok(Labels {
            env: captures.name("env").map(|m| m.as_str().to_string()),
            nodes: number("nodes")?,
            procs: number("procs")?,
            run: number("run")?,
        })
    }
}

/// The number `digits` that the placeholder `{name}` matched: a whole number
/// that fits in 64 bits, greater than zero for `nodes` and `procs`.
fn count(name: &str, digits: &str) -> Result<u64, Refusal> {
    let placeholder = format!("{{{name}}}");
    match digits.parse::<u64>() {
        Ok(0) if name != "run" => Err(Refusal::new(format!(
            "the path gives {placeholder} = {digits}: a count of nodes or processes is at least 1"
        ))
        .hint("rename the file, or import it on its own with --nodes N and --procs N")),
        Ok(value) => Ok(value),
        Err(_) => Err(Refusal::new(format!(
            "the path gives {placeholder} = {digits}, too large to be a count"
        ))
        .hint("check that the pattern's placeholders match the right parts of the path")),
    }
}

/// The labels of `file`: the pattern's, completed by the options. A file that
/// does not match the pattern, has no environment (when `require_env`), or a
/// count of zero is refused.
pub fn labels(options: &ImportOptions, file: &Path, require_env: bool) -> Result<Labels, Refusal> {
    let mut labels = match &options.pattern {
        Some(pattern) => pattern.labels(file)?,
        None => Labels::default(),
    };
    labels.env = labels.env.or_else(|| options.env.clone());
    labels.nodes = labels.nodes.or(options.nodes);
    labels.procs = labels.procs.or(options.procs);
    if labels.env.is_none() && require_env {
        return Err(Refusal::new("no environment: pass --env NAME, or a --pattern with {env}"));
    }
    if labels.env.as_deref().is_some_and(|e| e.trim().is_empty()) {
        return Err(Refusal::new("the environment is empty")
            .hint("pass --env NAME with a name such as `bare-metal`"));
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_read_labels_from_paths() {
        let p: Pattern = "{env}/lammps-{nodes}-{procs}-{run}.out".parse().unwrap();
        let labels =
            p.labels(Path::new("../shared/flux/lammps/bare-metal/lammps-16-256-12.out")).unwrap();
        assert_eq!(
            labels,
            Labels {
                env: Some("bare-metal".into()),
                nodes: Some(16),
                procs: Some(256),
                run: Some(12)
            }
        );
        assert!(p.labels(Path::new("bare-metal/other.out")).is_err());
        let zero = p.labels(Path::new("x/lammps-0-4-1.out")).unwrap_err();
        assert!(zero.reason.contains("{nodes} = 0"), "{}", zero.reason);
        let huge = p.labels(Path::new("x/lammps-2-99999999999999999999-1.out")).unwrap_err();
        assert!(huge.reason.contains("too large"), "{}", huge.reason);
        assert!("{env}/{oops}.out".parse::<Pattern>().is_err());
    }

    #[test]
    fn wildcards_match_what_carries_no_label() {
        let p: Pattern = "{env}/*-{nodes}-{procs}-{run}.out".parse().unwrap();
        let labels = p.labels(Path::new("logs/usernetes/osu-latency-32-64-7.out")).unwrap();
        assert_eq!(
            (labels.env.as_deref(), labels.nodes, labels.procs, labels.run),
            (Some("usernetes"), Some(32), Some(64), Some(7))
        );
        // `*` stays within one path part; `**` crosses them, or matches none.
        assert!(
            p.labels(Path::new("usernetes/a/b-1-2-3.out"))
                .is_ok_and(|l| l.env.as_deref() == Some("a"))
        );
        let deep: Pattern = "{env}/**/run-{run}.log".parse().unwrap();
        for (path, env) in
            [("bare-metal/2024/02/run-3.log", "bare-metal"), ("k8s/run-4.log", "k8s")]
        {
            assert_eq!(deep.labels(Path::new(path)).unwrap().env.as_deref(), Some(env), "{path}");
        }
        let one: Pattern = "{env}/run-?.log".parse().unwrap();
        assert!(one.labels(Path::new("a/run-1.log")).is_ok());
        assert!(one.labels(Path::new("a/run-12.log")).is_err());
        // Regex syntax in a pattern is literal text.
        let dots: Pattern = "{env}/a.b+(c)".parse().unwrap();
        assert!(dots.labels(Path::new("x/a.b+(c)")).is_ok());
        assert!(dots.labels(Path::new("x/aXbb(c)")).is_err());
    }
}
