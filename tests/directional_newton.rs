//! Directional derivatives in use: a Model Exchange host with its own implicit integrator
//! (the backward differentiation formulas: BDF2 at a fixed step, BDF1 after a start or event)
//! on the raw FMI 2 C ABI solves each step by Newton with the matrix I - b h J, J formed at
//! every step either from fmi2GetDirectionalDerivative (one column per call) or by forward
//! differences of fmi2GetDerivatives (one call per column). Both runs reach the same solution
//! (to the Newton tolerance); the directional derivatives need far fewer fmi2GetDerivatives
//! calls. The counts and wall times are printed; speed is a bench matter, so only the counts
//! and the results are asserted.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::host::Host;
use common_fmu::*;
use fmi_sys::fmi2 as f2;
use mbfmu_model::catalog::find;
use nalgebra::{DMatrix, DVector};
use std::cell::Cell;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Jacobian {
    Directional,
    Differences,
}

/// Calls a run made.
#[derive(Debug, Default)]
struct Counts {
    derivatives: Cell<u64>,
    directional: Cell<u64>,
    newton: Cell<u64>,
    events: Cell<u64>,
}

struct Run {
    outputs: Vec<f64>,
    counts: Counts,
    seconds: f64,
    /// The Newton matrix's Jacobian of the first step.
    first: DMatrix<f64>,
}

/// f(t, x) through the host, counted.
fn f(host: &Fmu2, counts: &Counts, t: f64, x: &[f64], out: &mut [f64]) {
    host.set_time(t);
    host.set_states(x);
    assert_eq!(host.derivatives(out), OK2, "{}", host.log());
    counts.derivatives.set(counts.derivatives.get() + 1);
}

/// J = df/dx at (t, x) into `jac`; `fx` is f(t, x).
#[allow(clippy::too_many_arguments)]
fn jacobian(
    host: &Fmu2,
    counts: &Counts,
    how: Jacobian,
    t: f64,
    x: &[f64],
    fx: &[f64],
    states: &[u32],
    derivatives: &[u32],
    jac: &mut DMatrix<f64>,
) {
    let n = x.len();
    let mut column = vec![0.0; n];
    match how {
        Jacobian::Directional => {
            host.set_time(t);
            host.set_states(x);
            for (j, &known) in states.iter().enumerate() {
                assert_eq!(host.directional(derivatives, &[known], &[1.0], &mut column), OK2, "{}", host.log());
                counts.directional.set(counts.directional.get() + 1);
                jac.set_column(j, &DVector::from_column_slice(&column));
            }
        }
        Jacobian::Differences => {
            let mut y = x.to_vec();
            for j in 0..n {
                let delta = f64::EPSILON.sqrt() * x[j].abs().max(1.0);
                y[j] = x[j] + delta;
                f(host, counts, t, &y, &mut column);
                y[j] = x[j];
                for i in 0..n {
                    jac[(i, j)] = (column[i] - fx[i]) / delta;
                }
            }
        }
    }
}

