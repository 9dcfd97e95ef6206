//! Raw C-ABI access to the cdylib through fmi-sys's libloading bindings, with log capture:
//! the misuse tests call the exported functions exactly as a C importer would.

use super::outputs;
use super::{fmi2_lines, install_fmi2_log_capture, Fmi3Log};
use fmi_sys::{fmi2 as f2, fmi3 as f3};
use mbfmu_model::catalog::CatalogEntry;
use mbfmu_model::variables::{VarType, Variable};
use mbfmu_model::Model;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

pub const OK2: u32 = f2::fmi2Status_fmi2OK;
pub const DISCARD2: u32 = f2::fmi2Status_fmi2Discard;
pub const ERROR2: u32 = f2::fmi2Status_fmi2Error;
pub const OK3: u32 = f3::fmi3Status_fmi3OK;
pub const DISCARD3: u32 = f3::fmi3Status_fmi3Discard;
pub const ERROR3: u32 = f3::fmi3Status_fmi3Error;

/// The cdylib, loaded once per test process (every instance shares the one library, as in
/// fmpy and OMSimulator).
pub fn lib2() -> &'static f2::Fmi2Binding {
    static LIB: OnceLock<f2::Fmi2Binding> = OnceLock::new();
    LIB.get_or_init(|| unsafe {
        f2::Fmi2Binding::new(mbfmu_package::locate_library().unwrap()).expect("FMI 2 symbols")
    })
}

pub fn lib3() -> &'static f3::Fmi3Binding {
    static LIB: OnceLock<f3::Fmi3Binding> = OnceLock::new();
    LIB.get_or_init(|| unsafe {
        f3::Fmi3Binding::new(mbfmu_package::locate_library().unwrap()).expect("FMI 3 symbols")
    })
}

/// A unique instance name (log lines are matched by it).
pub fn unique(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}-{}", N.fetch_add(1, Ordering::Relaxed))
}

pub fn var<'a>(model: &'a Model, name: &str) -> &'a Variable {
    model.interface.by_name(name).unwrap_or_else(|| panic!("variable {name}"))
}

/// FMI 2 callbacks whose logger is fmi-sys's C formatter (the FMI 2 logger is variadic).
pub fn callbacks2() -> Box<f2::fmi2CallbackFunctions> {
    install_fmi2_log_capture();
    Box::new(f2::fmi2CallbackFunctions {
        logger: Some(f2::logger::callback_logger_handler),
        allocateMemory: Some(libc::calloc),
        freeMemory: Some(libc::free),
        stepFinished: None,
        componentEnvironment: std::ptr::null_mut(),
    })
}

/// One FMI 2 instance, freed on drop.
pub struct Fmu2 {
    pub b: &'static f2::Fmi2Binding,
    pub c: f2::fmi2Component,
    pub name: String,
    _callbacks: Box<f2::fmi2CallbackFunctions>,
}

impl Fmu2 {
    pub fn new(entry: &CatalogEntry, prefix: &str) -> Fmu2 {
        Fmu2::of_type(entry, prefix, f2::fmi2Type_fmi2CoSimulation)
    }

    /// A co-simulation or (for state-space models) model-exchange instance.
    pub fn of_type(entry: &CatalogEntry, prefix: &str, fmu_type: f2::fmi2Type) -> Fmu2 {
        let name = unique(prefix);
        let callbacks = callbacks2();
        let (n, guid) = (CString::new(name.clone()).unwrap(), CString::new(entry.token).unwrap());
        let c = unsafe {
            lib2().fmi2Instantiate(
                n.as_ptr(),
                fmu_type,
                guid.as_ptr(),
                c"file:///tmp/resources".as_ptr(),
                &*callbacks,
                0,
                0,
            )
        };
        assert!(!c.is_null(), "{name}: instantiation failed: {:?}", fmi2_lines(&name));
        Fmu2 { b: lib2(), c, name, _callbacks: callbacks }
    }

