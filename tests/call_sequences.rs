//! Random sequences of FMI calls with hostile arguments (NaN, infinities, huge and negative
//! times, out-of-range value references, NULL states) through the C ABI, FMI 2 and FMI 3, on
//! one model of each formulation. After every call the status must be the
//! one the standard's state machine allows (tests/fmi_oracle, written from the standards and
//! independent of the FMU's tables), every Error must come with an Error log line, no panic
//! may reach the firewall, and at the end a reset instance must run again. Seeds are fixed;
//! a longer run: `PROPTEST_CASES=2000 cargo test --release --test suite call_sequences::`.

use crate::common_fmu;
use crate::fmi_oracle;

use common_fmu::abi::*;
use common_fmu::*;
use fmi_oracle::{Oracle, Standard, DISCARD, ERROR, OK};
use fmi_sys::{fmi2 as f2, fmi3 as f3};
use mbfmu_model::catalog::find;
use mbfmu_model::variables::Start;
use mbfmu_model::Model;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Mutex;

/// One model per formulation: index-3, semirecursive with hydraulics, state space.
const MODELS: [&str; 3] = ["DoublePendulum", "HydraulicFourBar", "StiffDoublePendulum"];
/// Keeps a huge communication step cheap: the budget ends it (Discard or early return).
const STEPS_PER_CALL: i32 = 400;

fn runner(cases: u32, seed: u64) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(cases);
    TestRunner::new(Config { cases, rng_seed: RngSeed::Fixed(seed), failure_persistence: None, ..Config::default() })
}

#[derive(Clone, Copy, Debug)]
enum At {
    Now,
    Hostile(f64),
}

#[derive(Clone, Copy, Debug)]
enum Value {
    /// The variable's start value times (1 + f).
    NearStart(f64),
    Hostile(f64),
}

#[derive(Clone, Copy, Debug)]
enum Op {
    /// FMI 2 fmi2SetupExperiment; FMI 3 the time arguments of EnterInitializationMode.
    Setup(f64, Option<f64>),
    EnterInit,
    ExitInit,
    SetReal(u32, Value),
    GetReal(u32),
    /// FMI 2 fmi2SetRealInputDerivatives (skipped in FMI 3, which has none).
    SetDerivative(u32, i32, Value),
    /// fmi2GetRealOutputDerivatives / fmi3GetOutputDerivatives.
    GetDerivative(u32, i32),
    /// fmi2GetDirectionalDerivative / fmi3GetDirectionalDerivative of (unknown, known, seed).
    Directional(u32, u32, Value),
    DoStep(At, f64),
    /// FMI 2 fmi2GetRealStatus(fmi2LastSuccessfulTime).
    LastTime,
    Save(usize),
    Restore(usize),
    /// Get, serialize, deserialize and set a state.
    RoundTrip,
    Reset,
    Terminate,
    /// Setup, EnterInit and ExitInit with the DefaultExperiment's times: how hosts start, so
    /// that sequences reach the running states often; with or without a stop time.
    Init(bool),
    /// fmi2CancelStep / fmi3EnterEventMode (no event mode).
    Never,
}

fn hostile_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-1.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(1e6),
        Just(-1e300),
        Just(1e-300),
        Just(f64::MAX),
        -10.0..10.0f64,
    ]
}

/// Derivative orders: the valid ones mostly, and 0, 3, -1.
fn order() -> impl Strategy<Value = i32> {
    prop_oneof![4 => 1..=2i32, 1 => prop_oneof![Just(0), Just(3), Just(-1)]]
}

