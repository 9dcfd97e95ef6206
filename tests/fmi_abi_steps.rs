//! Stepping and FMU states through the C ABI: step sizes and communication points, Newton
//! failures (Discard), corrupted and foreign states, the panic firewall, and eight instances
//! in eight threads. Every failure must come with the standard's status and a log line, and
//! leave the instance usable where the standard says so. Generic over the catalog.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use fmi_sys::fmi2 as f2;
use mbfmu::slave::{Phase, Slave};
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::VarType;
use mbfmu_model::Model;
use std::ptr::null_mut;

#[test]
fn communication_points_and_step_sizes() {
    for entry in CATALOG {
        let model = model(entry);
        let (start, stop, h) = experiment(&model);
        let real_out = output_of(&model, VarType::Real);

        let f = Fmu2::new(entry, "steps2");
        f.init(start, stop);
        let at_start = f.get_state();
        for bad in [-h, 0.0, f64::NAN, f64::INFINITY] {
            f.assert_error(f.do_step(start, bad), &["fmi2DoStep", "communicationStepSize"]);
            // Back to the state before the error (FMI 2.0.4 Sect. 2.1.3).
            assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, at_start) }, OK2);
        }
        f.assert_error(f.do_step(start + 10.0 * h, h), &["fmi2DoStep", "communication point"]);
        assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, at_start) }, OK2);
        // A tiny step (OMSimulator ends runs with ~2e-14 s) is the same instant: the outputs
        // stay as they are, and stepping goes on.
        assert_eq!(f.do_step(start, h), OK2);
        let before = outputs2(&f, &model);
        assert_eq!(f.do_step(start + h, 2e-14), OK2, "{:?}", f.lines());
        assert_eq!(bits(&outputs2(&f, &model)), bits(&before));
        assert_eq!(f.do_step(start + h + 2e-14, h), OK2, "{:?}", f.lines());
        // Steps ending a few ulps past stopTime are accepted, far past it they are not.
        let g = Fmu2::new(entry, "stop2");
        g.init(start, start + h);
        assert_eq!(g.do_step(start, h * (1.0 + 4.0 * f64::EPSILON)), OK2, "{:?}", g.lines());
        let g = Fmu2::new(entry, "stop2b");
        g.init(start, start + h);
        g.assert_error(g.do_step(start, 2.0 * h), &["stop time"]);
        f.free_state(at_start);
        assert_eq!(f.get_real(real_out).0, OK2);

        let f = Fmu3::new(entry, "steps3");
        f.init(start, stop);
        let at_start = f.get_state();
        for bad in [-h, 0.0, f64::NAN] {
            f.assert_error(f.do_step(start, bad).0, &["fmi3DoStep", "communicationStepSize"]);
            assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, at_start) }, OK3);
        }
        f.assert_error(f.do_step(start + 10.0 * h, h).0, &["fmi3DoStep", "communication point"]);
        assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, at_start) }, OK3);
        assert_eq!(f.do_step(start, h).0, OK3);
        let before = outputs3(&f, &model);
        assert_eq!(f.do_step(start + h, 2e-14), (OK3, start + h + 2e-14));
        assert_eq!(bits(&outputs3(&f, &model)), bits(&before));
        assert_eq!(f.do_step(start + h + 2e-14, h).0, OK3, "{:?}", f.log.lines());
        let g = Fmu3::new(entry, "stop3");
        g.init(start, start + h);
        g.assert_error(g.do_step(start, 2.0 * h).0, &["stop time"]);
        f.free_state(at_start);
    }
}

/// Solver settings under which the first communication step of the default experiment
/// cannot converge: one Newton iteration on one internal step as long as the whole step
/// (a constant-step method: variable-step methods would shrink the step instead). A mechanism
/// held in static equilibrium by its force input (the split hydraulic four-bar) would not move
/// at all: its input is dropped so that it falls; one fed by valve flows gets a flow.
fn break_newton(
    set_real: impl Fn(u32, f64) -> u32,
    set_int: impl Fn(u32, i32) -> u32,
    set_enum: impl Fn(u32, i32) -> u32,
    model: &Model,
    h: f64,
) {
    assert_eq!(set_real(var(model, "solver.stepSize").value_reference, h), 0);
    assert_eq!(set_int(var(model, "solver.maxIterations").value_reference, 1), 0);
    if let Some(&m) = model.interface.methods.iter().find(|m| !m.variable_step() && m.implicit_stages() > 0) {
        if model.description.solver.method.variable_step() {
            assert_eq!(set_enum(var(model, "solver.method").value_reference, m.code()), 0);
        }
    }
    if let Some(v) = model.interface.by_name("cylinder_force") {
        assert_eq!(set_real(v.value_reference, 0.0), 0);
    }
    if let Some(v) = model.interface.by_name("port_A_flow") {
        assert_eq!(set_real(v.value_reference, 1e-3), 0);
    }
}

