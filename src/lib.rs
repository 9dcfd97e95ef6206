//! mbfmu: the FMU library. One cdylib serves every model as an FMI 2.0 and FMI 3.0 FMU.
//!
//! Layers, top to bottom (docs/architecture.md); each lower one is its own crate:
//! - [`fmi`]: the C ABI (exported `fmi2*` / `fmi3*` functions), instance lifecycle, state
//!   machine, logging; no physics.
//! - [`slave`]: a co-simulation slave (parameters, inputs, outputs, doStep, snapshots); no C types.
//! - `mbfmu-engine`: formulations x integrators; no FMI vocabulary.
//! - `mbfmu-model`: the model format, the variable table and the catalog.

pub mod fmi;
pub mod slave;
