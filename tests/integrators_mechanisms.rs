//! The integrator suite of \[Zhang2022\] on mechanisms, through `Simulation` (the index-3
//! formulation as a `DaeSystem`): convergence orders against much finer runs of a different
//! method, LMSk vs SSk ([Zhang2022, Sect. 5]), Newton iterations with and without the
//! second-order predictor ([Zhang2022, Fig. 28]), bit-identical snapshots, varying step sizes, and
//! every method selectable through the slave's `solver.method`.
//!
//! Models are listed once per test in a table; adding one is one line.

#[path = "../crates/engine/tests/common/mod.rs"]
mod common;

use mbfmu_engine::index3::BodyState;
use mbfmu_engine::index3::Index3Formulation;
use mbfmu_engine::rotation::log;
use mbfmu_engine::{Simulation, SimulationSnapshot};
use mbfmu_model::format::{self, Description, Formulation, Method};
use std::f64::consts::FRAC_PI_2;

/// A free, spinning, asymmetric rigid body hanging from a linear spring under gravity: smooth,
/// nonlinear (large rotations, gyroscopic coupling, spring geometry), and without constraints,
/// so the methods show their design orders (no index-3 order reduction, see below).
const ELASTIC_TOP: &str = r#"{
  "name": "ElasticTop",
  "gravity": [0.0, 0.0, -9.81],
  "bodies": [ { "name": "body", "mass": 2.0, "inertia": [0.05, 0.08, 0.11], "position": [0.0, 0.0, -0.5],
                "velocity": [0.3, 0.0, 0.0], "angular_velocity": { "body": [1.0, 3.0, 2.0] } } ],
  "forces": [ { "type": "tsda", "name": "spring", "body1": "ground", "body2": "body",
                "point1": [0.0, 0.0, 0.0], "point2": [0.05, 0.03, -0.4], "stiffness": 200.0, "rest_length": 0.3 } ],
  "experiment": { "start": 0.0, "stop": 1.0, "step": 0.01 }
}"#;

fn catalog(name: &str) -> Description {
    format::parse(mbfmu_model::catalog::find(name).expect("catalog model").json).expect("valid")
}

/// `d` with the solver settings of one run.
fn settings(d: &Description, method: Method, rho_inf: f64, step: f64, tolerance: f64) -> Description {
    let mut d = d.clone();
    d.solver.method = method;
    d.solver.rho_inf = rho_inf;
    d.solver.step_size = step;
    d.solver.tolerance = tolerance;
    d.solver.max_iterations = 50;
    d
}

/// rho_inf used for a method in these tests: 0.6 where tunable ([Zhang2022, Sect. 5]), MSSTH at 0.
fn default_rho(m: Method) -> f64 {
    match m {
        Method::Mssth3 | Method::Mssth4 | Method::Mssth5 => 0.0,
        m if m.uses_rho_inf() => 0.6,
        _ => 0.0,
    }
}

/// Runs to each communication point and returns the bodies there, and average Newton
/// iterations per implicit stage.
fn run(d: &Description, times: &[f64]) -> (Vec<Vec<BodyState>>, f64) {
    let s = &d.solver;
    let mut sim = Simulation::new(d).expect("builds");
    let mut out = Vec::new();
    for &t in times {
        sim.advance_to(t).unwrap_or_else(|e| panic!("{}: {e}", s.method.item_name()));
        out.push(sim.state().bodies.clone());
    }
    let stages = sim.steps() as f64 * f64::from(s.method.implicit_stages());
    (out, sim.total_iterations() as f64 / stages)
}

/// Largest position (m) plus rotation (rad) difference of any body at any output time.
fn distance(a: &[Vec<BodyState>], b: &[Vec<BodyState>]) -> f64 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y))
        .map(|(p, q)| (p.r - q.r).norm() + log(&(p.rot.transpose() * q.rot)).norm())
        .fold(0.0, f64::max)
}

/// Observed order from errors at step sizes h and h/2.
fn order(e_h: f64, e_half: f64) -> f64 {
    (e_h / e_half).log2()
}

