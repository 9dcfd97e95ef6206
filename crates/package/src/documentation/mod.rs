//! documentation/index.html of each FMU: what the model is, where it comes from, drawings of
//! its mechanism and circuit, its variables, solver choices, default experiment and the works
//! it relies on, generated from the same description. The page is self-contained: it
//! links to nothing in or outside the archive but the references' DOIs.

pub mod bibliography;
mod model_exchange;

use mbfmu_model::catalog::CatalogEntry;
use mbfmu_model::format::{ConstraintForm, Formulation, Method};
use mbfmu_model::variables::{
    output_derivative_order, Binding, Causality, FmiVersion, ModelInterface, SolverSetting, Start, VarType, Variable,
};
use std::fmt::Write as _;

use crate::drawing::escape;

fn start_text(v: &Variable) -> String {
    match &v.start {
        Some(Start::Real(x)) => format!("{x:?}"),
        Some(Start::Integer(i)) => i.to_string(),
        None => String::new(),
    }
}

fn table(out: &mut String, title: &str, vars: &[&Variable], with_start: bool) {
    if vars.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h2>{title}</h2>\n<table>\n<tr><th>name</th><th>unit</th>{}<th>description</th></tr>",
        if with_start { "<th>start</th><th>range</th>" } else { "" }
    );
    for v in vars {
        let range = match (v.min, v.max) {
            (None, None) => String::new(),
            (lo, hi) => format!(
                "[{}, {}]",
                lo.map_or("-inf".into(), |x| format!("{x:?}")),
                hi.map_or("inf".into(), |x| format!("{x:?}"))
            ),
        };
        let unit = v.unit.clone().unwrap_or_default();
        let _ = write!(out, "<tr><td><code>{}</code></td><td>{}</td>", escape(&v.name), escape(&unit));
        if with_start {
            let _ = write!(out, "<td>{}</td><td>{}</td>", start_text(v), range);
        }
        let _ = writeln!(out, "<td>{}</td></tr>", escape(&v.description));
    }
    out.push_str("</table>\n");
}

/// The orders of the output derivatives (`maxOutputDerivativeOrder` = 2) and the importer's
/// ways of interpolating inputs.
fn derivatives_note(out: &mut String, d: &mbfmu_model::format::Description, outputs: &[&Variable]) {
    if outputs.is_empty() {
        return;
    }
    let named = |order: u32| {
        let names: Vec<String> = outputs
            .iter()
            .filter(|v| matches!(v.binding, Binding::Output(q) if output_derivative_order(q, d) == order))
            .map(|v| format!("<code>{}</code>", escape(&v.name)))
            .collect();
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    let _ = writeln!(
        out,
        "<h3>Derivatives of the outputs and interpolated inputs</h3>\n<p>fmi2GetRealOutputDerivatives and fmi3GetOutputDerivatives return the first and second time derivatives of the outputs at the current time, computed from the state (velocities, accelerations, the circuit equations, the input signals), not by differences in time. A derivative the state does not determine (the rate of an acceleration, of a reaction force or any other Lagrange multiplier, of a damped force's rate) is 0. First and second derivative: {}. First derivative only: {}. Neither: {}.</p>\n<p>Inputs: FMI 2.0 importers may give each input's first and second time derivative at a communication point (fmi2SetRealInputDerivatives, canInterpolateInputs); the input is then that polynomial inside the integrator over the next doStep and afterwards holds the value it reached. FMI 3.0 importers that pass an intermediateUpdate callback are called after every internal step of fmi3DoStep and may set the inputs there (providesIntermediateUpdate; the inputs and outputs have intermediateUpdate=\"true\").</p>",
        named(2),
        named(1),
        named(0)
    );
}

/// Guidance for the integrators of \[Zhang2022\] (Zhang, Zhang, Zanoni & Masarati, "Performance of
/// implicit A-stable time integration methods for multibody system dynamics", Multibody Syst.
/// Dyn. 2022): its recommendations (Sect. 4-6) and how this implementation treats rho_inf,
/// step-size changes and start-up.
/// "Set `what`:" and the table of its enumeration items (value, item, `column`).
fn enumeration_table<'a>(
    out: &mut String,
    what: &str,
    column: &str,
    items: impl Iterator<Item = (i32, &'a str, &'a str)>,
) {
    let _ = writeln!(out, "<p>Set {what}:</p>\n<table>\n<tr><th>value</th><th>item</th><th>{column}</th></tr>");
    for (code, item, summary) in items {
        let _ = writeln!(out, "<tr><td>{code}</td><td><code>{item}</code></td><td>{}</td></tr>", escape(summary));
    }
    out.push_str("</table>\n");
}

