//! The continuous states of the Model Exchange FMUs, their derivatives and event indicators
//! (FMI 2.0.4 Sect. 3.1, FMI 3.0 Sect. 3.1), fixed by the description before anything is
//! built. They mirror the engine's ODE layouts (a test checks them against every catalog
//! model):
//! - state space (Negrut et al. Sect. 1): x = [v; v'], the independent coordinates of the
//!   current partition and their velocities;
//! - semirecursive (Jaiswal et al. 2021 Sects. 2.2-3): x = [z^i; z'^i; p; U; W; W_c], the
//!   independent joint coordinates and rates of the double-step partition, the pressures, the
//!   spool positions, the work of the non-conservative forces (models with bodies) and each
//!   cylinder's work;
//!
//! and the event indicators of the circuit's kinks: |dp| - dp_lam of every throttle and of
//! each directional valve's four connections, and the spool position (the laws of Jaiswal
//! et al. 2021 Sect. 3.1 change slope there).

use super::expand::Builder;
use super::{Binding, Causality, Initial, InterfaceError, VarType, Variability, Variable};
use crate::format::{Description, Formulation, Valve};

/// Where each block of the continuous states starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateLayout {
    /// Independent coordinates (degrees of freedom).
    pub dof: usize,
    pub pressures: usize,
    pub spools: usize,
    /// 1 when the work of the non-conservative forces is a state.
    pub work: usize,
    pub cylinders: usize,
}

/// The connections of a directional valve with an event indicator each, in the order of the
/// indicators, as (name, from, to) of the valve's nodes.
pub const VALVE_CONNECTIONS: [(&str, usize, usize); 4] = [("P_A", 0, 2), ("B_T", 3, 1), ("A_T", 2, 1), ("P_B", 0, 3)];

impl StateLayout {
    /// The layout of a description's Model Exchange FMU, None for formulations without one.
    pub fn of(d: &Description) -> Result<Option<StateLayout>, InterfaceError> {
        let f = d.solver.formulation;
        let dof = match f {
            Formulation::StateSpace => d.degrees_of_freedom(),
            _ if f.is_semirecursive() => d.semirecursive_degrees_of_freedom(),
            _ => return Ok(None),
        };
        let dof = usize::try_from(dof).map_err(|_| {
            InterfaceError(format!("the mechanism is over-constrained ({dof} degrees of freedom); no ODE in independent coordinates exists"))
        })?;
        if f == Formulation::StateSpace {
            return Ok(Some(StateLayout { dof, pressures: 0, spools: 0, work: 0, cylinders: 0 }));
        }
        let h = d.hydraulics.as_ref();
        Ok(Some(StateLayout {
            dof,
            pressures: h.map_or(0, |h| h.pressure_states().len()),
            spools: h.map_or(0, |h| h.valves.iter().filter(|v| matches!(v, Valve::Directional { .. })).count()),
            work: usize::from(!d.bodies.is_empty()),
            cylinders: h.map_or(0, |h| h.cylinders.len()),
        }))
    }

