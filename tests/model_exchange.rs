//! Model Exchange of a state-space model through the C ABI, as a host with
//! its own solver drives it: the state machine refuses illegal calls with Error and a log
//! line; a classical RK4 host integrates the reduced ODE ([Negrut1997, eqs. 11-13]), handles the
//! step events that re-choose the coordinate partition (new continuous states, same
//! mechanism), and agrees with the FMU's own co-simulation run at tight tolerance; FMI 2
//! and FMI 3 give bit-identical trajectories, and a restored FMU state repeats the run. FMPy's CVode on every such FMU: tests/fmpy.rs.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use fmi_sys::fmi2 as f2;
use mbfmu_model::catalog::{find, CatalogEntry};
use mbfmu_model::format::Method;
use mbfmu_model::Model;

const MODEL: &str = "DoublePendulumStateSpace";
const STOP: f64 = 2.0;
const H: f64 = 1e-3;

/// Outputs compared with co-simulation: positions [m], angles [rad], velocities [m/s].
const COMPARED: &[&str] = &[
    "bar2.position.x",
    "bar2.position.y",
    "bar2.position.z",
    "pivot.angle",
    "elbow.angle",
    "bar2.velocity.x",
    "bar2.velocity.y",
    "bar2.velocity.z",
];

fn entry() -> &'static CatalogEntry {
    find(MODEL).expect("catalog model")
}

/// The step events of a host run: (time, states before, states after, probe output before,
/// probe output after).
type Event = (f64, Vec<f64>, Vec<f64>, f64, f64);

/// The version-specific calls a host makes; `x` has the number of continuous states.
trait Host {
    fn set_time(&self, t: f64);
    fn set_states(&self, x: &[f64]);
    fn derivatives(&self, dx: &mut [f64]);
    fn states(&self, x: &mut [f64]);
    /// CompletedIntegratorStep: does the FMU request Event Mode?
    fn completed(&self) -> bool;
    /// EnterEventMode, event iteration, EnterContinuousTimeMode; were the states changed?
    fn event(&self) -> bool;
    fn output(&self, name: &str) -> f64;
}

/// Classical RK4 at step H over the steps `steps` (step s from t0 + s H) with step events;
/// returns the final outputs and the events.
fn integrate(host: &dyn Host, n: usize, t0: f64, steps: std::ops::Range<usize>) -> (Vec<f64>, Vec<Event>) {
    let mut x = vec![0.0; n];
    host.states(&mut x);
    let mut events = Vec::new();
    let (mut k, mut y) = ([vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]], vec![0.0; n]);
    for s in steps {
        let t = t0 + s as f64 * H;
        for (stage, c) in [0.0, 0.5, 0.5, 1.0].into_iter().enumerate() {
            for i in 0..n {
                y[i] = x[i] + if stage == 0 { 0.0 } else { c * H * k[stage - 1][i] };
            }
            host.set_time(t + c * H);
            host.set_states(&y);
            host.derivatives(&mut k[stage]);
        }
        for i in 0..n {
            x[i] += H / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
        }
        host.set_time(t0 + (s + 1) as f64 * H);
        host.set_states(&x);
        if host.completed() {
            let before = (x.clone(), host.output("bar2.position.x"));
            assert!(host.event(), "a step event re-chooses the partition and changes the states");
            host.states(&mut x);
            events.push((t + H, before.0, x.clone(), before.1, host.output("bar2.position.x")));
        }
    }
    (COMPARED.iter().map(|name| host.output(name)).collect(), events)
}

struct Host2<'a>(&'a Fmu2, &'a Model);

