//! FMI 3 Intermediate Update Mode through the raw C ABI with a real callback (FMI 3.0 Sect.
//! 4.2.2; the FMI 3 way of interpolating inputs): inputs the importer sets at the internal
//! step times reproduce bit for bit a run that sets them at every internal step as
//! communication points; a callback that sets nothing leaves a run bit-identical to one
//! without callback (index-3, state-space with its own step control, semirecursive); the
//! calls the standard does not allow in Intermediate Update Mode are Errors that end the
//! step; requiredIntermediateVariables are checked at instantiation.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use fmi_sys::fmi3 as f3;
use mbfmu_model::catalog::{find, CatalogEntry};
use mbfmu_model::Model;
use std::cell::{Cell, RefCell};
use std::ffi::{c_void, CString};

/// What the importer does at an intermediate update: (host, time, set requested, get allowed).
type Action = Box<dyn Fn(&Host, f64, bool, bool)>;

/// Outputs recorded at times.
type Rows = std::rc::Rc<RefCell<Vec<(f64, Vec<f64>)>>>;

/// The importer's side: its log first (the logMessage callback reads the environment as a
/// `Fmi3Log`), the instance, and what it does at an intermediate update.
#[repr(C)]
struct Host {
    log: Fmi3Log,
    instance: Cell<f3::fmi3Instance>,
    /// (time, intermediateVariableSetRequested, intermediateVariableGetAllowed,
    /// intermediateStepFinished) of every callback.
    calls: RefCell<Vec<(f64, bool, bool, bool)>>,
    action: Action,
}

unsafe extern "C" fn intermediate_update(
    env: *mut c_void,
    time: f64,
    set: bool,
    get: bool,
    finished: bool,
    can_return_early: bool,
    _early_requested: *mut bool,
    _early_time: *mut f64,
) {
    let host = unsafe { &*(env as *const Host) };
    assert!(!can_return_early, "canReturnEarlyAfterIntermediateUpdate=\"false\"");
    host.calls.borrow_mut().push((time, set, get, finished));
    (host.action)(host, time, set, get);
}

impl Host {
    fn new(action: impl Fn(&Host, f64, bool, bool) + 'static) -> Box<Host> {
        Box::new(Host {
            log: Fmi3Log::default(),
            instance: Cell::new(std::ptr::null_mut()),
            calls: RefCell::new(Vec::new()),
            action: Box::new(action),
        })
    }

    fn c(&self) -> f3::fmi3Instance {
        self.instance.get()
    }

    fn lines(&self) -> Vec<(u32, String, String)> {
        self.log.lines()
    }
}

/// A co-simulation instance whose importer passes `host`'s callback and `required`; the
/// raw handle (NULL on refusal).
fn instantiate(entry: &CatalogEntry, host: &Host, required: &[u32]) -> f3::fmi3Instance {
    let (name, token) = (CString::new(unique("intermediate")).unwrap(), CString::new(entry.token).unwrap());
    let c = unsafe {
        lib3().fmi3InstantiateCoSimulation(
            name.as_ptr(),
            token.as_ptr(),
            c"/tmp/resources/".as_ptr(),
            false,
            true,
            false,
            true,
            required.as_ptr(),
            required.len(),
            host as *const Host as *mut c_void,
            Some(fmi3_log),
            Some(intermediate_update),
        )
    };
    host.instance.set(c);
    c
}

fn init(c: f3::fmi3Instance, start: f64, stop: f64) {
    unsafe {
        assert_eq!(lib3().fmi3EnterInitializationMode(c, false, 0.0, start, true, stop), OK3);
        assert!(lib3().fmi3ExitInitializationMode(c) <= f3::fmi3Status_fmi3Warning);
    }
}

fn do_step(c: f3::fmi3Instance, t: f64, h: f64) -> u32 {
    let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
    let s = unsafe { lib3().fmi3DoStep(c, t, h, true, &mut event, &mut terminate, &mut early, &mut last) };
    if s == OK3 {
        assert!(!early && last == t + h, "no early return");
    }
    s
}

fn set(c: f3::fmi3Instance, vr: u32, x: f64) -> u32 {
    unsafe { lib3().fmi3SetFloat64(c, &vr, 1, &x, 1) }
}