/// BDF2 at step `h` from the start to `stop` with the FMU's events; the outputs at `stop`.
fn bdf(name: &str, how: Jacobian, h: f64, stop: f64) -> Run {
    let entry = find(name).unwrap();
    let model = model(entry);
    let host = Fmu2::of_type(entry, "bdf", f2::fmi2Type_fmi2ModelExchange);
    let (start, _, _) = experiment(&model);
    host.init(start, stop);
    let states: Vec<u32> = model.interface.states().map(|v| v.value_reference).collect();
    let derivatives: Vec<u32> = model.interface.derivatives().map(|v| v.value_reference).collect();
    let outputs: Vec<u32> =
        model.interface.outputs().filter(|v| v.is_continuous_signal()).map(|v| v.value_reference).collect();
    let n = states.len();
    let mut nominals = vec![0.0; n];
    assert_eq!(unsafe { host.b.fmi2GetNominalsOfContinuousStates(host.c, nominals.as_mut_ptr(), n) }, OK2);
    let counts = Counts::default();
    let began = Instant::now();
    let mut next = host.start();
    let (mut x, mut previous) = (vec![0.0; n], vec![0.0; n]);
    host.states(&mut x);
    let mut jac = DMatrix::zeros(n, n);
    let (mut fx, mut y) = (vec![0.0; n], vec![0.0; n]);
    // Steps since the last start: BDF1 first, then BDF2.
    let mut history = 0;
    let mut t = start;
    let mut first = None;
    while t < stop - 1e-12 {
        let t1 = (t + h).min(stop).min(next.unwrap_or(f64::INFINITY));
        let step = t1 - t;
        // BDF1: x1 - x0 = h f1; BDF2 (equal steps): x1 - 4/3 x0 + 1/3 x-1 = 2/3 h f1.
        let second = history > 0 && (step - h).abs() <= 1e-12 * h;
        let (beta, c0, c1) = if second { (2.0 / 3.0, 4.0 / 3.0, -1.0 / 3.0) } else { (1.0, 1.0, 0.0) };
        // Predictor: extrapolation through the last two points, or the last point.
        for i in 0..n {
            y[i] = if second { x[i] + (x[i] - previous[i]) } else { x[i] };
        }
        f(&host, &counts, t1, &y, &mut fx);
        jacobian(&host, &counts, how, t1, &y, &fx, &states, &derivatives, &mut jac);
        first.get_or_insert_with(|| jac.clone());
        let matrix = DMatrix::<f64>::identity(n, n) - jac.clone() * (beta * step);
        let lu = matrix.lu();
        let mut converged = false;
        for _ in 0..10 {
            counts.newton.set(counts.newton.get() + 1);
            let r: Vec<f64> = (0..n).map(|i| y[i] - c0 * x[i] - c1 * previous[i] - beta * step * fx[i]).collect();
            let dx = lu.solve(&DVector::from_vec(r)).expect("the Newton matrix is regular");
            // Weighted RMS norm with the nominals: 1e-8 of the nominal or of the value.
            let norm =
                ((0..n).map(|i| (dx[i] / (1e-8 * (nominals[i] + y[i].abs()))).powi(2)).sum::<f64>() / n as f64).sqrt();
            for i in 0..n {
                y[i] -= dx[i];
            }
            f(&host, &counts, t1, &y, &mut fx);
            if norm <= 1.0 {
                converged = true;
                break;
            }
        }
        assert!(converged, "{name} ({how:?}): Newton did not converge at t = {t1}");
        previous.copy_from_slice(&x);
        x.copy_from_slice(&y);
        history += 1;
        t = t1;
        // fx is f(t1, x): the point the FMU holds.
        let time_event = next.is_some_and(|e| t >= e);
        if host.completed() || time_event {
            counts.events.set(counts.events.get() + 1);
            let (changed, upcoming) = host.event();
            next = upcoming;
            if changed {
                host.states(&mut x);
            }
            // The derivatives may jump: start again with BDF1.
            history = 0;
        }
    }
    let seconds = began.elapsed().as_secs_f64();
    let mut values = vec![0.0; outputs.len()];
    host.reals(&outputs, &mut values);
    Run { outputs: values, counts, seconds, first: first.expect("a step") }
}

#[test]
fn directional_derivatives_as_the_newton_matrix_save_derivative_calls() {
    for (name, h, stop) in [("HydraulicFourBar", 1e-3, 10.0), ("DoublePendulumStateSpace", 1e-3, 4.0)] {
        let with = bdf(name, Jacobian::Directional, h, stop);
        let without = bdf(name, Jacobian::Differences, h, stop);
        let (a, b) = (&with.counts, &without.counts);
        println!(
            "{name}: BDF2, h = {h} s, {stop} s, Jacobian every step: with fmi2GetDirectionalDerivative {} fmi2GetDerivatives + {} directional-derivative calls, {} Newton iterations, {:.3} s; with forward differences {} fmi2GetDerivatives, {} Newton iterations, {:.3} s; {} events",
            a.derivatives.get(),
            a.directional.get(),
            a.newton.get(),
            with.seconds,
            b.derivatives.get(),
            b.newton.get(),
            without.seconds,
            a.events.get()
        );
        assert!(a.derivatives.get() * 2 < b.derivatives.get(), "{name}: {a:?} vs {b:?}");
        // The same solution: the two Newton matrices differ, the solutions by the Newton
        // tolerance.
        let worst = with
            .outputs
            .iter()
            .zip(&without.outputs)
            .map(|(p, q)| (p - q).abs() / (1.0 + q.abs()))
            .fold(0.0f64, f64::max);
        println!("{name}: largest relative difference of the outputs at {stop} s: {worst:.1e}");
        // How far the forward differences are from the directional derivatives (which are
        // accurate to about 1e-9: tests/directional_derivatives.rs): entries above 1e-3 of
        // their row and above 1e-9 (round-off of a row that vanishes).
        let (dd, fd) = (&with.first, &without.first);
        let mut gap = 0.0f64;
        for i in 0..dd.nrows() {
            let row = (0..dd.ncols()).fold(0.0f64, |a, j| a.max(dd[(i, j)].abs()));
            for j in 0..dd.ncols() {
                if dd[(i, j)].abs() > (1e-3 * row).max(1e-9) {
                    gap = gap.max((fd[(i, j)] - dd[(i, j)]).abs() / dd[(i, j)].abs());
                }
            }
        }
        println!(
            "{name}: forward-difference Jacobian of the first step vs directional derivatives: {gap:.1e} relative"
        );
        assert!(worst < 1e-6, "{name}: {worst}");
    }
}