/// A model without Newton unknowns (a valve alone: its spool law is solved in closed form)
/// has no iteration to fail.
fn has_newton_unknowns(model: &Model) -> bool {
    let d = &model.description;
    !d.bodies.is_empty() || !d.beams.is_empty() || d.hydraulics.as_ref().is_some_and(|h| !h.volumes.is_empty())
}

#[test]
fn newton_failure_is_a_discard_and_the_instance_recovers() {
    for entry in CATALOG {
        let model = model(entry);
        if !has_newton_unknowns(&model) {
            continue;
        }
        let (start, stop, _) = experiment(&model);
        // A quarter of FourLink's 8 s is one revolution of its drive: the state-space
        // formulation's position solve would start at its own solution. Take a fifth there.
        let state_space = model.description.solver.formulation.model_exchange();
        let big = (stop - start) / if state_space { 5.0 } else { 4.0 };

        // A healthy instance provides the state to recover with, and the reference.
        let healthy = Fmu2::new(entry, "healthy2");
        healthy.init(start, stop);
        let bytes = healthy.serialize(healthy.get_state());
        assert_eq!(healthy.do_step(start, big), OK2, "{}: {:?}", entry.name, healthy.lines().last());
        let expected = outputs2(&healthy, &model);

        let f = Fmu2::new(entry, "newton2");
        break_newton(
            |vr, x| f.set_real(vr, x),
            |vr, x| f.set_integer(vr, x),
            |vr, x| f.set_integer(vr, x),
            &model,
            big,
        );
        f.init(start, stop);
        assert_eq!(f.do_step(start, big), DISCARD2, "{}: {:?}", entry.name, f.lines());
        let (level, line) = f.lines().last().cloned().unwrap();
        assert!(line.contains("fmi2DoStep") && line.contains("discarded") && line.contains("Newton"), "{line}");
        assert_eq!(level, log::Level::Trace, "fmi-sys reports fmi2Discard at trace level");
        let mut last = f64::NAN;
        let mut terminated = 1;
        unsafe {
            assert_eq!(f.b.fmi2GetRealStatus(f.c, f2::fmi2StatusKind_fmi2LastSuccessfulTime, &mut last), OK2);
            assert!(last >= start && last < start + big, "lastSuccessfulTime {last}");
            assert_eq!(f.b.fmi2GetBooleanStatus(f.c, f2::fmi2StatusKind_fmi2Terminated, &mut terminated), OK2);
            assert_eq!(terminated, 0);
            // stepFailed: outputs can be read, stepping again is not allowed.
            outputs2(&f, &model);
            // Recover with a state serialized by another instance (with sane settings).
            let (s, state) = f.deserialize(&bytes);
            assert_eq!(s, OK2, "{:?}", f.lines());
            assert_eq!(f.b.fmi2SetFMUstate(f.c, state), OK2, "{:?}", f.lines());
            assert_eq!(f.do_step(start, big), OK2, "{:?}", f.lines());
            f.free_state(state);
        }
        assert_eq!(bits(&outputs2(&f, &model)), bits(&expected), "recovered run equals the healthy one");
        // Reset also recovers.
        f.reset();
        f.init(start, stop);
        assert_eq!(f.do_step(start, big), OK2);
        assert_eq!(bits(&outputs2(&f, &model)), bits(&expected));

        let healthy = Fmu3::new(entry, "healthy3");
        healthy.init(start, stop);
        let bytes = healthy.serialize(healthy.get_state());
        assert_eq!(healthy.do_step(start, big).0, OK3);
        let expected = outputs3(&healthy, &model);

        let f = Fmu3::new(entry, "newton3");
        let set_i64 = |vr: u32, x: i32| unsafe { f.b.fmi3SetInt64(f.c, &vr, 1, &i64::from(x), 1) };
        break_newton(|vr, x| f.set_f64(vr, x), |vr, x| f.set_i32(vr, x), set_i64, &model, big);
        f.init(start, stop);
        let before = outputs3(&f, &model);
        // FMI 3.0 Sect. 2.2.3: Discard leaves the FMU as before the call, at the start.
        assert_eq!(f.do_step(start, big), (DISCARD3, start), "{:?}", f.log.lines());
        let (status, category, line) = f.log.lines().last().cloned().unwrap();
        assert_eq!((status, category.as_str()), (DISCARD3, "logStatusDiscard"));
        assert!(line.contains("fmi3DoStep") && line.contains("discarded") && line.contains("Newton"), "{line}");
        assert_eq!(bits(&outputs3(&f, &model)), bits(&before), "the state before the step is kept");
        assert_eq!(f.do_step(start, big).0, DISCARD3, "still in Step Mode; the same step fails the same way");
        let (s, state) = f.deserialize(&bytes);
        assert_eq!(s, OK3);
        assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, state) }, OK3, "{:?}", f.log.lines());
        assert_eq!(f.do_step(start, big), (OK3, start + big));
        assert_eq!(bits(&outputs3(&f, &model)), bits(&expected));
        f.free_state(state);
    }
}

