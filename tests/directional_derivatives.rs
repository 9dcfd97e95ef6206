//! Directional derivatives through the raw C ABI (fmi2GetDirectionalDerivative,
//! fmi3GetDirectionalDerivative) against central differences of the same FMU's values, one
//! model per formulation and both versions:
//! - Model Exchange of the state-space double pendulum and slider-crank (whose driver makes
//!   time a known) and of the semirecursive hydraulic four-bar at a moving point: every
//!   column of the state derivatives and of the outputs by the states, the inputs and time;
//! - co-simulation feed-through of the split four-bar's drive and mechanism and of the
//!   slider-crank with friction (whose outputs do not feed through) at a communication point.
//!
//! The reference differences step 1e-5 of a known's scale (max(|x|, 1)): their truncation
//! error is about 1e-10 and their round-off about 1e-13 / 1e-5 = 1e-8 of an entry (the
//! dependent coordinates are solved to about 1e-13). An entry passes within 1e-5 of itself
//! plus 1e-6 of the largest entry of its row after scaling each column by its known's scale
//! (the entries of a row have different units). The same comparison checks the declared
//! `<ModelStructure>` dependencies: an entry that is not declared must vanish (below 1e-8 of
//! its row, round-off of the differences).

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::host::Host;
use common_fmu::*;
use fmi_sys::fmi2 as f2;
use mbfmu_model::catalog::find;
use mbfmu_model::format::Quantity;
use mbfmu_model::variables::{dependencies, Binding, Known, StateLayout, Unknown};
use mbfmu_model::Model;

/// The knowns and unknowns of a Model Exchange model and their value references.
struct Me {
    states: Vec<u32>,
    derivatives: Vec<u32>,
    outputs: Vec<u32>,
    inputs: Vec<u32>,
    time: u32,
}

fn me_variables(model: &Model) -> Me {
    let vrs = |f: &dyn Fn(&mbfmu_model::variables::Variable) -> bool| {
        model.interface.variables.iter().filter(|v| f(v)).map(|v| v.value_reference).collect::<Vec<_>>()
    };
    Me {
        states: model.interface.states().map(|v| v.value_reference).collect(),
        derivatives: model.interface.derivatives().map(|v| v.value_reference).collect(),
        outputs: vrs(&|v| matches!(v.binding, Binding::Output(_)) && v.is_continuous_signal()),
        inputs: vrs(&|v| matches!(v.binding, Binding::Input { .. })),
        time: 0,
    }
}

/// Whether `known` (value reference) is a declared dependency of `unknown`.
fn declared(model: &Model, unknown: u32, known: u32) -> bool {
    let d = &model.description;
    let layout = StateLayout::of(d).unwrap();
    let var = |vr: u32| &model.interface.variables[vr as usize];
    let unknown = match var(unknown).binding {
        Binding::Output(q) => Unknown::Output(q),
        Binding::Derivative { index } => Unknown::Derivative(index),
        ref b => panic!("{b:?}"),
    };
    let known = match var(known).binding {
        Binding::State { index } => Known::State(index),
        Binding::Input { index } => Known::Input(index),
        Binding::Time => Known::Time,
        ref b => panic!("{b:?}"),
    };
    dependencies(d, layout.as_ref(), unknown).iter().any(|dep| dep.known == known)
}

/// The largest error of an entry over its tolerance, and where.
struct Check {
    worst: f64,
    where_: String,
    /// The largest relative error of an entry above 1e-3 of its row.
    relative: f64,
}

