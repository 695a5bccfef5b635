//! docs/book-toml.md and docs/charts.md are generated from the doc comments of
//! src/config/ and src/charts/spec.rs; this
//! test fails when they drift apart. Regenerate with
//! `UPDATE_DOCS=1 cargo test --test integration docs::`.

use crate::common;
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
                push_field(item, line, &attrs, &doc);
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

/// Add the field declared on `line` (`pub name: Type,`) with its attributes
/// and doc to `item`, unless serde skips it.
fn push_field(item: &mut Item, line: &str, attrs: &[String], doc: &[String]) {
    let (name, ty) = line.trim_start_matches("pub ").split_once(':').unwrap();
    let skip = attrs.iter().any(|a| a.contains("skip"));
    let rename = attrs.iter().find_map(|a| {
        a.split("rename = \"").nth(1).map(|r| r.split('"').next().unwrap().to_string())
    });
    let key = rename
        .unwrap_or_else(|| if item.kebab { name.replace('_', "-") } else { name.to_string() });
    let ty = unspan(ty.trim().trim_end_matches(','));
    let required = !ty.starts_with("Option<") && !attrs.iter().any(|a| a.contains("default"));
    if !skip {
        item.fields.push((key, ty, required, doc.join(" ")));
    }
}

/// The type with every `Spanned<T>` (also `toml::Spanned<T>` or
/// `serde_spanned::Spanned<T>`) replaced by `T`: a span is where a key was
/// written, not part of what the reader writes.
fn unspan(ty: &str) -> String {
    let mut ty = ty.replace(' ', "").replace(',', ", ");
    while let Some(start) = ty.find("Spanned<") {
        let path = ty[..start].rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'));
        let from = path.map_or(0, |i| i + 1);
        let open = start + "Spanned<".len();
        let mut depth = 1;
        let close = open
            + ty[open..]
                .find(|c| {
                    depth += match c {
                        '<' => 1,
                        '>' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .expect("balanced <>");
        ty = format!("{}{}{}", &ty[..from], &ty[open..close], &ty[close + 1..]);
    }
    ty
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
        "Compare" | "Better" | "Estimator" | "Average" | "ColumnType" | "PaperSize"
        | "PdfStandard" | "Kind" | "Aggregate" | "Scale" | "CellKind" => {
            let values: Vec<String> =
                items[ty].fields.iter().map(|f| format!("`{}`", f.0)).collect();
            format!("one of {}", values.join(", "))
        }
        "FilterValue" => "number, string, array or `{ min, max }`".into(),
        "Level" => "string or number".into(),
        "Candidates" => "`\"*\"` or array of string or number".into(),
        other => format!("table ({other})"),
    }
}

/// Sections of book.toml and the struct each is read into.
const BOOK_SECTIONS: [(&str, &str); 18] = [
    ("[book]", "Book"),
    ("[[book.authors]]", "Author"),
    ("[study]", "Study"),
    ("[[caveats]]", "AuthorCaveat"),
    ("[environments.NAME]", "Environment"),
    ("[data.NAME]", "Dataset"),
    ("[data.NAME.scaling]", "Scaling"),
    ("`labels` entries of [data.NAME]", "ColumnLabel"),
    ("`exclude` entries of [data.NAME]", "Exclusion"),
    ("[[metrics]]", "Metric"),
    ("metrics `where` ranges", "Range"),
    ("[[published]]", "Published"),
    ("[history]", "History"),
    ("`acknowledge` entries of [history]", "Acknowledgement"),
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

const TABLE_SECTIONS: [(&str, &str); 2] = [("table keys", "TableSpec"), ("`cell`", "CellKind")];

/// Reads a source file of the repository.
fn read(path: &str) -> String {
    fs::read_to_string(common::repo().join(path)).unwrap()
}

fn generate(source: &str, title: &str, intro: &str, sections: &[(&str, &str)]) -> String {
    generate_with(&read, source, title, intro, sections)
}

fn generate_with(
    read: &dyn Fn(&str) -> String,
    source: &str,
    title: &str,
    intro: &str,
    sections: &[(&str, &str)],
) -> String {
    let mut items = BTreeMap::new();
    for path in source.split(' ') {
        items.extend(parse(&read(path)));
    }
    if source.ends_with("spec.rs") {
        items.extend(parse(&read("src/config/data.rs")).into_iter().filter(|(k, _)| k == "Better"));
    }
    let mut out = format!(
        "# {title}\n\n<!-- Generated from the doc comments of {} by `UPDATE_DOCS=1 cargo test --test integration docs::`. Do not edit. -->\n\n{intro}\n",
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

/// Compares the committed file with the generated text; only with
/// `UPDATE_DOCS=1` writes the generated text instead (and passes).
fn check(path: &str, generated: String) {
    let path = common::repo().join(path);
    if std::env::var("UPDATE_DOCS").as_deref() == Ok("1") {
        fs::write(&path, &generated).unwrap();
        eprintln!("UPDATE_DOCS=1: wrote {}", path.display());
        return;
    }
    let committed = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; run `UPDATE_DOCS=1 cargo test --test integration docs::`", path.display())
    });
    if committed != generated {
        let (line, (old, new)) = committed
            .lines()
            .chain(std::iter::repeat("<end of file>"))
            .zip(generated.lines().chain(std::iter::repeat("<end of file>")))
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap();
        panic!(
            "{} is out of date; run `UPDATE_DOCS=1 cargo test --test integration docs::`.\n\
             First difference at line {}:\n  committed: {old}\n  generated: {new}",
            path.display(),
            line + 1
        );
    }
}

const BOOK_INTRO: &str =
    "Unknown keys are errors. Keys marked *required* must be present; the others have defaults.";
const BOOK_SOURCES: &str = "src/config/mod.rs src/config/data.rs src/config/metrics.rs src/config/provenance.rs src/config/history.rs";

#[test]
fn book_toml_reference_is_generated_from_config_doc_comments() {
    check(
        "docs/book-toml.md",
        generate(BOOK_SOURCES, "book.toml reference", BOOK_INTRO, &BOOK_SECTIONS),
    );
}

#[test]
fn spanned_types_read_as_their_inner_type() {
    for (ty, plain) in [
        ("Spanned<String>", "String"),
        ("toml::Spanned<PathBuf>", "PathBuf"),
        ("serde_spanned::Spanned<bool>", "bool"),
        ("Option<Spanned<f64>>", "Option<f64>"),
        ("Option<toml::Spanned<Vec<String>>>", "Option<Vec<String>>"),
        ("Vec<Spanned<String>>", "Vec<String>"),
        ("Spanned<Vec<Spanned<String>>>", "Vec<String>"),
        ("BTreeMap<String, Spanned<FilterValue>>", "BTreeMap<String, FilterValue>"),
        ("BTreeMap<String,toml::Spanned<Location>>", "BTreeMap<String, Location>"),
        ("Option<String>", "Option<String>"),
    ] {
        assert_eq!(unspan(ty), plain, "{ty}");
    }
}

/// Every field's type `T` wrapped as the config may come to write it:
/// `Option<Spanned<T>>`, `Vec<Spanned<T>>`, `toml::Spanned<T>`.
fn spanned_fields(source: String) -> String {
    let mut out = String::new();
    for line in source.lines() {
        let trimmed = line.trim_start();
        let field = trimmed.starts_with("pub ")
            && !trimmed.starts_with("pub fn")
            && !trimmed.starts_with("pub struct")
            && !trimmed.starts_with("pub enum")
            && line.trim_end().ends_with(',');
        match line.split_once(": ").filter(|_| field) {
            Some((name, ty)) => {
                let ty = ty.trim_end().trim_end_matches(',');
                let wrapped = if let Some(t) = ty.strip_prefix("Option<") {
                    format!("Option<Spanned<{t}>")
                } else if let Some(t) = ty.strip_prefix("Vec<") {
                    format!("Vec<Spanned<{t}>")
                } else {
                    format!("toml::Spanned<{ty}>")
                };
                out.push_str(&format!("{name}: {wrapped},\n"));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn spanned_fields_do_not_change_the_generated_docs() {
    let spanned = |path: &str| spanned_fields(read(path));
    assert!(spanned("src/config/mod.rs").contains("Spanned<"), "the rewrite wrapped no field");
    let (title, sections) = ("book.toml reference", &BOOK_SECTIONS);
    assert_eq!(
        generate_with(&spanned, BOOK_SOURCES, title, BOOK_INTRO, sections),
        generate(BOOK_SOURCES, title, BOOK_INTRO, sections)
    );
    assert_eq!(
        generate_with(&spanned, "src/charts/spec.rs", "Chart directives", "", &CHART_SECTIONS),
        generate("src/charts/spec.rs", "Chart directives", "", &CHART_SECTIONS)
    );
}

#[test]
fn chart_reference_is_generated_from_spec_doc_comments() {
    let intro = "A chart is a fenced block with the language `chart` in any `content/*.md` file, holding TOML. \
        Unknown keys are errors, and every error names the file and line of the block. \
        Inline statistics (`{{ stat(...) }}`) work inside captions. Refer to a chart as `@fig-ID`; \
        it becomes \"Figure N\" in the page and in the paper, numbered in document order.\n\n\
        ```chart\nid = \"scaling\"\nkind = \"line\"\ndata = \"lammps\"\nx = \"procs\"\ny = \"timesteps_per_s\"\n\
        x-scale = \"log2\"\nideal = true\ncaption = \"Throughput as cores scale; higher is better.\"\n```\n\n\
        Alternatives compared on one workload, without a numeric parameter (the commands of one \
        `hyperfine` run, the environment column being `command`), are a box plot without `x`: one \
        box of the runs per alternative.\n\n\
        ```chart\nid = \"runs\"\nkind = \"box-plot\"\ndata = \"hyperfine\"\ny = \"time_s\"\n\
        caption = \"Every run of each command.\"\n```";
    check(
        "docs/charts.md",
        generate("src/charts/spec.rs", "Chart directives", intro, &CHART_SECTIONS),
    );
}

#[test]
fn table_reference_is_generated_from_spec_doc_comments() {
    let intro = "A computed table is a fenced block with the language `table` in any `content/*.md` \
        file, holding TOML. Its rows and columns are levels of factors (results columns that \
        describe a configuration); each cell is a statistic of its runs, or its comparison with \
        the baseline level (value, 95% CI in parentheses, and a verdict: better, worse, no \
        significant difference or no change, at 5% after Holm's correction across the table's \
        comparisons). It becomes a numbered table in the page and the paper (`@tbl-ID`), and its \
        cells are downloadable as `data/tables/ID.csv` and listed, each with its figures and \
        words, in `data/stats.json` ([factors.md](factors.md#computed-tables-and-verdict-grids)). \
        In the page each column sorts by a \
        button in its header (numbers by value; without JavaScript the table reads as \
        written); in the paper the cells are set ragged and never hyphenated, a long \
        comparison wrapping only between its value, its interval and its verdict.\n\n\
        ```table\nid = \"grid\"\ndata = \"runs\"\nvalue = \"time_s\"\nrows = \"compressor\"\n\
        columns = \"level\"\ncell = \"relative\"\nbaseline = \"gzip\"\nbetter = \"lower\"\n\
        caption = \"Time against gzip at each level\"\n```";
    check(
        "docs/tables.md",
        generate(
            "src/analysis/metrics/tables.rs src/config/metrics.rs src/config/data.rs",
            "Computed tables",
            intro,
            &TABLE_SECTIONS,
        ),
    );
}
