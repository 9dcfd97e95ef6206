//! \[Jaiswal2021\]: the hydraulically actuated four-bar and quick-return mechanisms
//! over their 10 s work cycles (eqs. 46-47) in both semirecursive formulations: agreement of
//! double-step and penalty (Figs. 7-8), constraint violation (Figs. 11-12), energy balance
//! (Sect. 6.2), the static start, and the four-bar in the index-3 formulation of the engine.

use crate::common;

use common::{catalog, grid};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{Description, Formulation, Method};
use mbfmu_model::variables::{interface_of, Binding, Quantity};

const MODELS: [&str; 2] = ["HydraulicFourBar", "HydraulicQuickReturn"];

/// The model's joint coordinates (angles and slider positions) and its three pressures.
fn coordinates_and_pressures(d: &Description) -> Vec<String> {
    let iface = interface_of(d).unwrap();
    let mut names: Vec<String> = iface
        .outputs()
        .filter(|v| v.name.ends_with(".angle") || v.name.ends_with(".position"))
        .map(|v| v.name.clone())
        .collect();
    names.extend(["V1.pressure", "V2.pressure", "V3.pressure"].map(String::from));
    names
}

fn quantity(d: &Description, name: &str) -> Quantity {
    match interface_of(d).unwrap().by_name(name).unwrap_or_else(|| panic!("no output {name}")).binding {
        Binding::Output(q) => q,
        ref b => panic!("{name} is bound to {b:?}"),
    }
}

/// Runs `d` in `formulation` and samples `names` at `times`; also returns the largest
/// constraint violation after any internal step.
fn run(d: &Description, formulation: Formulation, times: &[f64], names: &[String]) -> (Vec<Vec<f64>>, f64) {
    let mut d = d.clone();
    d.solver.formulation = formulation;
    let mut sim = Simulation::new(&d).expect("model builds");
    let quantities: Vec<Quantity> = names.iter().map(|n| quantity(&d, n)).collect();
    let violation = quantity(&d, "constraint_violation");
    let h = d.solver.step_size;
    let mut worst = sim.quantity(violation);
    let mut rows = Vec::with_capacity(times.len());
    for &t in times {
        // Internal step by internal step, so that every step's violation is seen.
        while sim.time() < t - 0.5 * h {
            sim.advance_to((sim.time() + h).min(t)).unwrap_or_else(|e| panic!("{}: {e}", d.name));
            worst = worst.max(sim.quantity(violation));
        }
        rows.push(quantities.iter().map(|q| sim.quantity(*q)).collect());
    }
    (rows, worst)
}

/// Every output quantity of the model's interface.
fn outputs(d: &Description) -> Vec<Quantity> {
    let iface = interface_of(d).unwrap();
    iface
        .outputs()
        .filter_map(|v| match v.binding {
            Binding::Output(q) => Some(q),
            _ => None,
        })
        .collect()
}

fn column(rows: &[Vec<f64>], k: usize) -> impl Iterator<Item = f64> + '_ {
    rows.iter().map(move |r| r[k])
}

