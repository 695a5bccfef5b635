//! Provenance carried to every number: generated studies whose tables are
//! measured, reconstructed, simulated or synthetic (all of one kind, or
//! mixed), built, and their page, paper and stats.json read back against
//! what the test wrote. From data that were not measured no interval,
//! p-value, significance or verdict reaches any output, and every number
//! derived from them carries the mark †. Published figures are checked
//! against the data and fail, located, on a mismatch. The shipped study
//! states its source's attribution and only published figures unmarked.

use std::fs;

use crate::common;
use common::*;

const KINDS: [&str; 4] = ["measured", "reconstructed", "simulated", "synthetic"];
const MARK: char = '\u{2020}';

/// One generated table: its provenance and its rows' values by
/// (environment, procs), three runs each.
struct Table {
    name: &'static str,
    provenance: &'static str,
    csv: String,
    /// Mean of `cand` / mean of `base` − 1 at 4 processes, computed here.
    relative_at_4: f64,
}

fn table(name: &'static str, provenance: &'static str, rng: &mut Seeded) -> Table {
    let mut csv = String::from("environment,procs,run,t\n");
    let mut means = std::collections::BTreeMap::new();
    for env in ["base", "cand"] {
        for procs in [1, 2, 4] {
            let centre = 10.0 / f64::from(procs) * (1.0 + rng.next() * 0.5);
            let mut sum = 0.0;
            for run in 1..=3 {
                let value = centre * (1.0 + (rng.next() - 0.5) * 0.1);
                let text = format!("{value:.3}");
                sum += text.parse::<f64>().unwrap();
                csv += &format!("{env},{procs},{run},{text}\n");
            }
            means.insert((env, procs), sum / 3.0);
        }
    }
    let relative_at_4 = means[&("cand", 4)] / means[&("base", 4)] - 1.0;
    Table { name, provenance, csv, relative_at_4 }
}

/// The book.toml of a study of `tables`, with `published` appended.
fn book(tables: &[Table], published: &str) -> String {
    let mut text = String::from(
        "[book]\ntitle = \"Generated\"\nanswer = \"In short: {{ stat(name=\\\"rel_a\\\", field=\\\"words\\\") }}.\"\n\
         [study]\nbaseline = \"base\"\n[environments.base]\nlabel = \"Base\"\n[environments.cand]\nlabel = \"Cand\"\n",
    );
    for t in tables {
        text += &format!(
            "[data.{}]\ngroup-by = [\"procs\"]\nprovenance = \"{}\"\n",
            t.name, t.provenance
        );
        if t.provenance != "measured" {
            text += &format!("provenance-note = \"values of {} made by the test\"\n", t.name);
        }
        text += "labels = { procs = { unit = \"processes\" } }\n";
    }
    for t in tables {
        let n = t.name;
        text += &format!(
            "[[metrics]]\nname = \"rel_{n}\"\nlabel = \"Rel {n}\"\ndata = \"{n}\"\nvalue = \"t\"\nwhere = {{ procs = 4 }}\ncompare = \"relative\"\nbetter = \"lower\"\nheadline = true\n\
             [[metrics]]\nname = \"avg_{n}\"\nlabel = \"Avg {n}\"\ndata = \"{n}\"\nvalue = \"t\"\nper = \"procs\"\naverage = \"arithmetic\"\ncompare = \"relative\"\nbetter = \"lower\"\nheadline = true\n\
             [[metrics]]\nname = \"mean_{n}\"\nlabel = \"Mean {n}\"\ndata = \"{n}\"\nvalue = \"t\"\nwhere = {{ procs = 1 }}\ncompare = \"summary\"\ncandidate = \"cand\"\nunit = \"s\"\nbetter = \"lower\"\n"
        );
    }
    text + published
}

