//! Systems of catalog FMUs as SSP archives (Modelica Association, "System Structure and
//! Parameterization", version 1.0, 2019, <https://ssp-standard.org>): `SystemStructure.ssd`
//! at the root, the FMUs and one parameter set (.ssv) per parameterized component under
//! `resources/` (SSP 1.0 Sect. 3). The systems are data (`crates/package/systems/*.json`,
//! [`spec`]); the XML is written from serde types ([`xml`]).

pub mod spec;
pub mod xml;

use crate::{write_archive_to, zip_options, Binaries, FmuContent};
use mbfmu_model::variables::FmiVersion;
use spec::{System, SystemSpec};
use std::io::{self, Cursor, Write};
use std::path::{Path, PathBuf};

/// The built-in systems: (name, JSON description).
pub const SYSTEMS: &[(&str, &str)] = &[
    ("HydraulicFourBarSplit", include_str!("../../systems/HydraulicFourBarSplit.json")),
    ("HydraulicFourBarValveSplit", include_str!("../../systems/HydraulicFourBarValveSplit.json")),
];

/// Every built-in system, checked against the catalog.
pub fn systems() -> Vec<System> {
    SYSTEMS
        .iter()
        .map(|(name, json)| {
            SystemSpec::from_json(json)
                .and_then(|s| s.resolve())
                .unwrap_or_else(|e| panic!("built-in system {name}: {e}"))
        })
        .collect()
}

/// Folder of a system's archives under the output root: `ssp/fmi2`, `ssp/fmi3` (the FMI
/// version of the FMUs inside).
pub fn ssp_folder(version: FmiVersion) -> &'static str {
    match version {
        FmiVersion::V2 => "ssp/fmi2",
        FmiVersion::V3 => "ssp/fmi3",
    }
}

/// Writes `system` with FMUs of `version` (the libraries of `binaries` inside each) to `out`;
/// a component whose model is among `contents` gets that archive's content (the one written
/// beside the system, documentation replay included), the others the catalog's.
pub fn write_ssp(
    system: &System,
    version: FmiVersion,
    binaries: &Binaries,
    contents: &[FmuContent],
    out: &Path,
) -> io::Result<()> {
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut zip = zip::ZipWriter::new(std::fs::File::create(out)?);
    let mut entry = |name: String, data: &[u8]| -> io::Result<()> {
        zip.start_file(name, zip_options()).map_err(io::Error::other)?;
        zip.write_all(data)
    };
    entry("SystemStructure.ssd".into(), xml::ssd(system).as_bytes())?;
    let mut packed: Vec<&str> = Vec::new();
    for component in &system.components {
        // Two components of one model share its FMU.
        if !packed.contains(&component.entry.name) {
            let own;
            let content = match contents.iter().find(|c| c.name == component.entry.name) {
                Some(content) => content,
                None => {
                    own = FmuContent::catalog(component.entry);
                    &own
                }
            };
            let fmu = write_archive_to(content, version, binaries, Cursor::new(Vec::new()))?;
            entry(xml::fmu_entry(component), &fmu.into_inner())?;
            packed.push(component.entry.name);
        }
        if !component.parameters.is_empty() {
            entry(xml::ssv_entry(component), xml::ssv(component).as_bytes())?;
        }
    }
    zip.finish().map_err(io::Error::other)?;
    Ok(())
}

/// Writes `<root>/ssp/fmi2/<System>.ssp` and `<root>/ssp/fmi3/<System>.ssp` for every
/// built-in system, with the host's library.
pub fn package_systems(library: &Path, root: &Path) -> io::Result<Vec<PathBuf>> {
    package_systems_with(&Binaries::host(library)?, &[], root)
}

/// Writes `<root>/ssp/fmi2/<System>.ssp` and `<root>/ssp/fmi3/<System>.ssp` for every
/// built-in system, with the libraries of `binaries` in its FMUs and the `contents` of the
/// archives written beside them (see [`write_ssp`]).
pub fn package_systems_with(binaries: &Binaries, contents: &[FmuContent], root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for system in systems() {
        for version in [FmiVersion::V2, FmiVersion::V3] {
            let out = root.join(ssp_folder(version)).join(format!("{}.ssp", system.name));
            write_ssp(&system, version, binaries, contents, &out)?;
            written.push(out);
        }
    }
    Ok(written)
}
