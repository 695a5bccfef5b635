//! What the templates lead to when rendered: includes, extends, imports and
//! macro calls, as one graph, read from Tera's syntax trees. Tera recurses
//! along every edge without a limit, so a circle (a template that includes
//! itself, a macro that calls itself, directly or through others) would never
//! end, and a long enough chain overflows the stack: both are refused before
//! rendering, as is a step to a template that does not exist, each at the
//! line of the step. The walk keeps its own stack and visits each node once.

use std::collections::BTreeMap;

use tera::Template;

use super::calls;
use super::tags::{self, Tag};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Most levels a page may nest, counting each template or macro on the way
/// as one more than the blocks it nests. Tera overflows a 2 MB stack near 800
/// nested blocks, 1,600 nested macro calls or 3,200 nested includes.
pub const MAX_DEPTH: usize = 200;

/// One template's source: its text, where it came from, how deeply it nests blocks.
#[derive(Debug, Clone)]
pub struct Source {
    /// The text.
    pub text: String,
    /// Where it came from: `templates/NAME`, or `NAME (built-in)`.
    pub path: String,
    /// How deeply its blocks nest (see [`tags::check`]).
    pub nesting: usize,
}

/// A template's own body (`None`) or one of its macros.
type Key = (String, Option<String>);

/// How one body leads to another.
#[derive(Debug, Clone)]
enum Step {
    Include(Vec<String>),
    Extends(String),
    Import(String),
    Call(String, String),
}

struct Graph<'a> {
    keys: Vec<Key>,
    edges: Vec<Vec<(usize, Step)>>,
    sources: &'a BTreeMap<String, Source>,
}

/// Refuse steps to missing templates, circles and chains past [`MAX_DEPTH`].
/// `scopes` holds what each template's bodies do ([`calls::scopes`]).
pub fn check(
    templates: &BTreeMap<String, Template>,
    scopes: &BTreeMap<String, calls::Scopes>,
    sources: &BTreeMap<String, Source>,
) -> Result<(), Diagnostics> {
    let mut keys: Vec<Key> = Vec::new();
    let mut steps: Vec<(Key, Key, Step)> = Vec::new();
    let mut errors = Diagnostics::default();
    let none = calls::Scopes::new();
    for (name, template) in templates {
        keys.push((name.clone(), None));
        let mut macros: Vec<&String> = template.macros.keys().collect();
        macros.sort();
        keys.extend(macros.into_iter().map(|m| (name.clone(), Some(m.clone()))));
        let scopes = scopes.get(name).unwrap_or(&none);
        for (from, to, step) in template_steps(name, template, scopes, templates) {
            match to {
                Some(to) => steps.push((from, to, step)),
                None => errors.push(missing(sources, &from, &step)),
            }
        }
    }
    errors.into_result(())?;
    let index: BTreeMap<&Key, usize> = keys.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let mut edges = vec![Vec::new(); keys.len()];
    for (from, to, step) in &steps {
        if let (Some(&from), Some(&to)) = (index.get(from), index.get(to)) {
            edges[from].push((to, step.clone()));
        }
    }
    Graph { keys, edges, sources }.walk()
}

/// Every step out of `template`'s bodies, with its target (`None`: missing).
fn template_steps(
    name: &str,
    template: &Template,
    scopes: &calls::Scopes,
    templates: &BTreeMap<String, Template>,
) -> Vec<(Key, Option<Key>, Step)> {
    let body: Key = (name.to_string(), None);
    let exists = |n: &str| templates.contains_key(n).then(|| (n.to_string(), None));
    let mut out = Vec::new();
    if let Some(parent) = &template.parent {
        out.push((body.clone(), exists(parent), Step::Extends(parent.clone())));
    }
    for (file, _) in &template.imported_macro_files {
        out.push((body.clone(), exists(file), Step::Import(file.clone())));
    }
    for (scope, found) in scopes {
        let from: Key = (name.to_string(), scope.clone());
        for (names, ignore_missing) in &found.includes {
            let present: Vec<&String> =
                names.iter().filter(|n| templates.contains_key(*n)).collect();
            if present.is_empty() && !ignore_missing {
                out.push((from.clone(), None, Step::Include(names.clone())));
            }
            out.extend(
                present
                    .into_iter()
                    .map(|n| (from.clone(), exists(n), Step::Include(vec![n.clone()]))),
            );
        }
        for (namespace, called) in &found.macros {
            for file in resolve(templates, name, namespace, called) {
                let step = Step::Call(namespace.clone(), called.clone());
                out.push((from.clone(), Some((file, Some(called.clone()))), step));
            }
        }
    }
    out
}