/// Compares the scaled columns `dd` and `fd` (rows x columns, column-major; `scales` per
/// column) and the declared dependencies; returns the worst relative error. `values` are the
/// rows' values: a row that is round-off (an angular velocity out of the plane of a planar
/// mechanism) is compared against 1e-10 of max(|value|, 1).
fn compare(
    model: &Model,
    rows: &[u32],
    cols: &[u32],
    scales: &[f64],
    values: &[f64],
    dd: &[Vec<f64>],
    fd: &[Vec<f64>],
) -> Check {
    let name = |vr: u32| model.interface.variables[vr as usize].name.clone();
    let mut check = Check { worst: 0.0, where_: String::new(), relative: 0.0 };
    for (i, &row) in rows.iter().enumerate() {
        let scale = (0..cols.len()).fold(0.0f64, |a, k| a.max((fd[k][i] * scales[k]).abs()));
        let floor = 1e-10 * values[i].abs().max(1.0);
        for (k, &col) in cols.iter().enumerate() {
            let (a, b) = (dd[k][i], fd[k][i]);
            let tolerance = 1e-5 * b.abs() + (1e-6 * scale + floor) / scales[k];
            assert!(
                (a - b).abs() <= tolerance,
                "d {} / d {}: directional derivative {a:e}, central differences {b:e} (row scale {scale:e})",
                name(row),
                name(col)
            );
            if !declared(model, row, col) {
                assert!(
                    (a * scales[k]).abs() <= 1e-8 * scale + floor,
                    "d {} / d {} = {a:e} but {} does not declare {} among its dependencies",
                    name(row),
                    name(col),
                    name(row),
                    name(col)
                );
            }
            let error = (a - b).abs() / tolerance;
            if error > check.worst {
                check.worst = error;
                check.where_ = format!("d {} / d {}", name(row), name(col));
            }
            if (b * scales[k]).abs() > 1e-3 * scale + floor {
                check.relative = check.relative.max((a - b).abs() / b.abs());
            }
        }
    }
    check
}

/// RK4 at step `h` from the start to `until` with the FMU's events: a moving point.
fn run_to(host: &dyn Host, n: usize, start: f64, until: f64, h: f64) {
    let mut next = host.start();
    let (mut x, mut y) = (vec![0.0; n], vec![0.0; n]);
    let mut k: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; n]);
    host.states(&mut x);
    let mut t = start;
    while t < until - 1e-12 {
        let t1 = (t + h).min(until).min(next.unwrap_or(f64::INFINITY));
        let step = t1 - t;
        for (stage, c) in [0.0, 0.5, 0.5, 1.0].into_iter().enumerate() {
            for i in 0..n {
                y[i] = x[i] + if stage == 0 { 0.0 } else { c * step * k[stage - 1][i] };
            }
            host.set_time(t + c * step);
            host.set_states(&y);
            assert_eq!(host.derivatives(&mut k[stage]), host.ok(), "{}", host.log());
        }
        for i in 0..n {
            x[i] += step / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
        }
        t = t1;
        host.set_time(t);
        host.set_states(&x);
        if host.completed() || next.is_some_and(|e| t >= e) {
            let (changed, upcoming) = host.event();
            next = upcoming;
            if changed {
                host.states(&mut x);
            }
        }
    }
}

/// `outputs` without the orientation quaternions that are not differentiable at the current
/// point: a quaternion is output with e0 >= 0, so where a rotation passes through half a turn
/// (e0 = 0) all four components change sign. A quaternion within 1e-2 of e0 = 0 is left out,
/// so that neither the differences here nor the FMU's (1e-3 of a state's scale) straddle the
/// flip; HydraulicFourBar's link3 starts at half a turn.
fn differentiable_outputs(host: &dyn Host, model: &Model, outputs: &[u32]) -> Vec<u32> {
    // (Beams, whose nodes have orientations too, have no Model Exchange.)
    let near_flip = |vr: u32| match model.interface.variables[vr as usize].binding {
        Binding::Output(Quantity::BodyOrientation { body, .. }) => {
            let e0 = var(model, &format!("{}.orientation.e0", model.description.bodies[body].name));
            let mut x = [0.0];
            host.reals(&[e0.value_reference], &mut x);
            x[0] < 1e-2
        }
        _ => false,
    };
    outputs.iter().copied().filter(|&vr| !near_flip(vr)).collect()
}

