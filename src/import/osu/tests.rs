//! Unit tests of the OSU reader: versions, extra columns, several tables,
//! barrier without sizes, startup benchmarks, missing titles and bad values.

use std::path::Path;

use super::*;

fn parse(text: &str) -> Result<Parsed, Refusal> {
    super::parse_lines(&crate::import::unwrap::lines(Path::new("x.out"), text).1)
}

fn cells(rows: &[&[&str]]) -> Vec<Vec<String>> {
    rows.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect()
}

#[test]
fn reads_version_5_latency_and_bandwidth() {
    let text = "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n0                       7.46\n1                       7.49\n";
    let table = &parse(text).unwrap().tables[0];
    assert_eq!(
        (table.benchmark.as_str(), table.version.as_str(), table.at),
        ("osu_latency", "5.8", 1)
    );
    assert_eq!(table.columns, ["size_bytes", "latency_us"]);
    assert_eq!(table.rows, cells(&[&["0", "7.46"], &["1", "7.49"]]));
    let bw = parse(
        "# OSU MPI Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1    1.43\n2    2.88\n",
    )
    .unwrap();
    assert_eq!(
        (bw.tables[0].benchmark.as_str(), bw.tables[0].columns[1].as_str()),
        ("osu_bw", "bandwidth_mb_s")
    );
}

#[test]
fn reads_version_7_with_datatype_extra_columns_and_validation() {
    let text = "# OSU MPI Allreduce Latency Test v7.3\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations  Validation\n\
        1                       1.52              1.40              1.63        1000  Pass\n2                       1.55              1.41              1.70        1000  Pass\n";
    let table = &parse(text).unwrap().tables[0];
    assert_eq!(
        table.columns,
        [
            "size_bytes",
            "latency_us",
            "min_latency_us",
            "max_latency_us",
            "iterations",
            "validation"
        ]
    );
    assert_eq!(table.rows[1], cells(&[&["2", "1.55", "1.41", "1.7", "1000", "pass"]])[0]);
}

#[test]
fn message_rate_and_barrier_keep_their_columns() {
    let text = "time jsrun -n 4 -a 1 -r 1 osu_mbw_mr\n# OSU MPI Multiple Bandwidth / Message Rate Test v5.8\n# [ pairs: 2 ] [ window size: 64 ]\n# Size                  MB/s        Messages/s\n\
        1                       7.25        7251072.93\nreal 5.93\nflux run -N2 --tasks-per-node=3 osu_barrier\n# OSU MPI Barrier Latency Test v5.8\n# Avg Latency(us)\n             8.63\n\nreal 1\n";
    let parsed = parse(text).unwrap();
    let [mr, barrier] = &parsed.tables[..] else { panic!("{parsed:?}") };
    assert_eq!(
        (mr.benchmark.as_str(), &mr.columns[..]),
        (
            "osu_mbw_mr",
            &["size_bytes".to_string(), "bandwidth_mb_s".into(), "messages_per_s".into()][..]
        )
    );
    assert_eq!(mr.rows, cells(&[&["1", "7.25", "7251072.93"]]));
    assert_eq!(mr.launch.map(|l| (l.ranks, l.nodes, l.at)), Some((Some(4), Some(4), 1)));
    assert_eq!(
        (barrier.benchmark.as_str(), &barrier.columns[..]),
        ("osu_barrier", &["latency_us".to_string()][..])
    );
    assert_eq!(barrier.rows, cells(&[&["8.63"]]));
    assert_eq!(barrier.launch.map(|l| (l.ranks, l.nodes)), Some((Some(6), Some(2))));
}