#[test]
fn design_orders_on_a_smooth_unconstrained_mechanism() {
    // Against much finer runs of a different method: ESDIRK4(3)6L[2]SA2 at 0.5 ms for every
    // method but itself, ESDIRK3(2)5L[2]SA at 0.25 ms for ESDIRK4(3)6L[2]SA2 (both ~1e-11 from
    // the solution, checked below against each other). Tolerance 1e-13 keeps Newton errors
    // below the errors measured (>= 1e-9). Not MSSTH(5) as a reference: its coefficients up to
    // ~13 amplify the Newton tolerance into errors of ~1e-9 at small steps.
    let d = format::parse(ELASTIC_TOP).unwrap();
    let times: Vec<f64> = (1..=4).map(|k| 0.25 * k as f64).collect();
    let tol = 1e-13;
    let ref_a = run(&settings(&d, Method::Esdirk436L2Sa2, 0.0, 5e-4, tol), &times).0;
    let ref_b = run(&settings(&d, Method::Esdirk325L2Sa, 0.0, 2.5e-4, tol), &times).0;
    let ref_diff = distance(&ref_a, &ref_b);
    assert!(ref_diff < 1e-10, "references differ by {ref_diff:e}");
    for &m in Method::ZHANG2022 {
        let reference = if m == Method::Esdirk436L2Sa2 { &ref_b } else { &ref_a };
        // Step pairs (h, h/2) in the asymptotic range, with errors well above the references'.
        let (h, want, slack) = match m.order() {
            2 | 3 => (0.01, f64::from(m.order()), 0.2),
            4 => (0.01, 4.0, 0.2),
            _ => (0.02, 5.0, 0.3),
        };
        let e1 = distance(&run(&settings(&d, m, default_rho(m), h, tol), &times).0, reference);
        let e2 = distance(&run(&settings(&d, m, default_rho(m), h / 2.0, tol), &times).0, reference);
        let p = order(e1, e2);
        assert!(e2 > 50.0 * ref_diff, "{}: error {e2:e} too close to the reference accuracy", m.paper_name());
        assert!(
            (p - want).abs() <= slack,
            "{}: observed order {p:.2} (errors {e1:.2e}, {e2:.2e}), design order {want}",
            m.paper_name()
        );
    }
}

#[test]
fn index3_positions_converge_at_order_two_for_every_method() {
    // The spatial double pendulum (index-3 DAE with 10 constraint rows) against the RK4
    // solution of its minimal-coordinate ODE (tests/common), a different formulation and
    // method. All ESDIRKs of [Zhang2022] have stage order 2, and for index-3 DAEs the position
    // error of stiffly accurate Runge-Kutta methods is limited by the stage order (Hairer &
    // Wanner II, Sect. VII.4): the third- to fifth-order methods converge at order 2 here,
    // with smaller constants. Measured, not assumed: asserted 2 +- 0.2 for all.
    let p = common::DoublePendulum::fang2023();
    let d = catalog("DoublePendulum");
    let times: Vec<f64> = (1..=10).map(|k| 0.05 * k as f64).collect();
    let exact: Vec<[f64; 2]> = common::rk4(|y| p.rhs(y), [FRAC_PI_2, 0.0, 0.0, 0.0], 1e-4, &times)
        .iter()
        .map(|y| [p.y2(y), p.z2(y)])
        .collect();
    let error = |m: Method, h: f64| {
        let (bodies, _) = run(&settings(&d, m, default_rho(m), h, 1e-12), &times);
        bodies
            .iter()
            .zip(&exact)
            .map(|(b, e)| ((b[1].r[1] - e[0]).powi(2) + (b[1].r[2] - e[1]).powi(2)).sqrt())
            .fold(0.0, f64::max)
    };
    // The trapezoidal rule is refused for index-3 descriptions (Method::refusal); the
    // integrator keeps it as the start-up step of the multistep methods.
    for &m in Method::ZHANG2022 {
        let (e1, e2) = (error(m, 0.005), error(m, 0.0025));
        let p = order(e1, e2);
        assert!((p - 2.0).abs() <= 0.2, "{}: observed order {p:.2} (errors {e1:.2e}, {e2:.2e})", m.paper_name());
    }
}

#[test]
fn lms_and_ss_trajectories_nearly_coincide() {
    // [Zhang2022, Sect. 5]: "the multi-step and equivalent single-step schemes have very similar
    // relative errors" and nearly identical trajectories. They differ only by their start
    // (trapezoidal rule vs auxiliary vectors = y'_0) and the rotation approximation of the SS
    // auxiliary vectors ([Zhang2022, Sect. 3.1]).
    let d = catalog("DoublePendulum");
    let times: Vec<f64> = (1..=20).map(|k| 0.05 * k as f64).collect();
    for rho in [0.0, 0.6] {
        for (lms, ss) in [(Method::Lms2, Method::Ss2), (Method::Lms3, Method::Ss3), (Method::Lms4, Method::Ss4)] {
            let a = run(&settings(&d, lms, rho, 1e-3, 1e-10), &times).0;
            let b = run(&settings(&d, ss, rho, 1e-3, 1e-10), &times).0;
            // Against the motion itself (bar 2 travels ~6 m in this second) and against the
            // methods' own error (the difference of LMSk and a different second-order method,
            // MSSTC(3), with the same rho_inf).
            let c = run(&settings(&d, Method::Msstc3, rho, 1e-3, 1e-10), &times).0;
            let (diff, other) = (distance(&a, &b), distance(&a, &c));
            assert!(
                diff < 1e-5 && diff < 0.2 * other,
                "{} vs {} (rho_inf {rho}): trajectories differ by {diff:e} (LMS vs MSSTC(3): {other:e})",
                lms.paper_name(),
                ss.paper_name()
            );
        }
    }
}

