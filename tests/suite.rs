//! The FMU library's integration tests (through its C ABI and real importers).
//!
//! One test executable: each file of this directory is a module here
//! (`cargo test --test suite <file>::` runs one of them), so the helpers they share and the
//! dependencies' generic code are compiled and linked once, not once per file, and the tests
//! of all files share the test threads. Cargo's discovery of test files is off in Cargo.toml;
//! tests/test_files.rs of the workspace checks that every file is named here or there.

mod common_fmu;
mod fmi_oracle;
// Directories for statics, shared with the command line's tests.
#[path = "../crates/cli/tests/scratch.rs"]
mod scratch;

mod animation_outputs;
mod call_sequences;
mod citations;
mod derivatives_import;
mod directional_derivatives;
mod directional_newton;
mod directional_refused;
mod doc_links;
mod exports;
mod fmi_abi;
mod fmi_abi_budget;
mod fmi_abi_logging;
mod fmi_abi_regressions;
mod fmi_abi_steps;
mod fmi_derivatives;
mod fmi_import;
mod fmi_intermediate;
mod fmpy;
mod fuzz;
mod hydraulics_cosimulation;
mod integrators_mechanisms;
mod layers;
mod libcosim;
mod long_runs;
mod memcheck;
mod model_descriptions;
mod model_exchange;
mod packaging;
mod slave_description;
mod test_files;
