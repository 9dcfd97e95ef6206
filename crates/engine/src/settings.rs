//! Solver settings: one typed value per formulation, each built in one place
//! (`of`) from the description's `solver` block. The FMU's `solver.*` parameters reach that
//! block through the one table that maps them, `mbfmu_model::variables::SolverSetting::apply`,
//! before the description is validated; so a setting has one route into the engine, whether
//! it comes from the JSON or from the host.

use crate::integrators::NewtonSettings;
use crate::BuildError;
use mbfmu_model::format::{ConstraintForm, Formulation, Method, SolverDefaults, Tangent};
use serde::{Deserialize, Serialize};

/// `method` if `formulation` offers it and does not refuse it ([`Method::refusal`]), else an
/// error saying why (the refusal, or the methods it offers).
fn offered(formulation: Formulation, method: Method) -> Result<Method, BuildError> {
    if let Some(reason) = method.refusal(formulation) {
        return Err(BuildError::Solver(format!("solver.method: {reason}")));
    }
    if formulation.methods().contains(&method) {
        return Ok(method);
    }
    let items: Vec<&str> = formulation.methods().iter().map(|m| m.item_name()).collect();
    Err(BuildError::Solver(format!(
        "method {} is not available in the {} formulation, which offers {}",
        method.item_name(),
        formulation.name(),
        items.join(", ")
    )))
}

/// A time integrator of the index-3 formulation. Invariant: one of
/// `Formulation::Index3.methods()` (the half-implicit method, BDF1 and the residual-form suite).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index3Method(Method);

impl Index3Method {
    pub fn new(method: Method) -> Result<Self, BuildError> {
        offered(Formulation::Index3, method).map(Index3Method)
    }

    pub fn get(self) -> Method {
        self.0
    }
}

/// A time integrator of the state-space formulation. Invariant: one of
/// `Formulation::StateSpace.methods()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateSpaceMethod(Method);

impl StateSpaceMethod {
    pub fn new(method: Method) -> Result<Self, BuildError> {
        offered(Formulation::StateSpace, method).map(StateSpaceMethod)
    }

    pub fn get(self) -> Method {
        self.0
    }
}

fn newton(s: &SolverDefaults) -> NewtonSettings {
    NewtonSettings { tolerance: s.tolerance, max_iterations: s.max_iterations }
}

/// Settings of the index-3 formulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Index3Settings {
    pub method: Index3Method,
    /// Largest internal step \[s\]; communication steps are split into equal sub-steps.
    pub step_size: f64,
    pub newton: NewtonSettings,
    /// Spectral radius at infinity of the methods with tunable dissipation.
    pub rho_inf: f64,
    /// How the implicit methods enforce the joints. Invariant: `index3` with the half-implicit
    /// method ([`ConstraintForm::refusal`]).
    pub constraint_form: ConstraintForm,
    /// The implicit methods keep their iteration matrix within a communication step
    /// (`SolverDefaults::keep_iteration_matrix`).
    pub keep_iteration_matrix: bool,
}

impl Index3Settings {
    pub fn of(s: &SolverDefaults) -> Result<Self, BuildError> {
        let method = Index3Method::new(s.method)?;
        s.method.check_rho_inf(s.rho_inf).map_err(BuildError::Solver)?;
        if let Some(reason) = s.constraint_form.refusal(Formulation::Index3, s.method) {
            return Err(BuildError::Solver(format!("solver.constraint_form: {reason}")));
        }
        Ok(Index3Settings {
            method,
            step_size: s.step_size,
            newton: newton(s),
            rho_inf: s.rho_inf,
            constraint_form: s.constraint_form,
            keep_iteration_matrix: s.keep_iteration_matrix,
        })
    }
}