#[test]
fn double_step_and_penalty_agree_and_keep_their_constraints_and_energy() {
    let times = grid(0.0, 0.01, 1000);
    for model in MODELS {
        let d = catalog(model);
        let mut names = coordinates_and_pressures(&d);
        names.extend(["cylinder.work", "energy_balance"].map(String::from));
        let (ds, ds_violation) = run(&d, Formulation::SemirecursiveDoubleStep, &times, &names);
        let (pb, pb_violation) = run(&d, Formulation::SemirecursivePenalty, &times, &names);
        let n = names.len();
        for (k, name) in names[..n - 2].iter().enumerate() {
            let range = column(&ds, k).fold(f64::NEG_INFINITY, f64::max) - column(&ds, k).fold(f64::INFINITY, f64::min);
            let difference = ds.iter().zip(&pb).map(|(a, b)| (a[k] - b[k]).abs()).fold(0.0, f64::max);
            println!("{model} {name}: range {range:.4e}, max |double-step - penalty| {difference:.3e}");
            // Both solve the same equations to their Newton tolerances (1e-7 rad, 1e-2 Pa);
            // they differ by what the tolerances leave, far below the motion (Figs. 7-8).
            let bound = if name.ends_with("pressure") { 1e-5 * range } else { 1e-6 };
            assert!(difference < bound, "{model} {name}: {difference:e} >= {bound:e}");
        }
        // Figs. 11-12: double-step satisfies Phi = 0 to the Newton tolerance 1e-7 after
        // every step; the penalty formulation keeps a violation of the order of its
        // multiplier correction, below the plain penalty's force / alpha (1e4 N / 1e11).
        println!("{model}: max constraint violation double-step {ds_violation:.3e}, penalty {pb_violation:.3e}");
        assert!(ds_violation <= d.solver.tolerance, "{model}: double-step violation {ds_violation:e}");
        assert!(pb_violation < 1e-7, "{model}: penalty violation {pb_violation:e}");
        // [Jaiswal2021, Sect. 6.2]: |E - E0 - W| below 0.1 % of the largest actuator work over the cycle.
        for (label, rows) in [("double-step", &ds), ("penalty", &pb)] {
            let work = column(rows, n - 2).fold(0.0, |a: f64, w| a.max(w.abs()));
            let drift = column(rows, n - 1).fold(0.0, |a: f64, e| a.max(e.abs()));
            println!(
                "{model} {label}: max |work| {work:.3} J, max |energy balance| {drift:.3e} J ({:.4} %)",
                100.0 * drift / work
            );
            assert!(work > 100.0, "{model}: the work cycle does work ({work} J)");
            assert!(drift < 1e-3 * work, "{model} {label}: energy drift {drift} J of {work} J");
        }
    }
}

#[test]
fn a_static_start_holds_still_until_the_valve_opens() {
    // Both work cycles (eqs. 46-47) keep the valve closed until t = 1 s.
    let before = grid(0.0, 0.05, 19);
    let after = [1.2, 1.5];
    let times: Vec<f64> = before.iter().chain(&after).copied().collect();
    for model in MODELS {
        let d = catalog(model);
        let names = coordinates_and_pressures(&d);
        for formulation in Formulation::SEMIRECURSIVE {
            let sim = Simulation::new(&d).unwrap();
            let start: Vec<f64> = names.iter().map(|n| sim.quantity(quantity(&d, n))).collect();
            let (rows, _) = run(&d, *formulation, &times, &names);
            for (k, name) in names.iter().enumerate() {
                let pressure = name.ends_with("pressure");
                // At rest: coordinates to the Newton tolerance, pressures to 1 Pa (of MPa).
                let still = if pressure { 1.0 } else { 1e-7 };
                let moved = rows[..before.len()].iter().map(|r| (r[k] - start[k]).abs()).fold(0.0, f64::max);
                assert!(moved < still, "{model} {formulation:?} {name} moved by {moved:e} before the valve opened");
            }
            // Once the valve opens the mechanism moves (the first coordinate is the crank or boom).
            let late = rows.last().unwrap();
            let moved = (late[0] - start[0]).abs();
            println!("{model} {formulation:?}: {} moved {moved:.4} after the valve opened", names[0]);
            assert!(moved > 1e-2, "{model} {formulation:?}: {} moved only {moved:e}", names[0]);
        }
    }
}

/// Runs `d` (a mechanism with one force input) with `formulation` and `method`, the input
/// held at `forces[k]` over [k dt, (k + 1) dt], and samples `names` at the grid points.
fn driven(
    d: &Description,
    formulation: Formulation,
    method: Method,
    h: f64,
    forces: &[f64],
    dt: f64,
    names: &[&str],
) -> Vec<Vec<f64>> {
    let mut d = d.clone();
    d.solver.formulation = formulation;
    d.solver.method = method;
    d.solver.step_size = h;
    let mut sim = Simulation::new(&d).unwrap_or_else(|e| panic!("{formulation:?}: {e}"));
    let quantities: Vec<Quantity> = names.iter().map(|n| quantity(&d, n)).collect();
    let mut rows = Vec::new();
    for (k, f) in forces.iter().enumerate() {
        sim.set_input(0, *f).unwrap();
        sim.advance_to((k + 1) as f64 * dt).unwrap_or_else(|e| panic!("{formulation:?}: {e}"));
        rows.push(quantities.iter().map(|q| sim.quantity(*q)).collect());
    }
    rows
}