fn zhang2022_notes(out: &mut String) {
    let tabulated: Vec<&str> =
        Method::ZHANG2022.iter().filter(|m| m.tabulated_rho_inf().is_some()).map(|m| m.item_name()).collect();
    let tunable: Vec<&str> = Method::ZHANG2022.iter().filter(|m| m.uses_rho_inf()).map(|m| m.item_name()).collect();
    let _ = writeln!(
        out,
        "<h3>Choosing an integrator (Zhang et al. 2022)</h3>\n<p>The implicit, A-stable methods compared by H. Zhang, R. Zhang, A. Zanoni and P. Masarati (&quot;Performance of implicit A-stable time integration methods for multibody system dynamics&quot;, Multibody System Dynamics 54(3), 263-301, 2022, doi:10.1007/s11044-021-09806-9) differ in algorithmic dissipation, accuracy and cost. Its recommendations:</p>\n<ul>\n<li><b>Energy conservation, long runs, keeping many modes:</b> <code>lms3</code> or <code>lms4</code> (or their single-step forms <code>ss3</code>, <code>ss4</code>) with <code>solver.rhoInf</code> = 0.6. They preserve energy best on Andrews' squeezer (Sect. 5.1) but filter high frequencies least.</li>\n<li><b>Filtering high-frequency oscillations</b> (e.g. velocities and forces polluted by stiff modes): <code>bathe</code> and the higher-order methods with <code>solver.rhoInf</code> = 0, at a step that is not too small (Sect. 5.2).</li>\n<li><b>Accuracy</b> when the step resolves the participating dynamics: <code>esdirk325L2SA</code> and <code>esdirk436L2SA2</code> (Sect. 5.4). The MSSTH methods are best used with <code>solver.rhoInf</code> = 0; they and <code>esdirk324L2SA</code> dissipate strongly at low frequencies and can show energy growth (Sect. 4, 5.1).</li>\n<li><code>lms2</code>/<code>ss2</code> with <code>solver.rhoInf</code> = 0 are the second-order BDF: robust but strongly dissipative. A larger <code>solver.rhoInf</code> and more steps or stages preserve more of the frequency content; at <code>solver.rhoInf</code> = 1 the second-order methods behave like the trapezoidal rule, without dissipation: on constrained mechanisms their velocities and multipliers then carry a growing sign-alternating error as the trapezoidal rule's do (which index-3 models refuse), so keep <code>solver.rhoInf</code> below 1 there.</li>\n<li>Compare methods at the same internal step per implicit stage (dt/n): a method with n implicit stages costs about n times a single-stage method per step. The LMS methods predict with a second-order formula and need fewer Newton iterations than the SS forms, which predict a constant (Fig. 28).</li>\n</ul>"
    );
    let _ = writeln!(
        out,
        "<h3>rho_inf and step sizes</h3>\n<ul>\n<li><code>solver.rhoInf</code>, the spectral radius at infinite frequency, is used by {}; it must lie in [0, 1]. Smaller values dissipate more. The other methods ignore it (the trapezoidal rule has rho_inf = 1, BDF1 and the Kennedy-Carpenter ESDIRKs are L-stable, rho_inf = 0).</li>\n<li><b>{}</b> accept only <code>solver.rhoInf</code> in {{0, 0.1, ..., 1}}: their stage abscissae are published as a table at these values only, and interpolating them is not safe (the MSSTH4 abscissae c2 and c3 cross between 0.6 and 0.7, where the method's coefficients are singular). Other values are refused when the simulation is initialized.</li>\n<li>Coefficients that are roots of an equation (gamma of Bathe, MSSTC, MSSTH and ESDIRK3(2)4L[2]SA, the SS parameters) are solved at run time for the given rho_inf, not taken from rounded tables.</li>\n<li>Communication steps may vary: <code>lms2</code> uses its variable-step formula; <code>lms3</code>/<code>lms4</code> need equal steps and fall back to <code>lms3</code>, <code>lms2</code> or (after a step more than twice the previous one, or tiny by comparison) a trapezoidal restart until enough equal steps have accumulated; the single-step and multi-stage methods use the current step size. The multistep methods start with the trapezoidal rule, then LMS2, LMS3 (as MBDyn). A step shorter than 1e-3 <code>solver.stepSize</code> (e.g. a master's 2e-14 s remainder) is taken along the tangent instead of being solved, since the index-3 equations determine accelerations and multipliers only to ~machine precision / h<sup>2</sup>.</li>\n<li>On constrained (index-3) mechanisms the positions of every method converge with order 2: the ESDIRKs have stage order 2, which limits stiffly accurate Runge-Kutta methods on index-3 equations. Their higher design orders show where the constraints do not dominate the error; they still have smaller error constants.</li>\n</ul>",
        tunable.join(", "),
        tabulated.join(" and ")
    );
}

