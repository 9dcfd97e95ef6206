//! The semirecursive formulations as an ODE (Model Exchange, [Jaiswal2021, Sects. 2.2-3]): a host
//! with classical RK4 at a fixed step integrates the hydraulic four-bar and quick-return
//! mechanisms over their 10 s work cycles and the PATU lift boom ([Khadim2023]) over the
//! first 10 s of its cycle, with the time events of the work cycle (eqs. 46-47), the state events of the circuit's kinks and the step events of the partition, and
//! agrees with the co-simulation trapezoidal rule (eqs. 32-36) as its step goes to zero
//! (second order: the differences fall by about 4 per halving). The penalty item of
//! `solver.formulation` integrates the same ODE.

use crate::common;

use common::catalog;
use mbfmu_engine::partials::{Column, Known};
use mbfmu_engine::semirecursive::Semirecursive;
use mbfmu_engine::Simulation;
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::format::{self, Description, Formulation};
use mbfmu_model::variables::{event_indicator_names, interface_of, Binding, Quantity, StateLayout};

const MODELS: [&str; 3] = ["HydraulicFourBar", "HydraulicQuickReturn", "PatuLiftBoom"];
const SAMPLES: [f64; 5] = [2.0, 4.0, 6.0, 8.0, 10.0];

fn outputs(d: &Description) -> (Vec<String>, Vec<Quantity>) {
    let iface = interface_of(d).unwrap();
    let vars: Vec<_> = iface
        .outputs()
        .filter(|v| v.name.ends_with(".angle") || v.name.ends_with(".position") || v.name.ends_with(".pressure"))
        .collect();
    let quantities = vars
        .iter()
        .map(|v| match v.binding {
            Binding::Output(q) => q,
            ref b => panic!("{b:?}"),
        })
        .collect();
    (vars.iter().map(|v| v.name.clone()).collect(), quantities)
}

/// Counts of a host run.
#[derive(Debug, Default)]
struct Events {
    time: usize,
    state: usize,
    step: usize,
    new_states: usize,
}

/// RK4 at step `h` over the ODE of `d`, with time, state and step events; `quantities`
/// at `SAMPLES`.
fn model_exchange(d: &Description, h: f64, quantities: &[Quantity]) -> (Vec<Vec<f64>>, Events) {
    let mut sim = Simulation::new(d).expect("model builds");
    sim.ode_activate();
    let mut events = Events::default();
    sim.ode_event().unwrap();
    let n = sim.ode_len();
    let ni = sim.event_indicator_count();
    let (mut x, mut y) = (vec![0.0; n], vec![0.0; n]);
    let mut k: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; n]);
    let (mut z0, mut z1) = (vec![0.0; ni], vec![0.0; ni]);
    sim.ode_state(&mut x);
    sim.event_indicators(&mut z0).unwrap();
    let mut t = d.experiment.start;
    let mut rows = Vec::new();
    for &sample in &SAMPLES {
        while t < sample - 1e-12 {
            let next_event = sim.next_time_event().unwrap_or(f64::INFINITY);
            let t1 = (t + h).min(sample).min(next_event);
            let step = t1 - t;
            for (stage, c) in [0.0, 0.5, 0.5, 1.0].into_iter().enumerate() {
                for i in 0..n {
                    y[i] = x[i] + if stage == 0 { 0.0 } else { c * step * k[stage - 1][i] };
                }
                sim.set_ode_time(t + c * step);
                sim.set_ode_state(&y);
                sim.ode_derivatives(&mut k[stage]).unwrap_or_else(|e| panic!("{} at {t}: {e}", d.name));
            }
            for i in 0..n {
                x[i] += step / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
            }
            t = t1;
            sim.set_ode_time(t);
            sim.set_ode_state(&x);
            let step_event = sim.ode_completed_step().unwrap();
            sim.event_indicators(&mut z1).unwrap();
            let state_event = z0.iter().zip(&z1).any(|(a, b)| (*a > 0.0) != (*b > 0.0));
            let time_event = t >= next_event;
            if step_event || state_event || time_event {
                events.step += usize::from(step_event);
                events.state += usize::from(state_event);
                events.time += usize::from(time_event);
                if sim.ode_event().unwrap() {
                    events.new_states += 1;
                    sim.ode_state(&mut x);
                }
                sim.event_indicators(&mut z1).unwrap();
            }
            std::mem::swap(&mut z0, &mut z1);
        }
        let mut row = vec![0.0; quantities.len()];
        sim.quantities(quantities, &mut row);
        rows.push(row);
    }
    (rows, events)
}

