//! Input and output derivatives through the raw C ABI: every bad argument
//! and every wrong state of fmi2SetRealInputDerivatives, fmi2GetRealOutputDerivatives and
//! fmi3GetOutputDerivatives is an Error with a log line that names the function, the
//! variable and the valid choices; the FMI 2 semantics after the step the derivatives were
//! set for; and input interpolation: inputs given as value and derivatives at coarse
//! communication points reproduce, bit for bit, a run in which the importer sets the input's
//! exact value at every internal step (evaluated where the formulation evaluates it), and
//! differ measurably from zero-order hold.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use mbfmu_model::catalog::find;
use mbfmu_model::Model;

const SET: &str = "fmi2SetRealInputDerivatives";
const GET2: &str = "fmi2GetRealOutputDerivatives";
const GET3: &str = "fmi3GetOutputDerivatives";

fn set_derivative(f: &Fmu2, vr: u32, order: i32, x: f64) -> u32 {
    unsafe { f.b.fmi2SetRealInputDerivatives(f.c, &vr, 1, &order, &x) }
}

fn get_derivative2(f: &Fmu2, vr: u32, order: i32) -> (u32, f64) {
    let mut x = f64::NAN;
    (unsafe { f.b.fmi2GetRealOutputDerivatives(f.c, &vr, 1, &order, &mut x) }, x)
}

fn get_derivative3(f: &Fmu3, vr: u32, order: i32) -> (u32, f64) {
    let mut x = f64::NAN;
    (unsafe { f.b.fmi3GetOutputDerivatives(f.c, &vr, 1, &order, &mut x, 1) }, x)
}

#[test]
fn bad_input_derivatives_are_errors_that_name_the_variable_and_the_choices() {
    let entry = find("SliderCrankFriction").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let load = var(&model, "load_force").value_reference;
    let output = var(&model, "slide.position").value_reference;
    let parameter = var(&model, "friction_coefficient").value_reference;
    let cases: [(u32, i32, f64, &[&str]); 9] = [
        (load, 1, f64::NAN, &["derivative of order 1 of 'load_force'", "not a finite number"]),
        (load, 2, f64::INFINITY, &["derivative of order 2 of 'load_force'", "not a finite number"]),
        (load, 3, 1.0, &["derivative order of 'load_force'", "orders 1 to 2"]),
        (load, 0, 1.0, &["derivative order of 'load_force'", "orders 1 to 2"]),
        (load, -1, 1.0, &["orders 1 to 2"]),
        (output, 1, 1.0, &["'slide.position'", "not a continuous Real input", "'load_force' (value reference"]),
        (parameter, 1, 1.0, &["'friction_coefficient'", "not a continuous Real input"]),
        (0, 1, 1.0, &["'time'", "not a continuous Real input"]),
        (9999, 1, 1.0, &["unknown value reference 9999"]),
    ];
    for (vr, order, x, needles) in cases {
        let f = Fmu2::new(entry, "badset2");
        f.init(start, stop);
        let mut needles = needles.to_vec();
        needles.push(SET);
        f.assert_error(set_derivative(&f, vr, order, x), &needles);
    }
    // NULL arrays for a nonzero count.
    let f = Fmu2::new(entry, "nullset2");
    f.init(start, stop);
    f.assert_error(
        unsafe { f.b.fmi2SetRealInputDerivatives(f.c, &load, 1, std::ptr::null(), &1.0) },
        &["order", "NULL"],
    );

    // Wrong states: stepFailed (a step over the step budget), terminated, error.
    let f = Fmu2::new(entry, "phaseset2");
    assert_eq!(f.set_integer(var(&model, "solver.maxStepsPerCall").value_reference, 2), OK2);
    f.init(start, stop);
    assert_eq!(set_derivative(&f, load, 1, 10.0), OK2, "{:?}", f.lines());
    assert_eq!(f.do_step(start, 10.0 * h), DISCARD2);
    f.assert_error(set_derivative(&f, load, 1, 10.0), &[SET, "not allowed in state stepFailed"]);
    let f = Fmu2::new(entry, "termset2");
    f.init(start, stop);
    assert_eq!(unsafe { f.b.fmi2Terminate(f.c) }, OK2);
    f.assert_error(set_derivative(&f, load, 1, 10.0), &[SET, "not allowed in state terminated"]);
    // Allowed before and during initialization (Sect. 4.2.4).
    let f = Fmu2::new(entry, "earlyset2");
    assert_eq!(set_derivative(&f, load, 2, -4.0), OK2, "{:?}", f.lines());
}