fn get(c: f3::fmi3Instance, vrs: &[u32]) -> (u32, Vec<f64>) {
    let mut x = vec![f64::NAN; vrs.len()];
    let s = unsafe { lib3().fmi3GetFloat64(c, vrs.as_ptr(), vrs.len(), x.as_mut_ptr(), x.len()) };
    (s, x)
}

/// The continuous outputs (the intermediate variables besides the inputs).
fn continuous_outputs(model: &Model) -> Vec<u32> {
    model.interface.outputs().filter(|v| v.is_continuous_signal()).map(|v| v.value_reference).collect()
}

/// The FMU's sub-step grid of [t, end] with `n` internal steps.
fn grid(t: f64, end: f64, n: usize) -> Vec<f64> {
    (0..=n).map(|i| if i == n { end } else { t + (end - t) * (i as f64 / n as f64) }).collect()
}

/// A smooth input law for the named input.
fn law(input: &str, t: f64) -> f64 {
    match input {
        "load_force" => 80.0 * (3.0 * t).sin() + 40.0 * t,
        "U_ref" => 2.0 * (1.3 * t).sin(),
        other => panic!("no law for {other}"),
    }
}

#[test]
fn inputs_set_at_intermediate_updates_reproduce_a_run_with_a_communication_point_per_internal_step() {
    for (name, input, stop) in [("SliderCrankFriction", "load_force", 1.0), ("HydraulicFourBar", "U_ref", 3.0)] {
        let entry = find(name).unwrap();
        let model = model(entry);
        let start = model.description.experiment.start;
        let n = 10;
        let coarse = n as f64 * model.description.solver.step_size;
        let u = var(&model, input).value_reference;
        let outputs = continuous_outputs(&model);
        let mut required = outputs.clone();
        required.push(u);

        // Run A: a communication point at every internal step.
        let f = Fmu3::new(entry, "exact3");
        f.init(start, stop);
        let mut exact: Vec<(f64, Vec<f64>)> = Vec::new();
        let mut t = start;
        while t < stop - 0.5 * coarse {
            let points = grid(t, t + coarse, n);
            for w in points.windows(2) {
                assert_eq!(f.set_f64(u, law(input, w[0])), OK3);
                assert_eq!(f.do_step(w[0], w[1] - w[0]).0, OK3, "{name}: {:?}", f.log.lines());
                exact.push((w[1], get(f.c, &outputs).1));
            }
            t = *points.last().unwrap();
        }

        // Run B: coarse steps; the callback sets the input at every intermediate time and
        // records the outputs of the finished internal step.
        let seen: Rows = Default::default();
        let (record, outs) = (seen.clone(), outputs.clone());
        let host = Host::new(move |host, time, set_requested, get_allowed| {
            assert!(get_allowed);
            let (s, values) = get(host.c(), &outs);
            assert_eq!(s, OK3, "{:?}", host.lines());
            record.borrow_mut().push((time, values));
            if set_requested {
                assert_eq!(set(host.c(), u, law(input, time)), OK3, "{:?}", host.lines());
            }
        });
        let c = instantiate(entry, &host, &required);
        assert!(!c.is_null(), "{:?}", host.lines());
        init(c, start, stop);
        let mut t = start;
        let mut at_points = Vec::new();
        while t < stop - 0.5 * coarse {
            assert_eq!(set(c, u, law(input, t)), OK3);
            assert_eq!(do_step(c, t, coarse), OK3, "{name}: {:?}", host.lines());
            t += coarse;
            at_points.push((t, get(c, &outputs).1));
        }
        let calls = host.calls.borrow().clone();
        unsafe { lib3().fmi3FreeInstance(c) };

        let seen = seen.borrow();
        assert_eq!(seen.len(), exact.len(), "{name}: one callback per internal step");
        for (k, ((ta, a), (tb, b))) in exact.iter().zip(seen.iter()).enumerate() {
            assert_eq!(ta.to_bits(), tb.to_bits(), "{name}: internal time {k}");
            assert_eq!(bits(a), bits(b), "{name}: outputs at the intermediate update {k} (t = {ta})");
        }
        for (tc, values) in &at_points {
            let (_, a) = exact.iter().find(|(ta, _)| ta == tc).expect("a communication point is an internal time");
            assert_eq!(bits(a), bits(values), "{name}: outputs after doStep at {tc}");
        }
        // Setting is requested before every internal step but the last of a doStep.
        for (k, &(_, set_requested, _, finished)) in calls.iter().enumerate() {
            assert!(finished);
            assert_eq!(set_requested, (k + 1) % n != 0, "{name}: callback {k}");
        }
        println!(
            "{name}: {} intermediate updates over {} doSteps, outputs bit-identical to a communication point \
             per internal step",
            calls.len(),
            at_points.len()
        );
    }
}