#[test]
fn lms_predictor_saves_newton_iterations_over_ss() {
    // [Zhang2022, Fig. 28]: each SS method needs more iterations than its LMS counterpart (constant
    // vs second-order predictor, eqs. 15 and 12-14), at the solver's default tolerance.
    let d = catalog("DoublePendulum");
    let times = [0.5];
    for rho in [0.0, 0.6] {
        for h in [1e-3, 5e-3] {
            for (lms, ss) in [(Method::Lms2, Method::Ss2), (Method::Lms3, Method::Ss3), (Method::Lms4, Method::Ss4)] {
                let (_, it_lms) = run(&settings(&d, lms, rho, h, 1e-10), &times);
                let (_, it_ss) = run(&settings(&d, ss, rho, h, 1e-10), &times);
                assert!(
                    it_lms < it_ss,
                    "h {h}, rho_inf {rho}: {} {it_lms:.2} iterations/step, {} {it_ss:.2}",
                    lms.paper_name(),
                    ss.paper_name()
                );
            }
        }
    }
}

#[test]
fn snapshot_restore_continues_bit_identically() {
    // For every method: run, snapshot mid-run (through the serialized byte form), continue;
    // then restore into a fresh simulation and continue again: identical states at every
    // later communication point, bit for bit. Communication steps vary (7 ms, 10 ms, 3 ms)
    // so the multistep history holds unequal steps at the snapshot.
    let d = catalog("DoublePendulum");
    let comm = [0.007, 0.01, 0.003, 0.01, 0.01];
    for &m in Method::INDEX3.iter().filter(|m| m.refusal(Formulation::Index3).is_none()) {
        let s = settings(&d, m, default_rho(m), 2e-3, 1e-10);
        let mut sim = Simulation::new(&s).unwrap();
        let mut t = 0.0;
        for dt in comm {
            t += dt;
            sim.advance_to(t).unwrap();
        }
        let bytes = postcard::to_stdvec(&sim.snapshot()).unwrap();
        let snap: SimulationSnapshot = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(snap, sim.snapshot(), "{}: the snapshot does not survive serialization", m.item_name());
        let continue_from = |sim: &mut Simulation| {
            let mut states = Vec::new();
            let mut t = t;
            for dt in comm {
                t += dt;
                sim.advance_to(t).unwrap();
                states.push((sim.state().clone(), sim.total_iterations()));
            }
            states
        };
        let first = continue_from(&mut sim);
        let mut fresh = Simulation::new(&s).unwrap();
        fresh.restore(&snap).unwrap();
        let second = continue_from(&mut fresh);
        assert!(first == second, "{}: the continuation after restore differs", m.item_name());
        // Restoring into the advanced simulation itself, too.
        sim.restore(&snap).unwrap();
        assert!(continue_from(&mut sim) == first, "{}: restore into the same simulation differs", m.item_name());
        let history = fresh.formulation::<Index3Formulation>().unwrap().history();
        assert_eq!(history.is_some(), m != Method::HalfImplicit, "{}", m.item_name());
    }
}

#[test]
fn changing_and_tiny_steps_are_handled() {
    // Communication steps vary as a co-simulation master may make them, including a step of
    // 2e-14 s (OMSimulator's last step): LMS2 uses its variable-step formula, LMS3/4 fall back
    // to lower orders until their history has equal steps, single-step and multi-stage methods
    // use the current h, negligible steps move along the tangent. Every method still converges
    // at order 2 (index 3) under the varying steps, to the accuracy of constant steps.
    let d = catalog("DoublePendulum");
    let mut times = Vec::new();
    let mut t = 0.0;
    for (i, dt) in [0.01, 0.0037, 0.01, 0.02, 0.0011, 0.01, 0.01].iter().cycle().take(40).enumerate() {
        t += dt;
        times.push(t);
        if i == 20 {
            t += 2e-14;
            times.push(t);
        }
    }
    let t_end = t;
    let (fine, _) = run(&settings(&d, Method::Esdirk436L2Sa2, 0.0, 1.25e-4, 1e-11), &times);
    for &m in Method::ZHANG2022.iter().chain(&[Method::Bdf1]) {
        let error = |h: f64| distance(&run(&settings(&d, m, default_rho(m), h, 1e-11), &times).0, &fine);
        let (e1, e2) = (error(2e-3), error(1e-3));
        let (constant, _) = run(&settings(&d, m, default_rho(m), 1e-3, 1e-11), &[t_end]);
        let e_constant = distance(&constant, &fine[fine.len() - 1..]);
        let (p, want) = (order(e1, e2), if m == Method::Bdf1 { 1.0 } else { 2.0 });
        assert!(p > want - 0.3, "{}: order {p:.2} with varying steps (errors {e1:.2e}, {e2:.2e})", m.paper_name());
        assert!(
            e2 < 5.0 * e_constant,
            "{}: error {e2:.2e} with varying steps, {e_constant:.2e} with constant steps",
            m.paper_name()
        );
    }
}