/// The co-simulation trapezoidal rule at step `h`, sampled at `SAMPLES`.
fn co_simulation(d: &Description, h: f64, quantities: &[Quantity]) -> Vec<Vec<f64>> {
    let mut d = d.clone();
    d.solver.step_size = h;
    let mut sim = Simulation::new(&d).expect("model builds");
    SAMPLES
        .iter()
        .map(|&t| {
            sim.advance_to(t).unwrap();
            let mut row = vec![0.0; quantities.len()];
            sim.quantities(quantities, &mut row);
            row
        })
        .collect()
}

/// Largest difference per output over the samples, relative to the output's scale (1 rad,
/// 1 m, 1 MPa).
fn worst(a: &[Vec<f64>], b: &[Vec<f64>], names: &[String]) -> (f64, String) {
    let mut w = (0.0, String::new());
    for (ra, rb) in a.iter().zip(b) {
        for ((x, y), name) in ra.iter().zip(rb).zip(names) {
            let scale = if name.ends_with(".pressure") { 1e6 } else { 1.0 };
            let e = (x - y).abs() / scale;
            if e > w.0 {
                w = (e, name.clone());
            }
        }
    }
    w
}

#[test]
fn rk4_on_the_ode_agrees_with_co_simulation_as_its_step_shrinks() {
    for name in MODELS {
        let d = catalog(name);
        let (names, quantities) = outputs(&d);
        let (me, events) = model_exchange(&d, 5e-5, &quantities);
        let coarse = co_simulation(&d, 1e-4, &quantities);
        let fine = co_simulation(&d, 5e-5, &quantities);
        let (e_coarse, at_coarse) = worst(&me, &coarse, &names);
        let (e_fine, at_fine) = worst(&me, &fine, &names);
        println!(
            "{name}: RK4 ME vs trapezoidal CS: h = 1e-4 {e_coarse:.2e} ({at_coarse}), h = 5e-5 {e_fine:.2e} ({at_fine}); ratio {:.2}; {events:?}",
            e_coarse / e_fine
        );
        let reference = d.hydraulics.as_ref().unwrap().valves.iter().find_map(|v| match v {
            format::Valve::Directional { reference, .. } => Some(reference),
            _ => None,
        });
        let end = SAMPLES[SAMPLES.len() - 1];
        let switches = reference
            .expect("a directional valve")
            .cycle
            .iter()
            .filter(|c| c.from > d.experiment.start && c.from <= end)
            .count();
        assert!(
            switches >= 2 && events.time >= switches,
            "{name}: the work cycle's switches are time events: {events:?}"
        );
        // The trapezoidal rule's error at 5e-5 s: a few hundred Pa, 1e-6 rad.
        assert!(e_fine < 1e-3, "{name}: {e_fine} in {at_fine}");
        let ratio = e_coarse / e_fine;
        assert!((3.5..4.5).contains(&ratio), "{name}: second-order convergence of co-simulation to the ODE: {ratio}");
        let kinematic: Vec<usize> = (0..names.len()).filter(|&i| !names[i].ends_with(".pressure")).collect();
        let pick = |rows: &[Vec<f64>]| -> Vec<Vec<f64>> {
            rows.iter().map(|r| kinematic.iter().map(|&i| r[i]).collect()).collect()
        };
        let kinematic_names: Vec<String> = kinematic.iter().map(|&i| names[i].clone()).collect();
        let (e_angles, at_angles) = worst(&pick(&me), &pick(&fine), &kinematic_names);
        println!("{name}: joint coordinates at h = 5e-5: {e_angles:.2e} ({at_angles})");
        assert!(e_angles < 1e-5, "{name}: {e_angles} in {at_angles}");

        // The penalty item integrates the same ODE: bit for bit.
        let mut penalty = d.clone();
        penalty.solver.formulation = Formulation::SemirecursivePenalty;
        let (me_penalty, _) = model_exchange(&penalty, 1e-3, &quantities);
        let (me_double, _) = model_exchange(&d, 1e-3, &quantities);
        assert_eq!(me_penalty, me_double, "{name}");
    }
}

