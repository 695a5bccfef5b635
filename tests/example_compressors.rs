//! The third shipped study, `examples/compressors/`, a study that is not
//! HPC: its results are exactly what the README's import command makes
//! from hyperfine's raw exports; it builds, with a family of comparisons, a
//! comparison along the `level` factor, a table of medians and a verdict
//! grid; its medians agree with a parse of the raw JSON written here; and
//! no HPC wording reaches its page or paper.

use std::fs;

use crate::common::{copy_dir, pdftotext, repo, report, report_with, stderr};

/// Import the raw 3 MiB exports into a copy of the study without results:
/// the same bytes as the committed results.
#[test]
fn results_are_the_raw_exports_imported() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/compressors"), dir.path());
    fs::remove_file(dir.path().join("results/hyperfine.csv")).unwrap();
    let raw: Vec<String> = ["bzip2", "gzip", "xz", "zstd"]
        .iter()
        .map(|c| dir.path().join(format!("raw/{c}-3MiB.json")).display().to_string())
        .collect();
    let mut args = vec!["import", "hyperfine", "--pattern", "{env}-3MiB.json"];
    args.extend(raw.iter().map(String::as_str));
    let output = report(dir.path(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let made = fs::read(dir.path().join("results/hyperfine.csv")).unwrap();
    let committed = fs::read(repo().join("examples/compressors/results/hyperfine.csv")).unwrap();
    assert!(made == committed, "the committed results differ from the import of raw/");
}

/// The medians of the table of times, against the raw JSON's `times`
/// (median of ten: the mean of the 5th and 6th), and no HPC wording.
#[test]
fn builds_with_tables_that_agree_with_the_raw_data() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/compressors"), dir.path());
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let csv = fs::read_to_string(dir.path().join("site/data/tables/times.csv")).unwrap();
    for compressor in ["bzip2", "gzip", "xz", "zstd"] {
        let text = fs::read_to_string(
            repo().join(format!("examples/compressors/raw/{compressor}-3MiB.json")),
        )
        .unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for result in json["results"].as_array().unwrap() {
            let level = result["parameters"]["level"].as_str().unwrap();
            let mut times: Vec<f64> =
                result["times"].as_array().unwrap().iter().map(|t| t.as_f64().unwrap()).collect();
            times.sort_by(f64::total_cmp);
            let median = (times[4] + times[5]) / 2.0;
            let line = csv
                .lines()
                .find(|l| l.starts_with(&format!("{compressor},{level},")))
                .unwrap_or_else(|| panic!("no cell {compressor} {level}"));
            let got: f64 = line.split(',').nth(3).unwrap().parse().unwrap();
            assert!(
                (got - median).abs() <= 1e-12 * median,
                "{compressor} {level}: {got} against {median}"
            );
        }
    }
    let stats: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("site/data/stats.json")).unwrap())
            .unwrap();
    let family =
        stats["metrics"].as_array().unwrap().iter().filter(|m| m["name"] == "at_level_1").count();
    assert_eq!(family, 3, "bzip2, xz and zstd against gzip");
    let page = fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    let paper = pdftotext(&dir.path().join("site/paper.pdf"));
    for word in ["node", "MPI", "container", "Kubernetes", "bare metal", "cluster", "network"] {
        assert!(!page.contains(word), "`{word}` in the page");
        assert!(!paper.contains(word), "`{word}` in the paper");
    }
    grid_cells_wrap_whole(&paper);
}

/// The paper's verdict grid wraps a long cell between its value, its
/// interval and its verdict only: each interval on one line, no word
/// hyphenated (the intervals as the page prints them).
fn grid_cells_wrap_whole(paper: &str) {
    let lines: Vec<&str> = paper.lines().collect();
    for interval in ["(+376.3 to +587.7%),", "(+1,100.9 to +1,514.2%),", "(+52.9 to +118.9%),"] {
        assert!(lines.iter().any(|l| l.contains(interval)), "{interval} split in the paper");
    }
    let table = lines.iter().skip_while(|l| !l.starts_with("Table 3.")).take(20);
    for line in table {
        let hyphenated =
            line.trim_end().strip_suffix('-').is_some_and(|l| l.ends_with(char::is_alphabetic));
        assert!(!hyphenated, "a word hyphenated in the grid: {line}");
    }
}

