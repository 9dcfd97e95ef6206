//! Partial derivatives of the state-space ODE [v; v']' = [v'; v''(t, v, v', u)] (\[Negrut1997\]
//! Sect. 1) and of the outputs, for FMI directional derivatives.
//!
//! The formulation's own derivative terms are those of its Newton matrix (eq. 19): dPsi/dv
//! and dPsi/dv' by forward differences at a relative step of 1e-7 (`reduced.rs`), accurate
//! to about 1e-7 and enough for Newton, not for a Jacobian an importer relies on. With
//! Psi(v, v', v'') = M_hat v'' - Q_hat (eqs. 11-14) the accelerations' derivatives would be
//! dv''/dv = -M_hat^-1 dPsi/dv, but dPsi/dv needs the same position solves as v'' itself, so
//! the columns are formed by central differences of the reduced equations with Richardson
//! extrapolation ([`crate::partials`]): each evaluation solves the dependent positions by
//! Newton from the last completed step (eqs. 9-10), deterministically, and the derivatives
//! are accurate to about 1e-9 (a velocity column, on which the equations depend
//! quadratically, by one central difference, exactly). Time is a known where drivers make the
//! constraints rheonomic (eq. 3).

use super::formulation::StateSpaceFormulation;
use crate::formulation::Formulation;
use crate::integrators::StepError;
use crate::partials::{differences, Column, Known, MovesKnowns, Point, Probe, RELATIVE_STEP, TIME_STEP};
use mbfmu_model::format::Quantity;

impl StateSpaceFormulation {
    pub(super) fn ode_partial_column(
        &mut self,
        known: Known,
        quantities: &[Quantity],
        outputs: bool,
        column: &mut Column,
    ) -> Result<(), StepError> {
        differences(self, known, quantities, outputs, column)
    }
}

impl MovesKnowns for StateSpaceFormulation {
    fn point(&mut self) -> Point<'_> {
        Point { states: &mut self.solver.y, inputs: &mut self.mech.inputs, time: &mut self.solver.current.t }
    }
}

impl Probe for StateSpaceFormulation {
    fn probe(
        &mut self,
        known: Known,
        delta: f64,
        quantities: &[Quantity],
        dx: &mut [f64],
        y: &mut [f64],
        _monitor: &mut [f64],
    ) -> Result<(), StepError> {
        // Moves the known, evaluates and reads, and puts the known back in any case.
        let mut evaluate = |f: &mut StateSpaceFormulation| -> Result<(), StepError> {
            f.solver.stale = true;
            f.solver.ode_derivatives(&f.mech, &f.settings.newton, dx)?;
            if !y.is_empty() {
                f.quantities(quantities, y);
            }
            Ok(())
        };
        let result = self.moved(known, delta, &mut evaluate);
        // The point is evaluated again when next needed.
        self.solver.stale = true;
        result
    }

    /// The reduced equations are quadratic in the independent velocities: the dependent
    /// velocities are linear in them (eq. 8), the acceleration right side and the gyroscopic
    /// and chart terms are products of two velocities, dampers are linear and Coulomb friction
    /// is held over the step.
    fn quadratic(&self, known: Known) -> bool {
        matches!(known, Known::State(i) if i >= self.solver.dof())
    }

    fn step(&self, known: Known) -> f64 {
        match known {
            Known::State(i) => RELATIVE_STEP * self.solver.y[i].abs().max(1.0),
            Known::Input(i) => RELATIVE_STEP * self.mech.inputs.at(i, self.solver.current.t).abs().max(1.0),
            Known::Time => TIME_STEP,
        }
    }
}