    /// SetupExperiment, Enter- and ExitInitializationMode, all OK.
    pub fn init(&self, start: f64, stop: f64) {
        unsafe {
            assert_eq!(self.b.fmi2SetupExperiment(self.c, 0, 0.0, start, 1, stop), OK2, "{:?}", self.lines());
            assert_eq!(self.b.fmi2EnterInitializationMode(self.c), OK2, "{:?}", self.lines());
            assert!(self.b.fmi2ExitInitializationMode(self.c) <= f2::fmi2Status_fmi2Warning, "{:?}", self.lines());
        }
    }

    pub fn get_real(&self, vr: u32) -> (u32, f64) {
        let mut x = f64::NAN;
        let s = unsafe { self.b.fmi2GetReal(self.c, &vr, 1, &mut x) };
        (s, x)
    }

    pub fn set_real(&self, vr: u32, x: f64) -> u32 {
        unsafe { self.b.fmi2SetReal(self.c, &vr, 1, &x) }
    }

    pub fn set_integer(&self, vr: u32, x: i32) -> u32 {
        unsafe { self.b.fmi2SetInteger(self.c, &vr, 1, &x) }
    }

    pub fn do_step(&self, t: f64, h: f64) -> u32 {
        unsafe { self.b.fmi2DoStep(self.c, t, h, 1) }
    }

    pub fn get_state(&self) -> f2::fmi2FMUstate {
        let mut s = std::ptr::null_mut();
        assert_eq!(unsafe { self.b.fmi2GetFMUstate(self.c, &mut s) }, OK2, "{:?}", self.lines());
        s
    }

    pub fn serialize(&self, state: f2::fmi2FMUstate) -> Vec<u8> {
        let mut size = 0;
        unsafe {
            assert_eq!(self.b.fmi2SerializedFMUstateSize(self.c, state, &mut size), OK2);
            let mut bytes = vec![0u8; size];
            assert_eq!(self.b.fmi2SerializeFMUstate(self.c, state, bytes.as_mut_ptr().cast(), size), OK2);
            bytes
        }
    }

    pub fn deserialize(&self, bytes: &[u8]) -> (u32, f2::fmi2FMUstate) {
        let mut s = std::ptr::null_mut();
        let status = unsafe { self.b.fmi2DeSerializeFMUstate(self.c, bytes.as_ptr().cast(), bytes.len(), &mut s) };
        (status, s)
    }

    pub fn free_state(&self, mut state: f2::fmi2FMUstate) {
        assert_eq!(unsafe { self.b.fmi2FreeFMUstate(self.c, &mut state) }, OK2);
        assert!(state.is_null());
    }

    pub fn lines(&self) -> Vec<(log::Level, String)> {
        fmi2_lines(&self.name)
    }

    /// Asserts `status` is Error and the newest log line mentions every needle.
    pub fn assert_error(&self, status: u32, needles: &[&str]) {
        assert_eq!(status, ERROR2, "expected fmi2Error; log: {:?}", self.lines());
        let lines = self.lines();
        let (level, last) = lines.last().expect("an Error comes with a log line");
        assert_eq!(*level, log::Level::Error, "{last}");
        for n in needles {
            assert!(last.contains(n), "log line {last:?} should mention {n:?}");
        }
    }

    pub fn reset(&self) {
        assert_eq!(unsafe { self.b.fmi2Reset(self.c) }, OK2, "{:?}", self.lines());
    }
}

impl Drop for Fmu2 {
    fn drop(&mut self) {
        unsafe { self.b.fmi2FreeInstance(self.c) }
    }
}

/// One FMI 3 co-simulation instance with its own log, freed on drop.
pub struct Fmu3 {
    pub b: &'static f3::Fmi3Binding,
    pub c: f3::fmi3Instance,
    pub name: String,
    pub log: Box<Fmi3Log>,
}

/// Instantiates with the given flags (early return allowed); returns the raw handle (NULL on
/// refusal) and the log.
pub fn instantiate3(token: &str, name: &str, logging_on: bool, event_mode: bool) -> (f3::fmi3Instance, Box<Fmi3Log>) {
    instantiate3_with(token, name, logging_on, event_mode, true)
}

