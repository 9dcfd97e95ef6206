//! Solver choices a model exposes as FMU parameters (`solver.*`).

use super::keyword::{keyword, Keyword};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

keyword! {
    /// Equation formulations. The numeric codes are the FMU enumeration values (`solver.formulation`,
    /// enumeration type `SolverFormulation`) and never change; the words are its item names.
    #[derive(Default)]
    pub enum Formulation("formulation") {
        /// Index-3 DAE in absolute coordinates with Lie-group rotations (Fang et al. 2023 Sect. 2.1).
        #[default]
        Index3 = "index3",
        /// Semirecursive relative joint coordinates, cut joints by double-step coordinate
        /// partitioning (Jaiswal et al. 2021 Sect. 2.1-2.2).
        SemirecursiveDoubleStep = "doubleStep" | "semirecursive_double_step",
        /// Semirecursive relative joint coordinates, cut joints by the penalty-based augmented
        /// Lagrangian with mass-damping-stiffness-orthogonal projections (Jaiswal et al. 2021 Sect. 2.3).
        SemirecursivePenalty = "penalty" | "semirecursive_penalty",
        /// Ordinary differential equations in independent coordinates obtained by generalized
        /// coordinate partitioning of the index-3 mechanism's constraints (Negrut et al. Sect. 1,
        /// eqs. 1-13); also offered as Model Exchange (as are the semirecursive formulations).
        StateSpace = "stateSpace" | "state_space",
    }
}

impl Formulation {
    pub const ALL: &'static [Formulation] = &[
        Formulation::Index3,
        Formulation::SemirecursiveDoubleStep,
        Formulation::SemirecursivePenalty,
        Formulation::StateSpace,
    ];
    /// The formulations a semirecursive model offers as `solver.formulation`.
    pub const SEMIRECURSIVE: &'static [Formulation] =
        &[Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty];

    pub fn is_semirecursive(self) -> bool {
        matches!(self, Formulation::SemirecursiveDoubleStep | Formulation::SemirecursivePenalty)
    }

    /// The integrators that work with this formulation (the `solver.method` items offered).
    /// The semirecursive formulations of Jaiswal et al. 2021 integrate with the trapezoidal rule,
    /// positions and pressures as primary variables (Sect. 4), their penalty projections and
    /// coordinate partitioning tied to it; the explicit Runge-Kutta methods integrate their
    /// double-step ODE (the one Model Exchange offers).
    pub fn methods(self) -> &'static [Method] {
        match self {
            Formulation::Index3 => Method::INDEX3,
            Formulation::SemirecursiveDoubleStep | Formulation::SemirecursivePenalty => Method::SEMIRECURSIVE,
            Formulation::StateSpace => Method::STATE_SPACE,
        }
    }

    /// True if the model's equations are an ODE a host's solver can integrate (FMI Model
    /// Exchange): the state-space formulation, and the semirecursive ones, whose double-step
    /// equations in the independent coordinates are an ODE with the circuit (the penalty
    /// item's treatment of the cut joints belongs to the trapezoidal step of co-simulation).
    pub fn model_exchange(self) -> bool {
        self == Formulation::StateSpace || self.is_semirecursive()
    }

    /// Enumeration value in the FMU (stable across releases).
    pub fn code(self) -> i32 {
        match self {
            Formulation::Index3 => 1,
            Formulation::SemirecursiveDoubleStep => 2,
            Formulation::SemirecursivePenalty => 3,
            Formulation::StateSpace => 4,
        }
    }

    pub fn from_code(code: i64) -> Option<Formulation> {
        Self::ALL.iter().copied().find(|f| i64::from(f.code()) == code)
    }

    /// Name in descriptions (`solver.formulation`) and in messages: the FMU item name.
    pub fn name(self) -> &'static str {
        self.word()
    }

    /// Enumeration item name in the FMU (a C identifier).
    pub fn item_name(self) -> &'static str {
        self.word()
    }

    pub fn summary(self) -> &'static str {
        match self {
            Formulation::Index3 => "index-3 DAE in absolute coordinates with Lie-group rotations (Fang et al. 2023, Sect. 2.1)",
            Formulation::SemirecursiveDoubleStep => {
                "semirecursive relative joint coordinates; cut joints by double-step coordinate partitioning, independent coordinates chosen by Gaussian elimination with full pivoting (Jaiswal et al. 2021, Sect. 2.2)"
            }
            Formulation::SemirecursivePenalty => {
                "semirecursive relative joint coordinates; cut joints by the penalty-based augmented Lagrangian with mass-damping-stiffness-orthogonal projections (Jaiswal et al. 2021, Sect. 2.3)"
            }
            Formulation::StateSpace => {
                "state-space ODE in independent coordinates by generalized coordinate partitioning of the index-3 absolute-coordinate constraints (Negrut et al., Sect. 1)"
            }
        }
    }
}

