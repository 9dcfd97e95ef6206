//! mbfmu: FMI 2.0 / FMI 3.0 co-simulation FMUs of multibody and hydraulic models.
//!
//! Layers, top to bottom (ARCHITECTURE.md):
//! - [`fmi`]: the C ABI (exported `fmi2*` / `fmi3*` functions); no physics.
//! - [`sim`]: a co-simulation slave (parameters, inputs, outputs, doStep, snapshots); no C types.
//! - [`engine`]: formulations x integrators.
//! - [`description`], [`interface`], [`models`]: models as data, their FMU interface, the catalog.

pub mod description;
pub mod documentation;
pub mod engine;
pub mod interface;
pub mod models;
pub mod package;
pub mod sim;
pub mod fmi;