/// The state-space formulation of \[Negrut1997\] (Negrut, Haug & Iancu, "Variable step implicit
/// numerical integration of stiff multibody systems"): what the methods do, how the error
/// control reads the tolerances, and what Model Exchange hosts see.
fn negrut1997_notes(out: &mut String, dof: isize) {
    let _ = writeln!(
        out,
        "<h3>State-space formulation (Negrut, Haug &amp; Iancu, &quot;Variable step implicit numerical integration of stiff multibody systems&quot;, The University of Iowa)</h3>\n<ul>\n<li>The constraint Jacobian of the mechanism is factored by LU with full pivoting; its pivot columns are the dependent coordinates, the others ({dof} here) the independent coordinates. Dependent positions (Newton on the constraints), velocities, accelerations and the Lagrange multipliers follow from the independent ones (Negrut et al., eqs. 6-10), so the equations of motion become an ODE in the independent coordinates (eqs. 11-13). Rotations are rotation vectors of charts centred at a reference orientation. The partition and the charts are chosen again when the dependent block becomes ill-conditioned (its pivot ratio grew tenfold) or a chart angle exceeds 1.5 rad.</li>\n<li><code>trapezoidalVariableStep</code> (the paper's IMPL_VSS) controls the local error estimated against the embedded backward Euler solution: e_i = Atol + max(|y0|, |y1|) Rtol per independent position, <code>solver.velocityToleranceFactor</code> times that per independent velocity (the paper sets the velocity tolerance one order looser), root-mean-square norm, new step 0.85 h (1/err)<sup>1/2</sup> (eqs. 21-22), bounded by <code>solver.stepSize</code>, and the last step of a communication interval lands on its end. Good for engineering accuracy (1e-5 to 1e-2); the low order makes tight tolerances expensive, where <code>sdirk4</code> (order 4, embedded order 3, the same control with exponent 1/4) is the better choice.</li>\n<li><code>trapezoidalConstantStep</code> (IMPL_CSS) splits each communication step into equal steps no larger than <code>solver.stepSize</code>; it is A-stable but not L-stable, so stiff components that the step does not resolve oscillate slowly.</li>\n<li><code>abm2</code> (EXPL) is explicit: on stiff mechanisms it is stable only for steps below about 2/|lambda_max| of the stiffest mode.</li>\n<li>The implicit methods solve for the independent accelerations by Newton's method; the iteration matrix is the reduced mass matrix plus the numerically differentiated force and constraint terms (eq. 19), reused over steps until convergence slows.</li>\n<li>Model Exchange: the continuous states are the independent coordinates and velocities of the current partition; when the partition is chosen again, <code>CompletedIntegratorStep</code> requests an event and the event update changes the states (valuesOfContinuousStatesChanged). There are no event indicators.</li>\n</ul>"
    );
}