/// Every column of the Model Exchange Jacobian at the point reached at `until`, against
/// central differences; returns the columns (for comparing the two versions) and the worst
/// relative error.
fn model_exchange_columns(host: &dyn Host, model: &Model, until: f64, h: f64) -> (Vec<Vec<f64>>, Check) {
    let v = me_variables(model);
    let n = v.states.len();
    let (start, _, _) = experiment(model);
    run_to(host, n, start, until, h);
    let v = Me { outputs: differentiable_outputs(host, model, &v.outputs), ..v };
    let rows: Vec<u32> = v.derivatives.iter().chain(&v.outputs).copied().collect();
    // Time is a known where the dependencies list it (drivers).
    let time_known = v.derivatives.iter().chain(&v.outputs).any(|&d| declared(model, d, v.time));
    let mut cols: Vec<u32> = v.states.iter().chain(&v.inputs).copied().collect();
    if time_known {
        cols.push(v.time);
    }
    let mut x = vec![0.0; n];
    host.states(&mut x);
    let value = |vr: u32| -> f64 {
        match v.states.iter().position(|&s| s == vr) {
            Some(i) => x[i],
            None if vr == v.time => until,
            None => {
                let mut u = [0.0];
                host.reals(&[vr], &mut u);
                u[0]
            }
        }
    };
    let scales: Vec<f64> = cols.iter().map(|&c| value(c).abs().max(1.0)).collect();
    let (mut dd, mut fd) = (Vec::new(), Vec::new());
    let mut out = vec![0.0; rows.len()];
    let eval = |out: &mut [f64]| {
        let (d, o) = out.split_at_mut(n);
        assert_eq!(host.derivatives(d), host.ok(), "{}", host.log());
        host.reals(&v.outputs, o);
    };
    let mut values = vec![0.0; rows.len()];
    eval(&mut values);
    for (&col, &scale) in cols.iter().zip(&scales) {
        assert_eq!(host.directional(&rows, &[col], &[1.0], &mut out), host.ok(), "{}", host.log());
        dd.push(out.clone());
        let x0 = value(col);
        let step = 1e-5 * scale;
        let set = |to: f64| match v.states.iter().position(|&s| s == col) {
            Some(i) => {
                let mut y = x.clone();
                y[i] = to;
                host.set_states(&y);
            }
            None if col == v.time => host.set_time(to),
            None => host.set_real(col, to),
        };
        let (mut plus, mut minus) = (vec![0.0; rows.len()], vec![0.0; rows.len()]);
        set(x0 + step);
        eval(&mut plus);
        set(x0 - step);
        eval(&mut minus);
        set(x0);
        fd.push(plus.iter().zip(&minus).map(|(p, m)| (p - m) / (2.0 * step)).collect());
    }
    // A seed of two knowns is the sum of their columns.
    let (a, b) = (cols[0], cols[cols.len() - 1]);
    assert_eq!(host.directional(&rows, &[a, b], &[2.0, -0.5], &mut out), host.ok());
    for (i, o) in out.iter().enumerate() {
        let expected = 2.0 * dd[0][i] - 0.5 * dd[cols.len() - 1][i];
        assert!((o - expected).abs() <= 1e-12 * expected.abs().max(1e-300), "row {i}: {o} vs {expected}");
    }
    let check = compare(model, &rows, &cols, &scales, &values, &dd, &fd);
    (dd, check)
}

#[test]
fn model_exchange_directional_derivatives_match_central_differences() {
    // (model, time of the point, RK4 step to reach it)
    for (name, until, h) in [
        ("DoublePendulumStateSpace", 0.6, 1e-3),
        ("SliderCrankStateSpace", 0.3, 1e-3),
        ("HydraulicFourBar", 1.5, 1e-4),
        // The split at the valve ports: pressures by the pressure inputs at the valve's
        // orifices, volumes by their inflow inputs.
        ("HydraulicFourBarValveDrive", 1.5, 1e-4),
        ("HydraulicFourBarCylinderMechanism", 0.3, 1e-4),
    ] {
        let entry = find(name).unwrap();
        let model = model(entry);
        let f2 = Fmu2::of_type(entry, "dd-me2", f2::fmi2Type_fmi2ModelExchange);
        let (start, stop, _) = experiment(&model);
        f2.init(start, stop);
        let (dd2, check) = model_exchange_columns(&f2, &model, until, h);
        println!(
            "{name} FMI 2: {} columns, largest relative error {:.1e} (entries above 1e-3 of their row), largest error {:.2} of its tolerance ({})",
            dd2.len(),
            check.relative,
            check.worst,
            check.where_
        );
        let f3 = Fmu3::model_exchange(entry, "dd-me3");
        f3.init(start, stop);
        let (dd3, _) = model_exchange_columns(&f3, &model, until, h);
        assert_eq!(dd2, dd3, "{name}: both versions run the same code");
    }
}