/// A Newton failure in each formulation (index-3, state-space, semirecursive), provoked by a
/// solver step far too large for the motion: Discard with the last successful time and the
/// state of that time, and the instance goes on with smaller communication steps (FMI 2:
/// after fmi2SetFMUstate of the state there; FMI 3: right away, back at the communication
/// point as before the call).
#[test]
fn a_newton_failure_in_each_formulation_leaves_a_state_that_continues_with_smaller_steps() {
    // (model, constant-step method for the state-space one, solver step, Newton iterations)
    let cases = [
        ("DoublePendulum", None, 0.5, None),
        ("DoublePendulumStateSpace", Some("trapezoidalConstantStep"), 0.5, None),
        ("HydraulicFourBar", None, 0.5, Some(4)),
    ];
    // Communication steps before the failing one, and after it ([Jaiswal2021]'s 1 ms).
    let (h, before_big, small) = (0.01, 10, 1e-3);
    for (name, method, step, iterations) in cases {
        let entry = mbfmu_model::catalog::find(name).unwrap();
        let model = model(entry);
        let (start, _, _) = experiment(&model);
        let stop = start + 10.0;
        type Set<'a, T> = &'a dyn Fn(u32, T) -> u32;
        let configure = |set_real: Set<f64>, set_int: Set<i32>, set_enum: Set<i32>| {
            assert_eq!(set_real(var(&model, "solver.stepSize").value_reference, step), 0);
            if let Some(n) = iterations {
                assert_eq!(set_int(var(&model, "solver.maxIterations").value_reference, n), 0);
            }
            if let Some(m) = method {
                let code = model.interface.methods.iter().find(|x| x.item_name() == m).unwrap().code();
                assert_eq!(set_enum(var(&model, "solver.method").value_reference, code), 0);
            }
        };
        // The FMU's time after the small steps (t_k + h, as the host computes it).
        let t = start + (before_big - 1) as f64 * h + h;

        // FMI 2: Discard at the last internal step that converged.
        let f = Fmu2::new(entry, "newton-each2");
        configure(&|vr, x| f.set_real(vr, x), &|vr, x| f.set_integer(vr, x), &|vr, x| f.set_integer(vr, x));
        f.init(start, stop);
        for k in 0..before_big {
            assert_eq!(f.do_step(start + k as f64 * h, h), OK2, "{name}: {:?}", f.lines());
        }
        assert_eq!(f.do_step(t, 3.0), DISCARD2, "{name}: {:?}", f.lines());
        let line = f.lines().last().unwrap().1.clone();
        assert!(line.contains("discarded") && line.contains("Newton"), "{name}: {line}");
        let mut last = f64::NAN;
        unsafe { f.b.fmi2GetRealStatus(f.c, f2::fmi2StatusKind_fmi2LastSuccessfulTime, &mut last) };
        assert!(last >= t && last < t + 3.0, "{name}: {last}");
        let at_last = outputs2(&f, &model);
        // The same time reached without the failing step: the same state (to the round-off of
        // the sub-step grid when the failure came after converged internal steps).
        let g = Fmu2::new(entry, "newton-each2-ref");
        configure(&|vr, x| g.set_real(vr, x), &|vr, x| g.set_integer(vr, x), &|vr, x| g.set_integer(vr, x));
        g.init(start, stop);
        for k in 0..before_big {
            assert_eq!(g.do_step(start + k as f64 * h, h), OK2);
        }
        if last > t {
            assert_eq!(g.do_step(t, last - t), OK2, "{name}: {:?}", g.lines());
            for (x, y) in at_last.iter().zip(outputs2(&g, &model)) {
                assert!((x - y).abs() <= 1e-9 * (1.0 + x.abs()), "{name}: {x} vs {y}");
            }
        } else {
            assert_eq!(bits(&at_last), bits(&outputs2(&g, &model)), "{name}");
        }
        let state = f.get_state();
        assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, state) }, OK2, "{name}");
        f.free_state(state);
        for k in 0..5 {
            assert_eq!(f.do_step(last + k as f64 * small, small), OK2, "{name}: {:?}", f.lines());
        }

        // FMI 3: Discard, back at the communication point, and smaller steps go on.
        let f = Fmu3::new(entry, "newton-each3");
        let set_i64 = |vr: u32, x: i32| unsafe { f.b.fmi3SetInt64(f.c, &vr, 1, &i64::from(x), 1) };
        configure(&|vr, x| f.set_f64(vr, x), &|vr, x| f.set_i32(vr, x), &set_i64);
        f.init(start, stop);
        for k in 0..before_big {
            assert_eq!(f.do_step(start + k as f64 * h, h).0, OK3, "{name}: {:?}", f.log.lines());
        }
        let before = outputs3(&f, &model);
        assert_eq!(f.do_step(t, 3.0), (DISCARD3, t), "{name}: {:?}", f.log.lines());
        assert_eq!(bits(&outputs3(&f, &model)), bits(&before), "{name}");
        for k in 0..5 {
            assert_eq!(f.do_step(t + k as f64 * small, small).0, OK3, "{name}: {:?}", f.log.lines());
        }
    }
}

