//! `simulate <Model>`: a built-in model's name instead of an archive's path. The FMU is the
//! one `mbfmu package` wrote to ./fmus if it is at least as new as the library this command
//! was built with; otherwise it is packaged from that library into the user's cache
//! directory, in a folder of its own per library (named by the library file's identity: its
//! device, inode, size and modification time), so that two builds or installations never
//! run each other's FMUs. Folders of libraries unused for a week are removed.

use crate::error::{Context, Error, Result};
use mbfmu_model::catalog::{CatalogEntry, CATALOG};
use mbfmu_model::variables::FmiVersion;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The archive to simulate for the command-line argument `arg`.
pub fn resolve(arg: &Path, version: Option<u8>) -> Result<PathBuf> {
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    let name = arg.to_string_lossy();
    let entry = entry_named(&name).ok_or_else(|| not_found(&name))?;
    let (folder, fmi) = match version.unwrap_or(3) {
        2 => ("fmi2", FmiVersion::V2),
        _ => ("fmi3", FmiVersion::V3),
    };
    let library = mbfmu_package::locate_library().map_err(|e| {
        Error::msg(format!(
            "{name} is a built-in model, but its FMU cannot be packaged: {e}. Run `cargo run --release -- package` \
             and pass fmus/{folder}/{}.fmu",
            entry.name
        ))
    })?;
    let built = modified(&library);
    let fresh = |p: &Path| p.is_file() && modified(p) >= built;
    let packaged = Path::new("fmus").join(folder).join(format!("{}.fmu", entry.name));
    if fresh(&packaged) {
        return Ok(packaged);
    }
    let built_in = cache_dir().join("built-in");
    let own = built_in.join(library_key(&library)?);
    let cached = own.join(folder).join(format!("{}.fmu", entry.name));
    if !cached.is_file() {
        evict_other_libraries(&built_in, &own);
        mbfmu_package::write_fmu(entry, fmi, &library, &cached).context(format!(
            "cannot package {} into {}",
            entry.name,
            cached.display()
        ))?;
        eprintln!("note: packaged the built-in model {} as {}", entry.name, cached.display());
    }
    // In use: not [`UNUSED`] for other libraries' eviction. Touched at most daily: a time
    // written on every run is a journal write on most file systems.
    if SystemTime::now().duration_since(modified(&own)).map_or(true, |age| age > TOUCHED) {
        let _ = std::fs::File::open(&own).and_then(|f| f.set_modified(SystemTime::now()));
    }
    Ok(cached)
}

/// The built-in model of this name (or, failing that, of this name in another case).
pub fn entry_named(name: &str) -> Option<&'static CatalogEntry> {
    CATALOG.iter().find(|e| e.name == name).or_else(|| CATALOG.iter().find(|e| e.name.eq_ignore_ascii_case(name)))
}

/// Folders of other libraries' FMUs not used for this long are removed.
const UNUSED: Duration = Duration::from_secs(7 * 24 * 3600);

/// A folder in use is touched when its time is older than this (well under [`UNUSED`]).
const TOUCHED: Duration = Duration::from_secs(24 * 3600);

/// A name for the library file's identity (see the module documentation): the numbers
/// themselves, which name one version of one file on this machine (a hash of them cost more
/// than the rest of the lookup: its processor-feature probe traps to the hypervisor on a
/// virtual machine).
fn library_key(library: &Path) -> Result<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(library).context(library.display())?;
    Ok(format!("{:x}-{:x}-{:x}-{}.{:09}", m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec()))
}

/// Removes the folders of other libraries' FMUs that were not used for [`UNUSED`] (every
/// run that uses a folder touches it). Failures only leave files behind.
fn evict_other_libraries(built_in: &Path, own: &Path) {
    let Ok(items) = std::fs::read_dir(built_in) else { return };
    let now = SystemTime::now();
    for item in items.flatten() {
        let path = item.path();
        let modified = item.metadata().and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
        if path != own && now.duration_since(modified).is_ok_and(|age| age > UNUSED) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH)
}

/// $XDG_CACHE_HOME/mbfmu, else ~/.cache/mbfmu, else a folder in the temporary directory.
pub(crate) fn cache_dir() -> PathBuf {
    let home = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")));
    home.unwrap_or_else(std::env::temp_dir).join("mbfmu")
}

fn not_found(name: &str) -> Error {
    let mut similar: Vec<(usize, &str)> = CATALOG
        .iter()
        .map(|e| (strsim::levenshtein(&e.name.to_ascii_lowercase(), &name.to_ascii_lowercase()), e.name))
        .filter(|(d, _)| *d <= 3.max(name.len() / 4))
        .collect();
    similar.sort();
    let hint = match similar.first() {
        Some((_, best)) => format!(" (did you mean {best}?)"),
        None => String::new(),
    };
    Error::msg(format!(
        "{name}: no such file, and no built-in model of that name{hint}; `mbfmu list` lists the built-in models"
    ))
}