#[test]
fn bad_output_derivative_requests_are_errors_in_both_versions() {
    let entry = find("SliderCrankFriction").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let position = var(&model, "slide.position").value_reference;
    let cases: [(u32, i32, &[&str]); 6] = [
        (position, 0, &["derivative order of 'slide.position'", "orders 1 to 2", "maxOutputDerivativeOrder = 2"]),
        (position, 3, &["orders 1 to 2"]),
        (
            var(&model, "load_force").value_reference,
            1,
            &["'load_force'", "not a continuous output", "outputs of type Real"],
        ),
        (var(&model, "newton_iterations").value_reference, 1, &["'newton_iterations'", "not a continuous output"]),
        (var(&model, "rod.mass").value_reference, 2, &["'rod.mass'", "not a continuous output"]),
        (4242, 1, &["unknown value reference 4242"]),
    ];
    for (vr, order, needles) in cases {
        let f = Fmu2::new(entry, "badget2");
        f.init(start, stop);
        assert_eq!(f.do_step(start, h), OK2);
        let mut with_name = needles.to_vec();
        with_name.push(GET2);
        f.assert_error(get_derivative2(&f, vr, order).0, &with_name);
        let f = Fmu3::new(entry, "badget3");
        f.init(start, stop);
        assert_eq!(f.do_step(start, h).0, OK3);
        let mut with_name = needles.to_vec();
        with_name.push(GET3);
        f.assert_error(get_derivative3(&f, vr, order).0, &with_name);
    }
    // Wrong states: before a step (FMI 2.0.4 Sect. 4.2.4; FMI 3.0 Sect. 4.2.1: Step Mode).
    let f = Fmu2::new(entry, "phaseget2");
    f.assert_error(get_derivative2(&f, position, 1).0, &[GET2, "not allowed in state instantiated"]);
    let f = Fmu2::new(entry, "initget2");
    unsafe {
        assert_eq!(f.b.fmi2SetupExperiment(f.c, 0, 0.0, start, 1, stop), OK2);
        assert_eq!(f.b.fmi2EnterInitializationMode(f.c), OK2);
    }
    f.assert_error(get_derivative2(&f, position, 1).0, &[GET2, "not allowed in state initializationMode"]);
    let f = Fmu3::new(entry, "phaseget3");
    f.assert_error(get_derivative3(&f, position, 1).0, &[GET3, "not allowed in state Instantiated"]);
    let mut x = [0.0; 2];
    let f = Fmu3::new(entry, "countget3");
    f.init(start, stop);
    f.assert_error(
        unsafe { f.b.fmi3GetOutputDerivatives(f.c, &position, 1, &1, x.as_mut_ptr(), 2) },
        &[GET3, "nValues = 2 but nValueReferences = 1"],
    );
    // Terminated: the derivatives at the final time.
    let f = Fmu3::new(entry, "termget3");
    f.init(start, stop);
    assert_eq!(f.do_step(start, h).0, OK3);
    assert_eq!(unsafe { f.b.fmi3Terminate(f.c) }, OK3);
    let (s, v) = get_derivative3(&f, position, 1);
    assert_eq!(s, OK3);
    assert_eq!(v, f.get_f64(var(&model, "slide.velocity").value_reference).1, "slide.position' = slide.velocity");
    // Model Exchange instances have no communication steps.
    let me = find("DoublePendulumStateSpace").unwrap();
    let f = Fmu2::of_type(me, "meget2", fmi_sys::fmi2::fmi2Type_fmi2ModelExchange);
    let vr = var(&model_of(me), "bar1.position.x").value_reference;
    f.assert_error(get_derivative2(&f, vr, 1).0, &[GET2, "not allowed in state instantiated"]);
    f.assert_error(set_derivative(&f, 0, 1, 1.0), &[SET]);
}

fn model_of(entry: &mbfmu_model::catalog::CatalogEntry) -> Model {
    Model::from_catalog(entry).unwrap()
}