#[test]
fn corrupted_truncated_and_foreign_states_are_refused() {
    for entry in CATALOG {
        let model = model(entry);
        let (start, stop, h) = experiment(&model);

        let f = Fmu2::new(entry, "state2");
        f.init(start, stop);
        assert_eq!(f.do_step(start, h), OK2);
        let good = f.get_state();
        let bytes = f.serialize(good);
        let expected = outputs2(&f, &model);
        let mut corrupted = bytes.clone();
        let last = corrupted.len() - 1;
        corrupted[last] ^= 0x40;
        let mut wrong_magic = bytes.clone();
        wrong_magic[0] = b'X';
        let cases: [(&[u8], &str); 5] = [
            (&corrupted, "checksum"),
            (&bytes[..bytes.len() - 1], "truncated"),
            (&bytes[..bytes.len() / 2], "truncated"),
            (&[], "truncated"),
            (&wrong_magic, "magic"),
        ];
        for (data, needle) in cases {
            let (s, state) = f.deserialize(data);
            f.assert_error(s, &["fmi2DeSerializeFMUstate", needle]);
            assert!(state.is_null(), "no state is returned");
            // The instance is in the error state but unchanged: the good state restores it.
            assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, good) }, OK2);
            assert_eq!(bits(&outputs2(&f, &model)), bits(&expected), "{}", entry.name);
        }
        let mut junk = garbage();
        unsafe {
            f.assert_error(f.b.fmi2SetFMUstate(f.c, as_ptr(&mut junk)), &["not an FMU state"]);
            f.assert_error(f.b.fmi2SetFMUstate(f.c, null_mut()), &["FMUstate", "NULL"]);
            f.assert_error(f.b.fmi2GetFMUstate(f.c, null_mut()), &["NULL"]);
            let mut size = 0;
            f.assert_error(f.b.fmi2SerializedFMUstateSize(f.c, good, null_mut()), &["size", "NULL"]);
            assert_eq!(f.b.fmi2SerializedFMUstateSize(f.c, good, &mut size), OK2);
            let mut small = vec![0u8; size - 1];
            f.assert_error(f.b.fmi2SerializeFMUstate(f.c, good, small.as_mut_ptr().cast(), size - 1), &["bytes"]);
            // A state pointer passed back to GetFMUstate is overwritten in place.
            assert_eq!(f.b.fmi2SetFMUstate(f.c, good), OK2);
            assert_eq!(f.do_step(start + h, h), OK2);
            let mut reused = good;
            assert_eq!(f.b.fmi2GetFMUstate(f.c, &mut reused), OK2);
            assert_eq!(reused, good);
            assert_ne!(f.serialize(good), bytes);
            let mut none = null_mut();
            assert_eq!(f.b.fmi2FreeFMUstate(f.c, &mut none), OK2, "freeing NULL is a no-op");
        }
        f.free_state(good);

        let f = Fmu3::new(entry, "state3");
        f.init(start, stop);
        assert_eq!(f.do_step(start, h).0, OK3);
        let good = f.get_state();
        let bytes = f.serialize(good);
        let expected = outputs3(&f, &model);
        let mut corrupted = bytes.clone();
        let middle = corrupted.len() / 2 + 3;
        corrupted[middle] = corrupted[middle].wrapping_add(1);
        for (data, needle) in [(&corrupted[..], "checksum"), (&bytes[..bytes.len() - 3], "truncated")] {
            let (s, state) = f.deserialize(data);
            f.assert_error(s, &["fmi3DeserializeFMUState", needle]);
            assert!(state.is_null());
            assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, good) }, OK3);
            assert_eq!(bits(&outputs3(&f, &model)), bits(&expected));
        }
        let mut junk = garbage();
        f.assert_error(unsafe { f.b.fmi3SetFMUState(f.c, as_ptr(&mut junk)) }, &["not an FMU state"]);
        assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, good) }, OK3);
        // A state deserialized into a fresh instance continues bit-identically.
        let g = Fmu3::new(entry, "state3b");
        let (s, copy) = g.deserialize(&bytes);
        assert_eq!(s, OK3);
        assert_eq!(unsafe { g.b.fmi3SetFMUState(g.c, copy) }, OK3);
        assert_eq!(g.do_step(start + h, h).0, OK3);
        assert_eq!(f.do_step(start + h, h).0, OK3);
        assert_eq!(bits(&outputs3(&g, &model)), bits(&outputs3(&f, &model)));
        g.free_state(copy);
        f.free_state(good);
    }
}

