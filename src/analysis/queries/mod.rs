//! Queries of the results: the rows a filter selects, grouped by column
//! values ([`filter`]), the runs `exclude` removes ([`exclude`]), the runs
//! behind outlying values, named ([`runs`]), and the check that a
//! comparison's sides solve problems of one size ([`problem_size`]).

pub mod exclude;
pub mod filter;
pub(crate) mod problem_size;
pub(crate) mod runs;