keyword! {
    /// How the semirecursive formulations obtain the Newton tangent of Jaiswal et al. 2021 eq. (37).
    #[derive(Default)]
    pub enum Tangent("tangent") {
        /// The mass (M' or M' + penalty), damping, stiffness and hydraulic coupling blocks in
        /// closed form, the circuit's own derivatives included.
        #[default]
        Analytic = "analytic",
        /// Every column by forward differences of the residual (Jaiswal et al. 2021 eqs. 40-41).
        Numerical = "numerical",
    }
}

keyword! {
    /// How the index-3 formulation's implicit methods enforce the joints.
    #[derive(Default)]
    pub enum ConstraintForm("constraint form") {
        /// The position constraints Phi(q, t) = 0 alone, the index-3 DAE ([Fang2023, eq. 2]).
        #[default]
        Index3 = "index3",
        /// The stabilized index-2 form of Gear, Gupta and Leimkuhler: the position and the
        /// velocity constraints together, with a second multiplier in the kinematic equations
        /// ([GearGuptaLeimkuhler1985]; [HairerWanner1996, Sect. VII.1]). Accelerations and
        /// reactions converge at the method's stage order instead of falling to order 1.
        Ggl = "ggl",
    }
}

keyword! {
    /// Time integrators. The numeric codes are the FMU enumeration values (`solver.method`,
    /// enumeration type `SolverMethod`) and never change; the words are its item names.
    #[derive(Default)]
    pub enum Method("method") {
        /// Half-implicit symplectic Euler for index-3 DAEs, quasi-Newton (Fang et al. 2023 Sect. 2.2).
        #[default]
        HalfImplicit = "halfImplicit" | "half_implicit",
        /// Fully implicit backward Euler, constraints scaled by 1/h^2 (Fang et al. 2023 Sect. 2.3).
        Bdf1 = "bdf1",
        /// Trapezoidal rule (Zhang et al. 2022 eq. 3), the start-up method of the multistep methods.
        Trapezoidal = "trapezoidal",
        /// Linear two-step method, variable step (Zhang et al. 2022 Sect. 2.1).
        Lms2 = "lms2",
        /// Linear three-step method (Zhang et al. 2022 Sect. 2.1).
        Lms3 = "lms3",
        /// Linear four-step method (Zhang et al. 2022 Sect. 2.1).
        Lms4 = "lms4",
        /// Single-step equivalent of LMS2 (Zhang et al. 2022 Sect. 2.2).
        Ss2 = "ss2",
        /// Single-step equivalent of LMS3 (Zhang et al. 2022 Sect. 2.2).
        Ss3 = "ss3",
        /// Single-step equivalent of LMS4 (Zhang et al. 2022 Sect. 2.2).
        Ss4 = "ss4",
        /// rho_inf-Bathe two-sub-step method (Zhang et al. 2022 eq. 7).
        Bathe = "bathe",
        /// Three-sub-step "conserving" method MSSTC(3) (Zhang et al. 2022 Sect. 2.3).
        Msstc3 = "msstc3",
        /// Four-sub-step "conserving" method MSSTC(4) (Zhang et al. 2022 Sect. 2.3).
        Msstc4 = "msstc4",
        /// Five-sub-step "conserving" method MSSTC(5) (Zhang et al. 2022 Sect. 2.3).
        Msstc5 = "msstc5",
        /// Three-sub-step higher-order method MSSTH(3), stage order 2 (Zhang et al. 2022 Sect. 2.3).
        Mssth3 = "mssth3",
        /// Four-sub-step higher-order method MSSTH(4); rho_inf in {0, 0.1, ..., 1} only.
        Mssth4 = "mssth4",
        /// Five-sub-step higher-order method MSSTH(5); rho_inf in {0, 0.1, ..., 1} only.
        Mssth5 = "mssth5",
        /// Kennedy-Carpenter ESDIRK3(2)4L\[2\]SA (Zhang et al. 2022 Sect. 2.3, ref. \[21\]).
        Esdirk324L2Sa = "esdirk324L2SA" | "esdirk324l2sa",
        /// Kennedy-Carpenter ESDIRK3(2)5L\[2\]SA.
        Esdirk325L2Sa = "esdirk325L2SA" | "esdirk325l2sa",
        /// Kennedy-Carpenter ESDIRK4(3)6L\[2\]SA2.
        Esdirk436L2Sa2 = "esdirk436L2SA2" | "esdirk436l2sa2",
        /// State-space formulation: implicit trapezoidal rule at constant step, Newton on the
        /// independent accelerations (Negrut et al. Sect. 2-3, eqs. 14-19; IMPL_CSS).
        TrapezoidalConstantStep = "trapezoidalConstantStep" | "trapezoidal_constant_step",
        /// State-space formulation: implicit trapezoidal rule at variable step, embedded backward
        /// Euler error estimate (Negrut et al. Sect. 3.2, eqs. 21-22; IMPL_VSS).
        TrapezoidalVariableStep = "trapezoidalVariableStep" | "trapezoidal_variable_step",
        /// State-space formulation: explicit second-order Adams-Bashforth-Moulton predictor-corrector
        /// at constant step (Negrut et al. eq. 20; EXPL).
        Abm2 = "abm2",
        /// State-space formulation: SDIRK of order 4 with embedded order-3 error estimate at
        /// variable step (Hairer and Wanner 1996, Sect. IV.6, Table 6.5; named in Negrut et al. Sect. 3).
        Sdirk4 = "sdirk4",
        /// State-space and semirecursive formulations: classical explicit Runge-Kutta method of
        /// order 4 at constant step (Hairer, Norsett and Wanner 1993, Sect. II.1).
        Rk4 = "rk4",
        /// State-space and semirecursive formulations: explicit Dormand-Prince 5(4) pair at
        /// variable step (Dormand and Prince 1980; Hairer, Norsett and Wanner 1993, Sect. II.5).
        Dopri5 = "dopri5",
        /// State-space and semirecursive formulations: explicit eighth-order DOP853 at variable
        /// step, error estimates of orders 5 and 3 (Hairer, Norsett and Wanner 1993, Sect. II.10).
        Dop853 = "dop853",
        /// State-space and semirecursive formulations: DOP853 until its steps are limited by
        /// stability rather than accuracy (the stiffness test of Hairer and Wanner 1996,
        /// Sect. IV.2), then the formulation's implicit method (SDIRK4 or the trapezoidal rule);
        /// not for models with a hydraulic circuit, which are stiff from the start.
        Auto = "auto",
    }
}

