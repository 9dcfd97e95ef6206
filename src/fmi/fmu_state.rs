//! FMU states (FMI 2.0.4 Sect. 2.1.8, FMI 3.0 Sect. 2.2.6): a boxed slave snapshot behind
//! an opaque pointer, and its serialized form (the slave's versioned, checksummed bytes).
//! A state that cannot be restored leaves the instance's slave as it was.

use super::instance::{Instance, Outcome};
use super::logging::Status;
use super::state::Machine;
use super::values::{input, out_scalar, output};
use crate::slave::SlaveSnapshot;
use std::ffi::c_void;

const STATE_MAGIC: u64 = 0x4d42_464d_5553_5441; // "MBFMUSTA"

/// What an `fmi2FMUstate` / `fmi3FMUState` points to.
#[repr(C)]
struct FmuState {
    /// First field; cleared when freed, to refuse stale and foreign pointers (best effort).
    magic: u64,
    /// Token of the model the state belongs to.
    token: String,
    snapshot: SlaveSnapshot,
    /// Serialized form, computed on demand (size query, then serialization) when `serialized`
    /// is false; its storage is kept when the state is overwritten.
    bytes: Vec<u8>,
    serialized: bool,
}

/// The state behind a pointer, if it is one of ours.
///
/// # Safety
/// `p` is NULL or points to at least 8 readable bytes; if it is ours, nothing else uses it.
unsafe fn state_ref<'a>(p: *mut c_void, what: &str) -> Result<&'a mut FmuState, String> {
    if p.is_null() {
        return Err(format!("argument {what} is NULL"));
    }
    if !p.cast::<u64>().is_aligned() || unsafe { p.cast::<u64>().read() } != STATE_MAGIC {
        return Err(format!("argument {what} is not an FMU state of this FMU (or was already freed)"));
    }
    Ok(unsafe { &mut *p.cast::<FmuState>() })
}

impl<S: Machine> Instance<S> {
    fn check_owner(&self, state: &FmuState) -> Result<(), String> {
        let token = &self.slave.model().token;
        if &state.token != token {
            return Err(format!(
                "the FMU state belongs to another model (token {}, this instance {token})",
                state.token
            ));
        }
        Ok(())
    }

    /// The state `*slot` to overwrite (Sect. 2.1.8: "If *FMUstate != NULL, it points to a
    /// previously returned FMUstate"), or None for a new one.
    ///
    /// # Safety
    /// `slot` is NULL or writable; `*slot` is NULL or a state returned earlier.
    unsafe fn existing_state<'a>(&self, slot: *mut *mut c_void) -> Result<Option<&'a mut FmuState>, String> {
        let slot = unsafe { out_scalar(slot, "FMUstate") }?;
        if slot.is_null() {
            return Ok(None);
        }
        let state = unsafe { state_ref(*slot, "*FMUstate") }?;
        self.check_owner(state)?;
        Ok(Some(state))
    }

    /// Stores `snapshot` in `*slot`, reusing a previous state there.
    ///
    /// # Safety
    /// As for [`Instance::existing_state`].
    unsafe fn put_state(&self, slot: *mut *mut c_void, snapshot: SlaveSnapshot) -> Outcome {
        match unsafe { self.existing_state(slot) }? {
            Some(state) => {
                state.snapshot = snapshot;
                state.serialized = false;
            }
            None => unsafe { *slot = self.new_state(snapshot) },
        }
        Ok(Status::Ok)
    }

    fn new_state(&self, snapshot: SlaveSnapshot) -> *mut c_void {
        let token = self.slave.model().token.clone();
        let state = FmuState { magic: STATE_MAGIC, token, snapshot, bytes: Vec::new(), serialized: false };
        Box::into_raw(Box::new(state)).cast()
    }

    /// GetFMUstate: into an existing state, the snapshot is copied into that state's storage
    /// (no allocation once it has held a state of this instance).
    ///
    /// # Safety
    /// `slot` is NULL or writable; `*slot` is NULL or a state returned earlier.
    pub unsafe fn get_fmu_state(&mut self, slot: *mut *mut c_void) -> Outcome {
        match unsafe { self.existing_state(slot) }? {
            Some(state) => {
                self.slave.snapshot_into(&mut state.snapshot);
                state.serialized = false;
            }
            None => unsafe { *slot = self.new_state(self.slave.snapshot()) },
        }
        Ok(Status::Ok)
    }