fn op(n_vars: u32, mut inputs: Vec<u32>, outputs: Vec<u32>) -> impl Strategy<Value = Op> {
    if inputs.is_empty() {
        inputs.push(0); // the independent variable: refused
    }
    let time = prop_oneof![3 => Just(0.0), 1 => hostile_f64()];
    let stop = prop_oneof![Just(None), hostile_f64().prop_map(Some), (1.0..20.0f64).prop_map(Some)];
    // 50 s exceeds the step budget: Discard, or an early return where the host allows it.
    let step = prop_oneof![8 => 1e-3..0.05f64, 1 => Just(50.0), 2 => hostile_f64()];
    let value = prop_oneof![(-0.2..0.2f64).prop_map(Value::NearStart), hostile_f64().prop_map(Value::Hostile)];
    prop_oneof![
        2 => (time, stop).prop_map(|(a, b)| Op::Setup(a, b)),
        3 => Just(Op::EnterInit),
        3 => Just(Op::ExitInit),
        3 => (0..n_vars + 3, value.clone()).prop_map(|(vr, x)| Op::SetReal(vr, x)),
        3 => (prop::sample::select(inputs.clone()), value.clone()).prop_map(|(vr, x)| Op::SetReal(vr, x)),
        2 => (0..n_vars + 3).prop_map(Op::GetReal),
        2 => (prop::sample::select(inputs.clone()), order(), value.clone())
            .prop_map(|(vr, o, x)| Op::SetDerivative(vr, o, x)),
        1 => (0..n_vars + 3, order(), value.clone()).prop_map(|(vr, o, x)| Op::SetDerivative(vr, o, x)),
        2 => (0..n_vars + 3, order()).prop_map(|(vr, o)| Op::GetDerivative(vr, o)),
        2 => (prop::sample::select(outputs), prop::sample::select(inputs.clone()), value.clone())
            .prop_map(|(u, k, x)| Op::Directional(u, k, x)),
        1 => (0..n_vars + 3, 0..n_vars + 3, value).prop_map(|(u, k, x)| Op::Directional(u, k, x)),
        8 => (prop_oneof![4 => Just(At::Now), 1 => hostile_f64().prop_map(At::Hostile)], step)
            .prop_map(|(at, h)| Op::DoStep(at, h)),
        1 => Just(Op::LastTime),
        3 => (0..2usize).prop_map(Op::Save),
        3 => (0..2usize).prop_map(Op::Restore),
        1 => Just(Op::RoundTrip),
        1 => Just(Op::Reset),
        1 => Just(Op::Terminate),
        1 => Just(Op::Never),
        3 => any::<bool>().prop_map(Op::Init),
    ]
}

/// Mostly a well-started instance, then random calls.
fn sequence(n_vars: u32, inputs: Vec<u32>, outputs: Vec<u32>) -> impl Strategy<Value = Vec<Op>> {
    (prop::bool::weighted(0.8), prop::collection::vec(op(n_vars, inputs, outputs), 1..24)).prop_map(
        |(started, mut ops)| {
            if started {
                ops.insert(0, Op::Init(ops.len() % 2 == 0));
            }
            ops
        },
    )
}

/// What the sequences covered: "call in state -> status" counts, so that a test that stops
/// reaching the interesting states fails instead of passing vacuously.
#[derive(Default)]
struct Coverage(Mutex<BTreeMap<String, usize>>);

impl Coverage {
    fn record(&self, o: &Op, state: &str, status: u32) {
        let call = format!("{o:?}");
        let call = call.split('(').next().unwrap();
        *self.0.lock().unwrap().entry(format!("{call} in {state} -> {status}")).or_default() += 1;
    }
    fn count(&self, needle: &str) -> usize {
        self.0.lock().unwrap().iter().filter(|(k, _)| k.contains(needle)).map(|(_, n)| n).sum()
    }
    /// Prints the table and asserts that steps ran, failed, and states were restored.
    fn assert_reached(&self, what: &str, running: &str) {
        for (k, n) in self.0.lock().unwrap().iter() {
            println!("{what}: {k}: {n}");
        }
        for needle in [
            format!("DoStep in {running} -> {OK}"),
            format!("DoStep in {running} -> {DISCARD}"),
            format!("DoStep in {running} -> {ERROR}"),
            format!("SetReal in {running} -> {OK}"),
            format!("GetDerivative in {running} -> {OK}"),
            format!("GetDerivative in {running} -> {ERROR}"),
            format!("Directional in {running} -> {OK}"),
            format!("Directional in {running} -> {ERROR}"),
            format!("Restore in {running} -> {OK}"),
            format!("Terminate in {running} -> {OK}"),
            "Restore in error".into(),
        ] {
            let needle = needle.replace("error", if what == "fmi3" { "Terminated (after" } else { "error" });
            assert!(self.count(&needle) > 0, "{what}: no case reached '{needle}'");
        }
    }
}

fn resolve(model: &Model, vr: u32, value: Value) -> f64 {
    match value {
        Value::Hostile(x) => x,
        Value::NearStart(f) => match model.interface.variable(vr).and_then(|v| v.start.clone()) {
            Some(Start::Real(x)) => x * (1.0 + f),
            Some(Start::Integer(i)) => i as f64 * (1.0 + f),
            None => f,
        },
    }
}

