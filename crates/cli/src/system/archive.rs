//! Where a system is: an .ssp archive (unpacked into a temporary directory), a directory
//! holding SystemStructure.ssd, or an .ssd file next to its resources (SSP 1.0 Sect. 3: the
//! default SSD of an archive is SystemStructure.ssd at its root; sources are relative to it).

use super::ssd::{self, Ssd};
use crate::error::{Context, Error, Result};
use std::path::{Path, PathBuf};

pub const DEFAULT_SSD: &str = "SystemStructure.ssd";

/// Whether `path` names a system rather than an FMU.
pub fn is_system(path: &Path) -> bool {
    let extension = path.extension().map(|e| e.to_ascii_lowercase());
    matches!(extension.as_deref().and_then(|e| e.to_str()), Some("ssp") | Some("ssd"))
        || (path.is_dir() && path.join(DEFAULT_SSD).is_file())
}

/// A system read from disk; the unpacked archive lives as long as this value.
pub struct Opened {
    pub ssd: Ssd,
    /// The directory the SSD's relative URIs start from.
    pub base: PathBuf,
    _unpacked: Option<tempfile::TempDir>,
}

pub fn open(path: &Path) -> Result<Opened> {
    if !path.exists() {
        return Err(Error::msg(format!("{}: no such file", path.display())));
    }
    let (unpacked, ssd_path) = if path.is_dir() {
        (None, path.join(DEFAULT_SSD))
    } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ssd")) {
        (None, path.to_path_buf())
    } else {
        let dir =
            tempfile::Builder::new().prefix("mbfmu-ssp-").tempdir().context("cannot create a temporary directory")?;
        let file = std::fs::File::open(path).context(path.display())?;
        let mut archive = zip::ZipArchive::new(file)
            .map_err(|e| Error::msg(format!("{} is not an SSP archive (not a zip file: {e})", path.display())))?;
        if archive.index_for_name(DEFAULT_SSD).is_none() {
            return Err(Error::msg(format!(
                "{} is not an SSP archive: it has no {DEFAULT_SSD} at its root (SSP 1.0 Sect. 3)",
                path.display()
            )));
        }
        archive.extract(dir.path()).context(format!("cannot unpack {}", path.display()))?;
        let ssd = dir.path().join(DEFAULT_SSD);
        (Some(dir), ssd)
    };
    let label = match &unpacked {
        Some(_) => format!("{}: {DEFAULT_SSD}", path.display()),
        None => ssd_path.display().to_string(),
    };
    let text = std::fs::read_to_string(&ssd_path).map_err(|e| Error::msg(format!("cannot read {label}: {e}")))?;
    let base = ssd_path.parent().map(Path::to_path_buf).unwrap_or_default();
    let ssd = ssd::read(&text, &label, &base)?;
    Ok(Opened { ssd, base, _unpacked: unpacked })
}
