//! The import structure of `src/` that CONTRIBUTING.md promises: no two files
//! import each other, directly or around a circle, and no pipeline stage
//! imports a later one. Imports are read from the source text: every
//! `crate::…` and `super::…` path, in `use` items (braces expanded) and in
//! code, resolved to the file that defines it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The pipeline's stages, in order: a stage may import earlier ones only.
const STAGES: [&str; 7] =
    ["config", "results", "analysis", "prose", "charts", "markdown", "render"];

/// Every `.rs` file under `src/`, by its module path (`analysis::caveat`).
fn modules() -> BTreeMap<Vec<String>, PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = BTreeMap::new();
    for entry in walkdir::WalkDir::new(&src).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap().with_extension("");
        let mut parts: Vec<String> =
            relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            parts.pop();
        }
        found.insert(parts, path.to_path_buf());
    }
    found
}

/// The `crate::` and `super::` paths in `text`, with one level of braces
/// expanded (`super::{a, b::c}` gives `super::a` and `super::b::c`).
fn paths(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for start in ["crate::", "super::"] {
        for (at, _) in code.match_indices(start) {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[at..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let head = rest[..end].trim_end_matches(':');
            if rest[end..].starts_with('{') && rest[..end].ends_with("::") {
                let inner = &rest[end + 1..rest[end..].find('}').map_or(rest.len(), |i| end + i)];
                out.extend(inner.split(',').map(|item| format!("{head}::{}", item.trim())));
            } else {
                out.push(head.to_string());
            }
        }
    }
    out
}

/// The module a path in the file of module `from` names: the longest prefix
/// of it that is a file of `src/`.
fn resolve(
    from: &[String],
    path: &str,
    files: &BTreeMap<Vec<String>, PathBuf>,
) -> Option<Vec<String>> {
    let mut parts = path.split("::").map(str::trim).filter(|p| !p.is_empty());
    let mut at: Vec<String> = match parts.next()? {
        "crate" => vec![],
        // `super` of `a::b` is `a`, whether its file is a/b.rs or a/b/mod.rs.
        "super" => from[..from.len().saturating_sub(1)].to_vec(),
        _ => return None,
    };
    let mut rest: Vec<&str> = parts.collect();
    while rest.first() == Some(&"super") {
        at.pop();
        rest.remove(0);
    }
    let mut best = None;
    for part in rest {
        at.push(part.split_whitespace().next()?.to_string());
        if files.contains_key(&at) {
            best = Some(at.clone());
        }
    }
    best
}

/// Which modules each module imports, from its code outside unit tests; a
/// module's own children and parents (a folder's `mod.rs` declares and
/// re-exports its files) are not counted.
fn imports() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = modules();
    let mut graph = BTreeMap::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        // A file's unit tests may import what they like.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
        let targets: BTreeSet<Vec<String>> = paths(code)
            .iter()
            .filter_map(|p| resolve(module, p, &files))
            .filter(|target| target != module)
            .filter(|target| !target.starts_with(module) && !module.starts_with(target))
            .collect();
        graph.insert(module.clone(), targets);
    }
    graph
}

/// A circle through `start`, if there is one.
fn circle(
    graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    start: &Vec<String>,
) -> Option<Vec<String>> {
    let mut stack = vec![(start.clone(), vec![start.join("::")])];
    let mut seen = BTreeSet::new();
    while let Some((node, trail)) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if next == start {
                return Some(trail.clone());
            }
            if seen.insert(next.clone()) {
                let mut longer = trail.clone();
                longer.push(next.join("::"));
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

#[test]
fn no_files_import_each_other() {
    let graph = imports();
    assert!(graph.len() > 100, "src/ was not read: {} files", graph.len());
    let circles: Vec<String> =
        graph.keys().filter_map(|m| circle(&graph, m)).map(|c| c.join(" -> ")).collect();
    assert!(circles.is_empty(), "import circles in src/:\n{}", circles.join("\n"));
}

#[test]
fn no_stage_imports_a_later_one() {
    let graph = imports();
    let stage = |m: &[String]| STAGES.iter().position(|s| m.first().is_some_and(|f| f == s));
    let mut back = Vec::new();
    for (module, targets) in &graph {
        let Some(own) = stage(module) else { continue };
        for target in targets {
            if stage(target).is_some_and(|t| t > own) {
                back.push(format!("{} imports {}", module.join("::"), target.join("::")));
            }
        }
    }
    assert!(back.is_empty(), "imports that run back up the pipeline:\n{}", back.join("\n"));
}

#[test]
fn paths_are_read_from_use_items_and_code() {
    let text = "use super::{caveat::join, wording};\nuse crate::format::plain; // crate::x\nlet _ = super::data::f(1);";
    assert_eq!(
        paths(text),
        ["crate::format::plain", "super::caveat::join", "super::wording", "super::data::f"]
    );
}
