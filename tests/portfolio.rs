//! A site of studies (site.toml), generated from seeds: every link to
//! another study and every reference to another study's claim resolves, a
//! dead one fails the build at its file:line:col, and the index lists every
//! study with its headline values, which hand arithmetic gives: each
//! study's second configuration is built `p`% above the first, exactly.

use std::fs;
use std::path::Path;

use crate::common::{repo, report, stderr};

/// A word of each study's claim labels, its own: the search finds a claim by it.
const WORDS: [&str; 6] = ["amber", "birch", "cedar", "dune", "elm", "fjord"];

/// A small deterministic generator (xorshift64*), seeded per site.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) % n
    }
}

/// One generated study: where it is, and each headline's percentage.
struct Generated {
    folder: String,
    title: String,
    percents: Vec<u64>,
}

/// The book.toml of study `i`, with its headline metrics `m0`, `m1`, ….
fn book(i: usize, title: &str, percents: &[u64]) -> String {
    let mut book = format!(
        "[book]\ntitle = \"{title}\"\ndate = \"2026-0{}-1{}\"\nkeywords = [\"tag{}\", \"all\"]\nperiod = \"2026\"\n\n\
         [study]\nbaseline = \"a\"\n\n[environments.a]\nlabel = \"Old\"\n\n[environments.b]\nlabel = \"New\"\n\n\
         [data.runs.labels]\n",
        1 + i % 9,
        i % 10,
        i % 3
    );
    for k in 0..percents.len() {
        book += &format!(
            "v{k} = {{ name = \"throughput\", unit = \"ops/s\", higher = \"faster\", lower = \"slower\" }}\n"
        );
    }
    for (k, _) in percents.iter().enumerate() {
        book += &format!(
            "\n[[metrics]]\nname = \"m{k}\"\nlabel = \"Claim {k} of {} study\"\ndata = \"runs\"\nvalue = \"v{k}\"\n\
             compare = \"relative\"\nbetter = \"higher\"\nheadline = true\n",
            WORDS[i]
        );
    }
    book
}

/// Runs whose column `vK` has mean 100 on `a` and `100 + p` on `b`, spread
/// symmetrically (±1, 0), so that the relative difference is exactly p%.
fn runs(percents: &[u64]) -> String {
    let columns: Vec<String> = (0..percents.len()).map(|k| format!("v{k}")).collect();
    let mut csv = format!("environment,run,{}\n", columns.join(","));
    for (env, run, delta) in
        [("a", 1, -1.0), ("a", 2, 0.0), ("a", 3, 1.0), ("b", 1, -1.0), ("b", 2, 0.0), ("b", 3, 1.0)]
    {
        let values: Vec<String> = percents
            .iter()
            .map(|p| {
                let mean = if env == "a" { 100.0 } else { 100.0 + *p as f64 };
                format!("{}", mean + delta)
            })
            .collect();
        csv += &format!("{env},{run},{}\n", values.join(","));
    }
    csv
}