/// The study with its verdict grid against the best other compressor
/// (`baseline = "best"`): the grid's selected-baseline caveat names it,
/// Table 3 (after the headline table and the first grid), once among the reader's caveats of the page, the paper's
/// Limitations and stats.json; and `report diff` lists a cell whose chosen
/// baseline changes. By hand from stats.json's scores (the medians at
/// level 1): bzip2's best other is zstd (0.018 s) before gzip (0.050 s);
/// zstd's level-1 runs made 100 times slower leave gzip the best.
#[test]
fn a_grid_against_the_best_carries_its_caveat_and_diff_lists_its_cells() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/compressors"), dir.path());
    let page = dir.path().join("content/index.md");
    let text = fs::read_to_string(&page).unwrap();
    let grid = "better = \"lower\"\ncaption = \"Time against gzip at the same level\"";
    assert!(text.contains(grid));
    let best = "better = \"lower\"\nbaseline = \"best\"\ncaption = \"Time against the best other\"";
    fs::write(&page, text.replace(grid, best)).unwrap();
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let site = dir.path().join("site");
    let caveat = "In Table 3, each cell’s baseline, named after “vs”, is the best of the other rows in its column by their medians on the same runs it is then compared with. Choosing the best on these data favours it (the winner’s curse)";
    let html = fs::read_to_string(site.join("index.html")).unwrap().replace("&apos;", "’");
    assert_eq!(html.replace('\'', "’").matches(caveat).count(), 1, "the page's caveats");
    let paper = pdftotext(&site.join("paper.pdf")).split_whitespace().collect::<Vec<_>>().join(" ");
    let limitations = paper.rsplit_once(" Limitations ").unwrap().1;
    assert_eq!(limitations.matches(caveat).count(), 1, "the paper's Limitations: {limitations}");
    let before = fs::read(site.join("data/stats.json")).unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&before).unwrap();
    let selected: Vec<&str> = (stats["limitations"].as_array().unwrap().iter())
        .filter(|l| l["kind"] == "selected-baseline")
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert_eq!(selected.len(), 1, "{selected:?}");
    assert!(selected[0].replace('\'', "’").starts_with(caveat), "{}", selected[0]);
    fs::write(dir.path().join("before.json"), before).unwrap();
    slow_down(&dir.path().join("results/hyperfine.csv"), "zstd", "1", 100.0);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let (old, new) = (dir.path().join("before.json"), site.join("data/stats.json"));
    let diff = report(dir.path(), &["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert!(diff.status.success(), "{}", stderr(&diff));
    let listed = String::from_utf8_lossy(&diff.stdout).into_owned();
    let cell = listed.lines().find(|l| l.starts_with("- tbl-grid (bzip2, 1): ")).unwrap_or("");
    let (was, is) = cell.split_once(" → ").unwrap_or_else(|| panic!("no such cell in\n{listed}"));
    assert!(was.ends_with("vs zstd, worse") && is.contains("vs gzip"), "{cell}");
}

/// `report diff` names exactly the table cells that an altered compressor
/// changes, by hand, in the table's order (book.toml's: gzip, zstd, xz, bzip2). gzip's level-1 runs twice as slow: its own median
/// (0.050290583 s × 2 = 0.101 s) and the three cells compared with it at
/// level 1, each ratio and interval end halved (the Hodges–Lehmann shift of
/// the logs moves by ln 2; the ranks, so p and the verdicts, stay): bzip2
/// 5.5715/2 − 1 = +178.6% (+138.1 to +243.9%), xz 4.9209/2 − 1 = +146.0%
/// (+101.4 to +206.0%), zstd 0.33797/2 − 1 = −83.1% (−88.0 to −77.1%);
/// levels 6 and 9 compare with gzip's runs there, untouched. zstd's level-1
/// runs 20 times slower (all above gzip's slowest, so p stays): its median
/// 0.358 s, and its cell against gzip 0.33797 × 20 − 1 = +575.9% (+378.9 to
/// +814.4%), its verdict turned from better to worse (a field of its own in
/// `--message-format json`). Each move is tested by the ratio of the two
/// estimates, by hand ×0.500 for the cells against gzip and ×20.000 for
/// zstd's (its interval and p: src/diff.rs, against scipy).
#[test]
fn diff_names_exactly_the_cells_an_altered_compressor_changes() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("examples/compressors"), dir.path());
    let csv = dir.path().join("results/hyperfine.csv");
    let stats = |name: &str| stats_json(dir.path(), name);
    let cells = |old: &str, new: &str| changed_cells(dir.path(), old, new);
    let before = stats("before.json");
    let original = fs::read(&csv).unwrap();
    slow_down(&csv, "gzip", "1", 2.0);
    let gzip = stats("gzip.json");
    let significant = "(after ÷ before ×0.500: a significant change)";
    assert_eq!(
        cells(&before, &gzip),
        [
            "times (gzip, 1): 0.050 s → 0.101 s (no CI to compare)".to_string(),
            format!(
                "grid (zstd, 1): −66.2% (−76.1 to −54.3%), better → \
                 −83.1% (−88.0 to −77.1%), better {significant}"
            ),
            format!(
                "grid (xz, 1): +392.1% (+302.7 to +512.1%), worse → \
                 +146.0% (+101.4 to +206.0%), worse {significant}"
            ),
            format!(
                "grid (bzip2, 1): +457.1% (+376.3 to +587.7%), worse → \
                 +178.6% (+138.1 to +243.9%), worse {significant}"
            ),
        ]
    );
    fs::write(&csv, original).unwrap();
    slow_down(&csv, "zstd", "1", 20.0);
    let zstd = stats("zstd.json");
    let significant = "(after ÷ before ×20.000: a significant change)";
    assert_eq!(
        cells(&before, &zstd),
        [
            "times (zstd, 1): 0.018 s → 0.358 s (no CI to compare)".to_string(),
            format!(
                "grid (zstd, 1): −66.2% (−76.1 to −54.3%), better → \
                 +575.9% (+378.9 to +814.4%), worse {significant} (verdict: better → worse)"
            ),
        ]
    );
    let json = report_with(dir.path(), &["diff", &before, &zstd], "json");
    let changes: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let changes = changes.as_array().unwrap();
    let cell = changes.iter().find(|c| c["name"] == "tbl-grid (zstd, 1)").unwrap();
    assert_eq!(cell["verdict"], serde_json::json!({ "before": "better", "after": "worse" }));
}