/// Error control of the variable-step methods ([Negrut1997, eq. 21]): e_i = Atol_i + max(|y0_i|,
/// |y1_i|) Rtol_i with Atol, Rtol for the independent positions and `velocity_factor` times
/// them for the independent velocities.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorControl {
    pub atol: f64,
    pub rtol: f64,
    pub velocity_factor: f64,
    /// The explicit pairs step past communication points and interpolate there (dense output,
    /// `integrators::dense`) instead of shortening their last step; on unless switched off
    /// ([`crate::Simulation::set_dense_output`]).
    pub dense_output: bool,
}

/// Settings of the state-space formulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StateSpaceSettings {
    pub method: StateSpaceMethod,
    /// Largest internal step \[s\] (constant-step methods take equal sub-steps no larger).
    pub step_size: f64,
    pub newton: NewtonSettings,
    pub control: ErrorControl,
}

impl StateSpaceSettings {
    pub fn of(s: &SolverDefaults) -> Result<Self, BuildError> {
        Ok(StateSpaceSettings {
            method: StateSpaceMethod::new(s.method)?,
            step_size: s.step_size,
            newton: newton(s),
            control: ErrorControl {
                atol: s.absolute_tolerance(),
                rtol: s.relative_tolerance(),
                velocity_factor: s.velocity_tolerance_factor(),
                dense_output: true,
            },
        })
    }
}

/// Settings of the semirecursive formulations (\[Jaiswal2021\]): the trapezoidal rule of
/// Sect. 4, or an explicit Runge-Kutta method on the double-step ODE (`integrators::explicit`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SemirecursiveSettings {
    /// Double-step coordinate partitioning or the penalty formulation. Invariant: one of
    /// `Formulation::SEMIRECURSIVE`.
    pub formulation: Formulation,
    /// Invariant: one of `formulation.methods()`.
    pub method: Method,
    /// Largest internal step \[s\].
    pub step_size: f64,
    /// Error control of the variable-step explicit methods.
    pub control: ErrorControl,
    /// Newton tolerance on coordinate corrections [rad or m] (\[Jaiswal2021\]: 1e-7 rad).
    pub tolerance: f64,
    /// Newton tolerance on pressure corrections \[Pa\] (\[Jaiswal2021\]: 1e-2 Pa).
    pub pressure_tolerance: f64,
    pub max_iterations: u32,
    /// Penalty factor alpha ([Jaiswal2021, eq. 18]: 1e11).
    pub penalty: f64,
    pub tangent: Tangent,
}

impl SemirecursiveSettings {
    pub fn of(s: &SolverDefaults) -> Result<Self, BuildError> {
        if !s.formulation.is_semirecursive() {
            return Err(BuildError::Solver(format!("{} is not a semirecursive formulation", s.formulation.name())));
        }
        Ok(SemirecursiveSettings {
            formulation: s.formulation,
            method: offered(s.formulation, s.method)?,
            step_size: s.step_size,
            control: ErrorControl {
                atol: s.absolute_tolerance(),
                rtol: s.relative_tolerance(),
                velocity_factor: s.velocity_tolerance_factor(),
                dense_output: true,
            },
            tolerance: s.tolerance,
            pressure_tolerance: s.pressure_tolerance,
            max_iterations: s.max_iterations,
            penalty: s.penalty,
            tangent: s.tangent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A method of another formulation is refused with the list of the valid ones.
    #[test]
    fn methods_are_typed_per_formulation() {
        let e = StateSpaceMethod::new(Method::Lms3).unwrap_err().to_string();
        assert!(e.contains("lms3") && e.contains("trapezoidalVariableStep") && e.contains("sdirk4"), "{e}");
        assert!(Index3Method::new(Method::Sdirk4).is_err());
        assert_eq!(Index3Method::new(Method::Bathe).unwrap().get(), Method::Bathe);
        let semi = SolverDefaults {
            formulation: Formulation::SemirecursivePenalty,
            method: Method::Bdf1,
            ..SolverDefaults::default()
        };
        let e = SemirecursiveSettings::of(&semi).unwrap_err().to_string();
        assert!(e.contains("offers trapezoidal, rk4, dopri5, dop853"), "{e}");
    }
}