/// The panic firewall. A state whose bytes are intact but whose content is inconsistent (a
/// running phase without a simulation) is accepted by `Slave::restore`, and the next step
/// then panics inside the slave (`do_step` expects a built simulation). The panic must come
/// back as Error with a log line, and Reset must make the instance usable again. Should the
/// slave start refusing such states, SetFMUstate must say so with Error instead.
#[test]
fn a_panic_inside_the_fmu_becomes_an_error() {
    for entry in CATALOG {
        let model = model(entry);
        let (start, stop, h) = experiment(&model);
        let slave = Slave::new(model.clone());
        let mut snapshot = slave.snapshot();
        snapshot.phase = Phase::Running;
        let bytes = slave.serialize_snapshot(&snapshot);

        let f = Fmu2::new(entry, "panic2");
        let (s, state) = f.deserialize(&bytes);
        assert_eq!(s, OK2);
        match unsafe { f.b.fmi2SetFMUstate(f.c, state) } {
            OK2 => f.assert_error(f.do_step(start, h), &["fmi2DoStep", "internal error"]),
            status => f.assert_error(status, &["fmi2SetFMUstate"]),
        }
        f.free_state(state);
        f.reset();
        f.init(start, stop);
        assert_eq!(f.do_step(start, h), OK2);

        let f = Fmu3::new(entry, "panic3");
        let (s, state) = f.deserialize(&bytes);
        assert_eq!(s, OK3);
        match unsafe { f.b.fmi3SetFMUState(f.c, state) } {
            OK3 => f.assert_error(f.do_step(start, h).0, &["fmi3DoStep", "internal error"]),
            status => f.assert_error(status, &["fmi3SetFMUState"]),
        }
        f.free_state(state);
        f.reset();
        f.init(start, stop);
        assert_eq!(f.do_step(start, h).0, OK3);
    }
}