impl Host for Host2<'_> {
    fn set_time(&self, t: f64) {
        assert_eq!(unsafe { self.0.b.fmi2SetTime(self.0.c, t) }, OK2, "{:?}", self.0.lines());
    }
    fn set_states(&self, x: &[f64]) {
        assert_eq!(unsafe { self.0.b.fmi2SetContinuousStates(self.0.c, x.as_ptr(), x.len()) }, OK2);
    }
    fn derivatives(&self, dx: &mut [f64]) {
        let s = unsafe { self.0.b.fmi2GetDerivatives(self.0.c, dx.as_mut_ptr(), dx.len()) };
        assert_eq!(s, OK2, "{:?}", self.0.lines());
    }
    fn states(&self, x: &mut [f64]) {
        assert_eq!(unsafe { self.0.b.fmi2GetContinuousStates(self.0.c, x.as_mut_ptr(), x.len()) }, OK2);
    }
    fn completed(&self) -> bool {
        let (mut event, mut terminate) = (1, 1);
        assert_eq!(unsafe { self.0.b.fmi2CompletedIntegratorStep(self.0.c, 1, &mut event, &mut terminate) }, OK2);
        assert_eq!(terminate, 0);
        event != 0
    }
    fn event(&self) -> bool {
        unsafe {
            assert_eq!(self.0.b.fmi2EnterEventMode(self.0.c), OK2);
            let changed = new_discrete_states2(self.0);
            assert_eq!(self.0.b.fmi2EnterContinuousTimeMode(self.0.c), OK2);
            changed
        }
    }
    fn output(&self, name: &str) -> f64 {
        let (s, x) = self.0.get_real(var(self.1, name).value_reference);
        assert_eq!(s, OK2);
        x
    }
}

/// fmi2NewDiscreteStates until no new discrete states are needed; were the states changed?
fn new_discrete_states2(f: &Fmu2) -> bool {
    let mut changed = false;
    loop {
        let mut info = f2::fmi2EventInfo {
            newDiscreteStatesNeeded: 1,
            terminateSimulation: 1,
            nominalsOfContinuousStatesChanged: 1,
            valuesOfContinuousStatesChanged: 0,
            nextEventTimeDefined: 1,
            nextEventTime: 0.0,
        };
        assert_eq!(unsafe { f.b.fmi2NewDiscreteStates(f.c, &mut info) }, OK2, "{:?}", f.lines());
        assert_eq!((info.terminateSimulation, info.nominalsOfContinuousStatesChanged), (0, 0));
        assert_eq!(info.nextEventTimeDefined, 0, "no time events");
        changed |= info.valuesOfContinuousStatesChanged != 0;
        if info.newDiscreteStatesNeeded == 0 {
            return changed;
        }
    }
}

struct Host3<'a>(&'a Fmu3, &'a Model);

impl Host for Host3<'_> {
    fn set_time(&self, t: f64) {
        assert_eq!(unsafe { self.0.b.fmi3SetTime(self.0.c, t) }, OK3, "{:?}", self.0.log.lines());
    }
    fn set_states(&self, x: &[f64]) {
        assert_eq!(unsafe { self.0.b.fmi3SetContinuousStates(self.0.c, x.as_ptr(), x.len()) }, OK3);
    }
    fn derivatives(&self, dx: &mut [f64]) {
        let s = unsafe { self.0.b.fmi3GetContinuousStateDerivatives(self.0.c, dx.as_mut_ptr(), dx.len()) };
        assert_eq!(s, OK3, "{:?}", self.0.log.lines());
    }
    fn states(&self, x: &mut [f64]) {
        assert_eq!(unsafe { self.0.b.fmi3GetContinuousStates(self.0.c, x.as_mut_ptr(), x.len()) }, OK3);
    }
    fn completed(&self) -> bool {
        let (mut event, mut terminate) = (true, true);
        let s = unsafe { self.0.b.fmi3CompletedIntegratorStep(self.0.c, true, &mut event, &mut terminate) };
        assert_eq!(s, OK3);
        assert!(!terminate);
        event
    }
    fn event(&self) -> bool {
        unsafe {
            assert_eq!(self.0.b.fmi3EnterEventMode(self.0.c), OK3, "{:?}", self.0.log.lines());
            let changed = update_discrete_states3(self.0);
            assert_eq!(self.0.b.fmi3EnterContinuousTimeMode(self.0.c), OK3);
            changed
        }
    }
    fn output(&self, name: &str) -> f64 {
        let (s, x) = self.0.get_f64(var(self.1, name).value_reference);
        assert_eq!(s, OK3);
        x
    }
}

