//! Every catalog mechanism in the state-space formulation agrees with its index-3 result.

mod statespace;

use mbfmu::description::{Formulation, Method};
use mbfmu::engine::{Simulation, SolverSettings};
use mbfmu::interface::{Binding, Quantity};
use mbfmu::models::CATALOG;

#[test]
fn explore_catalog() {
    for entry in CATALOG {
        let base = mbfmu::description::parse(entry.json).unwrap();
        if base.solver.formulation != Formulation::Index3 || entry.name.contains("32") || entry.name.contains("Andrews")
        {
            continue;
        }
        let stop = (base.experiment.stop - base.experiment.start).min(1.0) + base.experiment.start;
        let mut ss = base.clone();
        ss.solver.formulation = Formulation::StateSpace;
        ss.solver.method = Method::TrapezoidalVariableStep;
        ss.solver.step_size = 0.01;
        ss.solver.absolute_tolerance = Some(1e-7);
        ss.solver.relative_tolerance = Some(1e-7);
        let mut idx = base.clone();
        idx.solver.method = Method::Bdf1;
        idx.solver.method = Method::Bathe;
        idx.solver.step_size = base.solver.step_size / 10.0;
        let iface = mbfmu::interface::interface_of(&base).unwrap();
        let outs: Vec<Quantity> = iface
            .outputs()
            .filter_map(|v| match v.binding {
                Binding::Output(q) => Some(q),
                _ => None,
            })
            .collect();
        let t0 = std::time::Instant::now();
        let mut a = match Simulation::new(&ss, SolverSettings::from_description(&ss)) {
            Ok(s) => s,
            Err(e) => {
                println!("{}: {e}", entry.name);
                continue;
            }
        };
        let mut b = Simulation::new(&idx, SolverSettings::from_description(&idx)).unwrap();
        let h = base.experiment.step;
        let n = ((stop - base.experiment.start) / h).round() as usize;
        let mut worst = (0.0f64, String::new());
        let mut worst_kin = (0.0f64, String::new());
        for k in 1..=n {
            let t = base.experiment.start + k as f64 * h;
            if let Err(e) = a.advance_to(t) {
                println!("{}: ss failed {e}", entry.name);
                break;
            }
            b.advance_to(t).unwrap();
            for (q, v) in outs.iter().zip(iface.outputs()) {
                if matches!(q, Quantity::NewtonIterations | Quantity::Steps) {
                    continue;
                }
                let d = (a.quantity(*q) - b.quantity(*q)).abs() / (1.0 + b.quantity(*q).abs());
                let kin = matches!(
                    q,
                    Quantity::BodyPosition { .. }
                        | Quantity::BodyVelocity { .. }
                        | Quantity::BodyAngularVelocity { .. }
                        | Quantity::JointAngle { .. }
                        | Quantity::JointAngleRate { .. }
                        | Quantity::JointPosition { .. }
                        | Quantity::JointVelocity { .. }
                        | Quantity::BodyOrientation { .. }
                );
                let w = if kin { &mut worst_kin } else { &mut worst };
                if d > w.0 {
                    *w = (d, format!("{} at {t}: {} vs {}", v.name, a.quantity(*q), b.quantity(*q)));
                }
            }
        }
        let s = a.state_space().unwrap();
        println!("{}: kinematics {:.3e} ({})", entry.name, worst_kin.0, worst_kin.1);
        println!(
            "{}: dof {} worst rel diff {:.3e} ({}) steps {} rej {} repartitions {} [{:.2} s]",
            entry.name,
            s.dof(),
            worst.0,
            worst.1,
            s.counters.steps,
            s.counters.rejected,
            s.counters.repartitions,
            t0.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn explore_fourlink() {
    let entry = mbfmu::models::find("FourLink").unwrap();
    let base = mbfmu::description::parse(entry.json).unwrap();
    let mut ss = base.clone();
    ss.solver.formulation = Formulation::StateSpace;
    ss.solver.method = Method::TrapezoidalVariableStep;
    ss.solver.step_size = 0.01;
    let mut idx = base.clone();
    idx.solver.method = Method::Bathe;
    idx.solver.step_size = 1e-4;
    let mut hi = base.clone();
    hi.solver.step_size = 1e-4;
    let mut sims: Vec<Simulation> =
        [ss, idx, hi].iter().map(|d| Simulation::new(d, SolverSettings::from_description(d)).unwrap()).collect();
    for k in 0..10 {
        let t = k as f64 * 0.1;
        let mut line = format!("t {t:.2}");
        for s in sims.iter_mut() {
            s.advance_to(t).unwrap();
            line += &format!(
                " | effort {:.5} work {:.5} lam0 {:.4}",
                s.quantity(Quantity::DriverEffort { driver: 0 }),
                s.quantity(Quantity::ExternalWork),
                s.state().lambda[0]
            );
        }
        println!("{line}");
    }
}

#[test]
fn explore_defaults() {
    for entry in CATALOG {
        let d = mbfmu::description::parse(entry.json).unwrap();
        if d.solver.formulation != Formulation::StateSpace {
            continue;
        }
        let t0 = std::time::Instant::now();
        let mut s = Simulation::new(&d, SolverSettings::from_description(&d)).unwrap();
        let n = ((d.experiment.stop - d.experiment.start) / d.experiment.step).round() as usize;
        let mut r = Ok(());
        for k in 1..=n {
            r = s.advance_to(d.experiment.start + k as f64 * d.experiment.step);
            if r.is_err() {
                break;
            }
        }
        let c = s.state_space().unwrap().counters;
        println!(
            "{}: {:?} steps {} rej {} rep {} evals {} in {:.2} s",
            entry.name,
            r,
            c.steps,
            c.rejected,
            c.repartitions,
            s.state_space().unwrap().evaluations(),
            t0.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn explore_me_chain() {
    let entry = mbfmu::models::find("NLinkChain4StateSpace").unwrap();
    let d = mbfmu::description::parse(entry.json).unwrap();
    let mut sim = Simulation::new(&d, SolverSettings::from_description(&d)).unwrap();
    let n = sim.ode_len();
    let mut x = vec![0.0; n];
    let mut dx = vec![0.0; n];
    let h = 1e-3;
    let mut t = 0.0;
    for k in 0..2200 {
        sim.ode_state(&mut x);
        sim.ode_derivatives(&mut dx).unwrap();
        for i in 0..n {
            x[i] += h * dx[i];
        }
        t += h;
        sim.set_ode_time(t);
        sim.set_ode_state(&x);
        let ev = sim.ode_completed_step().unwrap();
        if ev {
            let c = sim.ode_event().unwrap();
            println!("t {t:.3} event {c} partition {:?}", sim.state_space().unwrap().partition().independent);
        }
        if k % 100 == 0 || (t > 2.0) && k % 10 == 0 {
            let s = sim.state_space().unwrap();
            println!("t {t:.3} {}", s.debug_conditioning());
        }
    }
}