#[test]
fn a_callback_that_sets_nothing_leaves_the_run_bit_identical() {
    for name in ["DoublePendulum", "DoublePendulumStateSpace", "HydraulicFourBar"] {
        let entry = find(name).unwrap();
        let model = model(entry);
        let (start, _, h) = experiment(&model);
        let stop = start + 40.0 * h;
        let plain = Fmu3::new(entry, "plain3");
        plain.init(start, stop);
        let outputs = continuous_outputs(&model);
        let host = Host::new(|_, _, _, _| {});
        let c = instantiate(entry, &host, &outputs);
        assert!(!c.is_null(), "{:?}", host.lines());
        init(c, start, stop);
        for k in 0..40 {
            let t = start + k as f64 * h;
            assert_eq!(plain.do_step(t, h).0, OK3);
            assert_eq!(do_step(c, t, h), OK3, "{name}: {:?}", host.lines());
            assert_eq!(bits(&get(c, &outputs).1), bits(&get(plain.c, &outputs).1), "{name} at step {k}");
        }
        let calls = host.calls.borrow();
        // Every doStep ends with an update at its end, where nothing may be set.
        let mut previous = start;
        let ends: Vec<f64> = (1..=40).map(|k| start + (k - 1) as f64 * h + h).collect();
        for &(time, set_requested, get_allowed, finished) in calls.iter() {
            assert!(time > previous && finished && get_allowed, "{name}: {time} after {previous}");
            assert!(!set_requested, "{name}: no input is registered");
            previous = time;
        }
        for end in ends {
            assert!(calls.iter().any(|c| c.0 == end), "{name}: an update at the end {end}");
        }
        println!(
            "{name}: {} intermediate updates in 40 doSteps, outputs bit-identical to a run without callback",
            calls.len()
        );
        unsafe { lib3().fmi3FreeInstance(c) };
    }
}

/// One misuse inside the callback: what it does, and what the error must mention.
type Misuse = fn(&Host, &Model, bool) -> Option<u32>;