impl ConstraintForm {
    pub const ALL: &'static [ConstraintForm] = &[ConstraintForm::Index3, ConstraintForm::Ggl];

    /// Enumeration value in the FMU (`solver.constraintForm`, enumeration type
    /// `SolverConstraintForm`; stable across releases).
    pub fn code(self) -> i32 {
        match self {
            ConstraintForm::Index3 => 1,
            ConstraintForm::Ggl => 2,
        }
    }

    pub fn from_code(code: i64) -> Option<ConstraintForm> {
        Self::ALL.iter().copied().find(|f| i64::from(f.code()) == code)
    }

    /// Enumeration item name in the FMU and the word in descriptions.
    pub fn item_name(self) -> &'static str {
        self.word()
    }

    pub fn summary(self) -> &'static str {
        match self {
            ConstraintForm::Index3 => "position constraints only: the index-3 DAE (Fang et al. 2023, Sect. 2.1)",
            ConstraintForm::Ggl => {
                "position and velocity constraints, stabilized index 2 (Gear, Leimkuhler and Gupta 1985): accelerations and reactions converge at the methods' stage order"
            }
        }
    }

    /// Why this form does not apply to `method` of `formulation`, if it does not: the
    /// stabilized index-2 form belongs to the index-3 formulation's residual-form methods.
    pub fn refusal(self, formulation: Formulation, method: Method) -> Option<String> {
        if self == ConstraintForm::Index3 {
            return None;
        }
        if formulation != Formulation::Index3 {
            return Some(format!(
                "the stabilized index-2 form ggl (solver.constraintForm; constraint_form in a description's \
                 solver block) applies to the index3 formulation only; the {} formulation has its own \
                 constraint treatment: use index3 (the default)",
                formulation.name()
            ));
        }
        (method == Method::HalfImplicit).then(|| {
            "the stabilized index-2 form ggl (solver.constraintForm; constraint_form in a description's solver \
             block) applies to the implicit methods (bdf1, lms2-lms4, ss2-ss4, bathe, msstc3-msstc5, \
             mssth3-mssth5 and the ESDIRKs); the halfImplicit method has its own update: choose one of those \
             methods or the form index3"
                .to_string()
        })
    }
}