/// The page: each metric cited, and two charts of each table.
fn page(tables: &[Table]) -> String {
    let mut text = String::from("# Results\n\n");
    for t in tables {
        let n = t.name;
        text += &format!(
            "Table {n}: {{{{ stat(name=\"rel_{n}\", field=\"full\") }}}}; average {{{{ stat(name=\"avg_{n}\", field=\"value\") }}}} \
             ({{{{ stat(name=\"avg_{n}\", field=\"range\") }}}}); mean {{{{ stat(name=\"mean_{n}\", field=\"value\") }}}}.\n\n\
             ```chart\nid = \"line-{n}\"\nkind = \"line\"\ndata = \"{n}\"\nx = \"procs\"\ny = \"t\"\ncaption = \"Line {n}.\"\n```\n\n\
             ```chart\nid = \"rel-{n}\"\nkind = \"relative\"\ndata = \"{n}\"\nx = \"procs\"\ny = \"t\"\ncaption = \"Relative {n}.\"\n```\n\n"
        );
    }
    text + "{{ caveats() }}\n"
}

/// The text of an HTML fragment: tags dropped, entities of spaces undone.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => {
                inside = false;
                out.push(' ');
            }
            c if !inside => out.push(c),
            _ => {}
        }
    }
    out.replace("&nbsp;", " ").replace('\u{a0}', " ")
}

/// The element of `html` that starts at the first `start` (such as
/// `id="metric-rel_a"`) up to its `end`.
fn element<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html.find(start).unwrap_or_else(|| panic!("no {start}"));
    let to = html[from..].find(end).map_or(html.len(), |e| from + e);
    &html[from..to]
}

/// Where `text` writes the number `bare` as a number of its own (not a
/// part of another, such as 2.5 s of 12.5 s) without the mark after it.
fn unmarked(text: &str, bare: &str) -> Vec<String> {
    text.match_indices(bare)
        .filter(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let part = before.is_some_and(|c| c.is_ascii_digit() || c == '.' || c == ',');
            !part && !text[at + bare.len()..].starts_with(MARK)
        })
        .map(|(at, _)| text[at.saturating_sub(80)..(at + 40).min(text.len())].to_string())
        .collect()
}

/// The page without its charts (figure, data table and CSV link).
fn without_charts(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find("<div class=\"chart\"") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("</details>").map_or(rest.len(), |e| at + e);
        rest = &rest[end..];
    }
    out + rest
}

/// Words that only inference writes.
const INFERENCE: [&str; 6] = ["95% CI", "p = 0.", "p < 0.", "significant", "n.s.", "Welch"];

fn assert_no_inference(text: &str, what: &str) {
    for word in INFERENCE {
        assert!(!text.contains(word), "{what} has `{word}`:\n{text}");
    }
}

/// Seeded studies of every pattern of provenance: no inference from data
/// that were not measured anywhere, and every derived number marked.
#[test]
fn generated_studies_draw_no_inference_from_unmeasured_data() {
    let mut rng = Seeded(42);
    let pdf = tool("pdftotext", &["-v"]);
    if !pdf {
        eprintln!("SKIPPED (the PDF part): pdftotext is not installed");
    }
    for case in 0..6 {
        let kinds: Vec<&'static str> = match case % 3 {
            0 => vec![KINDS[1 + case % 3], KINDS[1 + (case + 1) % 3]],
            1 => vec!["measured", KINDS[1 + case % 3]],
            _ => vec![KINDS[1 + case % 3], "measured"],
        };
        let tables: Vec<Table> =
            ["a", "b"].iter().zip(&kinds).map(|(n, k)| table(n, k, &mut rng)).collect();
        let results: Vec<(String, String)> =
            tables.iter().map(|t| (format!("{}.csv", t.name), t.csv.clone())).collect();
        let results: Vec<(&str, &str)> =
            results.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let study = written_study(&book(&tables, ""), &results, &page(&tables));
        let stats = stats_json(study.path());
        let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
        let paper = pdf.then(|| pdftotext(&study.path().join("site/paper.pdf")));
        for t in &tables {
            check_table(t, &stats, &html, paper.as_deref());
        }
        if tables.iter().all(|t| t.provenance != "measured") {
            assert_no_inference(&text_of(&html), "the page");
            if let Some(paper) = &paper {
                assert_no_inference(paper, "the paper");
            }
        }
    }
}

