//! A host over the raw C ABI of either FMI version, as an importer with its own solver drives
//! an FMU: Model Exchange calls, event handling, directional derivatives. Statuses are
//! asserted OK unless a function returns them.

use super::abi::{Fmu2, Fmu3, OK2, OK3};
use fmi_sys::fmi2 as f2;

pub trait Host {
    fn set_time(&self, t: f64);
    fn set_states(&self, x: &[f64]);
    fn states(&self, x: &mut [f64]);
    /// GetDerivatives / GetContinuousStateDerivatives; the status.
    fn derivatives(&self, dx: &mut [f64]) -> u32;
    fn event_indicators(&self, z: &mut [f64]);
    fn reals(&self, vrs: &[u32], out: &mut [f64]);
    fn set_real(&self, vr: u32, x: f64);
    /// GetDirectionalDerivative; the status.
    fn directional(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64], out: &mut [f64]) -> u32;
    /// CompletedIntegratorStep: does the FMU ask for Event Mode?
    fn completed(&self) -> bool;
    /// Event Mode, the event iteration, Continuous-Time Mode: (states changed, next time event).
    fn event(&self) -> (bool, Option<f64>);
    /// After initialization: the event iteration and Continuous-Time Mode; the next time event.
    fn start(&self) -> Option<f64>;
    fn log(&self) -> String;
    /// The last log line.
    fn last_line(&self) -> String;
    fn ok(&self) -> u32;
}

impl Host for Fmu2 {
    fn set_time(&self, t: f64) {
        assert_eq!(unsafe { self.b.fmi2SetTime(self.c, t) }, OK2, "{}", self.log());
    }
    fn set_states(&self, x: &[f64]) {
        assert_eq!(unsafe { self.b.fmi2SetContinuousStates(self.c, x.as_ptr(), x.len()) }, OK2, "{}", self.log());
    }
    fn states(&self, x: &mut [f64]) {
        assert_eq!(unsafe { self.b.fmi2GetContinuousStates(self.c, x.as_mut_ptr(), x.len()) }, OK2, "{}", self.log());
    }
    fn derivatives(&self, dx: &mut [f64]) -> u32 {
        unsafe { self.b.fmi2GetDerivatives(self.c, dx.as_mut_ptr(), dx.len()) }
    }
    fn event_indicators(&self, z: &mut [f64]) {
        assert_eq!(unsafe { self.b.fmi2GetEventIndicators(self.c, z.as_mut_ptr(), z.len()) }, OK2, "{}", self.log());
    }
    fn reals(&self, vrs: &[u32], out: &mut [f64]) {
        assert_eq!(
            unsafe { self.b.fmi2GetReal(self.c, vrs.as_ptr(), vrs.len(), out.as_mut_ptr()) },
            OK2,
            "{}",
            self.log()
        );
    }
    fn set_real(&self, vr: u32, x: f64) {
        assert_eq!(Fmu2::set_real(self, vr, x), OK2, "{}", self.log());
    }
    fn directional(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64], out: &mut [f64]) -> u32 {
        unsafe {
            self.b.fmi2GetDirectionalDerivative(
                self.c,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                out.as_mut_ptr(),
            )
        }
    }
    fn completed(&self) -> bool {
        let (mut event, mut terminate) = (1, 1);
        assert_eq!(unsafe { self.b.fmi2CompletedIntegratorStep(self.c, 1, &mut event, &mut terminate) }, OK2);
        event != 0
    }
    fn event(&self) -> (bool, Option<f64>) {
        assert_eq!(unsafe { self.b.fmi2EnterEventMode(self.c) }, OK2, "{}", self.log());
        self.start_with_changes()
    }
    fn start(&self) -> Option<f64> {
        self.start_with_changes().1
    }
    fn log(&self) -> String {
        format!("{:?}", self.lines())
    }
    fn last_line(&self) -> String {
        self.lines().last().map(|l| l.1.clone()).unwrap_or_default()
    }
    fn ok(&self) -> u32 {
        OK2
    }
}

