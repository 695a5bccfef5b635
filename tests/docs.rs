//! docs/book-toml.md and docs/charts.md are generated from the doc comments of
//! src/config/ and src/charts/spec.rs; this
//! test fails when they drift apart. Regenerate with
//! `UPDATE_DOCS=1 cargo test --test docs`.

mod common;

use std::collections::BTreeMap;
use std::fs;

/// A struct or enum of a source file, with its doc and its fields or variants.
#[derive(Debug, Default)]
struct Item {
    doc: String,
    kebab: bool,
    is_enum: bool,
    /// (key, type, required, doc)
    fields: Vec<(String, String, bool, String)>,
}

fn parse(source: &str) -> BTreeMap<String, Item> {
    let mut items = BTreeMap::new();
    let (mut doc, mut attrs) = (Vec::<String>::new(), Vec::<String>::new());
    let mut current: Option<(String, Item)> = None;
    for line in source.lines().map(str::trim) {
        if let Some(d) = line.strip_prefix("///") {
            doc.push(d.trim().to_string());
        } else if line.starts_with("#[") {
            attrs.push(line.to_string());
        } else if let Some(rest) =
            line.strip_prefix("pub struct ").or_else(|| line.strip_prefix("pub enum "))
        {
            let name = rest.split(|c: char| !c.is_alphanumeric()).next().unwrap().to_string();
            let item = Item {
                doc: doc.join(" "),
                kebab: attrs.iter().any(|a| a.contains("kebab-case")),
                is_enum: line.starts_with("pub enum"),
                ..Item::default()
            };
            current = Some((name, item));
            doc.clear();
            attrs.clear();
        } else if line == "}" {
            if let Some((name, item)) = current.take() {
                items.insert(name, item);
            }
            doc.clear();
            attrs.clear();
        } else if let Some((_, item)) = current.as_mut() {
            if line.starts_with("pub ") && line.contains(':') && !item.is_enum {
                let (name, ty) = line.trim_start_matches("pub ").split_once(':').unwrap();
                let skip = attrs.iter().any(|a| a.contains("skip"));
                let rename = attrs.iter().find_map(|a| {
                    a.split("rename = \"").nth(1).map(|r| r.split('"').next().unwrap().to_string())
                });
                let key = rename.unwrap_or_else(|| {
                    if item.kebab { name.replace('_', "-") } else { name.to_string() }
                });
                let ty = ty.trim().trim_end_matches(',').to_string();
                let required =
                    !ty.starts_with("Option<") && !attrs.iter().any(|a| a.contains("default"));
                if !skip {
                    item.fields.push((key, ty, required, doc.join(" ")));
                }
            } else if item.is_enum
                && !line.is_empty()
                && line.chars().next().unwrap().is_uppercase()
            {
                let variant: String =
                    line.split(|c: char| !c.is_alphanumeric()).next().unwrap().to_string();
                item.fields.push((kebab(&variant), String::new(), false, doc.join(" ")));
            }
            if !line.starts_with("#[") {
                doc.clear();
                attrs.clear();
            }
        }
    }
    items
}

fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('-');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn describe_type(ty: &str, items: &BTreeMap<String, Item>) -> String {
    let inner = |prefix: &str| ty.strip_prefix(prefix).map(|t| t.trim_end_matches('>').to_string());
    if let Some(t) = inner("Option<") {
        return describe_type(&t, items);
    }
    if let Some(t) = inner("Vec<") {
        return format!("array of {}", describe_type(&t, items));
    }
    if let Some(t) = inner("BTreeMap<String, ") {
        return format!("table of {}", describe_type(&t, items));
    }
    match ty {
        "String" => "string".into(),
        "PathBuf" => "path".into(),
        "bool" => "boolean".into(),
        "usize" => "integer".into(),
        "f64" => "number".into(),
        "Compare" | "Better" | "ColumnType" | "PaperSize" | "PdfStandard" | "Kind"
        | "Aggregate" | "Scale" => {
            let values: Vec<String> =
                items[ty].fields.iter().map(|f| format!("`{}`", f.0)).collect();
            format!("one of {}", values.join(", "))
        }
        "FilterValue" => "number, string, array or `{ min, max }`".into(),
        other => format!("table ({other})"),
    }
}

