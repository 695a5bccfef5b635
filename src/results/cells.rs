//! One column being read from CSV cells: typed as declared, or numeric until
//! a cell says otherwise, each cell checked against its type.

use super::TextsBuilder;
use crate::config::ColumnType;

/// One column being read: typed as declared, or numeric until a cell says otherwise.
pub(super) enum Builder {
    /// Numbers, with the declared type if any (`None`: inferred, may turn to text).
    Number(Option<ColumnType>, Vec<f64>),
    /// Text, each distinct value stored once (a column that turned to text
    /// after numbers has them in their shortest form, `1.10` as `1.1`).
    Text(TextsBuilder),
}

impl Builder {
    pub(super) fn new(declared: Option<ColumnType>, capacity: usize) -> Self {
        match declared {
            Some(ColumnType::Text) => Builder::Text(TextsBuilder::with_capacity(capacity)),
            other => Builder::Number(other, Vec::with_capacity(capacity)),
        }
    }

    /// Add one cell; a bad value is stored as empty and reported. `section`
    /// is the file's section of book.toml (`[data.runs]`), which the hint on
    /// an undeclared marker of a missing value names.
    pub(super) fn push(&mut self, text: &str, section: &str) -> Result<(), (String, String)> {
        match self {
            Builder::Text(texts) => {
                texts.push(text);
                Ok(())
            }
            Builder::Number(_, values) if MARKERS.contains(&text) => {
                values.push(f64::NAN);
                Err(undeclared_marker(text, section))
            }
            Builder::Number(declared, values) => {
                match check_cell(text, declared.unwrap_or(ColumnType::Number), declared.is_some()) {
                    Ok(v) => {
                        values.push(v);
                        Ok(())
                    }
                    // An undeclared column with a non-number becomes a text column.
                    Err(_) if declared.is_none() && text.parse::<f64>().is_err() => {
                        let mut texts = TextsBuilder::default();
                        for v in values.iter() {
                            texts.push(&crate::format::plain(*v));
                        }
                        texts.push(text);
                        // Empty cells convert to empty text, as one reader keeps them.
                        *self = Builder::Text(texts);
                        Ok(())
                    }
                    Err(problem) => {
                        values.push(f64::NAN);
                        Err(problem)
                    }
                }
            }
        }
    }

    /// Add a well-formed number straight from the cell's bytes, skipping the
    /// UTF-8 check and the text path (most cells of a results file). Returns
    /// false, having added nothing, for anything else, which [`Builder::push`]
    /// then handles and reports.
    pub(super) fn push_number(&mut self, field: &[u8]) -> bool {
        let Builder::Number(declared, values) = self else { return false };
        // fast-float2 reads what std's `f64::from_str` reads, rounding the same
        // way, only faster (a unit test compares the two).
        let Ok(value) = fast_float2::parse::<f64, _>(field.trim_ascii()) else { return false };
        if check_value(value, declared.unwrap_or(ColumnType::Number)).is_err() {
            return false;
        }
        values.push(value);
        true
    }
}

/// The cells that tools write for a missing value (R's `NA`; pandas'
/// `NaN`, `nan`, `<NA>`, `None`, `NULL`; spreadsheets' `#N/A`, `N/A`, `-`):
/// among numbers, such a cell is an error unless `missing` declares it.
pub const MARKERS: &[&str] = &[
    "NA", "N/A", "n/a", "na", "NaN", "nan", "-NaN", "-nan", "<NA>", "#N/A", "#NA", "NULL", "null",
    "None", "none", "-", ".", "?",
];

/// The error of `marker`, a missing value that book.toml does not declare,
/// with the key that declares it in `section`.
fn undeclared_marker(marker: &str, section: &str) -> (String, String) {
    (
        format!("`{marker}` marks a missing value, which book.toml does not declare"),
        format!(
            "declare it in {section}: `missing = [\"{marker}\"]`; a declared marker counts as an empty cell (see docs/results.md)"
        ),
    )
}

/// Check one cell against `kind`; empty cells are allowed only in undeclared columns.
fn check_cell(text: &str, kind: ColumnType, declared: bool) -> Result<f64, (String, String)> {
    if text.is_empty() {
        return if declared {
            Err((
                "value is missing".into(),
                "every run needs this value; fill it in or remove the row".into(),
            ))
        } else {
            Ok(f64::NAN)
        };
    }
    let value: f64 = text.parse().map_err(|_| {
        (
            format!("expected {}", describe(kind)),
            "write a plain number such as 42 or 0.5".to_string(),
        )
    })?;
    check_value(value, kind)
}

