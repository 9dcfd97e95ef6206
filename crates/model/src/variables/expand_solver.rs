//! The `solver.*` parameters of the variable table: the integration method and the settings
//! of the methods and formulations the description allows.

use super::expand::{parameter, unit, Builder, InterfaceError};
use super::{Binding, SolverSetting, Start, VarType, Variable};
use crate::format::{ConstraintForm, Description, Formulation, Method};

/// Pushes the solver parameters, only those that some allowed method or formulation uses.
pub(super) fn solver_parameters(
    d: &Description,
    methods: &[Method],
    formulations: &[Formulation],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let state_space = d.solver.formulation == Formulation::StateSpace;
    let s = &d.solver;
    let items: Vec<String> = methods.iter().map(|m| m.item_name().to_string()).collect();
    b.push(Variable {
        unit: unit(""),
        min: None,
        max: None,
        ..parameter(
            "solver.method",
            VarType::Enumeration,
            Start::Integer(i64::from(s.method.code())),
            &format!("Time integration method ({})", items.join(", ")),
            Binding::Solver(SolverSetting::Method),
        )
    })?;
    b.push(Variable {
        unit: unit("s"),
        min: Some(1e-12),
        max: None,
        ..parameter(
            "solver.stepSize",
            VarType::Real,
            Start::Real(s.step_size),
            if state_space {
                "Largest internal step: constant-step methods split each communication step into equal sub-steps no larger than this; variable-step methods choose smaller steps under error control"
            } else {
                "Largest internal step; each communication step is split into equal sub-steps no larger than this"
            },
            Binding::Solver(SolverSetting::StepSize),
        )
    })?;
    b.push(Variable {
        unit: unit(""),
        min: Some(1e-300),
        max: None,
        ..parameter(
            "solver.tolerance",
            VarType::Real,
            Start::Real(s.tolerance),
            if state_space {
                "Newton tolerance: dependent positions (norm of the correction, Negrut et al., eq. 9) and independent accelerations (velocity-level change gamma h |dv''|, Negrut et al., eq. 14)"
            } else {
                "Newton tolerance on the norm of the position-level correction (Fang et al. 2023, Sect. 2.2)"
            },
            Binding::Solver(SolverSetting::Tolerance),
        )
    })?;
    b.push(Variable {
        unit: unit(""),
        min: Some(1.0),
        max: Some(10000.0),
        ..parameter(
            "solver.maxIterations",
            VarType::Integer,
            Start::Integer(i64::from(s.max_iterations)),
            "Newton iterations allowed per internal step before the step is discarded",
            Binding::Solver(SolverSetting::MaxIterations),
        )
    })?;
    b.push(Variable {
        unit: unit(""),
        min: Some(1.0),
        max: Some(f64::from(i32::MAX)),
        ..parameter(
            "solver.maxStepsPerCall",
            VarType::Integer,
            Start::Integer(super::DEFAULT_MAX_STEPS_PER_CALL),
            "Internal steps one doStep may take (step attempts of variable-step methods); a doStep that needs more returns early at the last internal step (FMI 3 earlyReturn if the importer allows it, else Discard)",
            Binding::Solver(SolverSetting::MaxStepsPerCall),
        )
    })?;
    b.push(Variable {
        unit: unit(""),
        min: Some(1.0),
        ..parameter(
            "solver.maxWorkPerCall",
            VarType::Real,
            Start::Real(super::DEFAULT_MAX_WORK_PER_CALL),
            "Work one doStep may spend, in work units (model evaluations weighted by the system's size, counted deterministically; about 1 ns of one core each): a doStep that needs more returns early at the last internal step, as for solver.maxStepsPerCall",
            Binding::Solver(SolverSetting::MaxWorkPerCall),
        )
    })?;
    if methods.iter().any(|m| m.uses_rho_inf()) {
        b.push(Variable {
            unit: unit(""),
            min: Some(0.0),
            max: Some(1.0),
            ..parameter(
                "solver.rhoInf",
                VarType::Real,
                Start::Real(s.rho_inf),
                "Spectral radius at infinity of methods with tunable algorithmic dissipation (Zhang et al. 2022, Sect. 2)",
                Binding::Solver(SolverSetting::RhoInf),
            )
        })?;
    }

    // The index-3 models with joints or drivers: how the implicit methods enforce them.
    let constrained = !d.joints.is_empty() || !d.drivers.is_empty();
    if formulations.is_empty() && d.solver.formulation == Formulation::Index3 && constrained {
        let items: Vec<&str> = ConstraintForm::ALL.iter().map(|f| f.item_name()).collect();
        b.push(Variable {
            unit: unit(""),
            min: None,
            max: None,
            ..parameter(
                "solver.constraintForm",
                VarType::Enumeration,
                Start::Integer(i64::from(s.constraint_form.code())),
                &format!(
                    "How the implicit methods enforce the joints ({}): the position constraints (index 3), or positions and velocities in the stabilized index-2 form of Gear, Leimkuhler and Gupta 1985, whose accelerations and reactions converge at the methods' stage order; not with halfImplicit",
                    items.join(", ")
                ),
                Binding::Solver(SolverSetting::ConstraintForm),
            )
        })?;
    }
    if methods.iter().any(|m| m.variable_step()) {
        let tolerances = [
            (
                "solver.absoluteTolerance",
                s.absolute_tolerance(),
                "Variable-step methods: absolute tolerance Atol of the independent positions (Negrut et al., eq. 21)",
                SolverSetting::AbsoluteTolerance,
            ),
            (
                "solver.relativeTolerance",
                s.relative_tolerance(),
                "Variable-step methods: relative tolerance Rtol of the independent positions (Negrut et al., eq. 21)",
                SolverSetting::RelativeTolerance,
            ),
            (
                "solver.velocityToleranceFactor",
                s.velocity_tolerance_factor(),
                "Variable-step methods: Atol and Rtol of the independent velocities are this multiple of the position tolerances (Negrut et al. use 10, Sect. 4)",
                SolverSetting::VelocityToleranceFactor,
            ),
        ];
        for (name, value, text, setting) in tolerances {
            b.push(Variable {
                unit: unit(""),
                min: Some(1e-300),
                max: None,
                ..parameter(name, VarType::Real, Start::Real(value), text, Binding::Solver(setting))
            })?;
        }
    }
    if !formulations.is_empty() {
        let items: Vec<String> = formulations.iter().map(|f| f.item_name().to_string()).collect();
        b.push(parameter(
            "solver.formulation",
            VarType::Enumeration,
            Start::Integer(i64::from(d.solver.formulation.code())),
            &format!("Multibody formulation and constraint treatment ({})", items.join(", ")),
            Binding::Solver(SolverSetting::Formulation),
        ))?;
        b.push(Variable {
            unit: unit(""),
            min: Some(1e-300),
            max: None,
            ..parameter(
                "solver.penaltyFactor",
                VarType::Real,
                Start::Real(s.penalty),
                "Penalty factor alpha of the penalty-based formulation (Jaiswal et al. 2021, eq. 18)",
                Binding::Solver(SolverSetting::Penalty),
            )
        })?;
    }
    // Every formulation that holds a circuit iterates on its pressures.
    if d.hydraulics.is_some() {
        b.push(Variable {
            unit: unit("Pa"),
            min: Some(1e-300),
            max: None,
            ..parameter(
                "solver.pressureTolerance",
                VarType::Real,
                Start::Real(s.pressure_tolerance),
                "Newton tolerance on pressure corrections (Jaiswal et al. 2021, Sect. 5)",
                Binding::Solver(SolverSetting::PressureTolerance),
            )
        })?;
    }
    Ok(())
}
