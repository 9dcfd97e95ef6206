//! The fixed-step co-simulation master of a system: Jacobi (every component steps from the
//! values of the communication point) or Gauss-Seidel (in the connection graph's order, each
//! from the newest values of the components before it), with optional extrapolation of
//! inputs from the sources' output derivatives (FMI 2.0.4 Sect. 4.2.1: fmi2GetRealOutputDerivatives,
//! fmi2SetRealInputDerivatives; FMI 3.0 Sect. 4.2.1-4.2.2: fmi3GetOutputDerivatives and
//! intermediate update), used only where the FMUs declare them and zero-order hold
//! elsewhere. A communication step makes no allocation.

use super::instance::Unit;
use super::resolve::{Class, Component, Link, System};
use crate::error::{Error, Result};
use crate::fmu::{StepOutcome, Value};
use crate::modeldesc::{FmiVersion, VarType, Variable};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Algorithm {
    Jacobi,
    GaussSeidel,
}

/// How one connection's value reaches its input over a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The value of the communication point, held over the step (zero-order hold).
    Hold,
    /// Value and slope from the source's derivative, the target interpolating (FMI 2 input
    /// derivatives, FMI 3 intermediate update).
    Slope,
    /// The source's first-order extrapolation at the middle of the step, held: the held value
    /// whose integral over the step is that of the extrapolated line.
    Midpoint,
}

/// Why a run stopped before the stop time.
pub enum Halt {
    Failed { component: usize, status: &'static str, last_successful_time: Option<f64> },
    Terminated { component: usize, at: Option<f64> },
    Error(Error),
}

impl From<Error> for Halt {
    fn from(e: Error) -> Halt {
        Halt::Error(e)
    }
}

/// Variables of one type a component reads with one call, into `slots` of the value table.
struct Reads {
    ty: VarType,
    vrs: Vec<u32>,
    slots: Vec<usize>,
    buffer: Vec<f64>,
}

/// A component's incoming Real links and the buffers of one set call.
#[derive(Default)]
struct RealInputs {
    links: Vec<usize>,
    vrs: Vec<u32>,
    call_vrs: Vec<u32>,
    values: Vec<f64>,
    slopes: Vec<f64>,
}

pub struct Master {
    units: Vec<Box<dyn Unit>>,
    order: Vec<usize>,
    algorithm: Algorithm,
    links: Vec<Link>,
    /// Source slot of each link.
    link_slot: Vec<usize>,
    delivery: Vec<Delivery>,
    /// Per component: reads after each step.
    reads: Vec<Vec<Reads>>,
    /// Per component: Real sources whose derivatives are read (vrs, slots, buffer).
    derivative_reads: Vec<(Vec<u32>, Vec<usize>, Vec<f64>)>,
    real_inputs: Vec<RealInputs>,
    /// Per component: incoming links of other classes, with the target variable.
    other_inputs: Vec<Vec<(usize, Variable)>>,
    /// The newest value of every read variable, and of each source's derivative.
    values: Vec<f64>,
    slopes: Vec<f64>,
    names: Vec<String>,
    /// The value last set on each link's input (initialization's fixed point).
    last_set: Vec<f64>,
}

/// Where connections deliver slopes: an FMI 2 target that declares canInterpolateInputs, an
/// FMI 3 target that provides intermediate update for the input.
pub fn takes_slopes(target: &Component, input: usize) -> bool {
    let info = &target.info;
    match info.version {
        FmiVersion::V2 => info.capabilities.can_interpolate_inputs,
        FmiVersion::V3 => info.capabilities.provides_intermediate_update && info.variables[input].intermediate_update,
    }
}

/// How each link delivers its value: by the algorithm, --extrapolate and the FMUs' flags.
pub fn deliveries(system: &System, order: &[usize], algorithm: Algorithm, extrapolate: bool) -> Vec<Delivery> {
    let position = |k: usize| order.iter().position(|&o| o == k).expect("every component is ordered");
    system
        .links
        .iter()
        .map(|l| {
            let source = &system.components[l.from.0];
            // Gauss-Seidel gives a target the new value of a source that stepped before it.
            let fresh = algorithm == Algorithm::GaussSeidel && position(l.from.0) < position(l.to.0);
            if !extrapolate
                || fresh
                || l.class != Class::Real
                || source.info.capabilities.max_output_derivative_order < 1
            {
                Delivery::Hold
            } else if takes_slopes(&system.components[l.to.0], l.to.1) {
                Delivery::Slope
            } else {
                Delivery::Midpoint
            }
        })
        .collect()
}

impl Master {
    /// `recorded`: (component, variable) read after every step besides the links' sources;
    /// returns their slots in the value table, in order.
    pub fn new(
        system: &System,
        units: Vec<Box<dyn Unit>>,
        order: Vec<usize>,
        algorithm: Algorithm,
        delivery: Vec<Delivery>,
        recorded: &[(usize, usize)],
    ) -> (Master, Vec<usize>) {
        let n = system.components.len();
        let mut table: Vec<(usize, usize)> = Vec::new();
        let mut slot = |at: (usize, usize)| match table.iter().position(|&t| t == at) {
            Some(s) => s,
            None => {
                table.push(at);
                table.len() - 1
            }
        };
        let link_slot: Vec<usize> = system.links.iter().map(|l| slot(l.from)).collect();
        let recorded_slots: Vec<usize> = recorded.iter().map(|&r| slot(r)).collect();
        let mut reads: Vec<Vec<Reads>> = (0..n).map(|_| Vec::new()).collect();
        for (s, &(k, v)) in table.iter().enumerate() {
            let var = system.components[k].variable(v);
            match reads[k].iter_mut().find(|r| r.ty == var.ty) {
                Some(r) => {
                    r.vrs.push(var.vr);
                    r.slots.push(s);
                    r.buffer.push(0.0);
                }
                None => reads[k].push(Reads { ty: var.ty, vrs: vec![var.vr], slots: vec![s], buffer: vec![0.0] }),
            }
        }
        let mut derivative_reads: Vec<(Vec<u32>, Vec<usize>, Vec<f64>)> = (0..n).map(|_| Default::default()).collect();
        let mut real_inputs: Vec<RealInputs> = (0..n).map(|_| RealInputs::default()).collect();
        let mut other_inputs: Vec<Vec<(usize, Variable)>> = vec![Vec::new(); n];
        for (i, l) in system.links.iter().enumerate() {
            if delivery[i] != Delivery::Hold {
                let (vrs, slots, buffer) = &mut derivative_reads[l.from.0];
                if !slots.contains(&link_slot[i]) {
                    vrs.push(system.components[l.from.0].variable(l.from.1).vr);
                    slots.push(link_slot[i]);
                    buffer.push(0.0);
                }
            }
            let target = system.components[l.to.0].variable(l.to.1);
            if l.class == Class::Real {
                let inputs = &mut real_inputs[l.to.0];
                inputs.links.push(i);
                inputs.vrs.push(target.vr);
            } else {
                other_inputs[l.to.0].push((i, target.clone()));
            }
        }
        for inputs in &mut real_inputs {
            let m = inputs.links.len();
            (inputs.call_vrs, inputs.values, inputs.slopes) =
                (Vec::with_capacity(m), Vec::with_capacity(m), Vec::with_capacity(m));
        }
        let master = Master {
            units,
            order,
            algorithm,
            links: system.links.clone(),
            link_slot,
            delivery,
            reads,
            derivative_reads,
            real_inputs,
            other_inputs,
            values: vec![f64::NAN; table.len()],
            slopes: vec![0.0; table.len()],
            names: system.components.iter().map(|c| c.name.clone()).collect(),
            last_set: vec![f64::NAN; system.links.len()],
        };
        (master, recorded_slots)
    }

