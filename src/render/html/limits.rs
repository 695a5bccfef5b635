//! Bounds on what rendering a template may cost: Tera's `range` replaced by
//! one that refuses huge ranges (and `step_by = 0`, which never ends) and
//! counts the items of every call on a page, and a writer that refuses a page
//! past a size.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tera::{Error, Value};

/// Most items one `range` call may produce.
pub const MAX_RANGE: usize = 100_000;

/// Most items all the `range` calls of one page may produce together, so that
/// nested loops cannot multiply their way past [`MAX_RANGE`].
pub const MAX_RANGE_PER_PAGE: usize = 1_000_000;

/// Most bytes one rendered page may hold.
pub const MAX_PAGE_BYTES: usize = 64 << 20;

/// Tera's `range(end, start=0, step_by=1)`, bounded. Clones share one count,
/// which [`BoundedRange::reset`] clears before each page.
#[derive(Debug, Clone, Default)]
pub struct BoundedRange {
    used: Arc<AtomicUsize>,
}

impl BoundedRange {
    /// Start counting a new page.
    pub fn reset(&self) {
        self.used.store(0, Ordering::Relaxed);
    }
}

fn argument(args: &HashMap<String, Value>, name: &str, default: Option<u64>) -> tera::Result<u64> {
    match args.get(name) {
        Some(value) => value.as_u64().ok_or_else(|| {
            Error::msg(format!(
                "`range` received {name}={value}, but `{name}` must be a whole number of at least 0"
            ))
        }),
        None => default.ok_or_else(|| Error::msg(format!("`range` needs an `{name}` argument"))),
    }
}

impl tera::Function for BoundedRange {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let start = argument(args, "start", Some(0))?;
        let end = argument(args, "end", None)?;
        let step = argument(args, "step_by", Some(1))?;
        if step == 0 {
            return Err(Error::msg("`range` was called with step_by=0, which never ends"));
        }
        if start > end {
            return Err(Error::msg(format!(
                "`range` was called with start={start} past end={end}"
            )));
        }
        let count = usize::try_from((end - start).div_ceil(step)).unwrap_or(usize::MAX);
        if count > MAX_RANGE {
            return Err(Error::msg(format!(
                "`range` of {count} items: a call may produce at most {MAX_RANGE}"
            )));
        }
        let used = self.used.fetch_add(count, Ordering::Relaxed).saturating_add(count);
        if used > MAX_RANGE_PER_PAGE {
            return Err(Error::msg(format!(
                "the `range` calls of this page produced {used} items: at most {MAX_RANGE_PER_PAGE} together"
            )));
        }
        let items = (start..end).step_by(usize::try_from(step).unwrap_or(usize::MAX));
        Ok(Value::Array(items.map(Value::from).collect()))
    }
}

/// A page being rendered, refused past [`MAX_PAGE_BYTES`].
#[derive(Debug, Default)]
pub struct BoundedPage {
    /// The bytes so far.
    pub bytes: Vec<u8>,
    /// Set when a write would have passed the limit.
    pub overflowed: bool,
}

impl std::io::Write for BoundedPage {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > MAX_PAGE_BYTES {
            self.overflowed = true;
            return Err(std::io::Error::other(format!(
                "the page is larger than {} MB",
                MAX_PAGE_BYTES >> 20
            )));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use tera::Function;

    fn range(args: &[(&str, u64)]) -> Result<Value, String> {
        let args = args.iter().map(|(k, v)| (k.to_string(), Value::from(*v))).collect();
        BoundedRange::default().call(&args).map_err(|e| e.to_string())
    }

    #[test]
    fn range_is_tera_s_within_bounds() {
        assert_eq!(range(&[("end", 3)]), Ok(serde_json::json!([0, 1, 2])));
        assert_eq!(
            range(&[("start", 1), ("end", 8), ("step_by", 3)]),
            Ok(serde_json::json!([1, 4, 7]))
        );
        assert!(range(&[("end", 100_000_000_000)]).unwrap_err().contains("at most 100000"));
        assert!(range(&[("end", 3), ("step_by", 0)]).unwrap_err().contains("never ends"));
        assert!(range(&[("start", 4), ("end", 3)]).is_err());
    }

    #[test]
    fn a_page_s_ranges_share_one_budget() {
        let range = BoundedRange::default();
        let args = HashMap::from([("end".to_string(), Value::from(MAX_RANGE as u64))]);
        for _ in 0..MAX_RANGE_PER_PAGE / MAX_RANGE {
            assert!(range.call(&args).is_ok());
        }
        assert!(range.call(&args).unwrap_err().to_string().contains("at most 1000000 together"));
        range.reset();
        assert!(range.call(&args).is_ok());
    }

    #[test]
    fn pages_are_bounded() {
        let mut page = BoundedPage::default();
        assert!(page.write_all(&vec![b'x'; MAX_PAGE_BYTES]).is_ok());
        assert!(page.write_all(b"x").is_err() && page.overflowed);
    }
}
