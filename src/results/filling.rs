//! A table's columns filled block by block: each block's rows are moved into
//! chunked columns ([`Chunks`]), so that only one block is ever held as vectors.

use std::sync::Arc;

use super::cells::Builder;
use super::split::Rows;
use super::{Chunks, Column, Store, Texts, TextsBuilder, Values};

/// One column being filled.
enum Filling {
    Number(Chunks<f64>),
    Text(TextsBuilder, Chunks<u32>),
}

/// The columns of a table being filled, and the line of each row.
pub(super) struct Filled {
    columns: Vec<Filling>,
    lines: Chunks<u32>,
    store: Arc<Store>,
}

impl Filled {
    /// No rows yet, in `columns` columns.
    pub fn new(store: &Arc<Store>, columns: usize) -> Self {
        Filled {
            columns: (0..columns).map(|_| Filling::Number(Chunks::new(store))).collect(),
            lines: Chunks::new(store),
            store: Arc::clone(store),
        }
    }

    /// Move the rows read so far out of `rows` (its columns keep their types and
    /// distinct values). An undeclared column typed as numbers so far and as
    /// text in `rows` is turned to text if `convert`, as one reader would do;
    /// else `false` is returned, and the file must be read again by one reader.
    pub fn take(&mut self, rows: &mut Rows, convert: bool) -> bool {
        use rayon::prelude::*;
        // Each column on its own core.
        let store = &self.store;
        let taken: Vec<bool> = self
            .columns
            .par_iter_mut()
            .zip(rows.builders.par_iter_mut())
            .map(|(filling, builder)| take_column(filling, builder, convert, store))
            .collect();
        self.lines.extend(&rows.lines);
        rows.lines.clear();
        taken.into_iter().all(|ok| ok)
    }

    /// The finished columns, named, and the lines. A column of only empty
    /// cells is text (of empty values).
    pub fn finish(self, names: &[String]) -> (Vec<Column>, Chunks<u32>) {
        let columns = names
            .iter()
            .zip(self.columns)
            .map(|(name, filling)| {
                let values = match filling {
                    Filling::Number(chunks) if !chunks.is_empty() && all_nan(&chunks) => {
                        let mut codes = Chunks::new(&self.store);
                        (0..chunks.len()).for_each(|_| codes.push(0));
                        Values::Text(Texts { words: vec![String::new()], codes })
                    }
                    Filling::Number(chunks) => Values::Number(chunks),
                    Filling::Text(texts, codes) => {
                        Values::Text(Texts { words: texts.finish().0, codes })
                    }
                };
                Column { name: name.clone(), values }
            })
            .collect();
        (columns, self.lines)
    }

    /// Number of rows taken.
    pub fn len(&self) -> usize {
        self.lines.len()
    }
}

/// Move a block's cells of one column into `filling`; see [`Filled::take`].
fn take_column(
    filling: &mut Filling,
    builder: &mut Builder,
    convert: bool,
    store: &Arc<Store>,
) -> bool {
    let empty = filling_len(filling) == 0;
    match (&mut *filling, builder) {
        (Filling::Number(chunks), Builder::Number(_, values)) => {
            chunks.extend(values);
            values.clear();
        }
        // Numbers turned to text in this block, which one reader, already
        // reading text, would have kept as written: read again by one reader.
        (Filling::Text(..), Builder::Text(_, true)) if !convert => return false,
        (Filling::Text(texts, codes), Builder::Text(block, _)) => {
            codes.extend(&texts.translate(block));
            // A fresh builder: the next block maps only its own distinct values.
            *block = TextsBuilder::default();
        }
        (Filling::Number(chunks), Builder::Text(block, _)) if empty || convert => {
            // The numbers so far become their shortest text, as when one
            // reader meets the first non-number of an undeclared column.
            let mut texts = TextsBuilder::default();
            let mut codes = Chunks::new(store);
            chunks.for_each(|values| {
                values.iter().for_each(|v| codes.push(texts.code(&crate::format::plain(*v))))
            });
            codes.extend(&texts.translate(block));
            *block = TextsBuilder::default();
            *filling = Filling::Text(texts, codes);
        }
        _ => return false,
    }
    true
}

fn filling_len(filling: &Filling) -> usize {
    match filling {
        Filling::Number(chunks) => chunks.len(),
        Filling::Text(_, codes) => codes.len(),
    }
}

fn all_nan(chunks: &Chunks<f64>) -> bool {
    let mut all = true;
    chunks.for_each(|values| all = all && values.iter().all(|v| v.is_nan()));
    all
}
