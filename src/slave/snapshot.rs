//! FMU states: a clone of everything that influences later results (docs/architecture.md#no-global-mutable-state), and its self-contained, versioned byte form:
//!
//!   magic "MBFMUSTA" | format version u32 LE | token length u32 LE | token bytes |
//!   payload length u64 LE | CRC-32 of the payload u32 LE | payload (postcard)

use super::{Phase, Slave, SlaveError};
use mbfmu_engine::SimulationSnapshot;
use serde::{Deserialize, Serialize};

const MAGIC: &[u8; 8] = b"MBFMUSTA";
// 6: the formulation is written as its word (was its variant number).
// 7: the inputs are signals (values, derivatives, reference time) in every formulation's
// snapshot, and the slave keeps the input derivatives set before the simulation is built.
// 8: the state-space and semirecursive formulations hold the explicit pairs' step pending past
// the communication point (dense output).
const FORMAT_VERSION: u32 = 8;

/// A slave's state at one instant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlaveSnapshot {
    pub phase: Phase,
    pub start_time: f64,
    pub stop_time: Option<f64>,
    pub time: f64,
    pub values: Vec<f64>,
    /// Parameter values the simulation was built with, and its state.
    pub built_with: Vec<f64>,
    pub sim: Option<SimulationSnapshot>,
    /// Input derivatives (orders 1, 2) set for the next communication step.
    pub input_derivatives: Vec<[f64; 2]>,
}

fn corrupt(what: &str) -> SlaveError {
    SlaveError::Snapshot(what.to_string())
}

impl Slave {
    pub fn snapshot(&self) -> SlaveSnapshot {
        SlaveSnapshot {
            phase: self.phase,
            start_time: self.start_time,
            stop_time: self.stop_time,
            time: self.time,
            values: self.values.clone(),
            built_with: self.built_with.clone(),
            sim: self.sim.as_ref().map(|s| s.snapshot()),
            input_derivatives: self.input_derivatives.clone(),
        }
    }

    /// [`Slave::snapshot`] into `s`, reusing its storage: no allocation when `s` holds a
    /// snapshot of this instance's simulation already (GetFMUState into an existing state).
    pub fn snapshot_into(&self, s: &mut SlaveSnapshot) {
        s.phase = self.phase;
        s.start_time = self.start_time;
        s.stop_time = self.stop_time;
        s.time = self.time;
        s.values.clone_from(&self.values);
        s.built_with.clone_from(&self.built_with);
        s.input_derivatives.clone_from(&self.input_derivatives);
        match (&self.sim, &mut s.sim) {
            (Some(sim), Some(snap)) => sim.snapshot_into(snap),
            (sim, slot) => *slot = sim.as_ref().map(|s| s.snapshot()),
        }
    }