/// The 3D replay of the default experiment that a documentation page shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Motion {
    /// The replay page, stored beside the documentation page as [`replay_file`] and shown in
    /// a frame; `samples` and the experiment's times for the caption.
    Replay { html: String, samples: usize },
    /// No replay, and why (said on the page).
    Omitted(String),
}

/// Largest replay page a documentation page embeds, in bytes (the player alone is about
/// 0.6 MB). A run above it is thinned to fewer samples first (docs/replay.md).
pub const REPLAY_SIZE_LIMIT: usize = 2_500_000;

impl Motion {
    /// The catalog's pages when the packager could not replay the model.
    pub fn not_made() -> Motion {
        Motion::Omitted(
            "A 3D replay of the default experiment is added to this page when the FMU is packaged with the replay              player installed; `mbfmu simulate <FMU> --animate run.html` writes one of any run."
                .into(),
        )
    }
}

/// File name of the replay page beside the documentation page of `model`.
pub fn replay_file(model: &str) -> String {
    format!("{model}.replay.html")
}

/// The page of a catalog model (without a replay).
pub fn model_page(entry: &CatalogEntry, version: FmiVersion) -> String {
    let model = mbfmu_model::Model::from_json(entry.json).expect("catalog models are valid");
    page(&model.description, &model.interface, version, &Motion::not_made())
}

/// The "Motion" section: the replay in a frame, or why there is none.
fn motion_section(out: &mut String, d: &mbfmu_model::format::Description, motion: &Motion) {
    match motion {
        Motion::Replay { samples, .. } => {
            let file = escape(&replay_file(&d.name));
            let _ = writeln!(
                out,
                "<h2>Motion</h2>\n<p>The default experiment (t = {} .. {} s, {samples} samples) replayed in 3D from the FMU's own outputs: drag to orbit, right-drag to pan, scroll to zoom; play, speed and the time slider below the view; beside it a plot of chosen outputs and, for hydraulic models, chamber pressures as colours and valve gauges. The replay is also <a href=\"{file}\">a page of its own</a>, next to this one in the FMU's documentation folder.</p>\n<iframe class=\"replay\" src=\"{file}\" title=\"3D replay of {}\" style=\"width:100%;height:660px;border:1px solid #ddd\"></iframe>",
                d.experiment.start,
                d.experiment.stop,
                escape(&d.name)
            );
        }
        Motion::Omitted(why) => {
            let _ = writeln!(out, "<h2>Motion</h2>\n<p>{}</p>", escape(why));
        }
    }
}

