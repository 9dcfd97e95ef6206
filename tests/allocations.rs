//! The FMI calls of a running co-simulation allocate nothing: doStep,
//! GetFloat64/GetReal of every output (in one call, and FMI 3 also mixed with the time),
//! SetFloat64/SetReal of the inputs and GetFMUState into an existing state, the output
//! derivatives of both versions, the directional derivatives of the outputs by the inputs,
//! doStep with FMI 2 input derivatives set and FMI 3 doStep
//! with intermediate updates (a callback that sets the inputs and reads outputs and their
//! derivatives), called through the exported C functions of the FMU library (linked into this
//! test, so that a counting global allocator sees every allocation they make), for one model
//! of each formulation and integrator family. Counting starts after the first communication
//! step: its calls size a few buffers on first use. Model Exchange likewise: SetTime,
//! SetContinuousStates, GetDerivatives, GetEventIndicators, the directional derivatives of
//! the derivatives and outputs by every state and input, CompletedIntegratorStep, GetReal.

use fmi_sys::{fmi2 as f2, fmi3 as f3};
use mbfmu::fmi::{derivatives, directional, fmi2, fmi2_me, fmi3, fmi3_me};
use mbfmu_model::catalog;
use mbfmu_model::variables::{Causality, VarType};
use mbfmu_model::Model;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::CString;

/// Counts the allocations of the calling thread (tests run in parallel threads).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// A model with the solver settings to run it with (name, FMI 3 Int64 value).
struct Case {
    model: &'static str,
    settings: &'static [(&'static str, i64)],
}

const CASES: &[Case] = &[
    // Index-3, half-implicit; reaction-force outputs.
    Case { model: "DoublePendulum", settings: &[] },
    // Index-3 with a Real input.
    Case { model: "FourLink", settings: &[] },
    // Index-3 with an integrator of the residual-form suite (history of previous states).
    Case { model: "FourLink", settings: &[("solver.method", 8)] },
    // Friction force outputs.
    Case { model: "SliderCrankFriction", settings: &[] },
    // State-space formulation.
    Case { model: "FourLinkStateSpace", settings: &[] },
    // Semirecursive, double-step and penalty, with the hydraulic circuit and a Real input.
    Case { model: "HydraulicFourBar", settings: &[("solver.formulation", 2)] },
    Case { model: "HydraulicFourBar", settings: &[("solver.formulation", 3)] },
    // A split circuit's boundary: inflow inputs into volumes; node flows from input pressures.
    Case { model: "HydraulicFourBarCylinderMechanism", settings: &[] },
    Case { model: "HydraulicFourBarValveDrive", settings: &[] },
];

/// Each value reference twice, with orders 1 and 2 (a request for both output derivatives).
fn both_orders(vrs: &[u32]) -> (Vec<u32>, Vec<i32>) {
    (vrs.iter().flat_map(|&v| [v, v]).collect(), vrs.iter().flat_map(|_| [1, 2]).collect())
}

/// Value references of the Real outputs and inputs (with their start values).
fn variables(model: &Model) -> (Vec<u32>, Vec<(u32, f64)>) {
    let reals =
        |c: Causality| model.interface.variables.iter().filter(move |v| v.causality == c && v.ty == VarType::Real);
    let outputs = reals(Causality::Output).map(|v| v.value_reference).collect();
    let inputs = reals(Causality::Input)
        .map(|v| {
            let start = match v.start {
                Some(mbfmu_model::variables::Start::Real(x)) => x,
                _ => 0.0,
            };
            (v.value_reference, start)
        })
        .collect();
    (outputs, inputs)
}

/// The continuous Real outputs and the inputs (the unknowns and knowns of co-simulation
/// directional derivatives).
fn real_signals(model: &Model) -> (Vec<u32>, Vec<u32>) {
    let vrs = |c: Causality| {
        model
            .interface
            .variables
            .iter()
            .filter(|v| v.causality == c && v.is_continuous_signal())
            .map(|v| v.value_reference)
            .collect()
    };
    (vrs(Causality::Output), vrs(Causality::Input))
}

const STEPS: usize = 200;
const H: f64 = 1e-3;