/// The Jacobian columns against plain central differences at another step through the
/// same interface (the accuracy of both: below 1e-6 of the column's largest entry).
#[test]
fn partial_columns_match_independent_central_differences() {
    let d = catalog("HydraulicFourBar");
    let mut sim = Simulation::new(&d).unwrap();
    sim.ode_activate();
    sim.ode_event().unwrap();
    // A moving state: half a second into the lift (the valve opens at 1 s).
    let mut cs = Simulation::new(&d).unwrap();
    cs.advance_to(1.5).unwrap();
    let n = sim.ode_len();
    let mut x = vec![0.0; n];
    cs.ode_state(&mut x);
    sim.set_ode_time(1.5);
    sim.set_ode_state(&x);
    sim.ode_event().unwrap();
    let mut column = Column::new(n, 0, sim.monitored_laws());
    let (mut plus, mut minus) = (vec![0.0; n], vec![0.0; n]);
    for j in 0..n {
        sim.partial_column(Known::State(j), &[], false, &mut column).unwrap();
        let h = 1e-6 * x[j].abs().max(1.0);
        let mut y = x.clone();
        y[j] = x[j] + h;
        sim.set_ode_state(&y);
        sim.ode_derivatives(&mut plus).unwrap();
        y[j] = x[j] - h;
        sim.set_ode_state(&y);
        sim.ode_derivatives(&mut minus).unwrap();
        sim.set_ode_state(&x);
        let scale = column.derivatives.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        for i in 0..n {
            let fd = (plus[i] - minus[i]) / (2.0 * h);
            assert!(
                (column.derivatives[i] - fd).abs() <= 1e-6 * scale.max(1e-12),
                "d f{i}/d x{j}: {} vs central differences {fd} (column scale {scale:.3e})",
                column.derivatives[i]
            );
        }
    }
}

/// The model crate predicts the ODE's state layout and event indicators of every
/// semirecursive catalog model (its modelDescription.xml is written before anything is
/// built) in both formulations.
#[test]
fn the_description_predicts_the_states_and_event_indicators() {
    for entry in CATALOG {
        let d = format::parse(entry.json).unwrap();
        if !d.solver.formulation.is_semirecursive() {
            continue;
        }
        for formulation in Formulation::SEMIRECURSIVE {
            let mut d = d.clone();
            d.solver.formulation = *formulation;
            let mut sim = Simulation::new(&d).unwrap();
            let l = sim.formulation::<Semirecursive>().unwrap().ode_layout();
            let predicted = StateLayout::of(&d).unwrap().unwrap();
            assert_eq!(
                (predicted.dof, predicted.pressures, predicted.spools, predicted.work, predicted.cylinders),
                (l.dof, l.pressures, l.spools, l.work, l.cylinders),
                "{}",
                d.name
            );
            assert_eq!(sim.ode_len(), predicted.len());
            let indicators = sim.event_indicator_count();
            assert_eq!(event_indicator_names(&d).len(), indicators, "{}", d.name);
            let iface = interface_of(&d).unwrap();
            assert_eq!(iface.states().count(), predicted.len());
            assert_eq!(iface.event_indicators().count(), indicators);
        }
    }
}