#[test]
fn several_tables_noise_and_startup_benchmarks() {
    let text = "srun: job 1 started\n# OSU MPI Hello World Test v5.8\nThis is a test with 4 processes\n# OSU MPI Bi-Directional Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1  2.0\n2  4.0\n\
        real 0m1.2s\nWarning: something\n# OSU MPI Latency Test v5.6.2\n# Size  Latency (us)\n0  1.1\n{\"done\": true}\n# OSU MPI Bandwidth Test v5.8\n# Size  Bandwidth (MB/s)\n";
    let parsed = parse(text).unwrap();
    let got: Vec<_> =
        parsed.tables.iter().map(|t| (t.benchmark.as_str(), t.rows.len(), t.at)).collect();
    assert_eq!(got, [("osu_bibw", 2, 4), ("osu_latency", 1, 10)]);
    let notes: Vec<_> = parsed.notes.iter().map(|n| (n.at, n.message.as_str())).collect();
    assert_eq!(
        notes,
        [
            (2, "osu_hello holds no measurements: skipped"),
            (14, "the osu_bw table has no rows: the benchmark did not finish; skipped")
        ]
    );
}

#[test]
fn a_missing_title_or_table_is_said_clearly() {
    let headless = parse("job 7\n# Size  Latency (us)\n0  1.1\n").unwrap_err();
    assert!(
        headless.reason.contains("without its `# OSU MPI … Test` title"),
        "{}",
        headless.reason
    );
    assert_eq!(headless.line, Some(2));
    let other = parse("LAMMPS (8 Apr 2021)\n").unwrap_err();
    assert!(other.reason.starts_with("no OSU output"), "{}", other.reason);
    let hello =
        parse("# OSU MPI Hello World Test v5.8\nThis is a test with 4 processes\n").unwrap_err();
    assert!(hello.reason.contains("osu_hello holds no measurements"), "{}", hello.reason);
}

#[test]
fn refuses_values_no_run_measures_at_their_line() {
    for value in ["nan", "-nan", "inf", "-1.5", "1e999"] {
        let text = format!(
            "# OSU MPI Bandwidth Test v5.8\n# Size  Bandwidth (MB/s)\n1  2.0\n2  {value}\n"
        );
        let refusal = parse(&text).unwrap_err();
        assert_eq!(refusal.line, Some(4), "{value}");
        assert!(
            refusal.reason.contains(&format!("osu_bw table gives bandwidth_mb_s `{value}`")),
            "{}",
            refusal.reason
        );
    }
    let zero = parse("# OSU MPI Latency Test v7.3\n# Size  Latency (us)\n0  0.00\n").unwrap();
    assert_eq!(zero.tables[0].rows, cells(&[&["0", "0"]]));
}

/// OSU 5.6.3 as printed in a public Spack test log (`osu_iallreduce`, then
/// `osu_ibarrier`, whose headings have no `#`), cut to three sizes.
const NON_BLOCKING: &str = "openmpi@1.10.7%intel@19.0.5.281 osu_iallreduce

# OSU MPI Non-blocking Allreduce Latency Test v5.6.3
# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait

# Size           Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)
4                       8.77              5.32              4.43             22.08
8                       8.63              4.71              3.90              0.00
1048576              3025.81           1497.11           1332.12              0.00
openmpi@1.10.7%intel@19.0.5.281 osu_ibarrier

# OSU MPI Non-blocking Barrier Latency Test v5.6.3
# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait

       Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)
              8.85              5.04              4.02              5.04
openmpi@1.10.7%intel@19.0.5.281 osu_iscatterv
";

#[test]
fn non_blocking_collectives_keep_every_column() {
    let parsed = parse(NON_BLOCKING).unwrap();
    assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
    let [all, barrier] = &parsed.tables[..] else { panic!("{parsed:?}") };
    let columns = ["overall_us", "compute_us", "pure_comm_us", "overlap_pct"];
    assert_eq!(all.benchmark, "osu_iallreduce");
    assert_eq!(all.columns[0], "size_bytes");
    assert_eq!(all.columns[1..], columns);
    assert_eq!(all.rows[2], ["1048576", "3025.81", "1497.11", "1332.12", "0"]);
    assert_eq!((barrier.benchmark.as_str(), barrier.version.as_str()), ("osu_ibarrier", "5.6.3"));
    assert_eq!(barrier.columns, columns);
    assert_eq!(barrier.rows, cells(&[&["8.85", "5.04", "4.02", "5.04"]]));
    // Text without units in parentheses is not taken for headings.
    let noise = "# OSU MPI Non-blocking Barrier Latency Test v5.6.3\nThis is noise  with  spaces\n";
    assert!(parse(noise).is_err());
}
