//! The FMI 2.0 / 3.0 C ABI (exported fmi2* / fmi3* functions): instance lifecycle, state
//! machine, value references, logging, FMU state. No physics: everything model-related is
//! delegated to [`crate::slave::Slave`].
//!
//! - [`fmi2`], [`fmi2_me`] (model exchange), [`fmi3`], [`fmi3_me`], [`fmi3_unsupported`]: the
//!   exported functions (all 44 of FMI 2.0, all 75 of FMI 3.0; importers refuse an FMU with a
//!   missing symbol).
//! - [`derivatives`]: input and output derivatives of both versions; [`directional`]:
//!   directional derivatives of both versions; [`intermediate`]: FMI 3 intermediate updates
//!   inside fmi3DoStep.
//! - [`instance`]: the instance behind a handle and the firewall every function goes through.
//! - [`state`]: the state machine of each standard.
//! - [`values`], [`fmu_state`]: getters/setters and FMU states.
//! - [`logging`], [`uri`]: the host's logger; resource locations.

// The exported functions keep the standard's names and parameter names; their safety
// contract is the FMI standard's (valid handles, arrays of the stated lengths).
#![allow(non_snake_case, non_upper_case_globals, clippy::missing_safety_doc)]

pub mod derivatives;
pub mod directional;
pub mod fmi2;
pub mod fmi2_me;
pub mod fmi3;
pub mod fmi3_me;
pub mod fmi3_unsupported;
pub mod fmu_state;
pub mod instance;
pub mod intermediate;
pub mod logging;
pub mod state;
pub mod uri;
pub mod values;

use mbfmu_model::catalog;
use mbfmu_model::Model;
use mbfmu_model::RESOURCE_DESCRIPTION;
use std::ffi::{c_char, CStr};
use std::path::Path;
use std::sync::Arc;

/// A C string as Rust text (lossy), `None` for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub unsafe fn opt_string(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}

/// An array of `n` C strings (SetDebugLogging categories); NULL entries are an error.
///
/// # Safety
/// `p` is NULL or points to `n` pointers that are NULL or NUL-terminated strings.
pub unsafe fn c_strings(p: *const *const c_char, n: usize, what: &str) -> Result<Vec<String>, String> {
    let pointers = unsafe { values::input(p, n, what) }?;
    pointers
        .iter()
        .enumerate()
        .map(|(k, &s)| unsafe { opt_string(s) }.ok_or_else(|| format!("{what}[{k}] is NULL")))
        .collect()
}

/// The model whose GUID / instantiationToken is `token` (ARCHITECTURE.md principle 3: one
/// binary, every model, selected at instantiation): a catalog model, or else the description
/// in `<resources>/model.json` that `mbfmu package --model` put into the archive.
pub fn model_for_token(token: &str, resources: Option<&Path>) -> Result<Arc<Model>, String> {
    if let Some(entry) = catalog::by_token(token) {
        return Model::from_catalog(entry).map(Arc::new);
    }
    let mismatch = "the modelDescription.xml and the binary come from different builds";
    let Some(dir) = resources else {
        return Err(format!(
            "the GUID/instantiationToken {token} matches no model of this binary and no resource \
             location was given to look for {RESOURCE_DESCRIPTION}: {mismatch}"
        ));
    };
    let path = dir.join(RESOURCE_DESCRIPTION);
    let json = match std::fs::read_to_string(&path) {
        Ok(json) => json,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "the GUID/instantiationToken {token} matches no model of this binary and the FMU has no \
                 {}: {mismatch}",
                path.display()
            ))
        }
        Err(e) => return Err(format!("cannot read the model description {}: {e}", path.display())),
    };
    let model =
        Model::from_json(&json).map_err(|e| format!("the model description {} is invalid: {e}", path.display()))?;
    if model.token != token {
        return Err(format!(
            "the GUID/instantiationToken {token} differs from the token {} of {}: the modelDescription.xml \
             and the model description do not belong together (repackage the FMU)",
            model.token,
            path.display()
        ));
    }
    Ok(Arc::new(model))
}