fn resolve_at(oracle: &Oracle, at: At) -> f64 {
    match at {
        At::Now => oracle.time,
        At::Hostile(t) => t,
    }
}

/// The continuous Real outputs (the unknowns of co-simulation directional derivatives).
fn continuous_outputs(model: &Model) -> Vec<u32> {
    model.interface.outputs().filter(|v| v.is_continuous_signal()).map(|v| v.value_reference).collect()
}

fn max_steps_vr(model: &Model) -> u32 {
    var(model, "solver.maxStepsPerCall").value_reference
}

#[test]
fn fmi2_call_sequences_follow_the_standard_state_machine() {
    let coverage = Coverage::default();
    for (k, name) in MODELS.iter().enumerate() {
        let entry = find(name).unwrap();
        let model = model(entry);
        let (start, stop, h) = experiment(&model);
        let n_vars = model.interface.variables.len() as u32;
        let budget_vr = max_steps_vr(&model);
        runner(100, 0x5eed_0020 + k as u64)
            .run(&sequence(n_vars, inputs(&model).iter().map(|i| i.0).collect(), continuous_outputs(&model)), |ops| {
                let f = Fmu2::new(entry, "calls2");
                prop_assert_eq!(f.set_integer(budget_vr, STEPS_PER_CALL), OK2);
                let mut oracle = Oracle::new(Standard::Fmi2, model.description.experiment.start);
                let mut states: [f2::fmi2FMUstate; 2] = [std::ptr::null_mut(); 2];
                let mut saved: [Option<Oracle>; 2] = [None, None];
                let mut trace = Vec::new();
                for &o in &ops {
                    trace.push(format!("{o:?} [{}]", oracle.state()));
                    let lines_before = f.lines().len();
                    let state = oracle.state();
                    let (status, verdict) = unsafe { run2(&f, &model, &mut oracle, &mut states, &mut saved, o) };
                    coverage.record(&o, state, status);
                    if let Err(e) = verdict {
                        return Err(TestCaseError::fail(format!("{e}\ncalls: {trace:#?}\nlog: {:#?}", f.lines())));
                    }
                    if status == ERROR {
                        let lines = f.lines();
                        prop_assert!(lines.len() > lines_before, "an Error without a log line: {trace:#?}");
                        prop_assert_eq!(lines.last().unwrap().0, log::Level::Error);
                    }
                    if matches!(o, Op::Reset) && status == OK {
                        prop_assert_eq!(f.set_integer(budget_vr, STEPS_PER_CALL), OK2);
                    }
                }
                prop_assert!(
                    !f.lines().iter().any(|(_, l)| l.contains("internal error")),
                    "a panic reached the firewall"
                );
                for s in states.iter_mut().filter(|s| !s.is_null()) {
                    prop_assert_eq!(unsafe { f.b.fmi2FreeFMUstate(f.c, s) }, OK2);
                }
                f.reset();
                f.init(start, stop);
                prop_assert_eq!(f.do_step(start, h), OK2, "a reset instance runs: {:?}", f.lines());
                Ok(())
            })
            .unwrap();
    }
    coverage.assert_reached("fmi2", "stepComplete");
}