/// The rho_inf values at which MSSTH4 and MSSTH5 are defined (their stage abscissae are
/// tabulated only).
pub const TABULATED_RHO_INF: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

impl Method {
    /// Every method of every formulation.
    pub const ALL: &'static [Method] = &[
        Method::HalfImplicit,
        Method::Bdf1,
        Method::Trapezoidal,
        Method::Lms2,
        Method::Lms3,
        Method::Lms4,
        Method::Ss2,
        Method::Ss3,
        Method::Ss4,
        Method::Bathe,
        Method::Msstc3,
        Method::Msstc4,
        Method::Msstc5,
        Method::Mssth3,
        Method::Mssth4,
        Method::Mssth5,
        Method::Esdirk324L2Sa,
        Method::Esdirk325L2Sa,
        Method::Esdirk436L2Sa2,
        Method::TrapezoidalConstantStep,
        Method::TrapezoidalVariableStep,
        Method::Abm2,
        Method::Sdirk4,
        Method::Rk4,
        Method::Dopri5,
        Method::Dop853,
        Method::Auto,
    ];

    /// The methods of the index-3 formulation: the first nineteen of [`Method::ALL`].
    pub const INDEX3: &'static [Method] = Self::ALL.split_at(19).0;

    /// The methods of the state-space formulation (Negrut et al.).
    pub const STATE_SPACE: &'static [Method] = &[
        Method::TrapezoidalVariableStep,
        Method::TrapezoidalConstantStep,
        Method::Abm2,
        Method::Sdirk4,
        Method::Rk4,
        Method::Dopri5,
        Method::Dop853,
        Method::Auto,
    ];

    /// The methods of the semirecursive formulations (\[Jaiswal2021\]'s trapezoidal rule and the
    /// explicit methods of their ODE).
    pub const SEMIRECURSIVE: &'static [Method] =
        &[Method::Trapezoidal, Method::Rk4, Method::Dopri5, Method::Dop853, Method::Auto];

    /// The methods of Zhang et al. 2022 (the residual-form suite), in the order of its tables: the
    /// index-3 methods after half-implicit, BDF1 and trapezoidal.
    pub const ZHANG2022: &'static [Method] = Self::INDEX3.split_at(3).1;

    /// Enumeration value in the FMU (stable across releases).
    pub fn code(self) -> i32 {
        match self {
            Method::HalfImplicit => 1,
            Method::Bdf1 => 2,
            Method::Trapezoidal => 3,
            Method::Lms2 => 4,
            Method::Lms3 => 5,
            Method::Lms4 => 6,
            Method::Ss2 => 7,
            Method::Ss3 => 8,
            Method::Ss4 => 9,
            Method::Bathe => 10,
            Method::Msstc3 => 11,
            Method::Msstc4 => 12,
            Method::Msstc5 => 13,
            Method::Mssth3 => 14,
            Method::Mssth4 => 15,
            Method::Mssth5 => 16,
            Method::Esdirk324L2Sa => 17,
            Method::Esdirk325L2Sa => 18,
            Method::Esdirk436L2Sa2 => 19,
            // State-space formulation: codes from 101 on.
            Method::TrapezoidalConstantStep => 101,
            Method::TrapezoidalVariableStep => 102,
            Method::Abm2 => 103,
            Method::Sdirk4 => 104,
            Method::Rk4 => 105,
            Method::Dopri5 => 106,
            Method::Dop853 => 107,
            Method::Auto => 108,
        }
    }

    pub fn from_code(code: i64) -> Option<Method> {
        Self::ALL.iter().copied().find(|m| i64::from(m.code()) == code)
    }

    /// Enumeration item name in the FMU (a C identifier), also the word in descriptions.
    pub fn item_name(self) -> &'static str {
        self.word()
    }

    /// The name used in Zhang et al. 2022's text and tables.
    pub fn paper_name(self) -> &'static str {
        match self {
            Method::HalfImplicit => "half-implicit",
            Method::Bdf1 => "BDF1",
            Method::Trapezoidal => "trapezoidal",
            Method::Lms2 => "LMS2",
            Method::Lms3 => "LMS3",
            Method::Lms4 => "LMS4",
            Method::Ss2 => "SS2",
            Method::Ss3 => "SS3",
            Method::Ss4 => "SS4",
            Method::Bathe => "Bathe",
            Method::Msstc3 => "MSSTC(3)",
            Method::Msstc4 => "MSSTC(4)",
            Method::Msstc5 => "MSSTC(5)",
            Method::Mssth3 => "MSSTH(3)",
            Method::Mssth4 => "MSSTH(4)",
            Method::Mssth5 => "MSSTH(5)",
            Method::Esdirk324L2Sa => "ESDIRK3(2)4L[2]SA",
            Method::Esdirk325L2Sa => "ESDIRK3(2)5L[2]SA",
            Method::Esdirk436L2Sa2 => "ESDIRK4(3)6L[2]SA2",
            Method::TrapezoidalConstantStep => "IMPL_CSS",
            Method::TrapezoidalVariableStep => "IMPL_VSS",
            Method::Abm2 => "EXPL",
            Method::Sdirk4 => "SDIRK4",
            Method::Rk4 => "RK4",
            Method::Dopri5 => "DOPRI5",
            Method::Dop853 => "DOP853",
            Method::Auto => "auto",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            Method::HalfImplicit => {
                "half-implicit symplectic Euler, quasi-Newton matrix once per step (Fang et al. 2023, Sect. 2.2, eqs. 3-12)"
            }
            Method::Bdf1 => {
                "fully implicit backward Euler, constraints scaled by 1/h^2 (Fang et al. 2023, Sect. 2.3, eqs. 13-14)"
            }
            Method::Trapezoidal => {
                "trapezoidal rule, A-stable, no algorithmic dissipation (rho_inf = 1); starts the multistep methods (Zhang et al. 2022, eq. 3); refused for index-3 descriptions (use ss2, lms2 or bathe), the semirecursive formulations' own trapezoidal rule (Jaiswal et al. 2021, Sect. 4)"
            }
            Method::Lms2 => {
                "LMS2: linear two-step method with tunable dissipation, variable-step formula, second-order predictor (Zhang et al. 2022, Sect. 2.1, eqs. 2, 12-14)"
            }
            Method::Lms3 => {
                "LMS3: linear three-step method with tunable dissipation, second-order predictor; falls back to LMS2 after a step-size change (Zhang et al. 2022, Sect. 2.1)"
            }
            Method::Lms4 => {
                "LMS4: linear four-step method with tunable dissipation, second-order predictor; falls back to LMS3/LMS2 after a step-size change (Zhang et al. 2022, Sect. 2.1)"
            }
            Method::Ss2 => "SS2: single-step equivalent of LMS2 with one auxiliary vector, constant predictor (Zhang et al. 2022, Sect. 2.2, eqs. 4, 9)",
            Method::Ss3 => {
                "SS3: single-step equivalent of LMS3 with two complex auxiliary vectors, constant predictor (Zhang et al. 2022, Sect. 2.2, eqs. 4, 10)"
            }
            Method::Ss4 => {
                "SS4: single-step equivalent of LMS4 with three auxiliary vectors, constant predictor (Zhang et al. 2022, Sect. 2.2, eqs. 4, 11)"
            }
            Method::Bathe => "rho_inf-Bathe: two implicit sub-steps, second order, strong high-frequency filtering (Zhang et al. 2022, eq. 7)",
            Method::Msstc3 => "MSSTC(3): three implicit sub-steps, second order, preserves low frequencies (Zhang et al. 2022, Sect. 2.3)",
            Method::Msstc4 => "MSSTC(4): four implicit sub-steps, second order, preserves low frequencies (Zhang et al. 2022, Sect. 2.3)",
            Method::Msstc5 => "MSSTC(5): five implicit sub-steps, second order, preserves low frequencies (Zhang et al. 2022, Sect. 2.3)",
            Method::Mssth3 => "MSSTH(3): three implicit sub-steps, third order, stage order 2 (Zhang et al. 2022, Sect. 2.3)",
            Method::Mssth4 => {
                "MSSTH(4): four implicit sub-steps, fourth order, stage order 2; rho_inf in {0, 0.1, ..., 1} only (Zhang et al. 2022, Sect. 2.3)"
            }
            Method::Mssth5 => {
                "MSSTH(5): five implicit sub-steps, fifth order, stage order 2; rho_inf in {0, 0.1, ..., 1} only (Zhang et al. 2022, Sect. 2.3)"
            }
            Method::Esdirk324L2Sa => "ESDIRK3(2)4L[2]SA of Kennedy and Carpenter: three implicit stages, third order, L-stable (Zhang et al. 2022, Sect. 2.3)",
            Method::Esdirk325L2Sa => "ESDIRK3(2)5L[2]SA of Kennedy and Carpenter: four implicit stages, third order, L-stable (Zhang et al. 2022, Sect. 2.3)",
            Method::Esdirk436L2Sa2 => {
                "ESDIRK4(3)6L[2]SA2 of Kennedy and Carpenter: five implicit stages, fourth order, L-stable (Zhang et al. 2022, Sect. 2.3)"
            }
            Method::TrapezoidalConstantStep => {
                "implicit trapezoidal rule on the state-space ODE at constant step, Newton on the independent accelerations (Negrut et al., Sect. 2, eqs. 14-19)"
            }
            Method::TrapezoidalVariableStep => {
                "implicit trapezoidal rule on the state-space ODE at variable step: embedded backward Euler error estimate, safety factor 0.85, local extrapolation (Negrut et al., Sect. 3.2, eqs. 21-22)"
            }
            Method::Abm2 => {
                "explicit second-order Adams-Bashforth-Moulton predictor-corrector on the state-space ODE at constant step (Negrut et al., eq. 20)"
            }
            Method::Sdirk4 => {
                "L-stable SDIRK of order 4 (Hairer & Wanner 1996, five stages) with embedded order-3 error estimate at variable step (Negrut et al., Sect. 3)"
            }
            Method::Rk4 => {
                "classical explicit Runge-Kutta method of order 4 on the minimal-coordinate ODE at constant step, four evaluations per step (Hairer, Norsett & Wanner 1993, Sect. II.1)"
            }
            Method::Dopri5 => {
                "explicit Dormand-Prince 5(4) pair on the minimal-coordinate ODE at variable step, six evaluations per step (Dormand & Prince 1980; Hairer, Norsett & Wanner 1993, Sect. II.5)"
            }
            Method::Dop853 => {
                "explicit eighth-order DOP853 on the minimal-coordinate ODE at variable step, error estimates of orders 5 and 3, twelve evaluations per step (Hairer, Norsett & Wanner 1993, Sect. II.10)"
            }
            Method::Auto => {
                "DOP853 while the problem is not stiff, then the formulation's implicit method (SDIRK4 in state space, the trapezoidal rule in the semirecursive formulations) once steps are limited by stability (Hairer & Wanner 1996, Sect. IV.2); logged at logStatusInfo when it switches"
            }
        }
    }

    /// Order of accuracy of positions for smooth problems.
    pub fn order(self) -> u32 {
        match self {
            Method::HalfImplicit | Method::Bdf1 => 1,
            Method::Mssth3 | Method::Esdirk324L2Sa | Method::Esdirk325L2Sa => 3,
            Method::Mssth4 | Method::Esdirk436L2Sa2 | Method::Sdirk4 | Method::Rk4 => 4,
            Method::Mssth5 | Method::Dopri5 => 5,
            Method::Dop853 | Method::Auto => 8,
            _ => 2,
        }
    }

    /// Implicit solves (stages) per step: the n of Zhang et al. 2022's dt/n.
    pub fn implicit_stages(self) -> u32 {
        match self {
            Method::Bathe => 2,
            Method::Msstc3 | Method::Mssth3 | Method::Esdirk324L2Sa => 3,
            Method::Msstc4 | Method::Mssth4 | Method::Esdirk325L2Sa => 4,
            Method::Msstc5 | Method::Mssth5 | Method::Esdirk436L2Sa2 | Method::Sdirk4 => 5,
            Method::Abm2 | Method::Rk4 | Method::Dopri5 | Method::Dop853 | Method::Auto => 0,
            _ => 1,
        }
    }

    /// True for methods that choose their own steps under error control (absolute and
    /// relative tolerances, Negrut et al. eq. 21).
    pub fn variable_step(self) -> bool {
        matches!(
            self,
            Method::TrapezoidalVariableStep | Method::Sdirk4 | Method::Dopri5 | Method::Dop853 | Method::Auto
        )
    }

    /// False for the methods that cannot integrate a hydraulic circuit: the half-implicit
    /// method (its quasi-Newton matrix has no circuit block) and the explicit ones, whose
    /// stability would limit steps to microseconds on the circuit's pressure dynamics.
    pub fn holds_circuits(self) -> bool {
        !matches!(self, Method::HalfImplicit | Method::Rk4 | Method::Dopri5 | Method::Dop853 | Method::Auto)
    }

    /// True where the spectral radius at infinity (rho_inf) is a free parameter.
    pub fn uses_rho_inf(self) -> bool {
        matches!(
            self,
            Method::Lms2
                | Method::Lms3
                | Method::Lms4
                | Method::Ss2
                | Method::Ss3
                | Method::Ss4
                | Method::Bathe
                | Method::Msstc3
                | Method::Msstc4
                | Method::Msstc5
                | Method::Mssth3
                | Method::Mssth4
                | Method::Mssth5
        )
    }

    /// rho_inf values this method accepts, if not all of [0, 1] (MSSTH4/5).
    pub fn tabulated_rho_inf(self) -> Option<&'static [f64]> {
        matches!(self, Method::Mssth4 | Method::Mssth5).then_some(&TABULATED_RHO_INF[..])
    }

    /// Why `formulation` refuses this method although the method is one of its enumeration
    /// items, None where it does not. The index-3 formulation refuses the trapezoidal rule
    /// ([Zhang2022, eq. 3]): rho_inf = 1, no numerical dissipation, and on the index-3 DAE
    /// its velocities and multipliers carry an error of alternating sign that is not damped
    /// and grows until Newton fails (measured: the 32-link chain at t = 2.2-2.7 s at every
    /// step from 1e-2 to 1e-4 s, the double pendulum at 7.35 s at 1e-2 s). The methods of
    /// the same order 2 with rho_inf < 1 ([Zhang2022, Sect. 2]) damp it. The code stays an item, so that the start-up step of the multistep methods (the
    /// trapezoidal rule inside the integrator) and the semirecursive formulations' own
    /// trapezoidal rule ([Jaiswal2021, Sect. 4]), a different and stable method, keep it.
    pub fn refusal(self, formulation: Formulation) -> Option<String> {
        (self == Method::Trapezoidal && formulation == Formulation::Index3).then(|| {
            "the trapezoidal rule is refused for the index3 formulation: it has no numerical dissipation on \
             the index-3 DAE (rho_inf = 1), so its velocities and multipliers carry a sign-alternating error \
             that grows until the Newton iteration fails; use a method of the same order 2 with dissipation \
             (solver.rhoInf < 1, default 0.6): ss2 (the generalized-alpha-type single-step method), lms2, \
             bathe, or ss3, ss4, lms3, lms4, msstc3, msstc4, msstc5"
                .to_string()
        })
    }

    /// Checks that `rho_inf` is admissible for this method (methods without the parameter
    /// ignore it).
    pub fn check_rho_inf(self, rho_inf: f64) -> Result<(), String> {
        if !self.uses_rho_inf() {
            return Ok(());
        }
        if !(0.0..=1.0).contains(&rho_inf) {
            return Err(format!("solver.rhoInf = {rho_inf} must lie in [0, 1] for {}", self.item_name()));
        }
        if let Some(values) = self.tabulated_rho_inf() {
            if !values.iter().any(|v| (v - rho_inf).abs() <= 1e-9) {
                return Err(format!(
                    "{} is defined only for solver.rhoInf in {{0, 0.1, ..., 1}} (its stage abscissae are tabulated); got {rho_inf}",
                    self.item_name()
                ));
            }
        }
        Ok(())
    }
}