/// Check a parsed number against `kind`.
pub(super) fn check_value(value: f64, kind: ColumnType) -> Result<f64, (String, String)> {
    if !value.is_finite() {
        return Err((
            "expected a finite number".into(),
            "NaN and infinite values are not results; remove the row of a failed run".into(),
        ));
    }
    let (ok, hint) = match kind {
        ColumnType::Integer => (whole(value), "write a whole number such as 32"),
        ColumnType::Positive => (
            value > 0.0,
            "a time or rate must be greater than zero; remove the row of a failed run",
        ),
        ColumnType::NonNegative => (value >= 0.0, "this value cannot be negative"),
        ColumnType::Percent => {
            ((0.0..=100.0).contains(&value), "a percentage lies between 0 and 100")
        }
        ColumnType::Number | ColumnType::Text => (true, ""),
    };
    if ok { Ok(value) } else { Err((format!("expected {}", describe(kind)), hint.to_string())) }
}

/// Whether every one of `values` passes [`check_value`] for `kind`: the same
/// test, a whole column at a time, without a branch per value.
pub(super) fn all_valid(values: &[f64], kind: ColumnType) -> bool {
    let all = |ok: fn(f64) -> bool| values.iter().fold(true, |all, &v| all & ok(v));
    match kind {
        ColumnType::Integer => all(|v| v.is_finite() & whole(v)),
        ColumnType::Positive => all(|v| v.is_finite() & (v > 0.0)),
        ColumnType::NonNegative => all(|v| v.is_finite() & (v >= 0.0)),
        ColumnType::Percent => all(|v| (0.0..=100.0).contains(&v)),
        ColumnType::Number | ColumnType::Text => all(f64::is_finite),
    }
}

/// Whether the finite `value` is a whole number, as `value.fract() == 0.0`
/// says, without the call to `trunc` that `fract` costs on a baseline x86-64
/// build: a double of 2^52 or more is whole, and a smaller one is whole when
/// it survives the round trip through an integer.
fn whole(value: f64) -> bool {
    value.abs() >= 4_503_599_627_370_496.0 || value == value as i64 as f64
}