/// Runs one call on an FMI 2 instance and asks the oracle about its status.
unsafe fn run2(
    f: &Fmu2,
    model: &Model,
    oracle: &mut Oracle,
    states: &mut [f2::fmi2FMUstate; 2],
    saved: &mut [Option<Oracle>; 2],
    o: Op,
) -> (u32, Result<(), String>) {
    let (b, c) = (f.b, f.c);
    unsafe {
        match o {
            Op::Setup(start, stop) => {
                let s = b.fmi2SetupExperiment(c, 0, 0.0, start, stop.is_some() as i32, stop.unwrap_or(0.0));
                (s, oracle.setup_experiment(start, stop, s))
            }
            Op::EnterInit => {
                let s = b.fmi2EnterInitializationMode(c);
                (s, oracle.enter_initialization(None, s))
            }
            Op::ExitInit => {
                let s = b.fmi2ExitInitializationMode(c);
                (s, oracle.exit_initialization(s))
            }
            Op::SetReal(vr, v) => {
                let x = resolve(model, vr, v);
                let s = f.set_real(vr, x);
                (s, oracle.set_real(&model.interface, vr, x, s))
            }
            Op::GetReal(vr) => {
                let (s, x) = f.get_real(vr);
                (s, oracle.get_real(&model.interface, vr, s, x))
            }
            Op::SetDerivative(vr, order, v) => {
                let x = resolve(model, vr, v);
                let s = b.fmi2SetRealInputDerivatives(c, &vr, 1, &order, &x);
                (s, oracle.set_input_derivative(&model.interface, vr, order, x, s))
            }
            Op::GetDerivative(vr, order) => {
                let mut x = f64::NAN;
                let s = b.fmi2GetRealOutputDerivatives(c, &vr, 1, &order, &mut x);
                (s, oracle.get_output_derivative(&model.interface, vr, order, s, x))
            }
            Op::Directional(unknown, known, v) => {
                let (seed, mut x) = (resolve(model, known, v), f64::NAN);
                let s = b.fmi2GetDirectionalDerivative(c, &unknown, 1, &known, 1, &seed, &mut x);
                (s, oracle.directional_derivative(&model.interface, unknown, known, seed, s, x))
            }
            Op::DoStep(at, h) => {
                let t = resolve_at(oracle, at);
                let s = f.do_step(t, h);
                let mut last = f64::NAN;
                if s == DISCARD {
                    b.fmi2GetRealStatus(c, f2::fmi2StatusKind_fmi2LastSuccessfulTime, &mut last);
                }
                (s, oracle.do_step(t, h, s, last, false))
            }
            Op::LastTime => {
                let mut x = f64::NAN;
                let s = b.fmi2GetRealStatus(c, f2::fmi2StatusKind_fmi2LastSuccessfulTime, &mut x);
                (s, oracle.last_successful_time(s, x))
            }
            Op::Save(_) | Op::Restore(_) | Op::RoundTrip => state_call(f, oracle, states, saved, o),
            Op::Reset => {
                let s = b.fmi2Reset(c);
                (s, oracle.reset(s))
            }
            Op::Terminate => {
                let s = b.fmi2Terminate(c);
                (s, oracle.terminate(s))
            }
            Op::Init(stop_defined) => {
                let (start, stop, _) = experiment(model);
                let mut s = b.fmi2SetupExperiment(c, 0, 0.0, start, stop_defined as i32, stop);
                let mut verdict = oracle.setup_experiment(start, stop_defined.then_some(stop), s);
                if verdict.is_ok() {
                    s = b.fmi2EnterInitializationMode(c);
                    verdict = oracle.enter_initialization(None, s);
                }
                if verdict.is_ok() {
                    s = b.fmi2ExitInitializationMode(c);
                    verdict = oracle.exit_initialization(s);
                }
                (s, verdict)
            }
            Op::Never => {
                let s = b.fmi2CancelStep(c);
                (s, oracle.never_allowed("fmi2CancelStep", s))
            }
        }
    }
}

#[test]
fn fmi3_call_sequences_follow_the_standard_state_machine() {
    let coverage = Coverage::default();
    for (k, name) in MODELS.iter().enumerate() {
        let entry = find(name).unwrap();
        let model = model(entry);
        let (start, stop, h) = experiment(&model);
        let n_vars = model.interface.variables.len() as u32;
        let budget_vr = max_steps_vr(&model);
        let case =
            (any::<bool>(), sequence(n_vars, inputs(&model).iter().map(|i| i.0).collect(), continuous_outputs(&model)));
        runner(100, 0x5eed_0030 + k as u64)
            .run(&case, |(early_return_allowed, ops)| {
                let f = Fmu3::with_early_return(entry, "calls3", early_return_allowed);
                prop_assert_eq!(f.set_i32(budget_vr, STEPS_PER_CALL), OK3);
                let mut oracle = Oracle::new(Standard::Fmi3, model.description.experiment.start);
                let mut states: [f3::fmi3FMUState; 2] = [std::ptr::null_mut(); 2];
                let mut saved: [Option<Oracle>; 2] = [None, None];
                // FMI 3 has no SetupExperiment: its arguments go with the next EnterInit.
                let mut experiment = (0.0, None);
                let mut trace = Vec::new();
                for &o in &ops {
                    trace.push(format!("{o:?} [{}]", oracle.state()));
                    let lines_before = f.log.lines().len();
                    let state = oracle.state();
                    let (status, verdict) = match o {
                        Op::Setup(start, stop) => {
                            experiment = (start, stop);
                            continue;
                        }
                        // FMI 3 has no input derivatives (Sect. 1.1: intermediate updates instead).
                        Op::SetDerivative(..) => continue,
                        _ => unsafe {
                            run3(&f, &model, &mut oracle, &mut states, &mut saved, experiment, early_return_allowed, o)
                        },
                    };
                    coverage.record(&o, state, status);
                    if let Err(e) = verdict {
                        return Err(TestCaseError::fail(format!("{e}\ncalls: {trace:#?}\nlog: {:#?}", f.log.lines())));
                    }
                    if status == ERROR {
                        let lines = f.log.lines();
                        prop_assert!(lines.len() > lines_before, "an Error without a log line: {trace:#?}");
                        prop_assert_eq!(lines.last().unwrap().0, ERROR3);
                    }
                    if matches!(o, Op::Reset) && status == OK {
                        prop_assert_eq!(f.set_i32(budget_vr, STEPS_PER_CALL), OK3);
                    }
                }
                prop_assert!(
                    !f.log.lines().iter().any(|(_, _, l)| l.contains("internal error")),
                    "a panic reached the firewall"
                );
                for s in states.iter_mut().filter(|s| !s.is_null()) {
                    prop_assert_eq!(unsafe { f.b.fmi3FreeFMUState(f.c, s) }, OK3);
                }
                f.reset();
                f.init(start, stop);
                prop_assert_eq!(f.do_step(start, h).0, OK3, "a reset instance runs: {:?}", f.log.lines());
                Ok(())
            })
            .unwrap();
    }
    coverage.assert_reached("fmi3", "Step Mode");
}