/// FMI 2 semantics: derivatives apply to the next doStep only; afterwards the input holds the
/// value its polynomial reached, which fmi2GetReal reports, and the run equals one whose
/// importer set that value without derivatives.
#[test]
fn input_derivatives_hold_the_reached_value_after_their_step() {
    let entry = find("SliderCrankFriction").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let load = var(&model, "load_force").value_reference;
    let (u0, u1, u2) = (40.0, 300.0, -500.0);
    let big = 10.0 * h;
    let with = Fmu2::new(entry, "hold2");
    with.init(start, stop);
    assert_eq!(with.set_real(load, u0), OK2);
    assert_eq!(set_derivative(&with, load, 1, u1), OK2);
    assert_eq!(set_derivative(&with, load, 2, u2), OK2);
    assert_eq!(with.do_step(start, big), OK2);
    let reached = u0 + big * (u1 + 0.5 * big * u2);
    let (s, held) = with.get_real(load);
    assert_eq!(s, OK2);
    assert!((held - reached).abs() < 1e-12 * reached.abs(), "held {held}, polynomial at the end {reached}");
    let other = Fmu2::new(entry, "hold2ref");
    other.init(start, stop);
    assert_eq!(other.set_real(load, u0), OK2);
    assert_eq!(set_derivative(&other, load, 1, u1), OK2);
    assert_eq!(set_derivative(&other, load, 2, u2), OK2);
    assert_eq!(other.do_step(start, big), OK2);
    assert_eq!(other.set_real(load, held), OK2);
    for k in 1..5 {
        let t = start + k as f64 * big;
        assert_eq!(with.do_step(t, big), OK2);
        assert_eq!(other.do_step(t, big), OK2);
    }
    assert_eq!(bits(&outputs2(&with, &model)), bits(&outputs2(&other, &model)));
}

/// Where a formulation evaluates its inputs inside an internal step [t_k, t_k+1]: the
/// half-implicit method at its start (loads at t_n), the semirecursive trapezoidal rule at
/// its end (loads at t_n+1), a valve reference as the trapezoidal mean over the step.
#[derive(Clone, Copy, Debug)]
enum Evaluated {
    Start,
    End,
    Mean,
}

/// The input polynomial the FMU forms from value and derivatives set at `tc`, evaluated
/// with the same arithmetic (`mbfmu_engine::inputs::InputSignals::at`).
fn polynomial(law: (f64, f64, f64), tc: f64, t: f64) -> f64 {
    let (a, b, c) = law;
    let (u, du, ddu) = (a + tc * (b + tc * c), b + 2.0 * c * tc, 2.0 * c);
    let dt = t - tc;
    u + dt * (du + 0.5 * dt * ddu)
}

struct Interpolation {
    model: &'static str,
    input: &'static str,
    /// u(t) = a + b t + c t^2.
    law: (f64, f64, f64),
    evaluated: Evaluated,
    stop: f64,
    /// Outputs that integrate the input's power over a step (trapezoidal rule with the
    /// interpolated input, held value in the exact-input run): not bit-identical.
    integrals: &'static [&'static str],
}

/// Outputs at the coarse communication points: with derivatives (`derivatives`) or zero-order
/// hold (coarse), or the exact-input run at every internal step (`fine`).
fn interpolation_run(case: &Interpolation, coarse: f64, fine: bool, derivatives: bool) -> Vec<Vec<f64>> {
    let entry = find(case.model).unwrap();
    let model = model(entry);
    let start = model.description.experiment.start;
    let step = model.description.solver.step_size;
    let n = (coarse / step).round() as usize;
    let vr = var(&model, case.input).value_reference;
    let f = Fmu2::new(entry, "interp2");
    f.init(start, case.stop);
    let mut rows = vec![outputs2(&f, &model)];
    let mut t = start;
    while t < case.stop - 0.5 * coarse {
        let end = t + coarse;
        let (a, b, c) = case.law;
        if fine {
            // The FMU's own sub-step grid of [t, end] (SubSteps), one doStep per internal step.
            let grid: Vec<f64> =
                (0..=n).map(|i| if i == n { end } else { t + (end - t) * (i as f64 / n as f64) }).collect();
            for w in grid.windows(2) {
                let x = match case.evaluated {
                    Evaluated::Start => polynomial(case.law, t, w[0]),
                    Evaluated::End => polynomial(case.law, t, w[1]),
                    Evaluated::Mean => 0.5 * (polynomial(case.law, t, w[0]) + polynomial(case.law, t, w[1])),
                };
                assert_eq!(f.set_real(vr, x), OK2);
                assert_eq!(f.do_step(w[0], w[1] - w[0]), OK2, "{}: {:?}", case.model, f.lines());
            }
        } else {
            assert_eq!(f.set_real(vr, a + t * (b + t * c)), OK2);
            if derivatives {
                assert_eq!(set_derivative(&f, vr, 1, b + 2.0 * c * t), OK2);
                assert_eq!(set_derivative(&f, vr, 2, 2.0 * c), OK2);
            }
            assert_eq!(f.do_step(t, coarse), OK2, "{}: {:?}", case.model, f.lines());
        }
        t = end;
        rows.push(outputs2(&f, &model));
    }
    rows
}

