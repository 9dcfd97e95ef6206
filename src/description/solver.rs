//! Solver choices a model exposes as FMU parameters (`solver.*`).

use serde::{Deserialize, Serialize};

/// Equation formulations. Only the index-3 absolute-coordinate formulation exists so far.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Formulation {
    /// Index-3 DAE in absolute coordinates with Lie-group rotations (seed 003 Sect. 2.1).
    #[default]
    Index3,
}

/// Time integrators. The numeric codes are the FMU enumeration values and never change.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Half-implicit symplectic Euler for index-3 DAEs, quasi-Newton (seed 003 Sect. 2.2).
    #[default]
    HalfImplicit,
    /// Fully implicit backward Euler, constraints scaled by 1/h^2 (seed 003 Sect. 2.3).
    Bdf1,
}

impl Method {
    pub const ALL: &'static [Method] = &[Method::HalfImplicit, Method::Bdf1];

    /// Enumeration value in the FMU (stable across releases).
    pub fn code(self) -> i32 {
        match self {
            Method::HalfImplicit => 1,
            Method::Bdf1 => 2,
        }
    }

    pub fn from_code(code: i64) -> Option<Method> {
        Self::ALL.iter().copied().find(|m| i64::from(m.code()) == code)
    }

    /// Enumeration item name in the FMU (a C identifier).
    pub fn item_name(self) -> &'static str {
        match self {
            Method::HalfImplicit => "halfImplicit",
            Method::Bdf1 => "bdf1",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            Method::HalfImplicit => {
                "half-implicit symplectic Euler, quasi-Newton matrix once per step (seed 003 Sect. 2.2, eqs. 3-12)"
            }
            Method::Bdf1 => {
                "fully implicit backward Euler, constraints scaled by 1/h^2 (seed 003 Sect. 2.3, eqs. 13-14)"
            }
        }
    }

    /// Order of accuracy of positions for smooth problems.
    pub fn order(self) -> u32 {
        match self {
            Method::HalfImplicit | Method::Bdf1 => 1,
        }
    }

    /// True where the spectral radius at infinity (rho_inf) is a free parameter.
    pub fn uses_rho_inf(self) -> bool {
        false
    }
}

/// Defaults of the `solver.*` parameters of a model.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolverDefaults {
    #[serde(default)]
    pub formulation: Formulation,
    #[serde(default)]
    pub method: Method,
    /// Largest internal step [s]; each communication step is split into equal sub-steps.
    #[serde(default = "default_step")]
    pub step_size: f64,
    /// Newton tolerance on the position-level correction norm (seed 003: ||dq|| < tol).
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    #[serde(default = "default_max_iterations")]
    pub max_iterations: u32,
    /// Spectral radius at infinity for methods with tunable dissipation.
    #[serde(default = "default_rho_inf")]
    pub rho_inf: f64,
}

impl Default for SolverDefaults {
    fn default() -> Self {
        SolverDefaults {
            formulation: Formulation::default(),
            method: Method::default(),
            step_size: default_step(),
            tolerance: default_tolerance(),
            max_iterations: default_max_iterations(),
            rho_inf: default_rho_inf(),
        }
    }
}

fn default_step() -> f64 {
    1e-3
}
fn default_tolerance() -> f64 {
    1e-10
}
fn default_max_iterations() -> u32 {
    50
}
fn default_rho_inf() -> f64 {
    0.6
}