/// As [`instantiate3`], with the importer's `earlyReturnAllowed`.
pub fn instantiate3_with(
    token: &str,
    name: &str,
    logging_on: bool,
    event_mode: bool,
    early_return_allowed: bool,
) -> (f3::fmi3Instance, Box<Fmi3Log>) {
    let log = Box::<Fmi3Log>::default();
    let (n, t) = (CString::new(name).unwrap(), CString::new(token).unwrap());
    let c = unsafe {
        lib3().fmi3InstantiateCoSimulation(
            n.as_ptr(),
            t.as_ptr(),
            c"/tmp/resources/".as_ptr(),
            false,
            logging_on,
            event_mode,
            early_return_allowed,
            std::ptr::null(),
            0,
            log.env(),
            Some(super::fmi3_log),
            None,
        )
    };
    (c, log)
}

impl Fmu3 {
    /// A model-exchange instance (state-space models), logging on.
    pub fn model_exchange(entry: &CatalogEntry, prefix: &str) -> Fmu3 {
        let name = unique(prefix);
        let log = Box::<Fmi3Log>::default();
        let (n, t) = (CString::new(name.clone()).unwrap(), CString::new(entry.token).unwrap());
        let c = unsafe {
            lib3().fmi3InstantiateModelExchange(
                n.as_ptr(),
                t.as_ptr(),
                c"/tmp/resources/".as_ptr(),
                false,
                true,
                log.env(),
                Some(super::fmi3_log),
            )
        };
        assert!(!c.is_null(), "{name}: instantiation failed: {:?}", log.lines());
        Fmu3 { b: lib3(), c, name, log }
    }

    pub fn new(entry: &CatalogEntry, prefix: &str) -> Fmu3 {
        Fmu3::with_early_return(entry, prefix, true)
    }

    /// An instance whose importer allows early return from fmi3DoStep or not.
    pub fn with_early_return(entry: &CatalogEntry, prefix: &str, allowed: bool) -> Fmu3 {
        let name = unique(prefix);
        let (c, log) = instantiate3_with(entry.token, &name, true, false, allowed);
        assert!(!c.is_null(), "{name}: instantiation failed: {:?}", log.lines());
        Fmu3 { b: lib3(), c, name, log }
    }

    pub fn init(&self, start: f64, stop: f64) {
        unsafe {
            assert_eq!(
                self.b.fmi3EnterInitializationMode(self.c, false, 0.0, start, true, stop),
                OK3,
                "{:?}",
                self.log.lines()
            );
            assert!(self.b.fmi3ExitInitializationMode(self.c) <= f3::fmi3Status_fmi3Warning, "{:?}", self.log.lines());
        }
    }

    pub fn get_f64(&self, vr: u32) -> (u32, f64) {
        let mut x = f64::NAN;
        let s = unsafe { self.b.fmi3GetFloat64(self.c, &vr, 1, &mut x, 1) };
        (s, x)
    }

    pub fn set_f64(&self, vr: u32, x: f64) -> u32 {
        unsafe { self.b.fmi3SetFloat64(self.c, &vr, 1, &x, 1) }
    }

    pub fn set_i32(&self, vr: u32, x: i32) -> u32 {
        unsafe { self.b.fmi3SetInt32(self.c, &vr, 1, &x, 1) }
    }

    /// DoStep; returns (status, earlyReturn, lastSuccessfulTime) and checks that no event
    /// handling or termination is requested.
    pub fn do_step_early(&self, t: f64, h: f64) -> (u32, bool, f64) {
        let (mut event, mut terminate, mut early, mut last) = (true, true, true, f64::NAN);
        let s = unsafe { self.b.fmi3DoStep(self.c, t, h, true, &mut event, &mut terminate, &mut early, &mut last) };
        if s <= DISCARD3 {
            assert!(!event && !terminate, "{}: flags must stay false", self.name);
        }
        (s, early, last)
    }

    /// DoStep; returns (status, lastSuccessfulTime) and checks the flags are all false.
    pub fn do_step(&self, t: f64, h: f64) -> (u32, f64) {
        let (mut event, mut terminate, mut early, mut last) = (true, true, true, f64::NAN);
        let s = unsafe { self.b.fmi3DoStep(self.c, t, h, true, &mut event, &mut terminate, &mut early, &mut last) };
        if s <= DISCARD3 {
            assert!(!event && !terminate && !early, "{}: flags must stay false", self.name);
        }
        (s, last)
    }