    pub fn len(&self) -> usize {
        2 * self.dof + self.pressures + self.spools + self.work + self.cylinders
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn velocity(&self, k: usize) -> usize {
        self.dof + k
    }

    pub fn pressure(&self, k: usize) -> usize {
        2 * self.dof + k
    }

    pub fn spool(&self, k: usize) -> usize {
        2 * self.dof + self.pressures + k
    }

    pub fn work_state(&self) -> Option<usize> {
        (self.work == 1).then(|| 2 * self.dof + self.pressures + self.spools)
    }

    pub fn cylinder_work(&self, c: usize) -> usize {
        2 * self.dof + self.pressures + self.spools + self.work + c
    }
}

/// Names and descriptions of the continuous states in the order of the state vector.
fn state_names(d: &Description, l: &StateLayout) -> Vec<(String, &'static str, String)> {
    let semirecursive = d.solver.formulation.is_semirecursive();
    let what = if semirecursive {
        "of the double-step partition (Jaiswal et al. 2021, Sect. 2.2; re-chosen at step events; rad or m)"
    } else {
        "of the current coordinate partition (the partition and the rotation charts are re-chosen at step events; m or rad in a body-fixed chart)"
    };
    let mut names = Vec::with_capacity(l.len());
    for k in 0..2 * l.dof {
        let (field, text) =
            if k < l.dof { ("position", "Independent coordinate") } else { ("velocity", "Independent velocity") };
        let i = k % l.dof + 1;
        names.push((format!("independent.{field}[{i}]"), "", format!("{text} {i} {what}")));
    }
    if let Some(h) = &d.hydraulics {
        names.extend(h.pressure_states());
        for v in &h.valves {
            if let Valve::Directional { name, .. } = v {
                names.push((
                    format!("state.{name}.spool"),
                    "V",
                    format!("Spool position of valve {name} (Jaiswal et al. 2021, eq. 27)"),
                ));
            }
        }
        if l.work == 1 {
            names.push((
                "state.external_work".into(),
                "J",
                "Work of the non-conservative forces (the output external_work)".into(),
            ));
        }
        for c in &h.cylinders {
            names.push((
                format!("state.{}.work", c.name),
                "J",
                format!("Work of cylinder {} (the output {}.work)", c.name, c.name),
            ));
        }
    } else if l.work == 1 {
        names.push((
            "state.external_work".into(),
            "J",
            "Work of the non-conservative forces (the output external_work)".into(),
        ));
    }
    names
}

/// Names and descriptions of the event indicators in the order of the engine's circuit
/// (`hydraulics::switching`): the throttles, then per directional valve its four connections
/// and its spool.
pub fn event_indicator_names(d: &Description) -> Vec<(String, String)> {
    let Some(h) = d.hydraulics.as_ref().filter(|_| d.solver.formulation.is_semirecursive()) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for v in &h.valves {
        if let Valve::Throttle { name, .. } = v {
            names.push((
                format!("event.{name}.laminar"),
                format!("|dp| - dp_laminar of throttle {name}: the flow law changes slope at 0 (Jaiswal et al. 2021, Sect. 3.1)"),
            ));
        }
    }
    for v in &h.valves {
        if let Valve::Directional { name, .. } = v {
            for (connection, _, _) in VALVE_CONNECTIONS {
                names.push((
                    format!("event.{name}.{connection}.laminar"),
                    format!(
                        "|dp| - dp_laminar of connection {connection} of valve {name} (Jaiswal et al. 2021, Sect. 3.1)"
                    ),
                ));
            }
            names.push((
                format!("event.{name}.spool"),
                format!(
                    "Spool position of valve {name}: its sign chooses the connections (Jaiswal et al. 2021, eq. 26)"
                ),
            ));
        }
    }
    names
}

fn local(name: String, unit: &str, description: String, binding: Binding) -> Variable {
    Variable {
        name,
        value_reference: 0,
        ty: VarType::Real,
        causality: Causality::Local,
        variability: Variability::Continuous,
        initial: Some(Initial::Calculated),
        start: None,
        unit: (!unit.is_empty()).then(|| unit.to_string()),
        min: None,
        max: None,
        description,
        binding,
    }
}

/// The Model Exchange variables of a description with an ODE: states, derivatives, event
/// indicators.
pub(super) fn model_exchange_variables(d: &Description, b: &mut Builder) -> Result<(), InterfaceError> {
    let Some(layout) = StateLayout::of(d)? else { return Ok(()) };
    let names = state_names(d, &layout);
    debug_assert_eq!(names.len(), layout.len());
    for (index, (name, unit, description)) in names.iter().enumerate() {
        b.push(local(name.clone(), unit, description.clone(), Binding::State { index }))?;
    }
    let source = if d.solver.formulation.is_semirecursive() {
        "the double-step equations and the circuit (Jaiswal et al. 2021, eqs. 16-17, 22-29)"
    } else {
        "the reduced equations (Negrut et al., eqs. 6-13)"
    };
    for (index, (name, _, _)) in names.iter().enumerate() {
        b.push(local(
            format!("der({name})"),
            "",
            format!("Time derivative of {name} from {source}"),
            Binding::Derivative { index },
        ))?;
    }
    for (index, (name, description)) in event_indicator_names(d).into_iter().enumerate() {
        b.push(local(name, "", description, Binding::EventIndicator { index }))?;
    }
    Ok(())
}
