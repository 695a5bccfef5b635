//! Columns that describe runs rather than measure them: keys and
//! provenance by name, and values repeated on every run of a
//! configuration. The per-group summaries, comparisons and diagnostics
//! leave them out; a metric or table that names one still computes it.

use super::queries::filter::Grouped;

/// Columns that number, locate or check runs, never a measurement: run
/// indices (`index`, `iteration`, `run`, `repetition`), the provenance
/// every importer writes (`run_in_file`, `source`, `source_sha256`) and a
/// command's exit code.
pub const NAMED: [&str; 9] = [
    "index",
    "iteration",
    "run",
    "repetition",
    "run_in_file",
    "source",
    "source_sha256",
    "exit_code",
    "exit_status",
];

/// Whether `column` is a key or provenance column by its name.
pub fn named(column: &str) -> bool {
    NAMED.contains(&column)
}

/// Whether `samples` (one per configuration) repeat one value on every
/// run of each configuration, at least one of them with two runs or more:
/// a value recorded per configuration (hyperfine's per-command
/// `mean_user_s`, a setting), not one measured per run.
/// Empty cells (NaN) are not runs.
pub fn repeated(samples: &[&[f64]]) -> bool {
    let runs = |s: &&[f64]| s.iter().filter(|v| !v.is_nan()).count();
    let constant = |s: &&[f64]| {
        let mut values = s.iter().filter(|v| !v.is_nan());
        values.next().is_none_or(|first| values.all(|v| v == first))
    };
    samples.iter().any(|s| runs(s) > 1) && samples.iter().all(constant)
}

/// The `columns` of `groups` (one sample each, in order) that are
/// measurements: those not [`repeated`] on every run of a configuration,
/// and those a metric compares (`metrics`: a deterministic measurement,
/// such as a compressed size, named by the author). The samples of the
/// others are dropped from every group.
pub fn measured<'c>(
    groups: &mut [Grouped],
    columns: Vec<&'c str>,
    metrics: &[&str],
) -> Vec<&'c str> {
    let keep: Vec<bool> = (0..columns.len())
        .map(|c| {
            if metrics.contains(&columns[c]) {
                return true;
            }
            let samples: Vec<&[f64]> = groups.iter().map(|g| g.samples[c].as_slice()).collect();
            !repeated(&samples)
        })
        .collect();
    for group in groups.iter_mut() {
        let mut flags = keep.iter();
        group.samples.retain(|_| flags.next().copied().unwrap_or(true));
    }
    columns.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(c, _)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::queries::filter::KeyPart;

    fn group(samples: Vec<Vec<f64>>) -> Grouped {
        Grouped { key: vec![KeyPart::Text("a".into())], first: 0, samples }
    }

    // hyperfine's per-command mean: 0.5 on each of a command's runs, 0.7 on
    // the other's; the times vary: only the times are measured.
    #[test]
    fn a_value_repeated_per_configuration_is_no_measurement() {
        let mut groups = [
            group(vec![vec![1.0, 1.2, 0.9], vec![0.5, 0.5, 0.5]]),
            group(vec![vec![2.0, 2.1], vec![0.7, 0.7]]),
        ];
        assert_eq!(measured(&mut groups, vec!["time_s", "mean_user_s"], &[]), ["time_s"]);
        assert!(groups.iter().all(|g| g.samples.len() == 1));
        assert_eq!(groups[1].samples[0], [2.0, 2.1]);
        // Named by a metric, it is the author's measurement.
        let mut again = [group(vec![vec![0.5, 0.5]]), group(vec![vec![0.7, 0.7]])];
        assert_eq!(measured(&mut again, vec!["size"], &["size"]), ["size"]);
    }

    // One run per configuration shows no repetition: it stays measured;
    // one configuration that varies keeps the column.
    #[test]
    fn single_runs_and_any_variation_keep_a_column() {
        assert!(!repeated(&[&[1.0], &[2.0]]));
        assert!(!repeated(&[&[1.0, 1.0], &[2.0, 2.5]]));
        assert!(repeated(&[&[1.0, 1.0], &[2.0]]));
        assert!(repeated(&[&[1.0, f64::NAN, 1.0], &[]]));
        assert!(named("run_in_file") && named("iteration") && !named("time_s"));
    }
}