impl Fmu2 {
    /// fmi2NewDiscreteStates until done, then Continuous-Time Mode.
    fn start_with_changes(&self) -> (bool, Option<f64>) {
        let mut changed = false;
        loop {
            let mut info = f2::fmi2EventInfo {
                newDiscreteStatesNeeded: 1,
                terminateSimulation: 1,
                nominalsOfContinuousStatesChanged: 1,
                valuesOfContinuousStatesChanged: 0,
                nextEventTimeDefined: 0,
                nextEventTime: 0.0,
            };
            assert_eq!(unsafe { self.b.fmi2NewDiscreteStates(self.c, &mut info) }, OK2, "{}", self.log());
            changed |= info.valuesOfContinuousStatesChanged != 0;
            if info.newDiscreteStatesNeeded == 0 {
                assert_eq!(unsafe { self.b.fmi2EnterContinuousTimeMode(self.c) }, OK2);
                return (changed, (info.nextEventTimeDefined != 0).then_some(info.nextEventTime));
            }
        }
    }
}

impl Host for Fmu3 {
    fn set_time(&self, t: f64) {
        assert_eq!(unsafe { self.b.fmi3SetTime(self.c, t) }, OK3, "{}", self.log());
    }
    fn set_states(&self, x: &[f64]) {
        assert_eq!(unsafe { self.b.fmi3SetContinuousStates(self.c, x.as_ptr(), x.len()) }, OK3, "{}", self.log());
    }
    fn states(&self, x: &mut [f64]) {
        assert_eq!(unsafe { self.b.fmi3GetContinuousStates(self.c, x.as_mut_ptr(), x.len()) }, OK3, "{}", self.log());
    }
    fn derivatives(&self, dx: &mut [f64]) -> u32 {
        unsafe { self.b.fmi3GetContinuousStateDerivatives(self.c, dx.as_mut_ptr(), dx.len()) }
    }
    fn event_indicators(&self, z: &mut [f64]) {
        assert_eq!(unsafe { self.b.fmi3GetEventIndicators(self.c, z.as_mut_ptr(), z.len()) }, OK3, "{}", self.log());
    }
    fn reals(&self, vrs: &[u32], out: &mut [f64]) {
        let s = unsafe { self.b.fmi3GetFloat64(self.c, vrs.as_ptr(), vrs.len(), out.as_mut_ptr(), out.len()) };
        assert_eq!(s, OK3, "{}", self.log());
    }
    fn set_real(&self, vr: u32, x: f64) {
        assert_eq!(self.set_f64(vr, x), OK3, "{}", self.log());
    }
    fn directional(&self, unknowns: &[u32], knowns: &[u32], seed: &[f64], out: &mut [f64]) -> u32 {
        unsafe {
            self.b.fmi3GetDirectionalDerivative(
                self.c,
                unknowns.as_ptr(),
                unknowns.len(),
                knowns.as_ptr(),
                knowns.len(),
                seed.as_ptr(),
                seed.len(),
                out.as_mut_ptr(),
                out.len(),
            )
        }
    }
    fn completed(&self) -> bool {
        let (mut event, mut terminate) = (true, true);
        assert_eq!(unsafe { self.b.fmi3CompletedIntegratorStep(self.c, true, &mut event, &mut terminate) }, OK3);
        event
    }
    fn event(&self) -> (bool, Option<f64>) {
        assert_eq!(unsafe { self.b.fmi3EnterEventMode(self.c) }, OK3, "{}", self.log());
        self.start_with_changes()
    }
    fn start(&self) -> Option<f64> {
        self.start_with_changes().1
    }
    fn log(&self) -> String {
        format!("{:?}", self.log.lines())
    }
    fn last_line(&self) -> String {
        self.log.lines().last().map(|l| l.2.clone()).unwrap_or_default()
    }
    fn ok(&self) -> u32 {
        OK3
    }
}

impl Fmu3 {
    /// fmi3UpdateDiscreteStates until done, then Continuous-Time Mode.
    fn start_with_changes(&self) -> (bool, Option<f64>) {
        let mut changed = false;
        loop {
            let (mut need, mut terminate, mut nominals, mut values, mut defined, mut next) =
                (false, false, false, false, false, 0.0);
            let s = unsafe {
                self.b.fmi3UpdateDiscreteStates(
                    self.c,
                    &mut need,
                    &mut terminate,
                    &mut nominals,
                    &mut values,
                    &mut defined,
                    &mut next,
                )
            };
            assert_eq!(s, OK3, "{}", self.log());
            changed |= values;
            if !need {
                assert_eq!(unsafe { self.b.fmi3EnterContinuousTimeMode(self.c) }, OK3);
                return (changed, defined.then_some(next));
            }
        }
    }
}