#[test]
fn fmi3_calls_of_a_running_instance_allocate_nothing() {
    for case in CASES {
        let entry = catalog::find(case.model).expect("catalog model");
        let model = Model::from_catalog(entry).expect("catalog models build");
        let (outputs, inputs) = variables(&model);
        let time = model.interface.variables.iter().find(|v| v.causality == Causality::Independent).expect("time");
        let time = time.value_reference;
        let (name, token) = (CString::new(case.model).unwrap(), CString::new(entry.token).unwrap());
        unsafe {
            let c = fmi3::fmi3InstantiateCoSimulation(
                name.as_ptr(),
                token.as_ptr(),
                std::ptr::null(),
                false,
                false,
                false,
                false,
                std::ptr::null(),
                0,
                std::ptr::null_mut(),
                None,
                None,
            );
            assert!(!c.is_null());
            for &(setting, value) in case.settings {
                let vr = model.interface.by_name(setting).expect("setting").value_reference;
                assert_eq!(fmi3::fmi3SetInt64(c, &vr, 1, &value, 1), f3::fmi3Status_fmi3OK);
            }
            assert_eq!(fmi3::fmi3EnterInitializationMode(c, false, 0.0, 0.0, true, 1.0), f3::fmi3Status_fmi3OK);
            assert!(fmi3::fmi3ExitInitializationMode(c) <= f3::fmi3Status_fmi3Warning);
            let mut state: f3::fmi3FMUState = std::ptr::null_mut();
            assert_eq!(fmi3::fmi3GetFMUState(c, &mut state), f3::fmi3Status_fmi3OK);
            let mut values = vec![0.0; outputs.len()];
            let (rate_vrs, orders) = both_orders(&outputs);
            let mut rates = vec![0.0; rate_vrs.len()];
            let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
            let (continuous, input_vrs) = real_signals(&model);
            let (seed, mut sensitivity) = (vec![1.0; input_vrs.len()], vec![0.0; continuous.len()]);

            let mut before = allocations();
            for i in 0..STEPS {
                if i == 1 {
                    before = allocations();
                }
                for &(vr, start) in &inputs {
                    assert_eq!(fmi3::fmi3SetFloat64(c, &vr, 1, &start, 1), f3::fmi3Status_fmi3OK);
                }
                let status =
                    fmi3::fmi3DoStep(c, i as f64 * H, H, true, &mut event, &mut terminate, &mut early, &mut last);
                assert_eq!(status, f3::fmi3Status_fmi3OK, "{}: step {i}", case.model);
                let s = fmi3::fmi3GetFloat64(c, outputs.as_ptr(), outputs.len(), values.as_mut_ptr(), values.len());
                assert_eq!(s, f3::fmi3Status_fmi3OK);
                let (n, p) = (rate_vrs.len(), rates.as_mut_ptr());
                let s = derivatives::fmi3GetOutputDerivatives(c, rate_vrs.as_ptr(), n, orders.as_ptr(), p, n);
                assert_eq!(s, f3::fmi3Status_fmi3OK);
                // A read that mixes the time with an output takes the per-variable path.
                let (mixed, mut two) = ([time, outputs[0]], [0.0; 2]);
                assert_eq!(fmi3::fmi3GetFloat64(c, mixed.as_ptr(), 2, two.as_mut_ptr(), 2), f3::fmi3Status_fmi3OK);
                assert_eq!(two[1].to_bits(), values[0].to_bits(), "{}: the same output either way", case.model);
                let s = directional::fmi3GetDirectionalDerivative(
                    c,
                    continuous.as_ptr(),
                    continuous.len(),
                    input_vrs.as_ptr(),
                    input_vrs.len(),
                    seed.as_ptr(),
                    seed.len(),
                    sensitivity.as_mut_ptr(),
                    sensitivity.len(),
                );
                assert_eq!(s, f3::fmi3Status_fmi3OK);
                if i % 50 == 1 {
                    assert_eq!(fmi3::fmi3GetFMUState(c, &mut state), f3::fmi3Status_fmi3OK);
                }
            }
            let made = allocations() - before;
            assert!(values.iter().all(|x| x.is_finite()), "{}: outputs {values:?}", case.model);
            assert_eq!(made, 0, "{} {:?}: {made} allocations in {STEPS} FMI 3 steps", case.model, case.settings);

            assert_eq!(fmi3::fmi3FreeFMUState(c, &mut state), f3::fmi3Status_fmi3OK);
            fmi3::fmi3FreeInstance(c);
        }
    }
}