#[test]
fn untabulated_rho_inf_is_refused_for_mssth4_and_mssth5() {
    let d = catalog("DoublePendulum");
    for m in [Method::Mssth4, Method::Mssth5] {
        let err = Simulation::new(&settings(&d, m, 0.65, 1e-3, 1e-10)).unwrap_err().to_string();
        assert!(err.contains("0, 0.1, ..., 1"), "{err}");
        assert!(Simulation::new(&settings(&d, m, 0.7, 1e-3, 1e-10)).is_ok());
    }
    // Every other tunable method takes any rho_inf in [0, 1].
    for &m in Method::ZHANG2022.iter().filter(|m| m.uses_rho_inf() && m.tabulated_rho_inf().is_none()) {
        assert!(Simulation::new(&settings(&d, m, 0.65, 1e-3, 1e-10)).is_ok(), "{}", m.item_name());
    }
}

#[test]
fn every_method_is_selectable_in_the_slave() {
    use mbfmu::slave::Slave;
    use mbfmu_model::Model;
    use std::sync::Arc;
    let entry = mbfmu_model::catalog::find("DoublePendulum").unwrap();
    let model = Arc::new(Model::from_catalog(entry).unwrap());
    let vr = |name: &str| model.interface.variables.iter().find(|v| v.name == name).map(|v| v.value_reference);
    let method_vr = vr("solver.method").expect("solver.method");
    let rho_vr = vr("solver.rhoInf").expect("solver.rhoInf exists once a method uses rho_inf");
    assert_eq!(model.interface.methods.len(), Method::INDEX3.len());
    let mut energies = Vec::new();
    for &m in Method::INDEX3 {
        let mut slave = Slave::new(model.clone());
        slave.set(method_vr, f64::from(m.code())).unwrap();
        slave.set(rho_vr, 0.5).unwrap();
        slave.setup_experiment(0.0, Some(1.0)).unwrap();
        slave.enter_initialization().unwrap();
        if m.refusal(Formulation::Index3).is_some() {
            // Selectable as an item, refused when the model is built, with the reason and
            // the stable alternatives (an FMI error status and this line in the log).
            let e = slave.exit_initialization().unwrap_err().to_string();
            for needle in ["solver.method", "trapezoidal rule is refused", "sign-alternating", "ss2", "lms2", "bathe"] {
                assert!(e.contains(needle), "{needle:?} in {e}");
            }
            continue;
        }
        slave.exit_initialization().unwrap();
        let mut t = 0.0;
        for _ in 0..10 {
            slave.do_step(t, 0.01).unwrap_or_else(|e| panic!("{}: {e}", m.item_name()));
            t += 0.01;
        }
        let sim = slave.simulation().unwrap();
        assert_eq!(sim.formulation::<Index3Formulation>().unwrap().settings().method.get(), m);
        energies.push(sim.quantity(mbfmu_model::variables::Quantity::TotalEnergy));
    }
    // Same physics whatever the method: total energy after 0.1 s agrees to the methods' accuracy.
    let spread = energies.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - energies.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(spread < 50.0, "energies {energies:?}");
}

#[test]
fn documentation_lists_every_method_and_the_seed_recommendations() {
    let entry = mbfmu_model::catalog::find("DoublePendulum").unwrap();
    for version in [mbfmu_model::variables::FmiVersion::V2, mbfmu_model::variables::FmiVersion::V3] {
        let page = mbfmu_package::documentation::model_page(entry, version);
        for &m in Method::INDEX3 {
            assert!(
                page.contains(&format!("<td>{}</td><td><code>{}</code></td>", m.code(), m.item_name())),
                "{}",
                m.item_name()
            );
        }
        for needle in
            ["solver.rhoInf</code> = 0.6", "{0, 0.1, ..., 1}", "esdirk436L2SA2", "order 2", "solver.rhoInf</code> = 0,"]
        {
            assert!(page.contains(needle), "the solver section lacks {needle:?}");
        }
    }
}
