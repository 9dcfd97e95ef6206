//! `simulate <Model>`: a built-in model's name instead of an archive's path. The FMU is the
//! one `mbfmu package` wrote to ./fmus if it is at least as new as the library this command
//! was built with; otherwise it is packaged from that library into the user's cache
//! directory (reused while it stays newer than the library).

use crate::error::{Context, Error, Result};
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::FmiVersion;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The archive to simulate for the command-line argument `arg`.
pub fn resolve(arg: &Path, version: Option<u8>) -> Result<PathBuf> {
    if arg.exists() {
        return Ok(arg.to_path_buf());
    }
    let name = arg.to_string_lossy();
    let entry = CATALOG
        .iter()
        .find(|e| e.name == name)
        .or_else(|| CATALOG.iter().find(|e| e.name.eq_ignore_ascii_case(&name)))
        .ok_or_else(|| not_found(&name))?;
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
    let cached = cache_dir().join(folder).join(format!("{}.fmu", entry.name));
    if !fresh(&cached) {
        mbfmu_package::write_fmu(entry, fmi, &library, &cached).context(format!(
            "cannot package {} into {}",
            entry.name,
            cached.display()
        ))?;
        eprintln!("note: packaged the built-in model {} as {}", entry.name, cached.display());
    }
    Ok(cached)
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