/// The templates whose macro `called` a call `namespace::called` written in
/// `file` may run: the one it resolves to, or, when it does not resolve there
/// (as in an included template, which Tera resolves against its includer),
/// every template that defines the macro and is imported as `namespace`.
fn resolve(
    templates: &BTreeMap<String, Template>,
    file: &str,
    namespace: &str,
    called: &str,
) -> Vec<String> {
    let defines = |f: &str| templates.get(f).is_some_and(|t| t.macros.contains_key(called));
    if namespace == "self" {
        if defines(file) {
            return vec![file.to_string()];
        }
        return templates.keys().filter(|f| defines(f)).cloned().collect();
    }
    let (mut queue, mut seen) = (vec![file], std::collections::BTreeSet::new());
    while let Some(f) = queue.pop() {
        for (imported, as_name) in templates.get(f).map_or(&[][..], |t| &t.imported_macro_files) {
            if as_name == namespace && defines(imported) {
                return vec![imported.clone()];
            }
            if seen.insert(imported.as_str()) {
                queue.push(imported);
            }
        }
    }
    let mut all: Vec<String> = templates
        .values()
        .flat_map(|t| &t.imported_macro_files)
        .filter(|(imported, as_name)| as_name == namespace && defines(imported))
        .map(|(imported, _)| imported.clone())
        .collect();
    all.sort();
    all.dedup();
    all
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    New,
    Open,
    /// Its depth, and the step on its deepest path.
    Done(usize, Option<usize>),
}