/// The page of any model.
pub fn page(
    d: &mbfmu_model::format::Description,
    interface: &ModelInterface,
    version: FmiVersion,
    motion: &Motion,
) -> String {
    let mut out = String::new();
    let v = match version {
        FmiVersion::V2 => "FMI 2.0",
        FmiVersion::V3 => "FMI 3.0",
    };
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{name}</title>\n<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}figure{{margin:1em 0}}figure svg{{max-width:100%;height:auto;border:1px solid #ddd}}figcaption{{font-size:90%;color:#444}}</style></head><body>\n<h1>{name}</h1>\n<p>{desc}</p>\n<p>{v} {kinds} FMU generated by mbfmu {ver}.</p>",
        name = escape(&d.name),
        desc = escape(&d.description),
        kinds = if d.solver.formulation.model_exchange() { "co-simulation and model-exchange" } else { "co-simulation" },
        ver = env!("CARGO_PKG_VERSION"),
    );
    if !d.source.is_empty() {
        let _ = writeln!(out, "<h2>Source</h2>\n<p>{}</p>", escape(&d.source));
    }
    if !d.notes.is_empty() {
        out.push_str("<h2>Notes and assumptions</h2>\n<ul>\n");
        for n in &d.notes {
            let _ = writeln!(out, "<li>{}</li>", escape(n));
        }
        out.push_str("</ul>\n");
    }
    let _ = writeln!(
        out,
        "<h2>Mechanism</h2>\n<p>{} bodies, {} joints, {} drivers, {} force elements{}; gravity {:?} m/s<sup>2</sup>. Formulation: {}.</p>",
        d.bodies.len(),
        d.joints.len(),
        d.drivers.len(),
        d.forces.len(),
        d.hydraulics.as_ref().map_or(String::new(), |h| format!(
            ", a lumped-fluid hydraulic circuit of {} volumes, {} valves and {} cylinders (S. Jaiswal, J. Rahikainen, Q. Khadim, J. Sopanen, A. Mikkola, Multibody System Dynamics 52, 169-191, 2021, doi:10.1007/s11044-020-09776-4, Sect. 3)",
            h.volumes.len(),
            h.valves.len(),
            h.cylinders.len()
        )),
        d.gravity,
        escape(d.solver.formulation.summary())
    );
    figures(&mut out, d);
    motion_section(&mut out, d, motion);
    if !interface.formulations.is_empty() {
        let items = interface.formulations.iter().map(|f| (f.code(), f.item_name(), f.summary()));
        enumeration_table(
            &mut out,
            "<code>solver.formulation</code> (enumeration <code>SolverFormulation</code>)",
            "formulation",
            items,
        );
    }
    out.push_str("<h2>Solver choices</h2>\n<p>Set <code>solver.method</code> (enumeration <code>SolverMethod</code>):</p>\n<table>\n<tr><th>value</th><th>item</th><th>order</th><th>method</th></tr>\n");
    for m in &interface.methods {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            m.code(),
            m.item_name(),
            m.order(),
            escape(m.summary())
        );
    }
    out.push_str("</table>\n");
    if interface.offers(SolverSetting::ConstraintForm) {
        let items = ConstraintForm::ALL.iter().map(|f| (f.code(), f.item_name(), f.summary()));
        enumeration_table(&mut out, "<code>solver.constraintForm</code> (enumeration <code>SolverConstraintForm</code>), how the implicit methods enforce the joints", "form", items);
        out.push_str("<p>With <code>ggl</code> the methods of stage order 2 (<code>bathe</code>, <code>msstc*</code>, <code>mssth*</code>, the ESDIRKs) give accelerations and joint reactions at order 2 instead of 1, and the third- and fourth-order ones positions and velocities at order 3 instead of 2; the second-order multistep and single-step methods keep order 2 either way. It costs one more small factorization per Newton matrix; <code>halfImplicit</code> refuses it.</p>\n");
    }
    if d.solver.formulation == Formulation::Index3 {
        out.push_str("<p>Each communication step is split into equal internal steps no larger than <code>solver.stepSize</code>. A step whose Newton iteration does not converge within <code>solver.maxIterations</code> iterations to <code>solver.tolerance</code> ends with Discard and the last successful time; reduce the step size in that case.</p>\n");
    } else {
        out.push_str("<p>Constant-step methods split each communication step into equal internal steps no larger than <code>solver.stepSize</code>; variable-step methods choose their steps (at most <code>solver.stepSize</code>) under the error control of <code>solver.absoluteTolerance</code>, <code>solver.relativeTolerance</code> and <code>solver.velocityToleranceFactor</code>. A constant step whose Newton iteration does not converge within <code>solver.maxIterations</code> iterations to <code>solver.tolerance</code> ends with Discard and the last successful time; variable-step methods reduce the step instead.</p>\n");
    }
    out.push_str("<p>One DoStep takes at most <code>solver.maxStepsPerCall</code> internal steps (step attempts of variable-step methods) and spends at most <code>solver.maxWorkPerCall</code> work units (model evaluations weighted by the size of the Newton system, counted deterministically, about 1 ns each): a DoStep that needs more returns at the last internal step with a log line, FMI 2 with Discard and that time as <code>fmi2LastSuccessfulTime</code>, FMI 3 with <code>earlyReturn</code> if the importer allows early return (otherwise Discard, back at the communication point). Raise the parameters for very long communication steps.</p>\n");
    if interface.methods.iter().any(|m| Method::ZHANG2022.contains(m)) {
        zhang2022_notes(&mut out);
    }
    if d.solver.formulation == Formulation::StateSpace {
        negrut1997_notes(&mut out, d.degrees_of_freedom());
    }
    let vars = &interface.variables;
    let pick = |f: &dyn Fn(&Variable) -> bool| vars.iter().filter(|v| f(v)).collect::<Vec<_>>();
    table(&mut out, "Solver parameters", &pick(&|v| matches!(v.binding, Binding::Solver(_))), true);
    table(&mut out, "Model parameters", &pick(&|v| matches!(v.binding, Binding::ModelParameter { .. })), true);
    table(&mut out, "Inputs", &pick(&|v| v.causality == Causality::Input), true);
    table(&mut out, "Outputs", &pick(&|v| v.causality == Causality::Output && v.ty != VarType::String), false);
    derivatives_note(&mut out, d, &pick(&|v| v.causality == Causality::Output && v.is_continuous_signal()));
    table(
        &mut out,
        "Model Exchange states, derivatives and event indicators",
        &pick(&|v| {
            matches!(v.binding, Binding::State { .. } | Binding::Derivative { .. } | Binding::EventIndicator { .. })
        }),
        false,
    );
    if d.solver.formulation.is_semirecursive() {
        model_exchange::semirecursive_notes(&mut out, d);
    }
    model_exchange::directional_notes(&mut out, d);
    let e = &d.experiment;
    let _ = writeln!(
        out,
        "<h2>Default experiment</h2>\n<p>start {} s, stop {} s, communication step {} s; solver {} with internal step {} s, tolerance {:e}{}.</p>",
        e.start,
        e.stop,
        e.step,
        d.solver.method.item_name(),
        d.solver.step_size,
        d.solver.tolerance,
        if d.solver.method.variable_step() {
            format!(
                ", Atol {:e}, Rtol {:e}, velocity tolerance factor {}",
                d.solver.absolute_tolerance(),
                d.solver.relative_tolerance(),
                d.solver.velocity_tolerance_factor()
            )
        } else {
            String::new()
        }
    );
    let references = bibliography::cited(d, interface, &out);
    out.push_str(&bibliography::section(&references));
    out.push_str("</body></html>\n");
    out
}

/// The drawings of the mechanism and of the hydraulic circuit, with captions.
fn figures(out: &mut String, d: &mbfmu_model::format::Description) {
    if let Some((svg, view)) = crate::drawing::mechanism_figure(d) {
        let _ = writeln!(
            out,
            "<figure class=\"mechanism\">{svg}<figcaption>The mechanism at the start, {}: bodies as the outline of their centre of mass (small circle) and attachment points, beams through their nodes, joints (circle: revolute; with a dot: spherical; with a cross: universal; block on a guide: translational or cylindrical; filled square: fixed; dashed line: distance; hatched base: to ground), springs and dampers (orange), applied forces and torques (red), actuators (green arrows) and hydraulic cylinders (grey).</figcaption></figure>",
            escape(&view)
        );
    }
    if let Some(svg) = crate::drawing::circuit_figure(d) {
        let _ = writeln!(
            out,
            "<h3>Hydraulic circuit</h3>\n<figure class=\"circuit\">{svg}<figcaption>The circuit as a schematic: constant-pressure supply (circle with triangle) and tank at the bottom, 4/3 directional valves, throttles, the lumped volumes (rounded boxes: hose plus connected chambers) and the double-acting cylinders on top.</figcaption></figure>"
        );
    }
}
