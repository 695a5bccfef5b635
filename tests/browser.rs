//! Both shipped studies' sites in a real browser: Debian's Chromium driven
//! by playwright-core, axe-core for accessibility, vnu-jar for HTML validity
//! and Lighthouse for performance, SEO, accessibility and best practices
//! (tests/browser/check.mjs), with every `<details>` open. Any axe violation,
//! whatever its impact, fails, and so does a vnu run that exits non-zero or
//! a Lighthouse score under 100 in any category on any of the three studies'
//! first pages (performance audited once more when under 100).
//! At 360, 375, 1024, 1440 and 1920 px, in both themes, it also measures the
//! layout: no horizontal overflow, dashboard columns of equal width and no
//! hole in a dashboard's last row, chart text rendered at 12 CSS px or more
//! (10th percentile), legends and "n.s." labels clear of every data mark,
//! right-aligned tabular numbers under a `<thead>` with a `<caption>`,
//! series colours at 3:1 or more against their background, and print rules
//! that keep cards, charts and tables whole. As a reader first sees each page
//! (at 1440 and 375 px, every `<details>` closed) the caveats take at most 15%
//! of its height and the data's provenance label stands beside the title; at
//! 1440 px no number in the text or a tooltip carries a hyphen-minus and no
//! column id of the data appears in the prose; hovering a point shows every
//! series at its x; each computed table sorts by every column (header
//! buttons, aria-sort) and reads as written without JavaScript. Links are
//! followed: the site is built as the Pages workflow publishes it, with
//! examples/usernetes and examples/compressors under examples/.
//! Screenshots go to target/screenshots/. It takes about two minutes, but
//! mostly waits on the browser (about a third of a core): it runs with the
//! rest of the suite, which uses the cores meanwhile.

use std::process::Command;

use crate::common;
use common::*;

/// Whether Debian's Chromium and tests/browser's modules are there; without
/// them a browser test is SKIPPED, unless REPORT_REQUIRE_TOOLS is set.
fn browser_ready() -> bool {
    let modules = repo().join("tests/browser/node_modules");
    let ready = modules.join("playwright-core").is_dir()
        && std::path::Path::new("/usr/bin/chromium").exists();
    if !ready {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "chromium and `npm ci` in tests/browser are required"
        );
        eprintln!(
            "SKIPPED: install Debian's chromium and run `npm ci` in tests/browser (see CONTRIBUTING.md)"
        );
    }
    ready
}

#[test]
fn the_site_passes_in_a_real_browser() {
    if !browser_ready() || !tool("java", &["-version"]) || !tool("node", &["--version"]) {
        return;
    }
    // A copy of the shipped study's site, and, as the Pages workflow publishes
    // it, the second study under examples/, which the shipped study links to.
    let study = tempfile::tempdir().unwrap();
    copy_dir(&built_shipped_study().join("site"), &study.path().join("site"));
    let example = study.path().join("site/examples/usernetes");
    let out = example.to_str().unwrap();
    let output = report(&repo().join("examples/usernetes"), &["build", "--out", out]);
    assert!(output.status.success(), "{}", stderr(&output));
    // The compressors study too: its computed tables sort by column.
    let compressors = study.path().join("site/examples/compressors");
    let out = compressors.to_str().unwrap();
    let output = report(&repo().join("examples/compressors"), &["build", "--out", out]);
    assert!(output.status.success(), "{}", stderr(&output));
    let shots = repo().join("target/screenshots");
    let check = Command::new("node")
        .arg(repo().join("tests/browser/check.mjs"))
        .arg(study.path().join("site"))
        .arg(&shots)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{report}\n{}", String::from_utf8_lossy(&check.stderr));
    assert!(report.contains("\"failures\": []"), "{report}");
    assert!(report.contains("\"violations\": 0,"), "{report}");
}

/// Issue 43, point 10: sharing a view in Chromium (tests/browser/share.mjs)
/// on the compressors study, whose charts have several series and whose
/// computed tables sort: a copy-link button on every figure, table and card;
/// series hidden and a table's order kept in the address and restored from it.
#[test]
fn a_view_is_shared_by_its_address() {
    if !browser_ready() || !tool("node", &["--version"]) {
        return;
    }
    let site = tempfile::tempdir().unwrap();
    let out = site.path().to_str().unwrap();
    let output = report(&repo().join("examples/compressors"), &["build", "--out", out]);
    assert!(output.status.success(), "{}", stderr(&output));
    let check = Command::new("node")
        .arg(repo().join("tests/browser/share.mjs"))
        .arg(site.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{said}\n{}", String::from_utf8_lossy(&check.stderr));
    assert!(said.contains("\"failures\": []"), "{said}");
}
