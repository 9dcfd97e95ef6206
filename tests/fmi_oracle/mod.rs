//! A model of the co-simulation state machines written from the standards, independent of the
//! FMU's own tables in src/fmi/state.rs: FMI 2.0.4 Sect. 2.1.3 (status codes) and 4.2.4 (the
//! table of allowed calls per state), FMI 3.0 Sect. 2.3 (common states: an Error in super state
//! "FMU State Setable" leads to Terminated; Get in Instantiated returns start values) and 4.2
//! (Step Mode). Call-sequence fuzzing (tests/call_sequences.rs) runs random calls through the C
//! ABI and asks this oracle, call by call, which statuses the standard allows and which state
//! the instance is in afterwards.
//!
//! Where the standard leaves the outcome to the model (a parameter value inside its declared
//! bounds that the physics refuses, an input that makes a step fail), the oracle allows the
//! alternatives (OK or Error, OK or Discard) and follows the status the FMU returned.

use mbfmu_model::variables::{Causality, Initial, ModelInterface, VarType, Variability};
use std::fmt;

pub const OK: u32 = 0;
pub const WARNING: u32 = 1;
pub const DISCARD: u32 = 2;
pub const ERROR: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standard {
    Fmi2,
    Fmi3,
}

/// How far the model has come, independent of error bookkeeping: an FMU state captures this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Instantiated,
    Initialization,
    Running,
    Terminated,
}

/// FMI 2 stepFailed after a Discard; Error after any Error (FMI 2 state "error", FMI 3 state
/// Terminated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    StepFailed,
    Error,
}

/// A set of statuses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Statuses(u8);

impl Statuses {
    pub fn of(list: &[u32]) -> Statuses {
        Statuses(list.iter().fold(0, |m, &s| m | 1 << s))
    }
    pub fn contains(self, s: u32) -> bool {
        s < 8 && self.0 & (1 << s) != 0
    }
}

impl fmt::Debug for Statuses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = ["OK", "Warning", "Discard", "Error", "Fatal", "Pending"];
        let set: Vec<&str> = (0..6).filter(|&s| self.contains(s)).map(|s| names[s as usize]).collect();
        write!(f, "{{{}}}", set.join(", "))
    }
}

#[derive(Clone, Debug)]
pub struct Oracle {
    pub standard: Standard,
    pub phase: Phase,
    pub mode: Mode,
    /// The FMU's time: start time, then the end of the last successful step.
    pub time: f64,
    pub stop: Option<f64>,
    /// A parameter or input holds a value the model may refuse at initialization or in a step.
    pub tampered: bool,
    default_start: f64,
}