/// One metric of `t` in stats.json, the page and the paper.
fn check_metric(
    m: &serde_json::Value,
    t: &Table,
    stats: &serde_json::Value,
    (html, paper): (&str, Option<&str>),
) {
    let measured = t.provenance == "measured";
    let name = m["name"].as_str().unwrap();
    assert_eq!(m["provenance"], t.provenance, "{name}");
    let value = m["text"]["value"].as_str().unwrap();
    assert_eq!(value.ends_with(MARK), !measured, "{name}: {value}");
    if measured {
        return;
    }
    for field in ["ci", "p_value", "significant", "p_holm", "rank", "other"] {
        assert!(m[field].is_null(), "{name}: {field} = {}", m[field]);
    }
    for field in ["ci", "p", "significance", "interval"] {
        assert!(m["text"][field].is_null(), "{name}: text.{field}");
    }
    if m["headline"] == true {
        let card = element(html, &format!("id=\"metric-{name}\""), "</li>");
        assert_no_inference(&text_of(card), name);
        assert!(card.contains("not measured"), "{card}");
    }
    // Every place the prose, cards or tables cite the number, it is
    // marked (a chart, labelled Illustrative as a whole, draws its own).
    let bare = value.trim_end_matches(MARK);
    // A measured metric that prints the same number cites it unmarked.
    let metrics = stats["metrics"].as_array().unwrap();
    let measured_same = metrics.iter().any(|o| {
        o["provenance"] == "measured"
            && ["value", "words", "range", "full"]
                .iter()
                .any(|f| o["text"][f].as_str().is_some_and(|t| t.contains(bare)))
    });
    // Or a caveat on a measured metric does (its other estimator's value).
    let measured_names: Vec<&serde_json::Value> =
        metrics.iter().filter(|o| o["provenance"] == "measured").map(|o| &o["name"]).collect();
    let caveats = stats["caveats"].as_array().into_iter().flatten();
    let measured_caveat = caveats
        .filter(|c| measured_names.contains(&&c["metric"]))
        .any(|c| c["text"].as_str().is_some_and(|t| t.contains(bare)));
    if measured_caveat {
        return;
    }
    if measured_same {
        return;
    }
    let prose = without_charts(html);
    assert!(prose.contains(value), "{name}: {value} not in the page");
    assert_eq!(unmarked(&prose, bare), Vec::<String>::new(), "{name} in the page");
    if let Some(paper) = paper {
        assert!(paper.contains(value), "{name}: {value} not in the paper");
        assert_eq!(unmarked(paper, bare), Vec::<String>::new(), "{name} in the paper");
    }
}

/// One table's statistics, cards, prose and charts, by its provenance.
fn check_table(t: &Table, stats: &serde_json::Value, html: &str, paper: Option<&str>) {
    let measured = t.provenance == "measured";
    let file = format!("results/{}.csv", t.name);
    let table = stats["provenance"].as_array().unwrap().iter().find(|p| p["table"] == t.name);
    assert_eq!(table.unwrap()["provenance"], t.provenance);
    for m in stats["metrics"].as_array().unwrap().iter().filter(|m| m["inputs"]["file"] == file) {
        check_metric(m, t, stats, (html, paper));
    }
    for g in stats["groups"].as_array().unwrap().iter().filter(|g| g["inputs"]["file"] == file) {
        assert_eq!(g["provenance"], t.provenance);
        assert_eq!(g["summary"]["ci"].is_null(), !measured, "{}", g["id"]);
    }
    for c in stats["comparisons"].as_array().unwrap().iter().filter(|c| c["inputs"]["file"] == file)
    {
        assert_eq!(c["p_value"].is_null(), !measured, "{}", c["id"]);
    }
    for chart in [format!("line-{}", t.name), format!("rel-{}", t.name)] {
        let figure = element(html, &format!("id=\"fig-{chart}\""), "</figcaption>");
        assert_eq!(figure.contains("Illustrative"), !measured, "{figure}");
        if !measured {
            assert_no_inference(&text_of(figure), &chart);
        }
    }
    // The card of a measured table keeps its inference.
    if measured {
        let card = element(html, &format!("id=\"metric-rel_{}\"", t.name), "</li>");
        assert!(text_of(card).contains("95% CI"), "{card}");
    }
}