/// Defaults of the `solver.*` parameters of a model.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SolverDefaults {
    /// The equations the mechanism is solved in (`solver.formulation`).
    #[serde(default)]
    pub formulation: Formulation,
    /// The time integrator (`solver.method`); it must belong to the formulation.
    #[serde(default)]
    pub method: Method,
    /// Largest internal step \[s\]; each communication step is split into equal sub-steps.
    #[serde(default = "default_step")]
    pub step_size: f64,
    /// Newton tolerance on the position-level correction norm [m or rad] (Fang et al. 2023: ||dq|| < tol).
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// Largest number of Newton iterations per nonlinear solve.
    #[serde(default = "default_max_iterations")]
    pub max_iterations: u32,
    /// Spectral radius at infinity for methods with tunable dissipation [-], in [0, 1].
    #[serde(default = "default_rho_inf")]
    pub rho_inf: f64,
    /// Variable-step methods: absolute tolerance Atol of the independent positions
    /// [m or rad] (Negrut et al. eq. 21); default 1e-4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute_tolerance: Option<f64>,
    /// Variable-step methods: relative tolerance Rtol of the independent positions [-]
    /// (Negrut et al. eq. 21); default 1e-4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_tolerance: Option<f64>,
    /// Variable-step methods: the velocity tolerances are this multiple of the position
    /// tolerances [-] (Negrut et al. Sect. 4: "one order lower" accuracy at the velocity level);
    /// default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity_tolerance_factor: Option<f64>,
    /// Penalty factor alpha of the penalty-based semirecursive formulation [model units]
    /// (Jaiswal et al. 2021 eq. 18; the paper uses 1e11).
    #[serde(default = "default_penalty", skip_serializing_if = "is_default_penalty")]
    pub penalty: f64,
    /// Newton tolerance on pressure corrections \[Pa\] (Jaiswal et al. 2021 Sect. 5: 1e-2 Pa).
    #[serde(default = "default_pressure_tolerance", skip_serializing_if = "is_default_pressure_tolerance")]
    pub pressure_tolerance: f64,
    /// Newton tangent of the semirecursive formulations.
    #[serde(default, skip_serializing_if = "is_default_tangent")]
    pub tangent: Tangent,
    /// How the index-3 formulation's implicit methods enforce the joints: `index3` (the
    /// position constraints) or `ggl` (positions and velocities, stabilized index 2).
    #[serde(default, skip_serializing_if = "is_default_constraint_form")]
    pub constraint_form: ConstraintForm,
    /// Index-3 implicit methods: keep the Newton iteration matrix from one solve to the next
    /// within a communication step (every stage and internal step with the same b0),
    /// refactoring it only where the iteration converges slowly (modified Newton,
    /// [HairerWanner1996, Sect. IV.8]). Fewer factorizations for more iterations: it pays where the
    /// factorization dominates (beam models); results differ from the default within the
    /// Newton tolerance. Each communication step starts with a fresh matrix, so that a restored
    /// FMU state continues exactly as the run it was taken from.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_iteration_matrix: bool,
}