/// Write a site of 3 to 5 studies from `seed` into `root`: each study's page
/// links to every other study and refers to one claim of the next. Returns
/// the studies and, per study, where its link to the next study's claim is.
fn site(root: &Path, seed: u64) -> Vec<Generated> {
    let mut draw = Draw(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let n = 3 + draw.below(3) as usize;
    let studies: Vec<Generated> = (0..n)
        .map(|i| {
            let folder = if draw.below(2) == 0 { format!("s{i}") } else { format!("group/s{i}") };
            let percents = (0..1 + draw.below(3)).map(|_| 2 + draw.below(40)).collect();
            Generated { folder, title: format!("Study {i} of seed {seed}"), percents }
        })
        .collect();
    for (i, study) in studies.iter().enumerate() {
        let dir = root.join(&study.folder);
        fs::create_dir_all(dir.join("content")).unwrap();
        fs::create_dir_all(dir.join("results")).unwrap();
        fs::write(dir.join("book.toml"), book(i, &study.title, &study.percents)).unwrap();
        fs::write(dir.join("results/runs.csv"), runs(&study.percents)).unwrap();
        let mut page = format!("# {}\n\nThis study measures a thing.\n\n", study.title);
        for other in studies.iter().filter(|o| o.folder != study.folder) {
            page +=
                &format!("See [{}]({}).\n\n", other.title, relative(&study.folder, &other.folder));
        }
        let next = &studies[(i + 1) % n];
        page += &format!("Next: [](<{}#metric-m0>).\n", relative(&study.folder, &next.folder));
        fs::write(dir.join("content/index.md"), page).unwrap();
    }
    let listed = if draw.below(2) == 0 {
        String::new()
    } else {
        let folders: Vec<String> = studies.iter().map(|s| format!("\"{}\"", s.folder)).collect();
        format!("studies = [{}]\n", folders.join(", "))
    };
    fs::write(root.join("site.toml"), format!("[site]\ntitle = \"Seed {seed}\"\n{listed}"))
        .unwrap();
    studies
}

/// The path from study folder `from` to study folder `to`, ending in `/`.
fn relative(from: &str, to: &str) -> String {
    format!("{}{to}/", "../".repeat(from.split('/').count()))
}

/// `p`% of a higher throughput, as the card writes it.
fn faster(p: u64) -> String {
    format!("{p}.0% faster")
}

#[test]
fn generated_sites_resolve_every_link_and_list_every_headline() {
    for seed in 1..=4 {
        let dir = tempfile::tempdir().unwrap();
        let studies = site(dir.path(), seed);
        let out = dir.path().join("site");
        if seed == 1 {
            // `report check` of the site: every study and link, nothing written.
            let output = report(dir.path(), &["check"]);
            assert!(output.status.success(), "seed {seed}: {}", stderr(&output));
            assert!(stderr(&output).contains("no errors in"), "{}", stderr(&output));
            assert!(!out.exists(), "check writes nothing");
        }
        let output = report(dir.path(), &["build"]);
        assert!(output.status.success(), "seed {seed}: {}", stderr(&output));
        let index = fs::read_to_string(out.join("index.html")).unwrap();
        for (i, study) in studies.iter().enumerate() {
            let link = format!(
                "<a href=\"{}&#x2F;\">{}</a>",
                study.folder.replace('/', "&#x2F;"),
                study.title
            );
            assert!(index.contains(&link), "seed {seed}: {index}");
            for p in &study.percents {
                let value = faster(*p);
                assert!(index.contains(&value), "seed {seed}, study {i}: {value} not on the index");
            }
            check_study(&out, &studies, i, seed);
        }
        let search = fs::read_to_string(out.join("search.json")).unwrap();
        let feed = fs::read_to_string(out.join("feed.xml")).unwrap();
        for study in &studies {
            assert!(search.contains(&study.title) && feed.contains(&study.title), "seed {seed}");
        }
    }
}

/// Study `i` of a site built into `out`: its links lead to the other
/// studies, its reference shows the next study's claim, in the page and the
/// paper, and it has its files but no stylesheet of its own.
fn check_study(out: &Path, studies: &[Generated], i: usize, seed: u64) {
    let study = &studies[i];
    let page = fs::read_to_string(out.join(&study.folder).join("index.html")).unwrap();
    assert!(page.contains("Back to the work"), "seed {seed}");
    let next = &studies[(i + 1) % studies.len()];
    // The reference shows the claim's label and value, from the other study.
    let word = WORDS[(i + 1) % studies.len()];
    let claim = format!("Claim 0 of {word} study: {}", faster(next.percents[0]));
    assert!(page.contains(&claim), "seed {seed}: {claim} not in {page}");
    for other in studies.iter().filter(|o| o.folder != study.folder) {
        let href = relative(&study.folder, &other.folder);
        assert!(page.contains(&format!("href=\"{href}\"")), "seed {seed}: {href}");
        // Each link leads to a page of the site.
        assert!(out.join(&study.folder).join(&href).join("index.html").is_file());
    }
    // In the paper too (its words may break across lines there).
    if i == 0 && seed == 1 && crate::common::tool("pdftotext", &["-v"]) {
        let paper = crate::common::pdftotext(&out.join(&study.folder).join("paper.pdf"));
        let words: Vec<&str> = paper.split_whitespace().collect();
        assert!(words.join(" ").contains(&claim), "seed {seed}: {claim} not in the paper: {paper}");
    }
    for file in ["paper.pdf", "data/stats.json", "card.png", "card.svg"] {
        assert!(out.join(&study.folder).join(file).is_file(), "seed {seed}: {file}");
    }
    let files = fs::read_dir(out.join(&study.folder)).unwrap().filter_map(Result::ok);
    let styles = files.filter(|e| e.file_name().to_string_lossy().ends_with(".css")).count();
    assert_eq!(styles, 0, "one stylesheet, at the root");
}

/// A link to a folder that is no study, and a reference to a claim a study
/// does not have, each fail `report check` and the build at the link.
#[test]
fn a_dead_link_or_reference_fails_located() {
    for (seed, dead) in [(5, "nowhere/"), (6, "#metric-none")] {
        let dir = tempfile::tempdir().unwrap();
        let studies = site(dir.path(), seed);
        let first = dir.path().join(&studies[0].folder).join("content/index.md");
        let mut page = fs::read_to_string(&first).unwrap();
        let target = if dead.starts_with('#') {
            format!("{}{dead}", relative(&studies[0].folder, &studies[1].folder))
        } else {
            dead.to_string()
        };
        // Line 3 holds "This study measures a thing."; the dead link follows on line 5.
        page = page.replacen(
            "This study measures a thing.\n\n",
            &format!("This study measures a thing.\n\nAnd [that]({target}).\n\n"),
            1,
        );
        fs::write(&first, page).unwrap();
        let at = format!("{}/content/index.md:5:5: link to `{target}`", studies[0].folder);
        for command in ["check", "build"] {
            let output = report(dir.path(), &[command]);
            assert!(!output.status.success(), "seed {seed}: a dead link passed {command}");
            let err = stderr(&output);
            assert!(err.contains(&at), "seed {seed}, {command}: {at} not in {err}");
            assert!(!dir.path().join("site").exists(), "nothing written");
        }
    }
}

/// The index in Chromium: axe finds nothing, Lighthouse scores 100 in its
/// four categories, and the search finds a claim by a word of its label and
/// by its value; the index of a site of 50 studies of 20 headline claims
/// (written from generated entries, without building the studies) too.
#[test]
fn the_index_passes_in_a_real_browser_and_its_search_finds_claims() {
    let modules = repo().join("tests/browser/node_modules");
    if !modules.join("playwright-core").is_dir() || !Path::new("/usr/bin/chromium").exists() {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "chromium and `npm ci` in tests/browser are required"
        );
        eprintln!(
            "SKIPPED: install Debian's chromium and run `npm ci` in tests/browser (see CONTRIBUTING.md)"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let studies = site(dir.path(), 7);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let last = studies.len() - 1;
    let p = studies[last].percents[0];
    let claim = format!("Claim 0 of {} study: {}", WORDS[last], faster(p));
    let large = dir.path().join("large");
    write_index(&large, &fifty_studies());
    let check = std::process::Command::new("node")
        .arg(repo().join("tests/browser/site.mjs"))
        .arg(dir.path().join("site"))
        .args([WORDS[last], &format!("{p}.0%"), &claim])
        .arg(&large)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{printed}\n{}", String::from_utf8_lossy(&check.stderr));
    assert!(
        printed.contains("\"violations\": 0") && printed.contains("\"failures\": []"),
        "{printed}"
    );
}

/// The index entries of a site of 50 studies of 20 headline claims each,
/// their prose random words: what gzip cannot shrink much, unlike real prose.
fn fifty_studies() -> Vec<report::site::entry::Entry> {
    use report::site::entry::{Claim, Entry};
    let mut draw = Draw(0x5eed);
    let mut word = || {
        (0..3 + draw.below(7)).map(|_| (b'a' + draw.below(26) as u8) as char).collect::<String>()
    };
    let verdicts = [("better", "good"), ("worse", "bad"), ("negligible", "negligible")];
    (0..50)
        .map(|i| {
            let answer =
                format!("Option {i} changes the throughput of every workload by a few percent.");
            Entry {
                url: format!("studies/s{i:02}/"),
                title: format!("Study {i}: does option {i} pay?"),
                answer_html: format!("<p>{answer}</p>"),
                answer,
                period: Some("2026".into()),
                date: Some(format!("2026-{:02}-{:02}", 1 + i % 12, 1 + i % 28)),
                tags: vec![format!("area{}", i % 5), "bench".into()],
                claims: (0..20)
                    .map(|k| {
                        let (verdict, tone) = verdicts[(i + k) % 3];
                        Claim {
                            name: format!("w{k}"),
                            label: format!("Workload {k} throughput"),
                            value: format!("{}.{}% faster", (i * 7 + k) % 40, (i + k) % 10),
                            verdict: verdict.into(),
                            tone: tone.into(),
                        }
                    })
                    .collect(),
                text: (0..400)
                    .map(|_| word())
                    .collect::<Vec<_>>()
                    .join(" ")
                    .chars()
                    .take(report::site::entry::TEXT_CHARS)
                    .collect(),
                pdf: "paper.pdf".into(),
            }
        })
        .collect()
}

/// Write the index of `entries` into `dir` as a site publishes it: the
/// page, its stylesheets and scripts, and the search index.
fn write_index(dir: &Path, entries: &[report::site::entry::Entry]) {
    let toml = "[site]\ntitle = \"Fifty studies\"\ndescription = \"Fifty generated studies.\"\n";
    let config = report::site::config::parse(Path::new("site.toml"), toml).unwrap().site;
    let entries: Vec<_> = entries.iter().collect();
    fs::create_dir_all(dir).unwrap();
    let html = report::site::index::render(&config, &entries, None).unwrap();
    fs::write(dir.join("index.html"), html).unwrap();
    fs::write(dir.join("search.json"), report::site::search::json(&entries)).unwrap();
    let assets = report::render::html::shared_assets();
    for (name, content) in assets.into_iter().chain(report::render::html::index_assets()) {
        fs::write(dir.join(name), content).unwrap();
    }
}

/// The search index of 50 studies of 20 headline claims each stays under
/// 100 KB gzipped; measured by the benchmark too (`cargo bench --bench site`).
#[test]
fn the_search_index_is_small() {
    let entries = fifty_studies();
    let json = report::site::search::json(&entries.iter().collect::<Vec<_>>());
    let gzip = std::process::Command::new("gzip")
        .arg("-9c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let Ok(mut gzip) = gzip else {
        eprintln!("SKIPPED: no gzip");
        return;
    };
    use std::io::Write;
    gzip.stdin.take().unwrap().write_all(&json).unwrap();
    let zipped = gzip.wait_with_output().unwrap().stdout.len();
    assert!(zipped > 1000 && zipped <= 100_000, "{} bytes, {zipped} gzipped", json.len());
}

/// `report serve` of a site rebuilds only the study that changed; when its
/// claims change, also the study that shows one of them (the one before it).
#[test]
fn a_rebuild_touches_only_the_changed_study_and_those_showing_its_claims() {
    let dir = tempfile::tempdir().unwrap();
    let studies = site(dir.path(), 8);
    let options = report::BuildOptions::default();
    let loaded = report::site::load(dir.path(), &options).unwrap();
    let mut cache = report::site::Cache::build(loaded, Some(1_700_000_000)).unwrap();
    let (first, second) = (&studies[0].folder, &studies[1].folder);
    let page = dir.path().join(second).join("content/index.md");
    let text = fs::read_to_string(&page).unwrap();
    fs::write(&page, format!("{text}\nOne more sentence.\n")).unwrap();
    let card =
        |site: &report::output::Site| site.files[&Path::new(second).join("card.png")].clone();
    let before = card(&cache.assemble(None).unwrap().0);
    assert_eq!(cache.rebuild(second).unwrap(), vec![second.to_string()], "prose: that study alone");
    let (site, _) = cache.assemble(None).unwrap();
    let html = &site.files[&Path::new(second).join("index.html")];
    assert!(String::from_utf8_lossy(html).contains("One more sentence."));
    assert_eq!(card(&site), before, "the card did not change");
    // Its runs 10 points higher on `b`: its claim m0 changes, which study 0 shows.
    let csv = dir.path().join(second).join("results/runs.csv");
    let runs = runs(&studies[1].percents.iter().map(|p| p + 10).collect::<Vec<_>>());
    fs::write(&csv, runs).unwrap();
    assert_eq!(cache.rebuild(second).unwrap(), vec![second.to_string(), first.to_string()]);
    let (site, _) = cache.assemble(None).unwrap();
    assert_ne!(card(&site), before, "its card shows the claims: drawn again");
    let shown =
        String::from_utf8_lossy(&site.files[&Path::new(first).join("index.html")]).into_owned();
    let claim = format!("Claim 0 of {} study: {}", WORDS[1], faster(studies[1].percents[0] + 10));
    assert!(shown.contains(&claim), "{claim} not in study 0's page");
}