/// Write what stats.json of the study at `root` holds now to `root/name`;
/// return its path.
fn stats_json(root: &std::path::Path, name: &str) -> String {
    let project = report::project::load(root).unwrap();
    let path = root.join(name);
    fs::write(&path, report::pipeline::stats(&project).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

/// The lines of `report diff OLD NEW` about tables, without `- tbl-`, and
/// each test of a move without its interval and p (`(after ÷ before
/// ×0.500: a significant change)`).
fn changed_cells(root: &std::path::Path, old: &str, new: &str) -> Vec<String> {
    let diff = report(root, &["diff", old, new]);
    assert!(diff.status.success(), "{}", stderr(&diff));
    (String::from_utf8_lossy(&diff.stdout).lines())
        .filter_map(|l| l.strip_prefix("- tbl-").map(without_interval))
        .collect()
}

/// A line of `report diff` with its test's interval and p left out.
fn without_interval(line: &str) -> String {
    let Some(start) = line.find(", 95% CI ×") else { return line.to_string() };
    let end = start + line[start..].find(": ").unwrap();
    format!("{}{}", &line[..start], &line[end..])
}

/// Multiply `time_s` of `environment`'s runs at `level` by `factor`.
fn slow_down(csv: &std::path::Path, environment: &str, level: &str, factor: f64) {
    let text = fs::read_to_string(csv).unwrap();
    let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (env, lvl, time) = (at("environment"), at("level"), at("time_s"));
    let lines: Vec<String> = (text.lines())
        .map(|line| {
            let mut cells: Vec<String> = line.split(',').map(String::from).collect();
            if cells[env] == environment && cells[lvl] == level {
                cells[time] = (cells[time].parse::<f64>().unwrap() * factor).to_string();
            }
            cells.join(",")
        })
        .collect();
    fs::write(csv, lines.join("\n") + "\n").unwrap();
}
