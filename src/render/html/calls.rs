//! What a parsed Tera template does, found by walking its syntax tree: the
//! functions it calls, the templates it includes and the macros it calls, in
//! any branch, so that a template is refused for what it could do before it
//! is rendered, whichever branch a build takes. The walk keeps its own stack:
//! however deep the tree, it does not recurse.

use std::collections::{BTreeMap, BTreeSet};

use tera::ast::{Expr, ExprVal, Node};

/// What one body does: a template's own, or one macro's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// Names of the functions called.
    pub functions: BTreeSet<String>,
    /// Each `{% include %}`: the names tried in order, and whether a missing
    /// one is ignored.
    pub includes: Vec<(Vec<String>, bool)>,
    /// Each macro called: namespace and name.
    pub macros: BTreeSet<(String, String)>,
}

/// The scopes of a template: its body under `None`, each macro's body under
/// `Some(name)`.
pub type Scopes = BTreeMap<Option<String>, Scope>;

/// The names of every function called in any of `scopes`: in any branch,
/// loop, block, macro or argument of the template.
pub fn functions(scopes: &Scopes) -> BTreeSet<String> {
    scopes.values().flat_map(|s| s.functions.iter().cloned()).collect()
}

enum Item<'a> {
    Node(&'a Node),
    Expr(&'a Expr),
    Val(&'a ExprVal),
}

/// What each body of `nodes` does.
pub fn scopes(nodes: &[Node]) -> Scopes {
    let mut scopes = Scopes::new();
    let mut stack: Vec<(Item, Option<&str>)> =
        nodes.iter().rev().map(|n| (Item::Node(n), None)).collect();
    while let Some((item, scope)) = stack.pop() {
        let found = scopes.entry(scope.map(str::to_string)).or_default();
        let mut children: Vec<Item> = Vec::new();
        let mut inner = scope;
        match item {
            Item::Node(node) => {
                if let Node::MacroDefinition(_, definition, _) = node {
                    inner = Some(&definition.name);
                }
                node_children(node, found, &mut children);
            }
            Item::Expr(expr) => {
                children.extend(expr.filters.iter().flat_map(|f| f.args.values()).map(Item::Expr));
                children.push(Item::Val(&expr.val));
            }
            Item::Val(val) => val_children(val, found, &mut children),
        }
        stack.extend(children.into_iter().rev().map(|c| (c, inner)));
    }
    scopes
}

/// The parts of `node` to walk, after noting its include in `found`.
fn node_children<'a>(node: &'a Node, found: &mut Scope, out: &mut Vec<Item<'a>>) {
    let body =
        |nodes: &'a [Node], out: &mut Vec<Item<'a>>| out.extend(nodes.iter().map(Item::Node));
    match node {
        Node::VariableBlock(_, expr) => out.push(Item::Expr(expr)),
        Node::Set(_, set) => out.push(Item::Expr(&set.value)),
        Node::Include(_, names, ignore_missing) => {
            found.includes.push((names.clone(), *ignore_missing))
        }
        Node::MacroDefinition(_, definition, _) => {
            out.extend(definition.args.values().flatten().map(Item::Expr));
            body(&definition.body, out);
        }
        Node::FilterSection(_, section, _) => {
            out.extend(section.filter.args.values().map(Item::Expr));
            body(&section.body, out);
        }
        Node::Block(_, block, _) => body(&block.body, out),
        Node::Forloop(_, forloop, _) => {
            out.push(Item::Expr(&forloop.container));
            body(&forloop.body, out);
            body(forloop.empty_body.as_deref().unwrap_or_default(), out);
        }
        Node::If(branches, _) => {
            for (_, condition, nodes) in &branches.conditions {
                out.push(Item::Expr(condition));
                body(nodes, out);
            }
            body(branches.otherwise.as_ref().map_or(&[][..], |(_, n)| n), out);
        }
        _ => {}
    }
}

/// The parts of `val` to walk, after noting its call in `found`.
fn val_children<'a>(val: &'a ExprVal, found: &mut Scope, out: &mut Vec<Item<'a>>) {
    match val {
        ExprVal::FunctionCall(call) => {
            found.functions.insert(call.name.clone());
            out.extend(call.args.values().map(Item::Expr));
        }
        ExprVal::MacroCall(call) => {
            found.macros.insert((call.namespace.clone(), call.name.clone()));
            out.extend(call.args.values().map(Item::Expr));
        }
        ExprVal::Math(math) => out.extend([&math.lhs, &math.rhs].map(|e| Item::Expr(e))),
        ExprVal::Logic(logic) => out.extend([&logic.lhs, &logic.rhs].map(|e| Item::Expr(e))),
        ExprVal::In(within) => out.extend([&within.lhs, &within.rhs].map(|e| Item::Expr(e))),
        ExprVal::Test(test) => out.extend(test.args.iter().map(Item::Expr)),
        ExprVal::Array(items) => out.extend(items.iter().map(Item::Expr)),
        ExprVal::StringConcat(concat) => out.extend(concat.values.iter().map(Item::Val)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Vec<Node> {
        tera::Template::new("t.html", None, text).unwrap().ast
    }

    fn calls_of(text: &str) -> Vec<String> {
        functions(&scopes(&parse(text))).into_iter().collect()
    }

    #[test]
    fn calls_are_found_in_every_branch_and_argument() {
        assert_eq!(calls_of("{{ a() }}"), ["a"]);
        let text = "{% if x %}{% else %}{{ b(n=c()) | default(value=d()) }}{% endif %}\
                    {% for i in range(end=e()) %}{% set y = f() %}{% endfor %}\
                    {% block main %}{% if g() and 1 + h() > 2 %}{% endif %}{% endblock main %}\
                    {% macro m(a=1) %}{{ i() }}{{ [j()] }}{% endmacro m %}{{ 'a' ~ k() }}";
        assert_eq!(calls_of(text), ["b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "range"]);
        assert_eq!(calls_of("{{ get_env(name=\"HOME\") }}"), ["get_env"]);
    }

    #[test]
    fn includes_and_macro_calls_are_found_by_scope() {
        let text = "{% import 'm.html' as m %}{% include ['a.html', 'b.html'] ignore missing %}\
                    {% macro x() %}{% if y %}{{ self::x() }}{% include 'c.html' %}{% endif %}{% endmacro x %}\
                    {{ m::z(a=self::x()) }}";
        let scopes = scopes(&parse(text));
        let body = &scopes[&None];
        assert_eq!(body.includes, [(vec!["a.html".to_string(), "b.html".to_string()], true)]);
        let calls: Vec<_> = body.macros.iter().map(|(n, m)| format!("{n}::{m}")).collect();
        assert_eq!(calls, ["m::z", "self::x"]);
        let x = &scopes[&Some("x".to_string())];
        assert_eq!(x.includes, [(vec!["c.html".to_string()], false)]);
        assert_eq!(x.macros.iter().next(), Some(&("self".to_string(), "x".to_string())));
    }

    #[test]
    fn a_deep_tree_is_walked_without_recursion() {
        let deep = format!("{{{{ 1{} }}}}", " + f()".repeat(900));
        let ast = parse(&deep);
        // The tree is dropped on this thread: Tera's own drop recurses.
        let walk = std::thread::Builder::new().stack_size(64 << 10);
        let (found, _ast) =
            walk.spawn(move || (functions(&scopes(&ast)), ast)).unwrap().join().unwrap();
        assert_eq!(found.len(), 1);
    }
}
