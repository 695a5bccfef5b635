//! The computed facts of [`crate::analysis::facts`] in words, for the
//! `peak`, `every`, `count` and `range` shortcodes, the same in the page
//! and the paper: "64 KiB in both environments", "slower at each of 2, 4,
//! 8 and 16 processes", "1 to 32 processes". Each fact gives fields as a
//! metric does (`words` by default); levels are named by the column's
//! labels ([`Labels::value`]).

use std::collections::BTreeMap;

use super::join;
use super::labels::Labels;
use crate::analysis::facts::peak::{At, Peak};
use crate::analysis::facts::tally::{Extent, Tally};
use crate::format;

/// A fact's fields, by name: `words` and those of its kind.
pub type Fields = BTreeMap<&'static str, String>;

/// Levels listed one by one up to this many; more read as a range.
const LISTED: usize = 5;

/// A peak's fields: `words` (`64 KiB in both environments`, or each
/// environment's: `64 KiB (Bare metal) and 128 KiB (Kubernetes)`), `at`
/// (the level, when every environment has the same one), `value` (the mean
/// there, for one environment) and `n`.
pub fn peak(labels: &Labels, (file, column, by): (&str, &str, &str), peak: &Peak) -> Fields {
    let level = |a: &At| labels.value(file, by, &a.level);
    let same = peak.at.windows(2).all(|w| w[0].level == w[1].level);
    let words = match (&peak.at[..], same) {
        ([], _) => String::new(),
        ([one], _) => level(one),
        ([first, _], true) => format!("{} in both environments", level(first)),
        ([first, ..], true) => format!("{} in every environment", level(first)),
        (all, false) => join(
            &all.iter()
                .map(|a| match &a.environment {
                    Some(env) => format!("{} ({})", level(a), labels.environment(env)),
                    None => level(a),
                })
                .collect::<Vec<_>>(),
        ),
    };
    let mut fields = Fields::from([("words", words)]);
    if same {
        fields.insert("at", level(&peak.at[0]));
    }
    if let [one] = &peak.at[..] {
        let unit = labels.value(file, column, "0").strip_prefix("0 ").map(str::to_string);
        let value = format::value(one.mean);
        fields.insert("value", unit.map_or(value.clone(), |u| format!("{value} {u}")));
        fields.insert("n", format::count(one.n));
    }
    fields
}

/// A tally's fields for the claim `word` (one of the column's direction
/// words, meaning "higher" when `higher`): `words` (`slower at each of 2, 4,
/// 8 and 16 processes`; `slower at 2 and 4 processes (2 of 3); faster at 8
/// processes`), `extent` (`every`, `some` or `none`), `count` (`2 of 3`)
/// and `levels` (where it holds).
pub fn tally(labels: &Labels, tally: &Tally, word: &str, higher: bool) -> Fields {
    let [up, down] = labels.words(&tally.file, &tally.column);
    let other = if higher { down } else { up };
    let named = |pick: &dyn Fn(&crate::analysis::facts::tally::Verdict) -> bool| {
        let at: Vec<&str> =
            tally.members.iter().filter(|v| pick(v)).map(|v| v.at.as_str()).collect();
        levels(labels, &tally.file, &at)
    };
    let holds =
        |v: &crate::analysis::facts::tally::Verdict| v.established && v.higher == Some(higher);
    let opposite =
        |v: &crate::analysis::facts::tally::Verdict| v.established && v.higher == Some(!higher);
    let all = named(&|_| true);
    let total = tally.members.len();
    let count = tally.holds(higher).iter().filter(|h| **h).count();
    let extent = tally.extent(higher);
    let words = match extent {
        Extent::Every => format!("{word} at each of {all}"),
        Extent::None => format!("{word} at none of {all}"),
        Extent::Some => {
            let mut parts = vec![format!("{word} at {} ({count} of {total})", named(&holds))];
            if tally.members.iter().any(opposite) {
                parts.push(format!("{other} at {}", named(&opposite)));
            }
            if tally.members.iter().any(|v| !holds(v) && !opposite(v)) {
                let unclear = named(&|v| !holds(v) && !opposite(v));
                parts.push(format!("no established difference at {unclear}"));
            }
            parts.join("; ")
        }
    };
    let extent = match extent {
        Extent::Every => "every",
        Extent::Some => "some",
        Extent::None => "none",
    };
    Fields::from([
        ("words", words),
        ("extent", extent.to_string()),
        ("count", format!("{count} of {total}")),
        ("levels", named(&holds)),
    ])
}

