//! Names from OSU output: the benchmark a `# OSU … Test` title belongs to,
//! and the CSV column of each heading of its table. Both are plain names of
//! lowercase letters, digits and `_`, whatever the file holds.

/// Titles (lowercase, without `# OSU MPI`, the version and `Test`) and the
/// program that prints each, for OSU 5.x to 7.x.
const KNOWN: [(&str, &str); 36] = [
    ("latency", "osu_latency"),
    ("multi-threaded latency", "osu_latency_mt"),
    ("multi-process latency", "osu_latency_mp"),
    ("persistent latency", "osu_latency_persistent"),
    ("bandwidth", "osu_bw"),
    ("bi-directional bandwidth", "osu_bibw"),
    ("multiple bandwidth / message rate", "osu_mbw_mr"),
    ("multi latency", "osu_multi_lat"),
    ("allreduce latency", "osu_allreduce"),
    ("allgather latency", "osu_allgather"),
    ("allgatherv latency", "osu_allgatherv"),
    ("all-to-all personalized exchange latency", "osu_alltoall"),
    ("all-to-allv personalized exchange latency", "osu_alltoallv"),
    ("all-to-allw personalized exchange latency", "osu_alltoallw"),
    ("barrier latency", "osu_barrier"),
    ("broadcast latency", "osu_bcast"),
    ("gather latency", "osu_gather"),
    ("gatherv latency", "osu_gatherv"),
    ("reduce latency", "osu_reduce"),
    ("reduce_scatter latency", "osu_reduce_scatter"),
    ("reduce-scatter latency", "osu_reduce_scatter"),
    ("reduce_scatter_block latency", "osu_reduce_scatter_block"),
    ("scatter latency", "osu_scatter"),
    ("scatterv latency", "osu_scatterv"),
    ("_put latency", "osu_put_latency"),
    ("_put bandwidth", "osu_put_bw"),
    ("_put bi-directional bandwidth", "osu_put_bibw"),
    ("_get latency", "osu_get_latency"),
    ("_get bandwidth", "osu_get_bw"),
    ("_accumulate latency", "osu_acc_latency"),
    ("_get_accumulate latency", "osu_get_acc_latency"),
    ("_fetch_and_op latency", "osu_fop_latency"),
    ("_compare_and_swap latency", "osu_cas_latency"),
    ("init", "osu_init"),
    ("hello world", "osu_hello"),
    ("startup", "osu_init"),
];

/// Benchmarks whose output holds no measurement: skipped with a note.
pub const WITHOUT_MEASUREMENTS: [&str; 2] = ["osu_hello", "osu_init"];

/// Longest name made from a file's text.
const MAX_NAME: usize = 64;

/// The benchmark of a title line (`title` is what follows `# OSU `), and its
/// version: `MPI Latency Test v5.8` is `osu_latency`, `5.8`. A title not in
/// the table gets `osu_` and the words of its title, so that benchmarks are
/// kept apart whatever they are.
pub fn benchmark(title: &str) -> (String, String) {
    let title = title.trim().to_lowercase();
    let (title, version) = match title.rsplit_once(" v") {
        Some((t, v)) if v.starts_with(|c: char| c.is_ascii_digit()) => (t.trim(), v.trim()),
        _ => (title.as_str(), ""),
    };
    let title = title.strip_suffix("test").unwrap_or(title).trim();
    // `MPI-CUDA`, `MPI_Put-ROCM`…: the accelerator does not change the benchmark.
    let (first, rest) = title.split_once(' ').unwrap_or((title, ""));
    let first = match first.rsplit_once('-') {
        Some((word, "cuda" | "rocm" | "openacc" | "acc")) => word,
        _ => first,
    };
    let title = format!("{first} {rest}");
    let title = title.trim();
    let phrase = title.strip_prefix("mpi").unwrap_or(title);
    let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
    let phrase = phrase.trim_start_matches(' ');
    (name_of(phrase), slug(version, "."))
}