/// A published figure that the data reproduce builds, unmarked; one that
/// differs at its precision stops the build at its value, located by hand.
#[test]
fn published_figures_are_checked_against_the_data() {
    let mut rng = Seeded(7);
    for case in 0..4 {
        let t = table("a", KINDS[case % 4], &mut rng);
        let percent = t.relative_at_4 * 100.0;
        let right =
            format!("{}{:.1}%", if percent < 0.0 { "\u{2212}" } else { "+" }, percent.abs());
        let off = if percent < 0.0 { percent - 0.3 } else { percent + 0.3 };
        let wrong = format!("{:+.1}%", off);
        let tables = [t];
        let csv = [("a.csv", tables[0].csv.as_str())];
        let published = |value: &str| {
            format!("[[published]]\nmetric = \"rel_a\"\nvalue = \"{value}\"\nsource = \"a test\"\n")
        };
        let good = book(&tables, &published(&right));
        let study = written_study(&good, &csv, &page(&tables));
        let stats = stats_json(study.path());
        let m = &stats["metrics"][0];
        assert_eq!(m["text"]["value"], right, "case {case}");
        let expected = if tables[0].provenance == "measured" { "measured" } else { "published" };
        assert_eq!(m["text"]["provenance"], expected);

        let bad = book(&tables, &published(&wrong));
        let line = bad.lines().position(|l| l == format!("value = \"{wrong}\"")).unwrap() + 1;
        let study = written_study(&bad, &csv, &page(&tables));
        let output = report(study.path(), &["build"]);
        assert!(!output.status.success(), "case {case}: {wrong} against {right}");
        let err = stderr(&output);
        assert!(
            err.contains(&format!("book.toml:{line}:9: published figure `{wrong}` does not match")),
            "{err}"
        );
        assert!(
            err.contains(&right.replace('\u{2212}', "-").trim_start_matches('+').to_string()),
            "{err}"
        );
    }
}

/// A table that was not measured says why; a statistic of it cannot cite
/// a p-value: both errors located.
#[test]
fn unmeasured_data_must_say_why_and_cannot_be_tested() {
    let t = table("a", "reconstructed", &mut Seeded(3));
    let tables = [t];
    let csv = [("a.csv", tables[0].csv.as_str())];
    let text =
        book(&tables, "").replace("provenance-note = \"values of a made by the test\"\n", "");
    let line = text.lines().position(|l| l.starts_with("provenance =")).unwrap() + 1;
    let output = report(written_study(&text, &csv, &page(&tables)).path(), &["build"]);
    let err = stderr(&output);
    assert!(err.contains(&format!("book.toml:{line}:14: the table `a` is reconstructed")), "{err}");

    let cite = "# R\n\nIt was {{ stat(name=\"rel_a\", field=\"p\") }}.\n";
    let output = report(written_study(&book(&tables, ""), &csv, cite).path(), &["build"]);
    let err = stderr(&output);
    assert!(err.contains("content/index.md:3:36: statistic `rel_a`: no `p` is drawn"), "{err}");
}

/// The published figures and the source's attribution, by hand from
/// ../shared/seed/ (the study's page).
const FIGURES: [&str; 5] = ["8.8%", "45.7 timesteps/s", "7.6%", "2.4%", "6.9%"];
const ATTRIBUTION: [&str; 7] = [
    "kvsoftware",
    "Data Analyst",
    "team of three",
    "Universitas Padjadjaran",
    "Guriang",
    "earth04",
    "Sep \u{2013} Dec 2025",
];