    pub fn unit(&mut self, k: usize) -> &mut dyn Unit {
        &mut *self.units[k]
    }

    /// The newest value in `slot`.
    pub fn value(&self, slot: usize) -> f64 {
        self.values[slot]
    }

    fn read(&mut self, k: usize) -> Result<()> {
        for r in &mut self.reads[k] {
            self.units[k].get(r.ty, &r.vrs, &mut r.buffer)?;
            for (&s, &v) in r.slots.iter().zip(&r.buffer) {
                self.values[s] = v;
            }
        }
        Ok(())
    }

    fn read_derivatives(&mut self, k: usize) -> Result<()> {
        let (vrs, slots, buffer) = &mut self.derivative_reads[k];
        if !vrs.is_empty() {
            self.units[k].output_derivatives(vrs, buffer)?;
            for (&s, &d) in slots.iter().zip(buffer.iter()) {
                self.slopes[s] = d;
            }
        }
        Ok(())
    }

    /// Sets component k's inputs for the step from t of length h; during initialization
    /// (`known`) only those whose source has been read. Returns whether a value changed.
    fn set_inputs(&mut self, k: usize, t: f64, h: f64, known: Option<&[bool]>) -> Result<bool> {
        let mut changed = false;
        let mut with_slopes = false;
        let inputs = &mut self.real_inputs[k];
        inputs.call_vrs.clear();
        inputs.values.clear();
        inputs.slopes.clear();
        for (&i, &vr) in inputs.links.iter().zip(&inputs.vrs) {
            let l = &self.links[i];
            if known.is_some_and(|known| !known[l.from.0]) {
                continue;
            }
            let s = self.link_slot[i];
            let mut x = l.factor * self.values[s] + l.offset;
            let mut slope = 0.0;
            // Initialization sets the values alone (no step to extrapolate over yet).
            match if known.is_some() { Delivery::Hold } else { self.delivery[i] } {
                Delivery::Hold => {}
                Delivery::Slope => {
                    slope = l.factor * self.slopes[s];
                    with_slopes = true;
                }
                Delivery::Midpoint => x += l.factor * self.slopes[s] * 0.5 * h,
            }
            changed |= x.to_bits() != self.last_set[i].to_bits();
            self.last_set[i] = x;
            inputs.call_vrs.push(vr);
            inputs.values.push(x);
            inputs.slopes.push(slope);
        }
        if !inputs.call_vrs.is_empty() {
            let unit = &mut self.units[k];
            if with_slopes {
                unit.set_real_slopes(t, &inputs.call_vrs, &inputs.values, &inputs.slopes)?;
            } else {
                unit.set_reals(&inputs.call_vrs, &inputs.values)?;
            }
        }
        for (i, var) in &self.other_inputs[k] {
            let l = &self.links[*i];
            if known.is_some_and(|known| !known[l.from.0]) {
                continue;
            }
            let x = self.values[self.link_slot[*i]];
            changed |= x.to_bits() != self.last_set[*i].to_bits();
            self.last_set[*i] = x;
            let value = if l.class == Class::Boolean { Value::Bool(x != 0.0) } else { Value::Int(x as i64) };
            self.units[k].set(var, &value)?;
        }
        Ok(changed)
    }

