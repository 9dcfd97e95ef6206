//! The engine's integration tests.
//!
//! One test executable: each file of this directory is a module here
//! (`cargo test --test suite <file>::` runs one of them), so the helpers they share and the
//! dependencies' generic code are compiled and linked once, not once per file, and the tests
//! of all files share the test threads. Cargo's discovery of test files is off in Cargo.toml;
//! tests/test_files.rs of the workspace checks that every file is named here or there.

mod common;
mod shaft;
mod statespace;

mod accumulator;
mod andrews;
mod beam_benchmarks;
mod beam_consistent_mass;
mod beam_convergence;
mod beam_elastica;
mod beam_rigid_motion;
mod beam_statics;
mod beam_vibration;
mod checkpoint;
mod cylinder_cushion;
mod descriptions;
mod end_stop;
mod engine_accuracy;
mod engine_behaviour;
mod explicit_methods;
mod flexible_boom_machines;
mod hydraulic_cantilever;
mod hydraulic_components;
mod hydraulic_motor;
mod hydraulics;
mod hydraulics_index3;
mod integrators_linear;
mod integrators_order_reduction;
mod kept_matrix;
mod newton_floor;
mod node_mass;
mod output_plan;
mod output_rates;
mod patu_lift_boom;
mod patu_lift_boom_flexible;
mod planar_kernels;
mod semirecursive_mechanisms;
mod semirecursive_model_exchange;
mod semirecursive_rebase;
mod semirecursive_spherical;
mod stabilized_index2;
mod statespace_catalog;
mod statespace_pendulum;
mod step_budget;