/// Runs one call on an FMI 3 co-simulation instance and asks the oracle about its status.
#[allow(clippy::too_many_arguments)]
unsafe fn run3(
    f: &Fmu3,
    model: &Model,
    oracle: &mut Oracle,
    states: &mut [f3::fmi3FMUState; 2],
    saved: &mut [Option<Oracle>; 2],
    (start, stop): (f64, Option<f64>),
    early_return_allowed: bool,
    o: Op,
) -> (u32, Result<(), String>) {
    let (b, c) = (f.b, f.c);
    unsafe {
        match o {
            Op::Setup(..) => unreachable!("folded into EnterInit"),
            Op::SetDerivative(..) => unreachable!("no FMI 3 counterpart"),
            Op::GetDerivative(vr, order) => {
                let mut x = f64::NAN;
                let s = b.fmi3GetOutputDerivatives(c, &vr, 1, &order, &mut x, 1);
                (s, oracle.get_output_derivative(&model.interface, vr, order, s, x))
            }
            Op::Directional(unknown, known, v) => {
                let (seed, mut x) = (resolve(model, known, v), f64::NAN);
                let s = b.fmi3GetDirectionalDerivative(c, &unknown, 1, &known, 1, &seed, 1, &mut x, 1);
                (s, oracle.directional_derivative(&model.interface, unknown, known, seed, s, x))
            }
            Op::EnterInit => {
                let s = b.fmi3EnterInitializationMode(c, false, 0.0, start, stop.is_some(), stop.unwrap_or(0.0));
                (s, oracle.enter_initialization(Some((start, stop)), s))
            }
            Op::ExitInit => {
                let s = b.fmi3ExitInitializationMode(c);
                (s, oracle.exit_initialization(s))
            }
            Op::SetReal(vr, v) => {
                let x = resolve(model, vr, v);
                let s = f.set_f64(vr, x);
                (s, oracle.set_real(&model.interface, vr, x, s))
            }
            Op::GetReal(vr) => {
                let (s, x) = f.get_f64(vr);
                (s, oracle.get_real(&model.interface, vr, s, x))
            }
            Op::DoStep(at, h) => {
                let t = resolve_at(oracle, at);
                let (mut event, mut terminate, mut early, mut last) = (true, true, true, f64::NAN);
                let s = b.fmi3DoStep(c, t, h, false, &mut event, &mut terminate, &mut early, &mut last);
                if s <= DISCARD && (event || terminate || (early && !early_return_allowed)) {
                    return (s, Err(format!("DoStep flags: event {event}, terminate {terminate}, early {early}")));
                }
                (s, oracle.do_step(t, h, s, last, s == OK && early))
            }
            Op::LastTime => {
                // No FMI 3 counterpart: lastSuccessfulTime is a doStep argument. A Get of the
                // time variable instead.
                let (s, x) = f.get_f64(0);
                (s, oracle.get_real(&model.interface, 0, s, x))
            }
            Op::Save(_) | Op::Restore(_) | Op::RoundTrip => state_call(f, oracle, states, saved, o),
            Op::Reset => {
                let s = b.fmi3Reset(c);
                (s, oracle.reset(s))
            }
            Op::Terminate => {
                let s = b.fmi3Terminate(c);
                (s, oracle.terminate(s))
            }
            Op::Init(stop_defined) => {
                let (start, stop, _) = experiment(model);
                let mut s = b.fmi3EnterInitializationMode(c, false, 0.0, start, stop_defined, stop);
                let mut verdict = oracle.enter_initialization(Some((start, stop_defined.then_some(stop))), s);
                if verdict.is_ok() {
                    s = b.fmi3ExitInitializationMode(c);
                    verdict = oracle.exit_initialization(s);
                }
                (s, verdict)
            }
            Op::Never => {
                let s = b.fmi3EnterEventMode(c);
                (s, oracle.never_allowed("fmi3EnterEventMode (eventModeUsed = false)", s))
            }
        }
    }
}