/// What a cell of `kind` must hold, for messages.
pub(super) fn describe(kind: ColumnType) -> &'static str {
    match kind {
        ColumnType::Text => "text",
        ColumnType::Integer => "a whole number",
        ColumnType::Number => "a number",
        ColumnType::Positive => "a number greater than zero",
        ColumnType::NonNegative => "a number of zero or more",
        ColumnType::Percent => "a percentage from 0 to 100",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column-wide check agrees with the cell-by-cell one, and `whole`
    /// with `fract`, on seeded doubles of every size and on the edges.
    #[test]
    fn columns_are_checked_as_their_cells() {
        let mut next = crate::seeded::stream(0x2545_F491_4F6C_DD1D);
        let mut values = vec![0.0, -0.0, 0.5, -1.5, 1e300, -1e300, f64::NAN, f64::INFINITY];
        values.extend([
            f64::NEG_INFINITY,
            100.0,
            100.000_000_1,
            2f64.powi(52) - 0.5,
            2f64.powi(63),
        ]);
        for _ in 0..20_000 {
            let bits = f64::from_bits(next());
            let scaled = (next() % 2_000_000) as f64 / [1.0, 2.0, 8.0, 10.0][next() as usize % 4];
            values.extend([bits, scaled - 500_000.0, scaled.round()]);
        }
        let kinds = [
            ColumnType::Integer,
            ColumnType::Positive,
            ColumnType::NonNegative,
            ColumnType::Percent,
            ColumnType::Number,
        ];
        for &v in &values {
            if v.is_finite() {
                assert_eq!(whole(v), v.fract() == 0.0, "{v:e}");
            }
            for kind in kinds {
                assert_eq!(all_valid(&[v], kind), check_value(v, kind).is_ok(), "{v:e} {kind:?}");
            }
        }
        for (chunk, kind) in values.chunks(7).zip(kinds.iter().cycle()) {
            let each = chunk.iter().all(|&v| check_value(v, *kind).is_ok());
            assert_eq!(all_valid(chunk, *kind), each, "{chunk:?}");
        }
    }

    #[test]
    fn checks_cells_by_type() {
        assert!(check_cell("0", ColumnType::Positive, true).is_err());
        assert!(check_cell("-1", ColumnType::Positive, true).is_err());
        assert!(check_cell("NaN", ColumnType::Number, true).is_err());
        assert!(check_cell("inf", ColumnType::Number, false).is_err());
        assert!(check_cell("1e999", ColumnType::Number, true).is_err());
        assert!(check_cell("2.5", ColumnType::Integer, true).is_err());
        assert_eq!(check_cell("32", ColumnType::Integer, true), Ok(32.0));
        assert_eq!(check_cell("", ColumnType::Number, false).map(f64::is_nan), Ok(true));
        assert!(check_cell("", ColumnType::Number, true).is_err());
    }

    #[test]
    fn an_undeclared_marker_among_numbers_is_an_error_naming_the_key() {
        for declared in [None, Some(ColumnType::Number), Some(ColumnType::Positive)] {
            let mut column = Builder::new(declared, 2);
            assert!(column.push("1.5", "[data.runs]").is_ok());
            let (message, hint) = column.push("NA", "[data.runs]").unwrap_err();
            assert!(message.contains("`NA` marks a missing value"), "{message}");
            assert!(hint.contains("[data.runs]") && hint.contains("missing = [\"NA\"]"), "{hint}");
            // The column stays numeric, the marker's cell empty.
            assert!(matches!(&column, Builder::Number(_, v) if v.len() == 2 && v[1].is_nan()));
        }
        // In a column of text, a marker is text.
        let mut text = Builder::new(Some(ColumnType::Text), 1);
        assert!(text.push("NA", "[data.runs]").is_ok());
    }

    /// Number-like strings at the edges of what std's parser accepts: signs,
    /// dots, exponents, infinities and NaNs, whitespace, rounding and range.
    const EDGE_CASES: &[&str] = &[
        "1",
        "+1",
        "-1",
        "1.",
        ".5",
        "+.5",
        "-.5",
        ".",
        "+",
        "-",
        "",
        "1e",
        "1e+",
        "1e5",
        "1E-5",
        "1e+5",
        "0x10",
        "1_0",
        "1,5",
        "١",
        "inf",
        "+inf",
        "-inf",
        "infinity",
        "Infinity",
        "INF",
        "nan",
        "NaN",
        "-nan",
        "nan(1)",
        "1.5e308",
        "1e309",
        "4.9e-324",
        "1e-400",
        "00012",
        "1.2.3",
        "1e5.5",
        "e5",
        " 1",
        "1 ",
        "\t2\t",
        "1\u{a0}",
        "\u{b}3",
        "0.1000000000000000055511151231257827",
        "-0",
        "-0.0",
        "1d",
        "1f",
        "123456789012345678901234567890",
        "2.2250738585072011e-308",
        "9007199254740993",
        "0.30000000000000004",
    ];

    /// A deterministic spray of `count` short strings over the characters
    /// numbers are made of (xorshift64).
    fn sprayed(count: usize) -> Vec<String> {
        let alphabet = b"0123456789.eE+- in";
        let mut next = crate::seeded::stream(0x2545F4914F6CDD1D);
        let mut x = 0x2545F4914F6CDD1Du64;
        let mut cases = Vec::with_capacity(count);
        for _ in 0..count {
            let mut s = String::new();
            for _ in 0..(x % 9) {
                x = next();
                s.push(alphabet[(x % alphabet.len() as u64) as usize] as char);
            }
            x = next();
            cases.push(s);
        }
        cases
    }

    /// Whatever the fast path accepts for `case`, in a column of any type,
    /// std's parser (by way of [`check_cell`]) accepts too, with the same bits.
    fn assert_fast_path_agrees(case: &str) {
        for kind in
            [None, Some(ColumnType::Number), Some(ColumnType::Positive), Some(ColumnType::Integer)]
        {
            let mut fast = Builder::new(kind, 0);
            if fast.push_number(case.as_bytes()) {
                let Builder::Number(_, values) = fast else { unreachable!() };
                let slow =
                    check_cell(case.trim(), kind.unwrap_or(ColumnType::Number), kind.is_some());
                assert_eq!(slow.map(f64::to_bits), Ok(values[0].to_bits()), "{case:?} as {kind:?}");
            }
        }
    }

    #[test]
    fn the_fast_number_path_reads_plain_numbers() {
        assert!(Builder::new(None, 0).push_number(b" 2.5e3 "), "the fast path reads plain numbers");
    }

    /// The fast path may only accept what std's parser accepts, with the same bits.
    #[test]
    fn the_fast_number_path_agrees_with_std_at_the_edges() {
        EDGE_CASES.iter().for_each(|case| assert_fast_path_agrees(case));
        assert_fast_path_agrees(&"1".repeat(800));
        assert_fast_path_agrees(&format!("0.{}1", "0".repeat(400)));
    }

    /// The same for strings no one thought of.
    #[test]
    fn the_fast_number_path_agrees_with_std_on_sprayed_strings() {
        sprayed(20_000).iter().for_each(|case| assert_fast_path_agrees(case));
    }
}
