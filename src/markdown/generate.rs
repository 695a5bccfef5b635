//! Tests only: a small seeded generator of Markdown of many shapes, for the
//! property tests of the parse and of its renderers. Each test gives the
//! blocks it wants (`block`); this nests them in lists and orders them.

/// A seeded generator (xorshift64*).
pub(crate) struct Gen(pub u64);

/// What makes one block's lines at a depth, nesting further through the
/// generator.
pub(crate) type Block = fn(&mut Gen, usize) -> Vec<String>;

impl Gen {
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }

    /// One of `items`.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// A list with one of `markers`, tight or loose, of one to three items
    /// of `block`s nested at most `depth` more levels.
    pub fn list(&mut self, depth: usize, markers: &[&str], block: Block) -> Vec<String> {
        let marker = self.pick(markers);
        let indent = " ".repeat(if marker.starts_with('-') { 2 } else { marker.len() });
        let loose = self.below(2) == 0;
        let mut lines = Vec::new();
        for i in 0..1 + self.below(3) {
            if loose && i > 0 {
                lines.push(String::new());
            }
            for (j, line) in self.blocks(depth, block).into_iter().enumerate() {
                let prefix = if j == 0 { marker.to_string() } else { indent.clone() };
                lines.push(if line.is_empty() { line } else { format!("{prefix}{line}") });
            }
        }
        lines
    }

    /// One to three `block`s, blank lines between.
    pub fn blocks(&mut self, depth: usize, block: Block) -> Vec<String> {
        let mut lines = Vec::new();
        for i in 0..1 + self.below(3) {
            if i > 0 {
                lines.push(String::new());
            }
            lines.extend(block(self, depth));
        }
        lines
    }
}