/// Default Atol = Rtol of the variable-step methods (Negrut et al. runs with Atol = Rtol).
pub const DEFAULT_TOLERANCE: f64 = 1e-4;
/// Default ratio of velocity to position tolerances (Negrut et al. Sect. 4).
pub const DEFAULT_VELOCITY_TOLERANCE_FACTOR: f64 = 10.0;

impl SolverDefaults {
    pub fn absolute_tolerance(&self) -> f64 {
        self.absolute_tolerance.unwrap_or(DEFAULT_TOLERANCE)
    }
    pub fn relative_tolerance(&self) -> f64 {
        self.relative_tolerance.unwrap_or(DEFAULT_TOLERANCE)
    }
    pub fn velocity_tolerance_factor(&self) -> f64 {
        self.velocity_tolerance_factor.unwrap_or(DEFAULT_VELOCITY_TOLERANCE_FACTOR)
    }
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
            absolute_tolerance: None,
            relative_tolerance: None,
            velocity_tolerance_factor: None,
            penalty: default_penalty(),
            pressure_tolerance: default_pressure_tolerance(),
            tangent: Tangent::default(),
            constraint_form: ConstraintForm::default(),
            keep_iteration_matrix: false,
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
fn default_penalty() -> f64 {
    1e11
}
fn is_default_penalty(x: &f64) -> bool {
    *x == default_penalty()
}
fn default_pressure_tolerance() -> f64 {
    1e-2
}
fn is_default_pressure_tolerance(x: &f64) -> bool {
    *x == default_pressure_tolerance()
}
fn is_default_tangent(t: &Tangent) -> bool {
    *t == Tangent::default()
}
fn is_default_constraint_form(c: &ConstraintForm) -> bool {
    *c == ConstraintForm::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The method lists are slices of `ALL`: each formulation offers each method once, and
    /// the suite of Zhang et al. 2022 runs from LMS2 to the last ESDIRK.
    #[test]
    fn method_lists_partition_all() {
        assert_eq!(Method::INDEX3.first(), Some(&Method::HalfImplicit));
        assert_eq!(Method::INDEX3.last(), Some(&Method::Esdirk436L2Sa2));
        assert_eq!(Method::ZHANG2022.first(), Some(&Method::Lms2));
        assert_eq!(Method::ZHANG2022.len(), 16);
        let mut both: Vec<Method> = Method::INDEX3.iter().chain(Method::STATE_SPACE).copied().collect();
        both.sort_by_key(|m| m.code());
        assert_eq!(both, Method::ALL);
    }
}