    /// Restores a snapshot of this model; rebuilds the simulation when the snapshot was
    /// taken with other parameters.
    pub fn restore(&mut self, s: &SlaveSnapshot) -> Result<(), SlaveError> {
        let n = self.values.len();
        if s.values.len() != n || (!s.built_with.is_empty() && s.built_with.len() != n) {
            return Err(corrupt("it belongs to a different model"));
        }
        let stepping = matches!(s.phase, Phase::Running | Phase::Terminated);
        if stepping && (s.sim.is_none() || s.built_with.is_empty()) {
            return Err(corrupt("it claims a running simulation but holds none"));
        }
        if !(s.time.is_finite() && s.start_time.is_finite()) || s.values.iter().any(|v| !v.is_finite()) {
            return Err(corrupt("it holds non-finite times or values"));
        }
        if s.input_derivatives.len() != self.input_derivatives.len()
            || s.input_derivatives.iter().flatten().any(|d| !d.is_finite())
        {
            return Err(corrupt("its input derivatives do not belong to this model"));
        }
        // All-or-nothing: prepare the simulation aside, commit only when everything worked.
        let sim = match &s.sim {
            None => None,
            Some(snap) => {
                let reused = self.sim.is_some() && self.built_with == s.built_with && self.start_time == s.start_time;
                let mut sim = if reused {
                    self.sim.take().expect("checked")
                } else {
                    let mut builder = Slave::new(self.model.clone());
                    builder.values.clone_from(&s.built_with);
                    builder.start_time = s.start_time;
                    let d = builder.effective_description()?;
                    mbfmu_engine::Simulation::new(&d)
                        .map_err(|e| SlaveError::Snapshot(format!("cannot rebuild the model it was taken with: {e}")))?
                };
                let before = sim.snapshot();
                if let Err(e) = sim.restore(snap) {
                    // Hand our simulation back unchanged.
                    if reused {
                        sim.restore(&before).map_err(SlaveError::Snapshot)?;
                        self.sim = Some(sim);
                    }
                    return Err(SlaveError::Snapshot(e));
                }
                Some(sim)
            }
        };
        self.sim = sim;
        if let (true, Some(sim)) = (self.model_exchange, self.sim.as_mut()) {
            sim.ode_activate();
            self.partials.allocate_once(sim);
        }
        self.built_with.clone_from(&s.built_with);
        self.phase = s.phase;
        self.start_time = s.start_time;
        self.stop_time = s.stop_time;
        self.time = s.time;
        self.values.clone_from(&s.values);
        self.input_derivatives.clone_from(&s.input_derivatives);
        self.parameters_dirty = self.parameters_differ();
        self.state_changed();
        Ok(())
    }

    /// The byte form of a snapshot (see the module documentation).
    pub fn serialize_snapshot(&self, s: &SlaveSnapshot) -> Vec<u8> {
        let payload = postcard::to_stdvec(s).expect("snapshots serialize");
        let token = self.model.token.as_bytes();
        let mut out = Vec::with_capacity(payload.len() + token.len() + 32);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(token.len() as u32).to_le_bytes());
        out.extend_from_slice(token);
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Reads a snapshot written by [`Slave::serialize_snapshot`] for this model.
    pub fn deserialize_snapshot(&self, bytes: &[u8]) -> Result<SlaveSnapshot, SlaveError> {
        let mut reader = Reader { rest: bytes };
        let mut take = |n: usize, what: &str| reader.take(n, what);
        if take(8, "the header")? != MAGIC {
            return Err(corrupt("not an mbfmu FMU state (wrong magic bytes)"));
        }
        let version = u32::from_le_bytes(take(4, "the format version")?.try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(corrupt(&format!("format version {version} is not supported (expected {FORMAT_VERSION})")));
        }
        let token_len = u32::from_le_bytes(take(4, "the token length")?.try_into().expect("4 bytes")) as usize;
        if token_len > 1024 {
            return Err(corrupt("implausible token length"));
        }
        let token = take(token_len, "the token")?;
        if token != self.model.token.as_bytes() {
            return Err(corrupt(&format!("it was saved by another model ({})", String::from_utf8_lossy(token))));
        }
        let len = u64::from_le_bytes(take(8, "the payload length")?.try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(take(4, "the checksum")?.try_into().expect("4 bytes"));
        let len = usize::try_from(len).map_err(|_| corrupt("implausible payload length"))?;
        let payload = take(len, "the payload")?;
        if crc32fast::hash(payload) != crc {
            return Err(corrupt("checksum mismatch (the data is corrupted)"));
        }
        if !reader.rest.is_empty() {
            return Err(corrupt(&format!("{} unexpected bytes after the payload", reader.rest.len())));
        }
        postcard::from_bytes(payload).map_err(|e| corrupt(&format!("payload cannot be decoded: {e}")))
    }
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], SlaveError> {
        if self.rest.len() < n {
            return Err(corrupt(&format!("truncated: {what} is missing ({} of {} bytes)", self.rest.len(), n)));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }
}