/// Relative tolerance on communication points, as the FMU documents (a master's accumulated
/// t + h rounding must not be refused).
fn same_time(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

impl Oracle {
    pub fn new(standard: Standard, default_start: f64) -> Oracle {
        Oracle {
            standard,
            phase: Phase::Instantiated,
            mode: Mode::Normal,
            time: default_start,
            stop: None,
            tampered: false,
            default_start,
        }
    }

    /// The state's name in the standard, for messages.
    pub fn state(&self) -> &'static str {
        match (self.standard, self.mode, self.phase) {
            (Standard::Fmi2, Mode::Error, _) => "error",
            (Standard::Fmi3, Mode::Error, _) => "Terminated (after an Error)",
            (_, Mode::StepFailed, _) => "stepFailed",
            (Standard::Fmi2, _, Phase::Instantiated) => "instantiated",
            (Standard::Fmi2, _, Phase::Initialization) => "initializationMode",
            (Standard::Fmi2, _, Phase::Running) => "stepComplete",
            (Standard::Fmi2, _, Phase::Terminated) => "terminated",
            (Standard::Fmi3, _, Phase::Instantiated) => "Instantiated",
            (Standard::Fmi3, _, Phase::Initialization) => "Initialization Mode",
            (Standard::Fmi3, _, Phase::Running) => "Step Mode",
            (Standard::Fmi3, _, Phase::Terminated) => "Terminated",
        }
    }

    fn normal(&self, phases: &[Phase]) -> bool {
        self.mode == Mode::Normal && phases.contains(&self.phase)
    }

    /// Compares `got` with `allowed`; an Error leads to the error state.
    fn check(&mut self, what: &str, allowed: Statuses, got: u32) -> Result<(), String> {
        if !allowed.contains(got) {
            return Err(format!("{what} in state {}: status {got}, the standard allows {allowed:?}", self.state()));
        }
        if got == ERROR {
            self.mode = Mode::Error;
        }
        Ok(())
    }

    fn refused_unless(&mut self, legal: bool, what: &str, got: u32) -> Result<bool, String> {
        if !legal {
            self.check(what, Statuses::of(&[ERROR]), got)?;
        }
        Ok(legal)
    }

    /// fmi2SetupExperiment, or the time arguments of fmi3EnterInitializationMode.
    fn experiment_valid(start: f64, stop: Option<f64>) -> bool {
        start.is_finite() && stop.is_none_or(|s| s.is_finite() && s >= start)
    }

    pub fn setup_experiment(&mut self, start: f64, stop: Option<f64>, got: u32) -> Result<(), String> {
        assert_eq!(self.standard, Standard::Fmi2);
        if self.refused_unless(self.normal(&[Phase::Instantiated]), "fmi2SetupExperiment", got)? {
            let valid = Self::experiment_valid(start, stop);
            self.check("fmi2SetupExperiment", Statuses::of(&[if valid { OK } else { ERROR }]), got)?;
            if valid {
                (self.time, self.stop) = (start, stop);
            }
        }
        Ok(())
    }

    /// FMI 2: no arguments (pass None); FMI 3: start and stop time.
    pub fn enter_initialization(&mut self, experiment: Option<(f64, Option<f64>)>, got: u32) -> Result<(), String> {
        let legal = self.normal(&[Phase::Instantiated]);
        if self.refused_unless(legal, "EnterInitializationMode", got)? {
            let valid = experiment.is_none_or(|(start, stop)| Self::experiment_valid(start, stop));
            self.check("EnterInitializationMode", Statuses::of(&[if valid { OK } else { ERROR }]), got)?;
            if valid {
                if let Some((start, stop)) = experiment {
                    (self.time, self.stop) = (start, stop);
                }
                self.phase = Phase::Initialization;
            }
        }
        Ok(())
    }

    pub fn exit_initialization(&mut self, got: u32) -> Result<(), String> {
        if self.refused_unless(self.normal(&[Phase::Initialization]), "ExitInitializationMode", got)? {
            let allowed =
                if self.tampered { Statuses::of(&[OK, WARNING, ERROR]) } else { Statuses::of(&[OK, WARNING]) };
            self.check("ExitInitializationMode", allowed, got)?;
            if got <= WARNING {
                self.phase = Phase::Running;
            }
        }
        Ok(())
    }

    /// Set of one Float64 (FMI 3) / Real (FMI 2) value.
    pub fn set_real(&mut self, table: &ModelInterface, vr: u32, value: f64, got: u32) -> Result<(), String> {
        let name =
            table.variable(vr).map_or("(no such variable)".to_string(), |v| format!("{} {:?}", v.name, v.causality));
        let what = format!("Set Real/Float64 #{vr} {name} = {value}");
        let legal = self.normal(&[Phase::Instantiated, Phase::Initialization, Phase::Running]);
        if !self.refused_unless(legal, &what, got)? {
            return Ok(());
        }
        let Some(v) = table.variable(vr).filter(|v| v.ty == VarType::Real) else {
            return self.check(&what, Statuses::of(&[ERROR]), got);
        };
        let settable = match v.causality {
            Causality::Input => true,
            Causality::Parameter => self.phase != Phase::Running || v.variability != Variability::Fixed,
            // FMI 2.0.4 Sect. 4.2.4, FMI 3.0 Sect. 2.3.2-2.3.3: before the end of
            // initialization, variables with initial = exact (continuous states too).
            Causality::Local => self.phase != Phase::Running && v.initial == Some(Initial::Exact),
            Causality::Output | Causality::Independent => false,
        };
        let in_bounds = value.is_finite() && v.min.is_none_or(|lo| value >= lo) && v.max.is_none_or(|hi| value <= hi);
        if !(settable && in_bounds) {
            return self.check(&what, Statuses::of(&[ERROR]), got);
        }
        // Declared bounds do not hold every physical condition (a step size > 0, a positive
        // mass, a consistent initial state): the model may refuse a parameter or start value
        // with an Error and a log line.
        let allowed = match v.causality {
            Causality::Input => Statuses::of(&[OK]),
            _ => Statuses::of(&[OK, ERROR]),
        };
        self.check(&what, allowed, got)?;
        if got == OK {
            self.tampered = true;
        }
        Ok(())
    }

    /// Get of one Float64/Real; `value` is what the FMU wrote.
    pub fn get_real(&mut self, table: &ModelInterface, vr: u32, got: u32, value: f64) -> Result<(), String> {
        let what = format!("Get Real/Float64 #{vr}");
        let legal = match self.standard {
            // FMI 2.0.4 Sect. 4.2.4: not in instantiated; allowed in error "for debugging".
            Standard::Fmi2 => self.phase != Phase::Instantiated || self.mode == Mode::Error,
            // FMI 3.0 Sect. 2.3.2: start values in Instantiated; Terminated allows Get.
            Standard::Fmi3 => true,
        };
        if !self.refused_unless(legal, &what, got)? {
            return Ok(());
        }
        // Before initialization only start values (FMI 3.0 Sect. 2.3.2) and the start time
        // exist; a calculated output has no value yet.
        let readable = table.variable(vr).is_some_and(|v| {
            v.ty == VarType::Real
                && (self.phase != Phase::Instantiated || v.start.is_some() || v.causality == Causality::Independent)
        });
        // Outputs in Initialization Mode build the model: tampered parameters may fail it.
        let allowed = match (readable, self.tampered) {
            (false, _) => Statuses::of(&[ERROR]),
            (true, false) => Statuses::of(&[OK]),
            (true, true) => Statuses::of(&[OK, ERROR]),
        };
        self.check(&what, allowed, got)?;
        if got == OK && !value.is_finite() && !self.tampered {
            return Err(format!("{what} in state {}: OK with the value {value}", self.state()));
        }
        Ok(())
    }

    /// FMI 2 fmi2SetRealInputDerivatives of one variable (Sect. 4.2.1, 4.2.4: as SetReal,
    /// in instantiated, initializationMode and stepComplete): derivatives of order 1 or 2 of
    /// continuous Real inputs, finite.
    pub fn set_input_derivative(
        &mut self,
        table: &ModelInterface,
        vr: u32,
        order: i32,
        value: f64,
        got: u32,
    ) -> Result<(), String> {
        assert_eq!(self.standard, Standard::Fmi2);
        let what = format!("fmi2SetRealInputDerivatives #{vr} order {order} = {value}");
        let legal = self.normal(&[Phase::Instantiated, Phase::Initialization, Phase::Running]);
        if !self.refused_unless(legal, &what, got)? {
            return Ok(());
        }
        let input = table.variable(vr).is_some_and(|v| {
            v.causality == Causality::Input && v.ty == VarType::Real && v.variability == Variability::Continuous
        });
        let valid = input && (1..=2).contains(&order) && value.is_finite();
        self.check(&what, Statuses::of(&[if valid { OK } else { ERROR }]), got)?;
        // A huge derivative may make the next step fail (Discard) or a rate overflow.
        if got == OK {
            self.tampered = true;
        }
        Ok(())
    }

    /// fmi2GetRealOutputDerivatives / fmi3GetOutputDerivatives of one variable: FMI 2.0.4
    /// Sect. 4.2.4 (stepComplete, stepFailed, terminated, error), FMI 3.0 Sect. 4.2.1 and
    /// 2.3.5 (Step Mode, Terminated); continuous Real outputs, order 1 or 2.
    pub fn get_output_derivative(
        &mut self,
        table: &ModelInterface,
        vr: u32,
        order: i32,
        got: u32,
        value: f64,
    ) -> Result<(), String> {
        let what = format!("GetOutputDerivatives #{vr} order {order}");
        let stepping = self.mode == Mode::Normal && matches!(self.phase, Phase::Running | Phase::Terminated);
        if !self.refused_unless(stepping || self.mode != Mode::Normal, &what, got)? {
            return Ok(());
        }
        let output = table.variable(vr).is_some_and(|v| {
            v.causality == Causality::Output && v.ty == VarType::Real && v.variability == Variability::Continuous
        });
        // After an Error in Instantiated there is no model to differentiate.
        let allowed = match (output && (1..=2).contains(&order) && self.phase != Phase::Instantiated, self.tampered) {
            (false, _) => Statuses::of(&[ERROR]),
            (true, false) => Statuses::of(&[OK]),
            (true, true) => Statuses::of(&[OK, ERROR]),
        };
        self.check(&what, allowed, got)?;
        if got == OK && !value.is_finite() && !self.tampered {
            return Err(format!("{what} in state {}: OK with the value {value}", self.state()));
        }
        Ok(())
    }

    /// fmi2GetDirectionalDerivative / fmi3GetDirectionalDerivative of one unknown by one
    /// known with one seed, on a co-simulation instance: FMI 2.0.4 Sect. 4.2.4 (as fmi2GetReal:
    /// initializationMode, stepComplete, stepFailed, terminated, error), FMI 3.0 Sect. 2.3 and
    /// 4.2 (Initialization Mode, Step Mode, Terminated); Sect. 2.1.9 / 2.2.11: the unknowns of
    /// co-simulation are continuous Real outputs, the knowns continuous Real inputs.
    pub fn directional_derivative(
        &mut self,
        table: &ModelInterface,
        unknown: u32,
        known: u32,
        seed: f64,
        got: u32,
        value: f64,
    ) -> Result<(), String> {
        let what = format!("GetDirectionalDerivative d#{unknown}/d#{known} seed {seed}");
        let legal = self.mode != Mode::Normal || self.phase != Phase::Instantiated;
        if !self.refused_unless(legal, &what, got)? {
            return Ok(());
        }
        let signal = |vr: u32, c: Causality| {
            table
                .variable(vr)
                .is_some_and(|v| v.causality == c && v.ty == VarType::Real && v.variability == Variability::Continuous)
        };
        let valid = signal(unknown, Causality::Output)
            && signal(known, Causality::Input)
            && seed.is_finite()
            && self.phase != Phase::Instantiated;
        // Initialization Mode builds the model: tampered parameters may fail it.
        let allowed = match (valid, self.tampered) {
            (false, _) => Statuses::of(&[ERROR]),
            (true, false) => Statuses::of(&[OK]),
            (true, true) => Statuses::of(&[OK, ERROR]),
        };
        self.check(&what, allowed, got)?;
        if got == OK && !value.is_finite() && !self.tampered {
            return Err(format!("{what} in state {}: OK with the value {value}", self.state()));
        }
        Ok(())
    }

    /// doStep from `at` by `h`. `last` is the FMU's lastSuccessfulTime after the call (FMI 3
    /// out argument, FMI 2 fmi2GetRealStatus), `early` FMI 3's earlyReturn.
    pub fn do_step(&mut self, at: f64, h: f64, got: u32, last: f64, early: bool) -> Result<(), String> {
        let what = format!("DoStep({at}, {h})");
        if !self.refused_unless(self.normal(&[Phase::Running]), &what, got)? {
            return Ok(());
        }
        let end = at + h;
        let valid = same_time(at, self.time)
            && h.is_finite()
            && h > 0.0
            && self.stop.is_none_or(|stop| end <= stop || same_time(end, stop));
        if !valid {
            return self.check(&what, Statuses::of(&[ERROR]), got);
        }
        self.check(&what, Statuses::of(&[OK, DISCARD]), got)?;
        let reached_ok = |t: f64| t >= at - 1e-12 && t <= end + 1e-9 * end.abs().max(1.0);
        match got {
            OK if early => {
                if self.standard != Standard::Fmi3 || !reached_ok(last) {
                    return Err(format!("{what}: early return at {last}"));
                }
                self.time = last;
            }
            OK => self.time = end,
            _ => {
                if !reached_ok(last) {
                    return Err(format!("{what}: Discard with lastSuccessfulTime {last} outside [{at}, {end}]"));
                }
                self.time = last;
                if self.standard == Standard::Fmi2 {
                    self.mode = Mode::StepFailed;
                }
            }
        }
        Ok(())
    }

    /// FMI 2 fmi2GetRealStatus(fmi2LastSuccessfulTime).
    pub fn last_successful_time(&mut self, got: u32, value: f64) -> Result<(), String> {
        let legal = self.mode != Mode::Error && matches!(self.phase, Phase::Running | Phase::Terminated);
        if self.refused_unless(legal, "fmi2GetRealStatus(fmi2LastSuccessfulTime)", got)? {
            self.check("fmi2GetRealStatus", Statuses::of(&[OK]), got)?;
            if !same_time(value, self.time) {
                return Err(format!("lastSuccessfulTime {value}, the FMU's time is {}", self.time));
            }
        }
        Ok(())
    }

    pub fn terminate(&mut self, got: u32) -> Result<(), String> {
        let legal = self.mode != Mode::Error && self.phase == Phase::Running;
        if self.refused_unless(legal, "Terminate", got)? {
            self.check("Terminate", Statuses::of(&[OK]), got)?;
            (self.phase, self.mode) = (Phase::Terminated, Mode::Normal);
        }
        Ok(())
    }

    /// A call no state of this FMU allows (fmi2CancelStep: no step is ever in progress;
    /// fmi3EnterEventMode of a co-simulation instance without event mode).
    pub fn never_allowed(&mut self, what: &str, got: u32) -> Result<(), String> {
        self.refused_unless(false, what, got).map(|_| ())
    }

    pub fn reset(&mut self, got: u32) -> Result<(), String> {
        self.check("Reset", Statuses::of(&[OK]), got)?;
        *self = Oracle::new(self.standard, self.default_start);
        Ok(())
    }

    /// GetFMUState: allowed in every state (FMI 2.0.4 Sect. 4.2.4; FMI 3.0 Sect. 2.3.1).
    pub fn save(&mut self, got: u32) -> Result<Option<Oracle>, String> {
        self.check("GetFMUState", Statuses::of(&[OK]), got)?;
        // The state is that of the model: stepFailed and error are bookkeeping of the calls.
        let mut saved = self.clone();
        saved.mode = Mode::Normal;
        Ok(Some(saved))
    }

    /// SetFMUState of a state from `save` (None: the host passes NULL).
    pub fn restore(&mut self, saved: Option<&Oracle>, got: u32) -> Result<(), String> {
        match saved {
            None => self.check("SetFMUState(NULL)", Statuses::of(&[ERROR]), got),
            Some(s) => {
                self.check("SetFMUState", Statuses::of(&[OK]), got)?;
                *self = s.clone();
                Ok(())
            }
        }
    }
}