/// fmi3UpdateDiscreteStates until no update is needed; were the states changed?
fn update_discrete_states3(f: &Fmu3) -> bool {
    let mut changed = false;
    loop {
        let (mut need, mut terminate, mut nominals, mut values, mut defined, mut next) =
            (true, true, true, false, true, 0.0);
        let s = unsafe {
            f.b.fmi3UpdateDiscreteStates(
                f.c,
                &mut need,
                &mut terminate,
                &mut nominals,
                &mut values,
                &mut defined,
                &mut next,
            )
        };
        assert_eq!(s, OK3, "{:?}", f.log.lines());
        assert!(!terminate && !nominals && !defined);
        changed |= values;
        if !need {
            return changed;
        }
    }
}

/// The FMU's own co-simulation run (SDIRK4, Atol = Rtol = 1e-10) to STOP.
fn co_simulation(model: &Model) -> Vec<f64> {
    let f = Fmu2::new(entry(), "me-reference");
    let (start, _, _) = experiment(model);
    assert_eq!(f.set_integer(var(model, "solver.method").value_reference, Method::Sdirk4.code()), OK2);
    for tol in ["solver.absoluteTolerance", "solver.relativeTolerance"] {
        assert_eq!(f.set_real(var(model, tol).value_reference, 1e-10), OK2);
    }
    f.init(start, STOP);
    let n = ((STOP - start) / 0.1).round() as usize;
    for k in 0..n {
        assert_eq!(f.do_step(start + k as f64 * 0.1, 0.1), OK2, "{:?}", f.lines());
    }
    COMPARED.iter().map(|name| f.get_real(var(model, name).value_reference).1).collect()
}

#[test]
fn a_host_integrates_the_reduced_ode_through_partition_events_like_co_simulation() {
    let model = model(entry());
    let (start, _, _) = experiment(&model);
    let n = model.interface.states().count();
    assert_eq!(n, 4, "two independent coordinates and their velocities");

    let f2 = Fmu2::of_type(entry(), "me2", f2::fmi2Type_fmi2ModelExchange);
    f2.init(start, STOP);
    let mut nominals = vec![0.0; n];
    assert_eq!(unsafe { f2.b.fmi2GetNominalsOfContinuousStates(f2.c, nominals.as_mut_ptr(), n) }, OK2);
    assert!(nominals.iter().all(|&x| x == 1.0));
    new_discrete_states2(&f2);
    assert_eq!(unsafe { f2.b.fmi2EnterContinuousTimeMode(f2.c) }, OK2);
    // Half a second, an FMU state, the rest; the state serialized and restored, the rest again.
    let host2 = Host2(&f2, &model);
    let (half, all) = ((0.5 / H).round() as usize, (STOP / H).round() as usize);
    let (_, mut events2) = integrate(&host2, n, start, 0..half);
    let state = f2.get_state();
    let (out2, rest) = integrate(&host2, n, start, half..all);
    let rest_times: Vec<f64> = rest.iter().map(|e| e.0).collect();
    events2.extend(rest);
    // Through serialization (canSerializeFMUstate).
    let (status, restored) = f2.deserialize(&f2.serialize(state));
    assert_eq!(status, OK2, "{:?}", f2.lines());
    assert_eq!(unsafe { f2.b.fmi2SetFMUstate(f2.c, restored) }, OK2, "{:?}", f2.lines());
    f2.free_state(restored);
    let (again, rest_again) = integrate(&host2, n, start, half..all);
    assert_eq!(bits(&again), bits(&out2), "the restored Model Exchange instance repeats the run");
    assert_eq!(rest_again.iter().map(|e| e.0).collect::<Vec<_>>(), rest_times);
    f2.free_state(state);

    let f3 = Fmu3::model_exchange(entry(), "me3");
    f3.init(start, STOP);
    let mut count = 0;
    assert_eq!(unsafe { f3.b.fmi3GetNumberOfContinuousStates(f3.c, &mut count) }, OK3);
    assert_eq!(count, n);
    assert_eq!(unsafe { f3.b.fmi3GetNumberOfEventIndicators(f3.c, &mut count) }, OK3);
    assert_eq!(count, 0, "no event indicators");
    update_discrete_states3(&f3);
    assert_eq!(unsafe { f3.b.fmi3EnterContinuousTimeMode(f3.c) }, OK3);
    let (out3, events3) = integrate(&Host3(&f3, &model), n, start, 0..all);

    // The pendulum swings through configurations where the partition must be re-chosen.
    assert!(!events2.is_empty(), "no partition event within {STOP} s");
    for (t, before, after, probe_before, probe_after) in &events2 {
        assert_ne!(before, after, "t = {t}: the event gives new continuous states");
        // New coordinates of the same configuration: the mechanism does not move.
        assert!((probe_before - probe_after).abs() < 1e-9, "t = {t}: {probe_before} -> {probe_after}");
    }
    // Both standards run the same code: identical trajectories and events.
    assert_eq!(bits(&out2), bits(&out3));
    assert_eq!(events2.iter().map(|e| e.0).collect::<Vec<_>>(), events3.iter().map(|e| e.0).collect::<Vec<_>>());

    let reference = co_simulation(&model);
    for ((name, a), b) in COMPARED.iter().zip(&out2).zip(&reference) {
        assert!((a - b).abs() < 1e-6, "{name}: model exchange {a}, co-simulation {b}");
    }
}