#[test]
fn co_simulation_feedthrough_matches_central_differences() {
    for name in [
        "HydraulicFourBarDrive",
        "HydraulicFourBarMechanism",
        "SliderCrankFriction",
        "HydraulicFourBarValveDrive",
        "HydraulicFourBarCylinderMechanism",
    ] {
        let entry = find(name).unwrap();
        let model = model(entry);
        let (start, stop, step) = experiment(&model);
        let outputs: Vec<u32> =
            model.interface.outputs().filter(|v| v.is_continuous_signal()).map(|v| v.value_reference).collect();
        let inputs: Vec<u32> = model.interface.inputs().map(|v| v.value_reference).collect();
        let f2 = Fmu2::new(entry, "dd-cs2");
        f2.init(start, stop);
        let f3 = Fmu3::new(entry, "dd-cs3");
        f3.init(start, stop);
        // The valve opens with its work cycle: step into the cycle so that its port flows
        // feed through from the port pressures.
        let steps = if name == "HydraulicFourBarValveDrive" { (1.5 / step) as usize } else { 20 };
        for k in 0..steps {
            assert_eq!(f2.do_step(start + k as f64 * step, step), OK2);
            assert_eq!(f3.do_step(start + k as f64 * step, step).0, OK3);
        }
        let hosts: [&dyn Host; 2] = [&f2, &f3];
        let mut columns = Vec::new();
        for host in hosts {
            let (mut dd, mut fd, mut scales) = (Vec::new(), Vec::new(), Vec::new());
            let mut out = vec![0.0; outputs.len()];
            for &u in &inputs {
                assert_eq!(host.directional(&outputs, &[u], &[1.0], &mut out), host.ok(), "{}", host.log());
                dd.push(out.clone());
                let mut u0 = [0.0];
                host.reals(&[u], &mut u0);
                let scale = u0[0].abs().max(1.0);
                // The outputs are evaluated without iterations (no Newton round-off): a small
                // step resolves the seal friction, steep over its Stribeck velocity.
                let h = 1e-7 * scale;
                let (mut plus, mut minus) = (vec![0.0; outputs.len()], vec![0.0; outputs.len()]);
                host.set_real(u, u0[0] + h);
                host.reals(&outputs, &mut plus);
                host.set_real(u, u0[0] - h);
                host.reals(&outputs, &mut minus);
                host.set_real(u, u0[0]);
                fd.push(plus.iter().zip(&minus).map(|(p, m)| (p - m) / (2.0 * h)).collect::<Vec<f64>>());
                scales.push(scale);
            }
            for (k, (a, b)) in dd.iter().zip(&fd).enumerate() {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    let what = || {
                        let n = |vr: u32| model.interface.variables[vr as usize].name.clone();
                        format!("{name}: d {} / d {}", n(outputs[i]), n(inputs[k]))
                    };
                    assert!((x - y).abs() <= 1e-6 * y.abs().max(1e-9), "{}: {x:e} vs {y:e}", what());
                    // Co-simulation declares exactly the feed-through (a zero column stays zero).
                    let layout = StateLayout::of(&model.description).unwrap();
                    let q = match model.interface.variables[outputs[i] as usize].binding {
                        Binding::Output(q) => q,
                        _ => unreachable!(),
                    };
                    let listed = dependencies(&model.description, layout.as_ref(), Unknown::Output(q))
                        .iter()
                        .any(|d| d.known == Known::Input(k));
                    if *y != 0.0 {
                        assert!(listed, "{}: not declared", what());
                    }
                }
            }
            let nonzero = dd.iter().flatten().filter(|x| **x != 0.0).count();
            if name == "HydraulicFourBarValveDrive" {
                // Each port's flow by its own pressure (and the pump's flow by both).
                assert!(nonzero >= 2, "{name}: the open valve's flows follow the port pressures");
            }
            println!(
                "{name}: {} inputs x {} outputs, {nonzero} nonzero feed-through entries",
                inputs.len(),
                outputs.len()
            );
            columns.push(dd);
        }
        assert_eq!(columns[0], columns[1], "{name}: both versions");
    }
}