/// The shipped study credits its author and setting as its source does,
/// states only published figures unmarked in its answer and cards, and
/// links how its data were made.
#[test]
fn the_shipped_study_is_true_to_its_source() {
    let root = built_shipped_study();
    let html = fs::read_to_string(root.join("site/index.html")).unwrap();
    let text = text_of(&html);
    for fact in ATTRIBUTION {
        assert!(text.contains(fact), "the page lacks {fact}");
    }
    let answer = text_of(element(&html, "class=\"answer\"", "</div>"));
    for figure in FIGURES {
        assert!(answer.contains(figure), "the answer lacks {figure}: {answer}");
    }
    assert!(!answer.contains(MARK), "{answer}");
    for number in numbers(&answer) {
        assert!(FIGURES.iter().any(|f| f.starts_with(&number)), "{number} in the answer: {answer}");
    }
    for name in ["throughput_32", "slowdown_avg", "network_overhead", "cost_32"] {
        let card = text_of(element(&html, &format!("id=\"metric-{name}\""), "</li>"));
        assert_no_inference(&card, name);
        assert!(card.contains("Published figure: kvsoftware"), "{card}");
        assert!(!card.contains(MARK), "{card}");
    }
    // A per-process figure of the reconstruction is marked; charts too.
    assert!(text.contains(&format!("14.0%{MARK}")), "slowdown at 2 processes unmarked");
    assert_eq!(html.matches("Illustrative: reconstructed data").count(), 5);
    let about = fs::read_to_string(root.join("site/data.html")).unwrap();
    assert!(about.contains("The published figures") && about.contains("reconstruct.py"));
    assert!(element(&html, "id=\"data-note\"", "</p>").contains("href=\"data.html\""));
    if tool("pdftotext", &["-v"]) {
        let paper = pdftotext(&root.join("site/paper.pdf"));
        let flat = paper.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("kvsoftware") && flat.contains("Universitas Padjadjaran"), "{flat}");
        assert!(!flat.contains("2025-06-11"));
        assert!(flat.contains("7 December 2026"), "the paper's date");
        assert_no_inference(&flat, "the shipped paper");
    }
}

/// The numbers of a text with a decimal point or a percent sign, as
/// written (`8.8`, `45.7`): the figures a reader takes as findings.
fn numbers(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == ',')
            {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            let number = number.trim_end_matches(['.', ',']).to_string();
            if number.contains('.') || chars.get(i) == Some(&'%') {
                found.push(number);
            }
        } else {
            i += 1;
        }
    }
    found
}

/// A computed table of data that were not measured: each comparison cell
/// gives its value marked † (the minimal fixture's candidate at 2
/// processes: 5 / 6 − 1 = −16.7%, by hand), with neither interval nor
/// verdict, in the page and in stats.json.
#[test]
fn a_computed_table_of_unmeasured_data_draws_no_inference() {
    let study = fixture("minimal");
    let book = std::fs::read_to_string(study.path().join("book.toml")).unwrap();
    let book = book.replace(
        "group-by = [\"procs\"]\n",
        "group-by = [\"procs\"]\nprovenance = \"simulated\"\nprovenance-note = \"drawn by a script\"\n",
    );
    fs::write(study.path().join("book.toml"), book).unwrap();
    let page = "# T\n\n```table\nid = \"grid\"\ndata = \"runs\"\nvalue = \"time_s\"\nrows = \"procs\"\ncolumns = \"environment\"\ncompare = \"environment\"\ncell = \"relative\"\nbaseline = \"base\"\nbetter = \"lower\"\ncaption = \"Times\"\n```\n";
    fs::write(study.path().join("content/index.md"), page).unwrap();
    let stats = stats_json(study.path());
    let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    let table = stats["tables"].as_array().unwrap().iter().find(|t| t["id"] == "grid").unwrap();
    let cells: Vec<&serde_json::Value> =
        table["cells"].as_array().unwrap().iter().filter(|c| c["kind"] == "comparison").collect();
    assert!(!cells.is_empty(), "{table}");
    for cell in cells {
        assert!(cell["ci"].is_null() && cell["p"].is_null(), "{cell}");
        assert!(cell["verdict"].is_null(), "{cell}");
    }
    assert!(html.contains("\u{2212}16.7%\u{2020}"), "the cell is marked");
    assert!(!html.contains("verdict-"), "no cell is classed by a verdict");
}