#[test]
fn calls_the_standard_does_not_allow_in_intermediate_update_mode_are_errors() {
    let entry = find("SliderCrankFriction").unwrap();
    let model = model(entry);
    let (start, stop, h) = experiment(&model);
    let load = var(&model, "load_force").value_reference;
    let position = var(&model, "slide.position").value_reference;
    let required = [load, position];
    let cases: [(&str, Misuse, &[&str]); 9] = [
        (
            "set a parameter",
            |host, m, _| Some(set(host.c(), var(m, "friction_coefficient").value_reference, 0.1)),
            &["fmi3SetFloat64", "not one of the requiredIntermediateVariables"],
        ),
        (
            "get an unregistered output",
            |host, m, _| Some(get(host.c(), &[var(m, "rod.position.x").value_reference]).0),
            &["fmi3GetFloat64", "'rod.position.x'", "requiredIntermediateVariables"],
        ),
        (
            "set an output",
            |host, m, _| Some(set(host.c(), var(m, "slide.position").value_reference, 1.0)),
            &["fmi3SetFloat64", "it is an output"],
        ),
        // The last update of a doStep requests no input.
        (
            "set at the end of the step",
            |host, m, set_requested| (!set_requested).then(|| set(host.c(), var(m, "load_force").value_reference, 1.0)),
            &["fmi3SetFloat64", "intermediateVariableSetRequested = false"],
        ),
        (
            "doStep inside the callback",
            |host, _, _| Some(do_step(host.c(), 0.0, 1e-3)),
            &["fmi3DoStep", "not allowed in state Intermediate Update Mode"],
        ),
        ("reset", |host, _, _| Some(unsafe { lib3().fmi3Reset(host.c()) }), &["fmi3Reset", "Intermediate Update Mode"]),
        ("terminate", |host, _, _| Some(unsafe { lib3().fmi3Terminate(host.c()) }), &["fmi3Terminate"]),
        (
            "get the FMU state",
            |host, _, _| {
                let mut s = std::ptr::null_mut();
                Some(unsafe { lib3().fmi3GetFMUState(host.c(), &mut s) })
            },
            &["fmi3GetFMUState", "Intermediate Update Mode"],
        ),
        (
            "debug logging",
            |host, _, _| Some(unsafe { lib3().fmi3SetDebugLogging(host.c(), true, 0, std::ptr::null()) }),
            &["fmi3SetDebugLogging"],
        ),
    ];
    for (what, misuse, needles) in cases {
        let status: std::rc::Rc<Cell<Option<u32>>> = Default::default();
        let (seen, model2) = (status.clone(), model.clone());
        let host = Host::new(move |host, _, set_requested, _| {
            if seen.get().is_none() {
                seen.set(misuse(host, &model2, set_requested));
            }
        });
        let c = instantiate(entry, &host, &required);
        init(c, start, stop);
        let s = do_step(c, start, 10.0 * h);
        assert_eq!(status.get(), Some(ERROR3), "{what}: the call itself: {:?}", host.lines());
        let lines = host.lines();
        let inner = lines.iter().rev().find(|l| l.0 == ERROR3 && !l.2.starts_with("fmi3DoStep: a call")).unwrap();
        for n in needles {
            assert!(inner.2.contains(n), "{what}: {:?} should mention {n:?}", inner.2);
        }
        assert_eq!(s, ERROR3, "{what}: the step ends with Error");
        assert!(lines.last().unwrap().2.contains("during the intermediate update"), "{what}: {lines:?}");
        // The instance is in Terminated: state functions still work there.
        let mut state = std::ptr::null_mut();
        assert_eq!(unsafe { lib3().fmi3GetFMUState(c, &mut state) }, OK3, "{what}");
        assert_eq!(unsafe { lib3().fmi3FreeFMUState(c, &mut state) }, OK3);
        unsafe { lib3().fmi3FreeInstance(c) };
    }

    // Allowed: the derivatives of a registered output, from the finished internal step.
    let host = Host::new(move |host, _, _, _| {
        let mut d = f64::NAN;
        assert_eq!(unsafe { lib3().fmi3GetOutputDerivatives(host.c(), &position, 1, &1, &mut d, 1) }, OK3);
        assert!(d.is_finite());
    });
    let c = instantiate(entry, &host, &required);
    init(c, start, stop);
    assert_eq!(do_step(c, start, 10.0 * h), OK3, "{:?}", host.lines());
    unsafe { lib3().fmi3FreeInstance(c) };

    // FreeInstance inside the callback is refused (the instance stays) and logged.
    let host = Host::new(|host, _, _, _| unsafe { lib3().fmi3FreeInstance(host.c()) });
    let c = instantiate(entry, &host, &required);
    init(c, start, stop);
    assert_eq!(do_step(c, start, 2.0 * h), OK3, "{:?}", host.lines());
    assert!(host
        .lines()
        .iter()
        .any(|l| l.0 == ERROR3 && l.2.contains("FreeInstance: not allowed in state Intermediate")));
    assert_eq!(do_step(c, start + 2.0 * h, h), OK3, "the instance is alive");
    *host.calls.borrow_mut() = Vec::new();
    unsafe { lib3().fmi3FreeInstance(c) };
}

#[test]
fn required_intermediate_variables_are_checked_at_instantiation() {
    let entry = find("SliderCrankFriction").unwrap();
    let model = model(entry);
    for (vr, needles) in [
        (var(&model, "friction_coefficient").value_reference, &["'friction_coefficient'", "intermediateUpdate"][..]),
        (var(&model, "newton_iterations").value_reference, &["'newton_iterations'", "continuous inputs"][..]),
        (0, &["'time'"][..]),
        (77777, &["value reference 77777 is no variable"][..]),
    ] {
        let host = Host::new(|_, _, _, _| {});
        assert!(instantiate(entry, &host, &[vr]).is_null());
        let lines = host.lines();
        let line = &lines.last().expect("a log line").2;
        assert!(line.starts_with("fmi3InstantiateCoSimulation") && line.contains("requiredIntermediateVariables"));
        for n in needles {
            assert!(line.contains(n), "{line:?} should mention {n:?}");
        }
    }
}
