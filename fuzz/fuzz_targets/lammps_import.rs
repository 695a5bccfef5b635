//! Any text as a LAMMPS log: the importer yields a run or a refusal.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| report_fuzz::lammps_import(text));