    pub fn get_state(&self) -> f3::fmi3FMUState {
        let mut s = std::ptr::null_mut();
        assert_eq!(unsafe { self.b.fmi3GetFMUState(self.c, &mut s) }, OK3, "{:?}", self.log.lines());
        s
    }

    pub fn serialize(&self, state: f3::fmi3FMUState) -> Vec<u8> {
        let mut size = 0;
        unsafe {
            assert_eq!(self.b.fmi3SerializedFMUStateSize(self.c, state, &mut size), OK3);
            let mut bytes = vec![0u8; size];
            assert_eq!(self.b.fmi3SerializeFMUState(self.c, state, bytes.as_mut_ptr(), size), OK3);
            bytes
        }
    }

    pub fn deserialize(&self, bytes: &[u8]) -> (u32, f3::fmi3FMUState) {
        let mut s = std::ptr::null_mut();
        let status = unsafe { self.b.fmi3DeserializeFMUState(self.c, bytes.as_ptr(), bytes.len(), &mut s) };
        (status, s)
    }

    pub fn free_state(&self, mut state: f3::fmi3FMUState) {
        assert_eq!(unsafe { self.b.fmi3FreeFMUState(self.c, &mut state) }, OK3);
        assert!(state.is_null());
    }

    /// Asserts `status` is Error and the newest log line (status Error) mentions every needle.
    pub fn assert_error(&self, status: u32, needles: &[&str]) {
        assert_eq!(status, ERROR3, "expected fmi3Error; log: {:?}", self.log.lines());
        let lines = self.log.lines();
        let (s, category, last) = lines.last().expect("an Error comes with a log line");
        assert_eq!((*s, category.as_str()), (ERROR3, "logStatusError"), "{last}");
        for n in needles {
            assert!(last.contains(n), "log line {last:?} should mention {n:?}");
        }
    }

    pub fn reset(&self) {
        assert_eq!(unsafe { self.b.fmi3Reset(self.c) }, OK3, "{:?}", self.log.lines());
    }
}

impl Drop for Fmu3 {
    fn drop(&mut self) {
        unsafe { self.b.fmi3FreeInstance(self.c) }
    }
}

/// A readable, aligned block that is not an FMU state or instance.
pub fn garbage() -> Box<[u64; 16]> {
    Box::new([0x5555_5555_5555_5555; 16])
}

pub fn as_ptr(b: &mut [u64; 16]) -> *mut c_void {
    b.as_mut_ptr().cast()
}

/// (start, stop, step) of the model's default experiment.
pub fn experiment(model: &Model) -> (f64, f64, f64) {
    let e = &model.description.experiment;
    (e.start, e.stop, e.step)
}

/// The first output of the given type.
pub fn output_of(model: &Model, ty: VarType) -> u32 {
    model.interface.outputs().find(|v| v.ty == ty).map(|v| v.value_reference).expect("such an output")
}

/// All outputs read through FMI 2 (Real and Integer).
pub fn outputs2(f: &Fmu2, model: &Model) -> Vec<f64> {
    outputs(model)
        .iter()
        .map(|&(vr, ty)| unsafe {
            if ty == VarType::Real {
                let (s, x) = f.get_real(vr);
                assert_eq!(s, OK2);
                x
            } else {
                let mut i = 0;
                assert_eq!(f.b.fmi2GetInteger(f.c, &vr, 1, &mut i), OK2);
                f64::from(i)
            }
        })
        .collect()
}

pub fn outputs3(f: &Fmu3, model: &Model) -> Vec<f64> {
    outputs(model)
        .iter()
        .map(|&(vr, ty)| unsafe {
            if ty == VarType::Real {
                let (s, x) = f.get_f64(vr);
                assert_eq!(s, OK3);
                x
            } else {
                let mut i = 0;
                assert_eq!(f.b.fmi3GetInt32(f.c, &vr, 1, &mut i, 1), OK3);
                f64::from(i)
            }
        })
        .collect()
}

pub fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}
