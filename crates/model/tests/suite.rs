//! The model format's integration tests.
//!
//! One test executable: each file of this directory is a module here
//! (`cargo test --test suite <file>::` runs one of them), so the helpers they share and the
//! dependencies' generic code are compiled and linked once, not once per file, and the tests
//! of all files share the test threads. Cargo's discovery of test files is off in Cargo.toml;
//! tests/test_files.rs of the workspace checks that every file is named here or there.

mod animation_outputs;
mod body_shapes;
mod plausibility;
mod point_outputs;
mod reading_errors;
mod schema;