/// Levels written `column = value` (as the analysis names a member's
/// place) in words: listed (`2, 4 and 8 processes`, the unit once when
/// they share it) up to [`LISTED`], else their range and count (`the 12
/// levels from 1 B to 2 KiB`), in book.toml's order of the levels
/// ([`Labels::compare_at`]); `none` for no level.
pub fn levels(labels: &Labels, file: &str, at: &[&str]) -> String {
    let mut at = at.to_vec();
    at.sort_by(|a, b| labels.compare_at(file, a, b));
    let named: Vec<String> = at.iter().map(|a| labels.at(file, a)).collect();
    match &named[..] {
        [] => "none".to_string(),
        [one] => one.clone(),
        [first, .., last] if named.len() > LISTED => {
            format!("the {} levels from {}", named.len(), range(first, last))
        }
        all => {
            let (numbers, unit) = shared_unit(all);
            match unit {
                Some(unit) => format!("{} {unit}", join(&numbers)),
                None => join(all),
            }
        }
    }
}

/// `low to high` with a unit both share written once: `1 to 32 processes`,
/// `64 KiB to 1 MiB`.
pub fn range(low: &str, high: &str) -> String {
    let pair = [low.to_string(), high.to_string()];
    match shared_unit(&pair) {
        (numbers, Some(unit)) if numbers[0] != numbers[1] => {
            format!("{} to {} {unit}", numbers[0], numbers[1])
        }
        _ if low == high => low.to_string(),
        _ => format!("{low} to {high}"),
    }
}