/// The program of a title phrase; non-blocking collectives are `osu_i…`.
fn name_of(phrase: &str) -> String {
    let known = |p: &str| KNOWN.iter().find(|(t, _)| *t == p).map(|(_, n)| n.to_string());
    if let Some(name) = known(phrase) {
        return name;
    }
    if let Some(rest) = phrase.strip_prefix("non-blocking ")
        && let Some(name) = known(rest)
    {
        return name.replacen("osu_", "osu_i", 1);
    }
    let words = slug(phrase, "");
    if words.is_empty() { "osu_unnamed".into() } else { format!("osu_{words}") }
}

/// The CSV column of a table heading: `Avg Latency(us)` is `latency_us`,
/// `MB/s` is `bandwidth_mb_s`, `Messages/s` is `messages_per_s`,
/// `Overlap(%)` is `overlap_pct`.
pub fn column(heading: &str) -> String {
    let spaced = heading
        .to_lowercase()
        .replace("mb/s", " mb_s ")
        .replace("/s", " per_s ")
        .replace('%', " pct ");
    let name = slug(&spaced, "");
    match name.as_str() {
        "size" => "size_bytes".into(),
        "latency_us" | "avg_latency_us" => "latency_us".into(),
        "mb_s" | "bandwidth_mb_s" => "bandwidth_mb_s".into(),
        "" => "value".into(),
        _ => name,
    }
}

/// Lowercase letters and digits of `text`, other runs of characters as one
/// `_` (`keep` characters kept), at most [`MAX_NAME`] long.
fn slug(text: &str, keep: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || keep.contains(c) {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        if out.len() >= MAX_NAME {
            break;
        }
    }
    out.trim_end_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_name_their_benchmark() {
        for (title, name, version) in [
            ("MPI Latency Test v5.8", "osu_latency", "5.8"),
            ("MPI Bi-Directional Bandwidth Test v5.6.2", "osu_bibw", "5.6.2"),
            ("MPI Multiple Bandwidth / Message Rate Test v5.8", "osu_mbw_mr", "5.8"),
            ("MPI Barrier Latency Test v7.3", "osu_barrier", "7.3"),
            ("MPI-CUDA Bandwidth Test v7.1", "osu_bw", "7.1"),
            ("MPI Non-blocking Allreduce Latency Test v5.6.3", "osu_iallreduce", "5.6.3"),
            ("MPI_Put Latency Test v5.8", "osu_put_latency", "5.8"),
            ("MPI_Put-CUDA Bi-directional Bandwidth Test v7.2", "osu_put_bibw", "7.2"),
            ("MPI_Get Bandwidth Test v5.8", "osu_get_bw", "5.8"),
            ("MPI Hello World Test v5.8", "osu_hello", "5.8"),
            ("MPI Neighbor Allgather Latency Test v7.4", "osu_neighbor_allgather_latency", "7.4"),
            ("<script>alert(1)</script> Test v9\"", "osu_script_alert_1_script", "9"),
        ] {
            assert_eq!(benchmark(title), (name.to_string(), version.to_string()), "{title}");
        }
        assert!(benchmark(&"x ".repeat(10_000)).0.len() <= MAX_NAME + 4);
    }

    #[test]
    fn headings_name_their_columns() {
        for (heading, name) in [
            ("Size", "size_bytes"),
            ("Latency (us)", "latency_us"),
            ("Avg Latency(us)", "latency_us"),
            ("Min Latency(us)", "min_latency_us"),
            ("Bandwidth (MB/s)", "bandwidth_mb_s"),
            ("MB/s", "bandwidth_mb_s"),
            ("Messages/s", "messages_per_s"),
            ("Iterations", "iterations"),
            ("Pure Comm.(us)", "pure_comm_us"),
            ("Overlap(%)", "overlap_pct"),
            ("\"=cmd|' /C calc'!A0", "cmd_c_calc_a0"),
        ] {
            assert_eq!(column(heading), name, "{heading}");
        }
    }
}