#[test]
fn fmi2_calls_of_a_running_instance_allocate_nothing() {
    let callbacks = f2::fmi2CallbackFunctions {
        logger: None,
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: std::ptr::null_mut(),
    };
    for case in CASES.iter().filter(|c| c.settings.is_empty()) {
        let entry = catalog::find(case.model).expect("catalog model");
        let model = Model::from_catalog(entry).expect("catalog models build");
        let (outputs, inputs) = variables(&model);
        let (name, token) = (CString::new(case.model).unwrap(), CString::new(entry.token).unwrap());
        unsafe {
            let c = fmi2::fmi2Instantiate(
                name.as_ptr(),
                f2::fmi2Type_fmi2CoSimulation,
                token.as_ptr(),
                std::ptr::null(),
                &callbacks,
                0,
                0,
            );
            assert!(!c.is_null());
            assert_eq!(fmi2::fmi2SetupExperiment(c, 0, 0.0, 0.0, 1, 1.0), f2::fmi2Status_fmi2OK);
            assert_eq!(fmi2::fmi2EnterInitializationMode(c), f2::fmi2Status_fmi2OK);
            assert!(fmi2::fmi2ExitInitializationMode(c) <= f2::fmi2Status_fmi2Warning);
            let mut state: f2::fmi2FMUstate = std::ptr::null_mut();
            assert_eq!(fmi2::fmi2GetFMUstate(c, &mut state), f2::fmi2Status_fmi2OK);
            let mut values = vec![0.0; outputs.len()];
            let (rate_vrs, orders) = both_orders(&outputs);
            let mut rates = vec![0.0; rate_vrs.len()];
            let (continuous, input_vrs) = real_signals(&model);
            let (seed, mut sensitivity) = (vec![1.0; input_vrs.len()], vec![0.0; continuous.len()]);

            let mut before = allocations();
            for i in 0..STEPS {
                if i == 1 {
                    before = allocations();
                }
                for &(vr, start) in &inputs {
                    assert_eq!(fmi2::fmi2SetReal(c, &vr, 1, &start), f2::fmi2Status_fmi2OK);
                    // A ramp of 1 % of the value per second, curving back.
                    let (d, order) = ([0.01 * start, -0.001 * start], [1, 2]);
                    let vrs = [vr, vr];
                    assert_eq!(
                        derivatives::fmi2SetRealInputDerivatives(c, vrs.as_ptr(), 2, order.as_ptr(), d.as_ptr()),
                        f2::fmi2Status_fmi2OK
                    );
                }
                assert_eq!(fmi2::fmi2DoStep(c, i as f64 * H, H, 1), f2::fmi2Status_fmi2OK, "{}: step {i}", case.model);
                assert_eq!(fmi2::fmi2GetReal(c, outputs.as_ptr(), outputs.len(), values.as_mut_ptr()), 0);
                let status = directional::fmi2GetDirectionalDerivative(
                    c,
                    continuous.as_ptr(),
                    continuous.len(),
                    input_vrs.as_ptr(),
                    input_vrs.len(),
                    seed.as_ptr(),
                    sensitivity.as_mut_ptr(),
                );
                assert_eq!(status, f2::fmi2Status_fmi2OK);
                let (n, p) = (rate_vrs.len(), rates.as_mut_ptr());
                assert_eq!(derivatives::fmi2GetRealOutputDerivatives(c, rate_vrs.as_ptr(), n, orders.as_ptr(), p), 0);
                if i % 50 == 1 {
                    assert_eq!(fmi2::fmi2GetFMUstate(c, &mut state), f2::fmi2Status_fmi2OK);
                }
            }
            let made = allocations() - before;
            assert_eq!(made, 0, "{}: {made} allocations in {STEPS} FMI 2 steps", case.model);

            assert_eq!(fmi2::fmi2FreeFMUstate(c, &mut state), f2::fmi2Status_fmi2OK);
            fmi2::fmi2FreeInstance(c);
        }
    }
}