#[test]
fn interpolated_inputs_reproduce_the_exact_input_at_every_internal_step() {
    let cases = [
        // Index-3, half-implicit (inputs at the start of each internal step).
        Interpolation {
            model: "SliderCrankFriction",
            input: "load_force",
            law: (50.0, 300.0, -100.0),
            evaluated: Evaluated::Start,
            stop: 1.0,
            integrals: &["external_work"],
        },
        // Semirecursive with hydraulics: the valve reference over each internal step.
        Interpolation {
            model: "HydraulicFourBar",
            input: "U_ref",
            law: (0.0, 1.5, -0.4),
            evaluated: Evaluated::Mean,
            stop: 3.0,
            integrals: &[],
        },
        // Semirecursive: a force input at the end of each trapezoidal step.
        Interpolation {
            model: "HydraulicFourBarMechanism",
            input: "cylinder_force",
            law: (11029.380862269652, 3000.0, -800.0),
            evaluated: Evaluated::End,
            stop: 3.0,
            integrals: &["external_work", "energy_balance"],
        },
    ];
    for case in &cases {
        let entry = find(case.model).unwrap();
        let model = model(entry);
        let coarse = 10.0 * model.description.solver.step_size;
        let interpolated = interpolation_run(case, coarse, false, true);
        let exact = interpolation_run(case, coarse, true, false);
        let held = interpolation_run(case, coarse, false, false);
        let names: Vec<&str> = model.interface.outputs().map(|v| v.name.as_str()).collect();
        let mut worst_integral = 0.0f64;
        let mut worst_held = (0.0f64, "");
        // Work integrals are measured against the work done.
        let work = names.iter().position(|n| *n == "external_work");
        let work_scale = work.map_or(0.0, |w| exact.iter().fold(0.0f64, |m, r| m.max(r[w].abs())));
        for (j, name) in names.iter().enumerate() {
            let scale = exact.iter().fold(0.0f64, |m, r| m.max(r[j].abs())).max(1e-300);
            let scale = if case.integrals.contains(name) { work_scale } else { scale };
            for (k, (a, b)) in interpolated.iter().zip(&exact).enumerate() {
                if case.integrals.contains(name) {
                    worst_integral = worst_integral.max((a[j] - b[j]).abs() / scale);
                } else {
                    assert_eq!(
                        a[j].to_bits(),
                        b[j].to_bits(),
                        "{}: {name} at point {k}: {} vs {}",
                        case.model,
                        a[j],
                        b[j]
                    );
                }
            }
            let off = held.iter().zip(&exact).fold(0.0f64, |m, (a, b)| m.max((a[j] - b[j]).abs())) / scale;
            let health = ["constraint_violation", "newton_iterations", "steps"].contains(name);
            if off > worst_held.0 && !health {
                worst_held = (off, name);
            }
        }
        assert!(worst_integral < 5e-2, "{}: integrals differ by {worst_integral:.2e}", case.model);
        assert!(worst_held.0 > 1e-4, "{}: zero-order hold differs by only {:.2e}", case.model, worst_held.0);
        println!(
            "{}: interpolated = exact input bit for bit ({} points){}; zero-order hold differs by up to {:.2e} ({})",
            case.model,
            exact.len(),
            if case.integrals.is_empty() {
                String::new()
            } else {
                format!(", work integrals within {worst_integral:.1e}")
            },
            worst_held.0,
            worst_held.1
        );
    }
}