/// Named values without the unit they all share (`2 processes`, `4
/// processes` → `2`, `4` and `processes`); as they are when they do not
/// share one.
fn shared_unit(named: &[String]) -> (Vec<String>, Option<String>) {
    let split: Vec<Option<(&str, &str)>> = named.iter().map(|n| n.split_once(' ')).collect();
    let units: Vec<&str> = split.iter().flatten().map(|(_, u)| *u).collect();
    // The plural, where one level reads in the singular (`1 process`).
    let unit = units.iter().max_by_key(|u| u.len()).copied();
    let shared = units.len() == named.len()
        && units.iter().all(|u| {
            unit.is_some_and(|p| p == *u || p.strip_suffix('s').is_some_and(|s| s.starts_with(*u)))
        })
        && !units.iter().any(|u| u.contains('='));
    if !shared {
        return (named.to_vec(), None);
    }
    let numbers = split.iter().flatten().map(|(n, _)| n.to_string()).collect();
    (numbers, unit.map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::facts::tally::Verdict;

    fn labels() -> Labels {
        let toml = r#"
[book]
title = "T"
[study]
baseline = "a"
[environments.a]
label = "Bare metal"
[environments.b]
label = "Kubernetes"
[environments.c]
label = "VM"
[data.runs.labels]
procs = { unit = "processes" }
size = { unit = "bytes" }
tps = { name = "throughput", higher = "faster", lower = "slower" }
"#;
        Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap())
    }

    fn at(env: &str, level: &str) -> At {
        At { environment: Some(env.into()), level: level.into(), mean: 2.5, n: 3, levels: 4 }
    }

    #[test]
    fn peaks_name_each_environment_or_say_they_agree() {
        let l = labels();
        let file = ("results/runs.csv", "tps", "size");
        let end = crate::analysis::facts::peak::End::Max;
        let both = Peak { end, at: vec![at("a", "65536"), at("b", "65536")] };
        assert_eq!(peak(&l, file, &both)["words"], "64 KiB in both environments");
        assert_eq!(peak(&l, file, &both)["at"], "64 KiB");
        let three = Peak { end, at: vec![at("a", "1024"), at("b", "1024"), at("c", "1024")] };
        assert_eq!(peak(&l, file, &three)["words"], "1 KiB in every environment");
        let apart = Peak { end, at: vec![at("a", "65536"), at("b", "131072")] };
        let fields = peak(&l, file, &apart);
        assert_eq!(fields["words"], "64 KiB (Bare metal) and 128 KiB (Kubernetes)");
        assert!(!fields.contains_key("at") && !fields.contains_key("value"));
        let one = Peak { end, at: vec![at("b", "8")] };
        assert_eq!(peak(&l, ("runs", "tps", "procs"), &one)["words"], "8 processes");
        assert_eq!(peak(&l, ("runs", "tps", "procs"), &one)["value"], "2.50");
    }

    #[test]
    fn levels_share_their_unit_and_many_read_as_a_range() {
        let l = labels();
        let at = |v: &[&str]| v.iter().map(|x| format!("procs = {x}")).collect::<Vec<_>>();
        let named =
            |v: &[&str]| levels(&l, "runs", &at(v).iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(named(&[]), "none");
        assert_eq!(named(&["1"]), "1 process");
        assert_eq!(named(&["1", "2", "4"]), "1, 2 and 4 processes");
        assert_eq!(named(&["1", "2", "4", "8", "16", "32"]), "the 6 levels from 1 to 32 processes");
        let sizes = levels(&l, "runs", &["size = 1024", "size = 1048576"]);
        assert_eq!(sizes, "1 KiB and 1 MiB");
        assert_eq!(range("1 process", "32 processes"), "1 to 32 processes");
        assert_eq!(range("1 KiB", "1 MiB"), "1 KiB to 1 MiB");
        assert_eq!(range("8 processes", "8 processes"), "8 processes");
    }

    #[test]
    fn levels_follow_the_order_book_toml_gives() {
        let toml = r#"
[book]
title = "T"
[study]
baseline = "a"
[environments.a]
label = "A"
[data.runs.labels]
codec = { order = ["zstd", "gzip", "bzip2"] }
level = { unit = "steps", order = ["19", "1"] }
"#;
        let l =
            Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap());
        // Listed levels first in the declared order, others after by value.
        let codecs = ["codec = bzip2", "codec = lz4", "codec = gzip", "codec = zstd"];
        assert_eq!(
            levels(&l, "runs", &codecs),
            "codec = zstd, codec = gzip, codec = bzip2 and codec = lz4"
        );
        let steps = ["level = 3", "level = 1", "level = 19", "level = 2"];
        assert_eq!(levels(&l, "runs", &steps), "19, 1, 2 and 3 steps");
        // No order declared: numbers by value.
        let plain = ["procs = 16", "procs = 2", "procs = 4"];
        assert_eq!(levels(&labels(), "runs", &plain), "2, 4 and 16 processes");
    }

    #[test]
    fn a_tally_says_every_some_or_none() {
        let l = labels();
        let verdict = |at: &str, higher: Option<bool>, established: bool| Verdict {
            at: format!("procs = {at}"),
            higher,
            established,
        };
        let tally = |members| Tally { file: "runs".into(), column: "tps".into(), members };
        let all = tally(vec![verdict("2", Some(false), true), verdict("4", Some(false), true)]);
        let fields = super::tally(&l, &all, "slower", false);
        assert_eq!(fields["words"], "slower at each of 2 and 4 processes");
        assert_eq!((fields["extent"].as_str(), fields["count"].as_str()), ("every", "2 of 2"));
        assert_eq!(
            super::tally(&l, &all, "faster", true)["words"],
            "faster at none of 2 and 4 processes"
        );
        let mixed = tally(vec![
            verdict("2", Some(false), true),
            verdict("4", Some(false), false),
            verdict("8", None, false),
            verdict("16", Some(true), true),
        ]);
        let fields = super::tally(&l, &mixed, "slower", false);
        assert_eq!(
            fields["words"],
            "slower at 2 processes (1 of 4); faster at 16 processes; \
             no established difference at 4 and 8 processes"
        );
        assert_eq!(fields["levels"], "2 processes");
    }
}