/// Sections of book.toml and the struct each is read into.
const BOOK_SECTIONS: [(&str, &str); 12] = [
    ("[book]", "Book"),
    ("[[book.authors]]", "Author"),
    ("[study]", "Study"),
    ("[environments.NAME]", "Environment"),
    ("[data.NAME]", "Dataset"),
    ("[data.NAME.scaling]", "Scaling"),
    ("[[metrics]]", "Metric"),
    ("metrics `where` ranges", "Range"),
    ("[output]", "Output"),
    ("[paper]", "Paper"),
    ("column types", "ColumnType"),
    ("`compare`", "Compare"),
];

/// Keys of a ```chart block.
const CHART_SECTIONS: [(&str, &str); 4] = [
    ("chart keys", "ChartSpec"),
    ("`kind`", "Kind"),
    ("`aggregate`", "Aggregate"),
    ("`x-scale` and `y-scale`", "Scale"),
];

fn generate(source: &str, title: &str, intro: &str, sections: &[(&str, &str)]) -> String {
    let read = |path: &str| fs::read_to_string(common::repo().join(path)).unwrap();
    let mut items = BTreeMap::new();
    for path in source.split(' ') {
        items.extend(parse(&read(path)));
    }
    if source.ends_with("spec.rs") {
        items.extend(parse(&read("src/config/data.rs")).into_iter().filter(|(k, _)| k == "Better"));
    }
    let mut out = format!(
        "# {title}\n\n<!-- Generated from the doc comments of {} by `UPDATE_DOCS=1 cargo test --test docs`. Do not edit. -->\n\n{intro}\n",
        source.replace(' ', ", ")
    );
    for (section, name) in sections {
        let item = &items[*name];
        out.push_str(&format!("\n## {section}\n\n{}\n\n", item.doc));
        if item.is_enum {
            out.push_str("| value | meaning |\n|---|---|\n");
            for (key, _, _, doc) in &item.fields {
                out.push_str(&format!("| `{key}` | {doc} |\n"));
            }
        } else {
            out.push_str("| key | type | | meaning |\n|---|---|---|---|\n");
            for (key, ty, required, doc) in &item.fields {
                let need = if *required { "*required*" } else { "optional" };
                out.push_str(&format!(
                    "| `{key}` | {} | {need} | {doc} |\n",
                    describe_type(ty, &items)
                ));
            }
        }
    }
    out
}

fn check(path: &str, generated: String) {
    let path = common::repo().join(path);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        fs::write(&path, &generated).unwrap();
    }
    let current = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == generated,
        "{} is out of date; run `UPDATE_DOCS=1 cargo test --test docs`",
        path.display()
    );
}

#[test]
fn book_toml_reference_is_generated_from_config_doc_comments() {
    let intro = "Unknown keys are errors. Keys marked *required* must be present; the others have defaults.";
    let sources = "src/config/mod.rs src/config/data.rs src/config/metrics.rs";
    check("docs/book-toml.md", generate(sources, "book.toml reference", intro, &BOOK_SECTIONS));
}

#[test]
fn chart_reference_is_generated_from_spec_doc_comments() {
    let intro = "A chart is a fenced block with the language `chart` in any `content/*.md` file, holding TOML. \
        Unknown keys are errors, and every error names the file and line of the block. \
        Inline statistics (`{{ stat(...) }}`) work inside captions. Refer to a chart as `@fig-ID`; \
        it becomes \"Figure N\" in the page and in the paper, numbered in document order.\n\n\
        ```chart\nid = \"scaling\"\nkind = \"line\"\ndata = \"lammps\"\nx = \"procs\"\ny = \"timesteps_per_s\"\n\
        x-scale = \"log2\"\nideal = true\ncaption = \"Throughput as cores scale; higher is better.\"\n```";
    check(
        "docs/charts.md",
        generate("src/charts/spec.rs", "Chart directives", intro, &CHART_SECTIONS),
    );
}