/// What the intermediate-update callback of the test does: set the inputs, read outputs and
/// their derivatives into preallocated storage.
struct Importer {
    instance: f3::fmi3Instance,
    inputs: Vec<(u32, f64)>,
    outputs: Vec<u32>,
    values: Vec<f64>,
    rate_vrs: Vec<u32>,
    orders: Vec<i32>,
    rates: Vec<f64>,
    updates: u64,
}

unsafe extern "C" fn intermediate_update(
    env: *mut std::ffi::c_void,
    time: f64,
    set: bool,
    get: bool,
    _finished: bool,
    _can_return_early: bool,
    _early_requested: *mut bool,
    _early_time: *mut f64,
) {
    let host = unsafe { &mut *(env as *mut Importer) };
    host.updates += 1;
    unsafe {
        if get {
            let (c, n) = (host.instance, host.outputs.len());
            assert_eq!(fmi3::fmi3GetFloat64(c, host.outputs.as_ptr(), n, host.values.as_mut_ptr(), n), 0);
            let n = host.rate_vrs.len();
            let (vrs, orders, rates) = (host.rate_vrs.as_ptr(), host.orders.as_ptr(), host.rates.as_mut_ptr());
            assert_eq!(derivatives::fmi3GetOutputDerivatives(c, vrs, n, orders, rates, n), 0);
        }
        if set {
            for &(vr, start) in &host.inputs {
                let x = start * (1.0 + 0.01 * time);
                assert_eq!(fmi3::fmi3SetFloat64(host.instance, &vr, 1, &x, 1), 0);
            }
        }
    }
}

#[test]
fn fmi3_steps_with_intermediate_updates_allocate_nothing() {
    for case in CASES {
        let entry = catalog::find(case.model).expect("catalog model");
        let model = Model::from_catalog(entry).expect("catalog models build");
        let (outputs, inputs) = variables(&model);
        let (rate_vrs, orders) = both_orders(&outputs);
        let required: Vec<u32> = outputs.iter().copied().chain(inputs.iter().map(|i| i.0)).collect();
        let mut host = Box::new(Importer {
            instance: std::ptr::null_mut(),
            inputs,
            values: vec![0.0; outputs.len()],
            outputs,
            rates: vec![0.0; rate_vrs.len()],
            rate_vrs,
            orders,
            updates: 0,
        });
        let (name, token) = (CString::new(case.model).unwrap(), CString::new(entry.token).unwrap());
        unsafe {
            let env = &mut *host as *mut Importer as *mut std::ffi::c_void;
            let c = fmi3::fmi3InstantiateCoSimulation(
                name.as_ptr(),
                token.as_ptr(),
                std::ptr::null(),
                false,
                false,
                false,
                false,
                required.as_ptr(),
                required.len(),
                env,
                None,
                Some(intermediate_update),
            );
            assert!(!c.is_null());
            host.instance = c;
            for &(setting, value) in case.settings {
                let vr = model.interface.by_name(setting).expect("setting").value_reference;
                assert_eq!(fmi3::fmi3SetInt64(c, &vr, 1, &value, 1), f3::fmi3Status_fmi3OK);
            }
            assert_eq!(fmi3::fmi3EnterInitializationMode(c, false, 0.0, 0.0, true, 1.0), f3::fmi3Status_fmi3OK);
            assert!(fmi3::fmi3ExitInitializationMode(c) <= f3::fmi3Status_fmi3Warning);
            let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
            let coarse = 10.0 * H;
            let mut before = allocations();
            for i in 0..STEPS / 10 {
                if i == 1 {
                    before = allocations();
                }
                let status = fmi3::fmi3DoStep(
                    c,
                    i as f64 * coarse,
                    coarse,
                    true,
                    &mut event,
                    &mut terminate,
                    &mut early,
                    &mut last,
                );
                assert_eq!(status, f3::fmi3Status_fmi3OK, "{}: step {i}", case.model);
            }
            let made = allocations() - before;
            assert!(host.updates >= (STEPS / 10) as u64, "{}: {} updates", case.model, host.updates);
            assert_eq!(made, 0, "{} {:?}: {made} allocations in intermediate updates", case.model, case.settings);
            fmi3::fmi3FreeInstance(c);
        }
    }
}