impl Graph<'_> {
    /// Depth-first from every node: a step back to an open node closes a circle.
    fn walk(&self) -> Result<(), Diagnostics> {
        let mut state = vec![State::New; self.keys.len()];
        for root in 0..self.keys.len() {
            if state[root] != State::New {
                continue;
            }
            state[root] = State::Open;
            let mut stack = vec![(root, 0usize)];
            while let Some((node, next)) = stack.last_mut() {
                let node = *node;
                let Some((to, _)) = self.edges[node].get(*next) else {
                    state[node] = self.finish(node, &state)?;
                    stack.pop();
                    continue;
                };
                *next += 1;
                match state[*to] {
                    State::Open => return Err(self.circle(&stack, *to)),
                    State::New => {
                        state[*to] = State::Open;
                        stack.push((*to, 0));
                    }
                    State::Done(..) => {}
                }
            }
        }
        Ok(())
    }

    /// The depth of `node`, whose steps are all done; refused past [`MAX_DEPTH`].
    fn finish(&self, node: usize, state: &[State]) -> Result<State, Diagnostics> {
        let deepest = self.edges[node]
            .iter()
            .enumerate()
            .filter_map(|(i, (to, _))| match state[*to] {
                State::Done(depth, _) => Some((depth, i)),
                _ => None,
            })
            .max_by_key(|(depth, i)| (*depth, std::cmp::Reverse(*i)));
        let own = self.sources.get(&self.keys[node].0).map_or(0, |s| s.nesting) + 1;
        let depth = own + deepest.map_or(0, |(d, _)| d);
        let done = State::Done(depth, deepest.map(|(_, i)| i));
        if depth > MAX_DEPTH {
            return Err(self.too_deep(node, depth, state, done));
        }
        Ok(done)
    }

    fn too_deep(&self, node: usize, depth: usize, state: &[State], done: State) -> Diagnostics {
        let mut chain = vec![node];
        let (mut at, mut via) = (node, done);
        while let State::Done(_, Some(step)) = via {
            at = self.edges[at][step].0;
            chain.push(at);
            via = state[at];
        }
        let shown: Vec<String> = if chain.len() > 6 {
            let (first, last) = (&chain[..3], &chain[chain.len() - 2..]);
            let names = |nodes: &[usize]| nodes.iter().map(|n| self.name(*n)).collect::<Vec<_>>();
            [names(first), vec!["…".to_string()], names(last)].concat()
        } else {
            chain.iter().map(|n| self.name(*n)).collect()
        };
        let first = match done {
            State::Done(_, Some(step)) => Some(&self.edges[node][step].1),
            _ => None,
        };
        Diagnostic::new(
            self.locate(node, first),
            format!("template: {} nest {depth} levels deep", shown.join(" → ")),
        )
        .hint(format!("counting each template and macro and the blocks in it, a page may nest at most {MAX_DEPTH} levels, or Tera would run out of stack"))
        .into()
    }

    /// The circle closed by a step from the top of `stack` back to `to`.
    fn circle(&self, stack: &[(usize, usize)], to: usize) -> Diagnostics {
        let from = stack.iter().position(|(n, _)| *n == to).unwrap_or(0);
        let path: Vec<String> = stack[from..].iter().map(|(n, _)| self.name(*n)).collect();
        let (node, next) = stack[stack.len() - 1];
        let step = &self.edges[node][next - 1].1;
        let at = self.locate(node, Some(step));
        let (start, end) = (self.name(to), self.name(node));
        let macros = stack[from..].iter().any(|(n, _)| self.keys[*n].1.is_some());
        let (message, hint) = if macros {
            (
                format!("template: macro `{start}` calls itself: {} → {start}", path.join(" → ")),
                "a macro cannot call itself, directly or through other macros or includes: Tera would recurse without end",
            )
        } else {
            (
                format!("template `{end}` leads back to `{start}`: {} → {start}", path.join(" → ")),
                "a template cannot include, extend or import itself, directly or through others",
            )
        };
        Diagnostic::new(at, message).hint(hint).into()
    }

    fn name(&self, node: usize) -> String {
        match &self.keys[node] {
            (file, None) => file.clone(),
            (file, Some(m)) => format!("{file}::{m}()"),
        }
    }

    /// Where `node` takes `step`: its file, at the line of the step's tag.
    fn locate(&self, node: usize, step: Option<&Step>) -> Location {
        locate(self.sources, &self.keys[node], step)
    }
}

/// Where the body `key` takes `step`: its file, at the line of the step's tag
/// (searched from the macro's definition, for a macro).
fn locate(sources: &BTreeMap<String, Source>, key: &Key, step: Option<&Step>) -> Location {
    let Some(source) = sources.get(&key.0) else { return Location::file(&key.0) };
    let text = &source.text;
    let from = key.1.as_ref().map_or(0, |m| {
        let defines = |t: &Tag| t.keyword() == "macro" && t.rest().starts_with(&format!("{m}("));
        tags::tags(text).into_iter().find(defines).map_or(0, |t| t.start)
    });
    let line = step.map_or(0, |step| {
        tags::line_of(text, from, |t| match step {
            Step::Include(names) => {
                t.keyword() == "include" && names.iter().all(|n| tags::quotes(t.body, n))
            }
            Step::Extends(n) => t.keyword() == "extends" && tags::quotes(t.body, n),
            Step::Import(n) => t.keyword() == "import" && tags::quotes(t.body, n),
            Step::Call(ns, m) => t.body.contains(&format!("{ns}::{m}")),
        })
    });
    Location::new(&source.path, line, 0)
}

/// A step to a template that does not exist.
fn missing(sources: &BTreeMap<String, Source>, from: &Key, step: &Step) -> Diagnostic {
    let (verb, target) = match step {
        Step::Include(names) => ("includes", names.join("`, `")),
        Step::Extends(n) => ("extends", n.clone()),
        Step::Import(n) => ("imports", n.clone()),
        Step::Call(_, n) => ("calls", n.clone()),
    };
    let names = sources.keys().map(String::as_str);
    Diagnostic::new(
        locate(sources, from, Some(step)),
        format!("template `{}` {verb} `{target}`, which is not a template", from.0),
    )
    .hint(format!(
        "templates are the built-in ones and the .html files of templates/: {}",
        crate::diagnostic::suggest(&target, names)
    ))
}
