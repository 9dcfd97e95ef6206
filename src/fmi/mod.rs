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
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

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

/// The model whose GUID / instantiationToken is `token` (docs/architecture.md#one-library-every-model-both-standards: one
/// binary, every model, selected at instantiation): a catalog model, or else the description
/// in `<resources>/model.json` that `mbfmu package --model` put into the archive.
pub fn model_for_token(token: &str, resources: Option<&Path>) -> Result<Arc<Model>, String> {
    let entry = catalog::by_token(token);
    let key = match entry {
        Some(_) => Some(token.to_string()),
        None => packaged_key(token, resources),
    };
    if let Some(model) = key.as_deref().and_then(|key| recent_models().find(key)) {
        return Ok(model);
    }
    let model = match entry {
        Some(entry) => Arc::new(Model::from_catalog(entry)?),
        None => packaged_model(token, resources)?,
    };
    if let Some(key) = key {
        recent_models().add(key, &model);
    }
    Ok(model)
}

/// What names a packaged description (a catalog model is named by its token): the token with
/// the file's path, size and modification time, so that another or a changed file is read
/// (and checked against the token) again. None: not cached.
fn packaged_key(token: &str, resources: Option<&Path>) -> Option<String> {
    let path = resources?.join(RESOURCE_DESCRIPTION);
    let file = std::fs::metadata(&path).ok()?;
    Some(format!("{token}\n{}\n{}\n{:?}", path.display(), file.len(), file.modified().ok()?))
}

/// Models built lately in this process, the most recent first, by token or [`packaged_key`]. A
/// [`Model`] is immutable and shared by its instances, so a host that instantiates the same
/// FMU again (every run of a parameter sweep, a restarted co-simulation) gets the model
/// without reading, validating and expanding its description again: that was 650 000 of the
/// 680 000 instructions of the double pendulum's fmi3InstantiateCoSimulation (callgrind).
struct RecentModels(Vec<(String, Arc<Model>)>);

/// Models kept: enough for the FMUs of one co-simulation, bounded for a host that loads many.
const RECENT_MODELS: usize = 8;

static RECENT: Mutex<RecentModels> = Mutex::new(RecentModels(Vec::new()));

/// The cache (its lists stay whole if a thread panicked while holding it: a push or a move).
fn recent_models() -> MutexGuard<'static, RecentModels> {
    RECENT.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Run by the dynamic loader when the library is unloaded (and at exit): statics are never
/// dropped, so a host that loads and unloads the FMU for every run (FMPy's `simulate_fmu`)
/// would otherwise keep each load's models allocated in its heap. An ELF section: Mach-O
/// refuses the name and PE ignores it, so on macOS and Windows the cache (at most
/// [`RECENT_MODELS`] models) lives until the process ends.
#[cfg(all(unix, not(target_vendor = "apple")))]
#[used]
#[link_section = ".fini_array"]
static EMPTY_RECENT_MODELS_ON_UNLOAD: extern "C" fn() = empty_recent_models;

#[cfg(all(unix, not(target_vendor = "apple")))]
extern "C" fn empty_recent_models() {
    use std::sync::TryLockError;
    // Never waits: if a thread is inside the cache, the process is ending around it.
    let models = match RECENT.try_lock() {
        Ok(mut recent) => std::mem::take(&mut recent.0),
        Err(TryLockError::Poisoned(recent)) => std::mem::take(&mut recent.into_inner().0),
        Err(TryLockError::WouldBlock) => return,
    };
    drop(models);
}

impl RecentModels {
    fn find(&mut self, key: &str) -> Option<Arc<Model>> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        let hit = self.0.remove(i);
        let model = Arc::clone(&hit.1);
        self.0.insert(0, hit);
        Some(model)
    }

    fn add(&mut self, key: String, model: &Arc<Model>) {
        // Two threads may have built the same model at once.
        self.0.retain(|(k, _)| *k != key);
        self.0.insert(0, (key, Arc::clone(model)));
        self.0.truncate(RECENT_MODELS);
    }
}

/// The description in `<resources>/model.json`, checked against the token.
fn packaged_model(token: &str, resources: Option<&Path>) -> Result<Arc<Model>, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_models_keep_the_latest_eight_most_recently_used_first() {
        let model = Arc::new(Model::from_catalog(catalog::find("DoublePendulum").unwrap()).unwrap());
        let mut recent = RecentModels(Vec::new());
        for k in 0..RECENT_MODELS {
            recent.add(format!("m{k}"), &model);
        }
        assert!(recent.find("m0").is_some(), "the oldest is used again: now the most recent");
        recent.add("new".into(), &model);
        assert!(recent.find("m1").is_none(), "the least recently used is dropped");
        assert!(["m0", "new", "m2", "m7"].iter().all(|k| recent.find(k).is_some()));
        recent.add("new".into(), &model);
        assert_eq!(recent.0.len(), RECENT_MODELS, "a model built twice is kept once");
    }

    #[test]
    fn a_model_is_built_once_and_a_changed_description_file_is_read_again() {
        let entry = catalog::find("DoublePendulum").unwrap();
        let first = model_for_token(entry.token, None).unwrap();
        assert!(Arc::ptr_eq(&first, &model_for_token(entry.token, None).unwrap()), "catalog model cached");

        // A packaged description (not in the catalog) in a resources folder.
        let dir = tempfile::tempdir().unwrap();
        let json = entry.json.replacen("\"mass\": 78.0", "\"mass\": 77.0", 1);
        let token = Model::from_json(&json).unwrap().token;
        assert!(catalog::by_token(&token).is_none());
        std::fs::write(dir.path().join(RESOURCE_DESCRIPTION), &json).unwrap();
        let packaged = model_for_token(&token, Some(dir.path())).unwrap();
        assert_eq!(packaged.description.bodies[0].mass, 77.0);
        assert!(Arc::ptr_eq(&packaged, &model_for_token(&token, Some(dir.path())).unwrap()), "packaged model cached");
        // Another description under the same token (a tampered archive) is read and refused.
        let other = entry.json.replacen("\"mass\": 78.0", "\"mass\": 77.25", 1);
        std::fs::write(dir.path().join(RESOURCE_DESCRIPTION), other).unwrap();
        let err = model_for_token(&token, Some(dir.path())).unwrap_err();
        assert!(err.contains("do not belong together"), "{err}");
    }
}