#[test]
fn model_exchange_calls_out_of_state_are_errors_with_a_log_line() {
    let model = model(entry());
    let (start, stop, _) = experiment(&model);
    let f = Fmu2::of_type(entry(), "me2-state", f2::fmi2Type_fmi2ModelExchange);
    let x = [0.0; 4];
    let (mut event, mut terminate) = (0, 0);
    unsafe {
        f.assert_error(f.b.fmi2SetContinuousStates(f.c, x.as_ptr(), 4), &["fmi2SetContinuousStates", "instantiated"]);
        f.reset();
        f.init(start, stop);
        // Initialization leaves the instance in Event Mode.
        f.assert_error(
            f.b.fmi2CompletedIntegratorStep(f.c, 1, &mut event, &mut terminate),
            &["fmi2CompletedIntegratorStep", "eventMode"],
        );
        f.reset();
        f.init(start, stop);
        assert_eq!(f.b.fmi2EnterContinuousTimeMode(f.c), OK2);
        f.assert_error(f.do_step(start, 0.01), &["fmi2DoStep", "continuousTimeMode"]);
        f.reset();
        f.init(start, stop);
        assert_eq!(f.b.fmi2EnterContinuousTimeMode(f.c), OK2);
        let mut info = std::mem::zeroed::<f2::fmi2EventInfo>();
        f.assert_error(f.b.fmi2NewDiscreteStates(f.c, &mut info), &["fmi2NewDiscreteStates", "continuousTimeMode"]);
        f.reset();
        f.init(start, stop);
        f.assert_error(f.b.fmi2SetContinuousStates(f.c, x.as_ptr(), 3), &["fmi2SetContinuousStates"]);
    }

    let f = Fmu3::model_exchange(entry(), "me3-state");
    let (mut a, mut b) = (false, false);
    let mut t = 0.0;
    unsafe {
        f.assert_error(f.b.fmi3SetTime(f.c, 0.0), &["fmi3SetTime", "Instantiated"]);
        f.reset();
        f.init(start, stop);
        f.assert_error(
            f.b.fmi3CompletedIntegratorStep(f.c, true, &mut a, &mut b),
            &["fmi3CompletedIntegratorStep", "Event Mode"],
        );
        f.reset();
        f.init(start, stop);
        let mut flag = false;
        f.assert_error(
            f.b.fmi3DoStep(f.c, start, 0.01, true, &mut flag, &mut flag, &mut flag, &mut t),
            &["fmi3DoStep"],
        );
    }
}