/// Model Exchange models: state space, semirecursive with a mechanism, semirecursive circuit
/// fed by inputs.
const MODEL_EXCHANGE: &[&str] = &["DoublePendulumStateSpace", "HydraulicFourBar", "HydraulicFourBarDrive"];

/// The variables of a Model Exchange run: states, derivatives, continuous outputs, inputs.
struct MeVariables {
    derivatives_and_outputs: Vec<u32>,
    knowns: Vec<u32>,
    outputs: Vec<u32>,
    n: usize,
    indicators: usize,
}

fn me_variables(model: &Model) -> MeVariables {
    let (outputs, inputs) = real_signals(model);
    let derivatives = model.interface.derivatives().map(|v| v.value_reference);
    let states = model.interface.states().map(|v| v.value_reference);
    MeVariables {
        derivatives_and_outputs: derivatives.chain(outputs.iter().copied()).collect(),
        knowns: states.chain(inputs).collect(),
        n: model.interface.states().count(),
        indicators: model.interface.event_indicators().count(),
        outputs,
    }
}

#[test]
fn model_exchange_calls_allocate_nothing() {
    let callbacks = f2::fmi2CallbackFunctions {
        logger: None,
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: std::ptr::null_mut(),
    };
    for name in MODEL_EXCHANGE {
        let entry = catalog::find(name).expect("catalog model");
        let model = Model::from_catalog(entry).expect("catalog models build");
        let v = me_variables(&model);
        let (cname, token) = (CString::new(*name).unwrap(), CString::new(entry.token).unwrap());
        let (mut x, mut dx, mut z) = (vec![0.0; v.n], vec![0.0; v.n], vec![0.0; v.indicators]);
        let mut values = vec![0.0; v.outputs.len()];
        let mut sensitivity = vec![0.0; v.derivatives_and_outputs.len()];
        unsafe {
            // FMI 2: explicit Euler steps of the host, a Jacobian column per known per step.
            let c = fmi2::fmi2Instantiate(
                cname.as_ptr(),
                f2::fmi2Type_fmi2ModelExchange,
                token.as_ptr(),
                std::ptr::null(),
                &callbacks,
                0,
                0,
            );
            assert!(!c.is_null());
            assert_eq!(fmi2::fmi2SetupExperiment(c, 0, 0.0, 0.0, 1, 1.0), f2::fmi2Status_fmi2OK);
            assert_eq!(fmi2::fmi2EnterInitializationMode(c), f2::fmi2Status_fmi2OK);
            assert!(fmi2::fmi2ExitInitializationMode(c) <= f2::fmi2Status_fmi2Warning);
            let mut info = std::mem::zeroed::<f2::fmi2EventInfo>();
            assert_eq!(fmi2_me::fmi2NewDiscreteStates(c, &mut info), f2::fmi2Status_fmi2OK);
            assert_eq!(fmi2_me::fmi2EnterContinuousTimeMode(c), f2::fmi2Status_fmi2OK);
            assert_eq!(fmi2_me::fmi2GetContinuousStates(c, x.as_mut_ptr(), v.n), f2::fmi2Status_fmi2OK);
            let (mut event, mut terminate) = (0, 0);
            let mut before = allocations();
            for i in 0..STEPS {
                if i == 1 {
                    before = allocations();
                }
                let t = i as f64 * 1e-4;
                assert_eq!(fmi2_me::fmi2SetTime(c, t), f2::fmi2Status_fmi2OK);
                assert_eq!(fmi2_me::fmi2SetContinuousStates(c, x.as_ptr(), v.n), f2::fmi2Status_fmi2OK);
                assert_eq!(fmi2_me::fmi2GetDerivatives(c, dx.as_mut_ptr(), v.n), f2::fmi2Status_fmi2OK);
                assert_eq!(fmi2_me::fmi2GetEventIndicators(c, z.as_mut_ptr(), z.len()), f2::fmi2Status_fmi2OK);
                for known in &v.knowns {
                    let status = directional::fmi2GetDirectionalDerivative(
                        c,
                        v.derivatives_and_outputs.as_ptr(),
                        v.derivatives_and_outputs.len(),
                        known,
                        1,
                        &1.0,
                        sensitivity.as_mut_ptr(),
                    );
                    assert_eq!(status, f2::fmi2Status_fmi2OK, "{name}");
                }
                assert_eq!(fmi2::fmi2GetReal(c, v.outputs.as_ptr(), v.outputs.len(), values.as_mut_ptr()), 0);
                for (x, d) in x.iter_mut().zip(&dx) {
                    *x += 1e-4 * d;
                }
                assert_eq!(fmi2_me::fmi2CompletedIntegratorStep(c, 1, &mut event, &mut terminate), 0);
            }
            let made = allocations() - before;
            assert_eq!(made, 0, "{name}: {made} allocations in {STEPS} FMI 2 Model Exchange steps");
            fmi2::fmi2FreeInstance(c);

            // FMI 3, the same calls.
            let c = fmi3::fmi3InstantiateModelExchange(
                cname.as_ptr(),
                token.as_ptr(),
                std::ptr::null(),
                false,
                false,
                std::ptr::null_mut(),
                None,
            );
            assert!(!c.is_null());
            assert_eq!(fmi3::fmi3EnterInitializationMode(c, false, 0.0, 0.0, true, 1.0), f3::fmi3Status_fmi3OK);
            assert!(fmi3::fmi3ExitInitializationMode(c) <= f3::fmi3Status_fmi3Warning);
            let (mut a, mut b, mut d, mut e, mut f, mut next) = (false, false, false, false, false, 0.0);
            let s = fmi3_me::fmi3UpdateDiscreteStates(c, &mut a, &mut b, &mut d, &mut e, &mut f, &mut next);
            assert_eq!(s, f3::fmi3Status_fmi3OK);
            assert_eq!(fmi3_me::fmi3EnterContinuousTimeMode(c), f3::fmi3Status_fmi3OK);
            assert_eq!(fmi3_me::fmi3GetContinuousStates(c, x.as_mut_ptr(), v.n), f3::fmi3Status_fmi3OK);
            let mut before = allocations();
            for i in 0..STEPS {
                if i == 1 {
                    before = allocations();
                }
                let t = i as f64 * 1e-4;
                assert_eq!(fmi3_me::fmi3SetTime(c, t), f3::fmi3Status_fmi3OK);
                assert_eq!(fmi3_me::fmi3SetContinuousStates(c, x.as_ptr(), v.n), f3::fmi3Status_fmi3OK);
                let s = fmi3_me::fmi3GetContinuousStateDerivatives(c, dx.as_mut_ptr(), v.n);
                assert_eq!(s, f3::fmi3Status_fmi3OK);
                assert_eq!(fmi3_me::fmi3GetEventIndicators(c, z.as_mut_ptr(), z.len()), f3::fmi3Status_fmi3OK);
                for known in &v.knowns {
                    let s = directional::fmi3GetDirectionalDerivative(
                        c,
                        v.derivatives_and_outputs.as_ptr(),
                        v.derivatives_and_outputs.len(),
                        known,
                        1,
                        &1.0,
                        1,
                        sensitivity.as_mut_ptr(),
                        sensitivity.len(),
                    );
                    assert_eq!(s, f3::fmi3Status_fmi3OK, "{name}");
                }
                let s = fmi3::fmi3GetFloat64(c, v.outputs.as_ptr(), v.outputs.len(), values.as_mut_ptr(), values.len());
                assert_eq!(s, f3::fmi3Status_fmi3OK);
                for (x, d) in x.iter_mut().zip(&dx) {
                    *x += 1e-4 * d;
                }
                assert_eq!(fmi3_me::fmi3CompletedIntegratorStep(c, true, &mut a, &mut b), f3::fmi3Status_fmi3OK);
            }
            let made = allocations() - before;
            assert_eq!(made, 0, "{name}: {made} allocations in {STEPS} FMI 3 Model Exchange steps");
            fmi3::fmi3FreeInstance(c);
        }
    }
}