#[test]
fn the_four_bar_in_the_index3_formulation_agrees_with_the_semirecursive_one() {
    // The cylinder force of the monolithic double-step run over the work cycle, sampled every
    // 10 ms, drives the mechanism alone (HydraulicFourBarMechanism, the same bodies, joints and
    // actuator) in absolute coordinates (index-3, [Fang2023]) and in relative coordinates.
    let dt = 0.01;
    let monolithic = catalog("HydraulicFourBar");
    let (rows, _) =
        run(&monolithic, Formulation::SemirecursiveDoubleStep, &grid(0.0, dt, 999), &["cylinder.force".into()]);
    let start = Simulation::new(&monolithic).unwrap();
    let mut forces = vec![start.quantity(quantity(&monolithic, "cylinder.force"))];
    forces.extend(rows.iter().map(|r| r[0]));
    let d = catalog("HydraulicFourBarMechanism");
    let names = ["O.angle", "C.angle", "D.angle"];
    let semi = driven(&d, Formulation::SemirecursiveDoubleStep, Method::Trapezoidal, 1e-3, &forces, dt, &names);
    let index3 = driven(&d, Formulation::Index3, Method::Ss2, 1e-3, &forces, dt, &names);
    for (k, name) in names.iter().enumerate() {
        let range = column(&semi, k).fold(f64::NEG_INFINITY, f64::max) - column(&semi, k).fold(f64::INFINITY, f64::min);
        let difference = semi.iter().zip(&index3).map(|(a, b)| (a[k] - b[k]).abs()).fold(0.0, f64::max);
        println!("{name}: range {range:.4e} rad, max |index-3 - semirecursive| {difference:.3e} rad");
        assert!(range > 0.1, "{name} moves");
        // Both trapezoidal at 1 ms on the same input: they differ by O(h^2) discretization.
        assert!(difference < 1e-5, "{name}: {difference:e}");
    }
}

/// A step whose converged coordinate correction is negligible keeps the positions of its
/// last Newton evaluation instead of evaluating them again (`semirecursive/step.rs`,
/// `NEGLIGIBLE`): the trajectory must stay Newton's. Over the 10 s cycle both formulations
/// agree with runs at 1000 times tighter tolerances (1e-10 rad, 1e-5 Pa) to 1e-8 rad (a tenth
/// of the tolerance) and 0.1 Pa: the method at its tolerances is within 2.5e-9 rad and
/// 2.7e-2 Pa of them (with the tangent kept across steps; 4e-11 rad and 1.2e-2 Pa forming it
/// every step), while ending each step at its last evaluation's coordinates (dropping the
/// correction) misses by 1.2e-7 rad and 14 Pa. And the kinematics a step leaves lagging stay
/// reproducible: a state restored from a snapshot has every output bit for bit.
#[test]
fn steps_ending_at_their_last_evaluation_keep_newtons_trajectory_and_restore_bit_for_bit() {
    use mbfmu_engine::semirecursive::Semirecursive;
    for name in MODELS {
        let d = catalog(name);
        let names = coordinates_and_pressures(&d);
        let quantities = outputs(&d);
        for formulation in [Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty] {
            let (rows, _) = run(&d, formulation, &[10.0], &names);
            let mut tight = d.clone();
            tight.solver.tolerance *= 1e-3;
            tight.solver.pressure_tolerance *= 1e-3;
            let (reference, _) = run(&tight, formulation, &[10.0], &names);
            for (k, name_k) in names.iter().enumerate() {
                let limit = if name_k.ends_with(".pressure") { 0.1 } else { 1e-8 };
                let error = (rows[0][k] - reference[0][k]).abs();
                assert!(error <= limit, "{name} {formulation:?}: {name_k} off the tight run by {error:.2e}");
            }

            let mut d = d.clone();
            d.solver.formulation = formulation;
            let mut sim = Simulation::new(&d).unwrap();
            let h = d.solver.step_size;
            let (mut lagging, mut restored) = (0, 0);
            for k in 1..=2000 {
                sim.advance_to(k as f64 * h).unwrap();
                let s = sim.formulation::<Semirecursive>().unwrap();
                let lag = s.state.z.iter().zip(&s.state.kin_z).fold(0.0f64, |a, (z, k)| a.max((z - k).abs()));
                assert!(lag <= 2e-3 * d.solver.tolerance, "{name} step {k}: kinematics lag by {lag:.1e}");
                lagging += usize::from(lag > 0.0);
                if lag == 0.0 || k % 100 != 0 {
                    continue;
                }
                let mut before = vec![0.0; quantities.len()];
                sim.quantities(&quantities, &mut before);
                let snapshot = sim.snapshot();
                sim.advance_to(k as f64 * h + 0.5 * h).unwrap();
                sim.restore(&snapshot).unwrap();
                let mut after = vec![0.0; quantities.len()];
                sim.quantities(&quantities, &mut after);
                for (q, (b, a)) in quantities.iter().zip(before.iter().zip(&after)) {
                    assert_eq!(b.to_bits(), a.to_bits(), "{name} {formulation:?} at step {k}: {q:?} {b} -> {a}");
                }
                restored += 1;
            }
            assert!(
                lagging > 1000 && restored > 5,
                "{name} {formulation:?}: {lagging} of 2000 steps end at their last evaluation, {restored} restored"
            );
        }
    }
}

