//! The documentation page's notes on Model Exchange of the semirecursive formulations and on
//! the directional derivatives every FMU provides.

use mbfmu_model::format::Description;
use mbfmu_model::variables::event_indicator_names;
use std::fmt::Write;

/// Model Exchange of a semirecursive model (\[Jaiswal2021\]): states, events, penalty.
pub fn semirecursive_notes(out: &mut String, d: &Description) {
    let indicators = event_indicator_names(d).len();
    let _ = writeln!(
        out,
        "<h3>Model Exchange (Jaiswal, Rahikainen, Khadim, Sopanen &amp; Mikkola 2021)</h3>\n<ul>\n<li>The continuous states are the independent joint coordinates of the double-step partition and their rates (Sect. 2.2: the dependent coordinates follow by Newton on the cut-joint constraints, their rates from eq. 13), the volumes' pressures (eq. 22), the spool positions (eq. 27), and the work of the non-conservative forces and of each cylinder (outputs that are integrals of the state). The derivatives are the rates, the accelerations of the reduced equations of motion (eqs. 16-17) with the cylinder forces of the pressures (eq. 29), the circuit's pressure rates (eqs. 22-28), the spool law and the powers.</li>\n<li>Both items of <code>solver.formulation</code> give this ODE: the penalty factor, the multiplier update and the projections (eqs. 18-21) belong to the trapezoidal step of co-simulation.</li>\n<li>Events: when the dependent block of the constraint Jacobian degrades (its smallest pivot below half of what full pivoting achieved), <code>CompletedIntegratorStep</code> requests an event and the event update chooses the partition again (the states change meaning, valuesOfContinuousStatesChanged); the switches of the valves' work cycles (eqs. 46-47) are time events (the schedule's value holds between events); {indicators} event indicators mark where the circuit's laws change slope: |dp| - dp_laminar of every orifice (the laminar-turbulent transition of eqs. 24 and 26) and each spool position (its sign chooses the valve's connections).</li>\n</ul>"
    );
}

/// The directional derivatives of this FMU: which unknowns and knowns, and how.
pub fn directional_notes(out: &mut String, d: &Description) {
    let me = d.solver.formulation.model_exchange();
    let _ = writeln!(
        out,
        "<h3>Directional derivatives</h3>\n<p><code>fmi2GetDirectionalDerivative</code> / <code>fmi3GetDirectionalDerivative</code>{}: in co-simulation, the derivatives of the continuous outputs by the inputs at a communication point, which are nonzero only where an input feeds directly through to an output (a force element's value, a cylinder fed by inputs), as the <code>ModelStructure</code> dependencies declare.{}</p>",
        if me { " (both interfaces)" } else { "" },
        if me {
            " In Model Exchange, the derivatives of the state derivatives and of the continuous outputs by the continuous states, the inputs and, where drivers make the equations depend on time, time; the pressure and spool columns of the state derivatives in closed form, the others by central differences with Richardson extrapolation (about 1e-9 relative accuracy), formed for a column when the importer first asks for it and kept until time, states or inputs change."
        } else {
            ""
        }
    );
}