/// The FMU-state functions of either standard, as the sequences call them.
trait FmuStates {
    /// GetFMUState into `slot`; a non-NULL slot is overwritten in place (FMI 2.0.4 Sect.
    /// 2.1.8, FMI 3.0 Sect. 2.2.7).
    fn get_state_into(&self, slot: &mut *mut c_void) -> u32;
    fn set_state(&self, state: *mut c_void) -> u32;
    fn serialize_state(&self, state: *mut c_void) -> Vec<u8>;
    fn deserialize_state(&self, bytes: &[u8]) -> (u32, *mut c_void);
    fn free(&self, state: *mut c_void);
}

impl FmuStates for Fmu2 {
    fn get_state_into(&self, slot: &mut *mut c_void) -> u32 {
        unsafe { self.b.fmi2GetFMUstate(self.c, slot) }
    }
    fn set_state(&self, state: *mut c_void) -> u32 {
        unsafe { self.b.fmi2SetFMUstate(self.c, state) }
    }
    fn serialize_state(&self, state: *mut c_void) -> Vec<u8> {
        self.serialize(state)
    }
    fn deserialize_state(&self, bytes: &[u8]) -> (u32, *mut c_void) {
        self.deserialize(bytes)
    }
    fn free(&self, state: *mut c_void) {
        self.free_state(state)
    }
}

impl FmuStates for Fmu3 {
    fn get_state_into(&self, slot: &mut *mut c_void) -> u32 {
        unsafe { self.b.fmi3GetFMUState(self.c, slot) }
    }
    fn set_state(&self, state: *mut c_void) -> u32 {
        unsafe { self.b.fmi3SetFMUState(self.c, state) }
    }
    fn serialize_state(&self, state: *mut c_void) -> Vec<u8> {
        self.serialize(state)
    }
    fn deserialize_state(&self, bytes: &[u8]) -> (u32, *mut c_void) {
        self.deserialize(bytes)
    }
    fn free(&self, state: *mut c_void) {
        self.free_state(state)
    }
}

/// Save, Restore (a NULL slot included) and a serialize round trip, asked of the oracle.
fn state_call(
    f: &impl FmuStates,
    oracle: &mut Oracle,
    states: &mut [*mut c_void; 2],
    saved: &mut [Option<Oracle>; 2],
    o: Op,
) -> (u32, Result<(), String>) {
    match o {
        Op::Save(k) => {
            let s = f.get_state_into(&mut states[k]);
            let verdict = oracle.save(s).map(|o| saved[k] = o);
            (s, verdict)
        }
        Op::Restore(k) => {
            let s = f.set_state(states[k]);
            (s, oracle.restore(saved[k].as_ref(), s))
        }
        Op::RoundTrip => {
            let mut state = std::ptr::null_mut();
            let s = f.get_state_into(&mut state);
            let snapshot = match oracle.save(s) {
                Ok(o) => o,
                Err(e) => return (s, Err(e)),
            };
            let bytes = f.serialize_state(state);
            f.free(state);
            let (s, copy) = f.deserialize_state(&bytes);
            if s != OK {
                return (s, Err(format!("deserializing fresh FMU-state bytes: status {s}")));
            }
            let s = f.set_state(copy);
            f.free(copy);
            (s, oracle.restore(snapshot.as_ref(), s))
        }
        _ => unreachable!("only FMU-state calls"),
    }
}
