//! The command line's integration tests.
//!
//! One test executable: each file of this directory is a module here
//! (`cargo test --test suite <file>::` runs one of them), so the helpers they share and the
//! dependencies' generic code are compiled and linked once, not once per file, and the tests
//! of all files share the test threads. Cargo's discovery of test files is off in Cargo.toml;
//! tests/test_files.rs of the workspace checks that every file is named here or there.

mod ssp_common;
mod sweep_common;

mod cli;
mod parametric;
mod platforms;
mod replay;
mod schema;
mod scratch;
mod simulate_inputs;
mod split_study;
mod ssp;
mod ssp_refused;
mod ssp_valve_split;
mod sweep;
mod sweep_dask;
mod user_models;