/// A step that converges at its first iteration leaves its Newton tangent to the next one
/// (`semirecursive/kept_tangent.rs`); the tangent is part of the state. A snapshot taken while
/// a kept tangent is in use continues bit for bit when restored, into the same simulation or
/// a new one; and over the static start of the cycle most steps form none.
#[test]
fn a_kept_newton_tangent_is_part_of_the_state() {
    use mbfmu_engine::semirecursive::Semirecursive;
    let semi = |sim: &Simulation| -> (u32, u64) {
        let s = sim.formulation::<Semirecursive>().unwrap();
        (s.state.tangent.age, s.tangents)
    };
    for name in MODELS {
        for formulation in [Formulation::SemirecursiveDoubleStep, Formulation::SemirecursivePenalty] {
            let mut d = catalog(name);
            d.solver.formulation = formulation;
            let quantities = outputs(&d);
            let h = d.solver.step_size;
            let mut sim = Simulation::new(&d).unwrap();
            // Into the motion, to a step that went on with a tangent it was given.
            let mut k = 0;
            while k < 3000 || semi(&sim).0 == 0 {
                k += 1;
                sim.advance_to(k as f64 * h).unwrap();
                assert!(k < 6000, "{name} {formulation:?}: no step used a kept tangent");
                if k == 1000 {
                    // The static start converges at once: most steps go on with a kept tangent.
                    let formed = semi(&sim).1;
                    assert!(formed * 2 < k as u64, "{name} {formulation:?}: {formed} tangents formed in {k} steps");
                }
            }
            let snapshot = sim.snapshot();
            let go_on = |sim: &mut Simulation| -> Vec<u64> {
                let mut bits = Vec::new();
                let mut out = vec![0.0; quantities.len()];
                for j in 1..=400 {
                    sim.advance_to((k + j) as f64 * h).unwrap();
                    sim.quantities(&quantities, &mut out);
                    bits.extend(out.iter().map(|x| x.to_bits()));
                }
                bits
            };
            let first = go_on(&mut sim);
            sim.restore(&snapshot).unwrap();
            assert!(go_on(&mut sim) == first, "{name} {formulation:?}: the restored state went another way");
            let mut other = Simulation::new(&d).unwrap();
            other.restore(&snapshot).unwrap();
            assert!(go_on(&mut other) == first, "{name} {formulation:?}: a new simulation went another way");
        }
    }
}