    /// SetFMUstate: on failure the slave keeps its previous state.
    ///
    /// # Safety
    /// `state` is NULL or a state returned earlier and not freed.
    pub unsafe fn set_fmu_state(&mut self, state: *mut c_void) -> Outcome {
        let state = unsafe { state_ref(state, "FMUstate") }?;
        self.check_owner(state)?;
        let backup = self.slave.snapshot();
        if let Err(e) = self.slave.restore(&state.snapshot) {
            // Restore may have rebuilt part of the simulation; put ours back.
            let _ = self.slave.restore(&backup);
            return Err(e.to_string());
        }
        self.state = self.state.after_restore(self.slave.phase(), self.slave.is_model_exchange());
        self.last_successful_time = self.slave.time();
        Ok(Status::Ok)
    }

    /// FreeFMUstate: NULL and `*state == NULL` are ignored.
    ///
    /// # Safety
    /// `slot` is NULL or writable; `*slot` is NULL or a state returned earlier.
    pub unsafe fn free_fmu_state(&mut self, slot: *mut *mut c_void) -> Outcome {
        if slot.is_null() || unsafe { *slot }.is_null() {
            return Ok(Status::Ok);
        }
        let state = unsafe { state_ref(*slot, "*FMUstate") }?;
        state.magic = 0;
        drop(unsafe { Box::from_raw(state as *mut FmuState) });
        unsafe { *slot = std::ptr::null_mut() };
        Ok(Status::Ok)
    }

    fn serialized<'a>(&self, state: &'a mut FmuState) -> Result<&'a [u8], String> {
        self.check_owner(state)?;
        if !state.serialized {
            state.bytes = self.slave.serialize_snapshot(&state.snapshot);
            state.serialized = true;
        }
        Ok(&state.bytes)
    }

    /// SerializedFMUstateSize.
    ///
    /// # Safety
    /// `state` as for [`Instance::set_fmu_state`]; `size` is NULL or writable.
    pub unsafe fn serialized_size(&mut self, state: *mut c_void, size: *mut usize) -> Outcome {
        let size = unsafe { out_scalar(size, "size") }?;
        let state = unsafe { state_ref(state, "FMUstate") }?;
        *size = self.serialized(state)?.len();
        Ok(Status::Ok)
    }

    /// SerializeFMUstate: `size` must be what SerializedFMUstateSize returned.
    ///
    /// # Safety
    /// `state` as for [`Instance::set_fmu_state`]; `buffer` is NULL or has `size` writable bytes.
    pub unsafe fn serialize(&mut self, state: *mut c_void, buffer: *mut u8, size: usize) -> Outcome {
        let state = unsafe { state_ref(state, "FMUstate") }?;
        let bytes = self.serialized(state)?;
        if size != bytes.len() {
            return Err(format!(
                "the buffer holds {size} bytes but the FMU state needs {} (use SerializedFMUstateSize)",
                bytes.len()
            ));
        }
        let buffer = unsafe { output(buffer, size, "serializedState") }?;
        buffer.copy_from_slice(bytes);
        Ok(Status::Ok)
    }

    /// DeSerializeFMUstate: corrupted, truncated or foreign bytes are an Error and leave
    /// both the instance's slave and `*slot` untouched.
    ///
    /// # Safety
    /// `buffer` is NULL or has `size` readable bytes; `slot` is NULL or writable and `*slot` is
    /// NULL or a state returned earlier.
    pub unsafe fn deserialize(&mut self, buffer: *const u8, size: usize, slot: *mut *mut c_void) -> Outcome {
        let bytes = unsafe { input(buffer, size, "serializedState") }?;
        let snapshot = self.slave.deserialize_snapshot(bytes).map_err(|e| e.to_string())?;
        unsafe { self.put_state(slot, snapshot) }
    }
}