    /// In initialization mode: passes in `order` (the Gauss-Seidel order, whatever the
    /// algorithm) that give every input its source's current output, until a pass changes no
    /// input (at most one per component and one more), so that the FMUs leave initialization
    /// consistent with each other.
    pub fn propagate_initial_values(&mut self, t: f64, order: &[usize]) -> Result<()> {
        let n = self.units.len();
        let mut known = vec![false; n];
        for pass in 0..=n {
            let mut changed = false;
            for &k in order {
                changed |= self.set_inputs(k, t, 0.0, Some(&known)).map_err(|e| self.in_component(k, e))?;
                self.read(k).map_err(|e| self.in_component(k, e))?;
                known[k] = true;
            }
            if pass > 0 && !changed {
                break;
            }
        }
        Ok(())
    }

    /// After initialization: the outputs at the start (and their derivatives when extrapolating).
    pub fn read_all(&mut self) -> Result<()> {
        for k in 0..self.units.len() {
            self.read(k).and_then(|()| self.read_derivatives(k)).map_err(|e| self.in_component(k, e))?;
        }
        Ok(())
    }

    fn in_component(&self, k: usize, e: Error) -> Error {
        e.context(format!("component '{}'", self.names[k]))
    }

    /// One communication step from t to t + h.
    pub fn advance(&mut self, t: f64, h: f64) -> std::result::Result<(), Halt> {
        let order = std::mem::take(&mut self.order);
        let result = self.advance_in(&order, t, h);
        self.order = order;
        result
    }

    fn advance_in(&mut self, order: &[usize], t: f64, h: f64) -> std::result::Result<(), Halt> {
        let step = |master: &mut Master, k: usize| -> std::result::Result<(), Halt> {
            match master.units[k].step(t, h) {
                StepOutcome::Ok => Ok(()),
                StepOutcome::Terminated { at } => Err(Halt::Terminated { component: k, at }),
                StepOutcome::Failed { status, last_successful_time } => {
                    Err(Halt::Failed { component: k, status, last_successful_time })
                }
            }
        };
        match self.algorithm {
            Algorithm::Jacobi => {
                for &k in order {
                    self.set_inputs(k, t, h, None).map_err(|e| self.in_component(k, e))?;
                }
                for &k in order {
                    step(self, k)?;
                }
                for &k in order {
                    self.read(k).and_then(|()| self.read_derivatives(k)).map_err(|e| self.in_component(k, e))?;
                }
            }
            Algorithm::GaussSeidel => {
                for &k in order {
                    self.set_inputs(k, t, h, None).map_err(|e| self.in_component(k, e))?;
                    step(self, k)?;
                    self.read(k).and_then(|()| self.read_derivatives(k)).map_err(|e| self.in_component(k, e))?;
                }
            }
        }
        Ok(())
    }
}
