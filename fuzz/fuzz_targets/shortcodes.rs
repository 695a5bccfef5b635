//! Any content text: the shortcode scanner and the expansion never panic,
//! every span the scanner gives lies on character boundaries of the text, and
//! every offset of the expanded text maps back to a place in the file.
#![no_main]
use std::collections::BTreeMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use report::markdown::expand::{Fields, expand};
use report::markdown::shortcodes::{Item, scan};

fuzz_target!(|text: &str| {
    let (items, problems) = scan(text);
    let mut last = 0;
    for item in &items {
        match item {
            Item::Call(call) => {
                assert!(call.span.start >= last, "items in order");
                assert!(text.get(call.span.clone()).is_some());
                assert!(text.get(call.name_span.clone()) == Some(call.name.as_str()));
                for arg in &call.args {
                    assert!(text.get(arg.key_span.clone()) == Some(arg.key.as_str()));
                    assert!(text.get(arg.value_span.clone()).is_some());
                }
                last = call.span.end;
            }
            Item::Escape(at) => {
                assert_eq!(text.as_bytes()[*at], b'\\');
                last = at + 1;
            }
        }
    }
    for problem in &problems {
        assert!(text.get(problem.span.clone()).is_some(), "{problem:?}");
    }
    let fields: Fields = BTreeMap::from([(
        "m".to_string(),
        BTreeMap::from([("full", "+1.0% (n = 3)".to_string()), ("value", "+1.0%".to_string())]),
    )]);
    let path = Path::new("content/f.md");
    if let Ok((out, map)) = expand(path, text, &fields, "> [!WARNING]\n> caveat\n") {
        let lines = text.matches('\n').count() + 1;
        for (offset, _) in out.char_indices().step_by(7) {
            let at = map.locate(path, offset);
            assert!(at.line >= 1 && at.line <= lines, "{offset} -> {at}");
        }
    }
});
