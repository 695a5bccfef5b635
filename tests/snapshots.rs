//! Snapshot tests (insta) of the generated HTML and Typst markup. Review every
//! change of a snapshot before accepting it.

use std::fs;

use crate::common;
use common::*;
use report::render::{html, typst_markup};

fn every_construct() -> report::markdown::document::Body {
    let text =
        fs::read_to_string(repo().join("tests/fixtures/markdown/every-construct.md")).unwrap();
    report::markdown::parse::text(&text)
}

#[test]
fn typst_markup_of_every_construct() {
    let markup = typst_markup::convert(&every_construct(), &report::render::Refs::none());
    insta::assert_snapshot!(markup.text);
}

#[test]
fn html_of_every_construct() {
    insta::assert_snapshot!(html::to_html(&every_construct(), report::render::Refs::none()));
}

#[test]
fn page_of_the_minimal_fixture() {
    let study = fixture("minimal");
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    insta::assert_snapshot!(fs::read_to_string(study.path().join("site/index.html")).unwrap());
}

#[test]
fn typst_markup_of_every_construct_compiles() {
    use report::render::pdf::{PaperProject, render};
    let markup = typst_markup::convert(&every_construct(), &report::render::Refs::none());
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect width=\"10\" height=\"10\"/></svg>";
    let main = format!("#set document(title: [Every construct])\n{}", markup.text);
    let files = [("figure.svg".to_string(), svg.as_bytes().to_vec())].into();
    let project = PaperProject {
        main,
        files,
        date: None,
        standard: Default::default(),
        fonts: vec![],
        families: vec![],
    };
    let pdf = render(&project).unwrap_or_else(|e| panic!("{e:?}"));
    assert!(pdf.starts_with(b"%PDF"));
}