/// Eight instances stepped in eight threads (one loaded library, as importers do) give
/// outputs bit-identical to one instance alone: no state is shared between instances.
#[test]
fn eight_threads_give_the_outputs_of_one_instance() {
    for entry in CATALOG {
        let model = model(entry);
        let (start, stop, h) = experiment(&model);
        let mut steps = grid(start, stop, h);
        // Beam models run long default experiments; isolation shows in their first steps.
        if !model.description.beams.is_empty() {
            steps.truncate(250);
        }
        let run2 = || {
            let f = Fmu2::new(entry, "threads2");
            f.init(start, stop);
            let mut rows = vec![outputs2(&f, &model)];
            for &(t, h) in &steps {
                assert_eq!(f.do_step(t, h), OK2);
                rows.push(outputs2(&f, &model));
            }
            rows
        };
        let run3 = || {
            let f = Fmu3::new(entry, "threads3");
            f.init(start, stop);
            let mut rows = vec![outputs3(&f, &model)];
            for &(t, h) in &steps {
                assert_eq!(f.do_step(t, h).0, OK3);
                rows.push(outputs3(&f, &model));
            }
            rows
        };
        let alone2 = run2();
        let alone3 = run3();
        assert_identical("FMI 2 alone vs Rust API", &model, &reference_run(&model, start, stop, &steps), &alone2);
        assert_identical("FMI 3 alone vs FMI 2 alone", &model, &alone2, &alone3);
        in_eight_threads("FMI 2", &model, &alone2, &run2);
        in_eight_threads("FMI 3", &model, &alone3, &run3);
    }
}

fn in_eight_threads(what: &str, model: &Model, alone: &[Vec<f64>], run: &(dyn Fn() -> Vec<Vec<f64>> + Sync)) {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8).map(|_| scope.spawn(run)).collect();
        for (k, handle) in handles.into_iter().enumerate() {
            let rows = handle.join().expect("thread");
            assert_identical(&format!("{what}, thread {k}"), model, alone, &rows);
        }
    });
}

/// Eight instances of eight different models (FMI 2 and FMI 3 alternating, every formulation)
/// step in eight threads of one loaded library while each, every seventh step, takes its FMU
/// state, serializes it, reads it back, sets it and frees both states: every output at every
/// communication point is bit-identical to the model run alone without any of that.
#[test]
fn eight_models_in_eight_threads_with_state_round_trips_match_their_runs_alone() {
    let picks = [
        "DoublePendulum",
        "HydraulicFourBar",
        "SliderCrankFrictionStateSpace",
        "AndrewsSqueezer",
        "HydraulicQuickReturn",
        "FourLink",
        "StiffDoublePendulum",
        "NLinkChain4",
    ];
    let entries: Vec<_> = picks.iter().map(|n| mbfmu_model::catalog::find(n).expect("catalog model")).collect();
    // Outputs at every communication point over the first 0.5 s (or the experiment).
    let run = |k: usize, round_trips: bool| -> Vec<Vec<f64>> {
        let entry = entries[k];
        let model = model(entry);
        let (start, stop, h) = experiment(&model);
        let steps = grid(start, stop.min(start + 0.5), h);
        let mut rows = Vec::new();
        if k.is_multiple_of(2) {
            let f = Fmu2::new(entry, "mixed2");
            f.init(start, stop);
            rows.push(outputs2(&f, &model));
            for (i, &(t, h)) in steps.iter().enumerate() {
                assert_eq!(f.do_step(t, h), OK2, "{}", entry.name);
                if round_trips && i % 7 == 3 {
                    let state = f.get_state();
                    let (status, copy) = f.deserialize(&f.serialize(state));
                    assert_eq!(status, OK2);
                    assert_eq!(unsafe { f.b.fmi2SetFMUstate(f.c, copy) }, OK2, "{}", entry.name);
                    f.free_state(copy);
                    f.free_state(state);
                }
                rows.push(outputs2(&f, &model));
            }
        } else {
            let f = Fmu3::new(entry, "mixed3");
            f.init(start, stop);
            rows.push(outputs3(&f, &model));
            for (i, &(t, h)) in steps.iter().enumerate() {
                assert_eq!(f.do_step(t, h).0, OK3, "{}", entry.name);
                if round_trips && i % 7 == 3 {
                    let state = f.get_state();
                    let (status, copy) = f.deserialize(&f.serialize(state));
                    assert_eq!(status, OK3);
                    assert_eq!(unsafe { f.b.fmi3SetFMUState(f.c, copy) }, OK3, "{}", entry.name);
                    f.free_state(copy);
                    f.free_state(state);
                }
                rows.push(outputs3(&f, &model));
            }
        }
        rows
    };
    let alone: Vec<_> = (0..picks.len()).map(|k| run(k, false)).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..picks.len()).map(|k| scope.spawn(move || run(k, true))).collect();
        for (k, handle) in handles.into_iter().enumerate() {
            let rows = handle.join().expect("thread");
            let model = model(entries[k]);
            assert_identical(&format!("{} in a thread with state round trips", picks[k]), &model, &alone[k], &rows);
        }
    });
}
