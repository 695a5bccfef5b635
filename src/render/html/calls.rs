//! The functions a parsed Tera template calls, found by walking its syntax
//! tree, so that a template is refused for what it could do before it is
//! rendered, whichever branch a build takes.

use std::collections::BTreeSet;

use tera::ast::{Expr, ExprVal, Node};

/// The names of every function that `nodes` call, in any branch, loop,
/// block, macro or argument.
pub fn functions(nodes: &[Node]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    nodes.iter().for_each(|node| node_calls(node, &mut found));
    found
}

fn node_calls(node: &Node, found: &mut BTreeSet<String>) {
    let body = |nodes: &[Node], found: &mut BTreeSet<String>| {
        nodes.iter().for_each(|n| node_calls(n, found));
    };
    match node {
        Node::VariableBlock(_, expr) => expr_calls(expr, found),
        Node::Set(_, set) => expr_calls(&set.value, found),
        Node::MacroDefinition(_, definition, _) => {
            definition.args.values().flatten().for_each(|e| expr_calls(e, found));
            body(&definition.body, found);
        }
        Node::FilterSection(_, section, _) => {
            section.filter.args.values().for_each(|e| expr_calls(e, found));
            body(&section.body, found);
        }
        Node::Block(_, block, _) => body(&block.body, found),
        Node::Forloop(_, forloop, _) => {
            expr_calls(&forloop.container, found);
            body(&forloop.body, found);
            body(forloop.empty_body.as_deref().unwrap_or_default(), found);
        }
        Node::If(branches, _) => {
            for (_, condition, nodes) in &branches.conditions {
                expr_calls(condition, found);
                body(nodes, found);
            }
            body(branches.otherwise.as_ref().map_or(&[][..], |(_, n)| n), found);
        }
        _ => {}
    }
}

fn expr_calls(expr: &Expr, found: &mut BTreeSet<String>) {
    expr.filters.iter().flat_map(|f| f.args.values()).for_each(|e| expr_calls(e, found));
    match &expr.val {
        ExprVal::FunctionCall(call) => {
            found.insert(call.name.clone());
            call.args.values().for_each(|e| expr_calls(e, found));
        }
        ExprVal::MacroCall(call) => call.args.values().for_each(|e| expr_calls(e, found)),
        ExprVal::Math(math) => [&math.lhs, &math.rhs].iter().for_each(|e| expr_calls(e, found)),
        ExprVal::Logic(logic) => [&logic.lhs, &logic.rhs].iter().for_each(|e| expr_calls(e, found)),
        ExprVal::In(within) => [&within.lhs, &within.rhs].iter().for_each(|e| expr_calls(e, found)),
        ExprVal::Test(test) => test.args.iter().for_each(|e| expr_calls(e, found)),
        ExprVal::Array(items) => items.iter().for_each(|e| expr_calls(e, found)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls_of(text: &str) -> Vec<String> {
        let mut tera = tera::Tera::default();
        tera.add_raw_template("t.html", text).unwrap();
        functions(&tera.templates["t.html"].ast).into_iter().collect()
    }

    #[test]
    fn calls_are_found_in_every_branch_and_argument() {
        assert_eq!(calls_of("{{ a() }}"), ["a"]);
        let text = "{% if x %}{% else %}{{ b(n=c()) | default(value=d()) }}{% endif %}\
                    {% for i in range(end=e()) %}{% set y = f() %}{% endfor %}\
                    {% block main %}{% if g() and 1 + h() > 2 %}{% endif %}{% endblock main %}\
                    {% macro m(a=1) %}{{ i() }}{{ [j()] }}{% endmacro m %}";
        assert_eq!(calls_of(text), ["b", "c", "d", "e", "f", "g", "h", "i", "j", "range"]);
        assert_eq!(calls_of("{{ get_env(name=\"HOME\") }}"), ["get_env"]);
    }
}
