//! Packaging of the catalog into .fmu archives (docs/architecture.md#packaging): the library
//! compiled by the same cargo command, renamed to the modelIdentifier, with the generated
//! modelDescription.xml, documentation/index.html and the icon (layout:
//! docs/fmi.md#what-importers-demand; the icon where each standard puts it, [`icon_path`]).

pub mod documentation;
pub mod drawing;
pub mod icon;
pub mod platform;
pub mod replay;
pub mod ssp;

pub use documentation::Motion;
use mbfmu_model::catalog::{CatalogEntry, CATALOG};
use mbfmu_model::variables::FmiVersion;
pub use platform::{Binaries, Platform};
use std::io::{self, Seek, Write};
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

/// File name of the cdylib cargo builds for this crate.
pub fn library_file_name() -> String {
    format!("{}mbfmu{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX)
}

/// The cdylib built alongside the running executable: `target/<profile>/` (cargo build) or
/// `target/<profile>/deps/` (cargo run and cargo test leave the fresh file there only). When
/// both exist the newer one is the library of this build.
pub fn locate_library() -> io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().ok_or_else(|| io::Error::other("executable has no directory"))?;
    let name = library_file_name();
    // On equal modification times the deps/ file (listed first) wins.
    let candidates =
        [dir.join("deps").join(&name), dir.join(&name), dir.parent().map(|p| p.join(&name)).unwrap_or_default()];
    let mut found: Vec<_> =
        candidates.into_iter().filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p))).collect();
    found.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    found.into_iter().next().map(|(_, p)| p).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("{name} was not found next to {}; build the library first", exe.display()),
        )
    })
}

/// The modelDescription.xml of a catalog entry.
pub fn model_description(entry: &CatalogEntry, version: FmiVersion) -> &'static str {
    match version {
        FmiVersion::V2 => entry.fmi2_xml,
        FmiVersion::V3 => entry.fmi3_xml,
    }
}

/// documentation/index.html of a model.
pub fn documentation_html(entry: &CatalogEntry, version: FmiVersion) -> String {
    crate::documentation::model_page(entry, version)
}

/// File, inside the archive's resources folder, that carries the description of a model
/// that is not in the library's catalog.
pub const RESOURCE_DESCRIPTION: &str = "model.json";

/// Everything one archive holds besides the library.
pub struct FmuContent {
    pub name: String,
    pub fmi2_xml: String,
    pub fmi3_xml: String,
    pub documentation2: String,
    pub documentation3: String,
    /// `resources/model.json`: the description of a model outside the catalog, which the
    /// library reads at instantiation (its token is checked against the XML's).
    pub resource_description: Option<String>,
    /// The icon (PNG), the same for both FMI versions; `None` only if rasterizing failed.
    pub icon: Option<Vec<u8>>,
    /// Sizes of a user's description far outside machine scale (likely unit mistakes), for
    /// the packager to show; none for the catalog.
    pub warnings: Vec<mbfmu_model::format::PlausibilityWarning>,
    /// The 3D replay the documentation shows (`documentation/<Model>.replay.html`).
    pub motion: Motion,
}

/// Where the icon goes in the archive: FMI 2.0 reads `model.png` at the root, FMI 3.0
/// `terminalsAndIcons/icon.png`.
pub fn icon_path(version: FmiVersion) -> &'static str {
    match version {
        FmiVersion::V2 => "model.png",
        FmiVersion::V3 => "terminalsAndIcons/icon.png",
    }
}

impl FmuContent {
    pub fn catalog(entry: &CatalogEntry) -> FmuContent {
        FmuContent::catalog_with(entry, Motion::not_made())
    }

    /// A catalog model whose documentation shows `motion`.
    pub fn catalog_with(entry: &CatalogEntry, motion: Motion) -> FmuContent {
        let model = mbfmu_model::Model::from_json(entry.json).expect("catalog models are valid");
        let page = |version| crate::documentation::page(&model.description, &model.interface, version, &motion);
        FmuContent {
            name: entry.name.to_string(),
            fmi2_xml: entry.fmi2_xml.to_string(),
            fmi3_xml: entry.fmi3_xml.to_string(),
            documentation2: page(FmiVersion::V2),
            documentation3: page(FmiVersion::V3),
            resource_description: None,
            icon: icon::png(&model.description).ok(),
            warnings: Vec::new(),
            motion,
        }
    }

    /// A model described by the user: validated, its interface and XML generated here.
    pub fn from_description(json: &str) -> Result<FmuContent, String> {
        let model = mbfmu_model::Model::from_json(json)?;
        let xml = |version| {
            mbfmu_model::variables::model_description_xml(
                &model.description,
                &model.interface,
                &model.token,
                version,
                env!("CARGO_PKG_VERSION"),
            )
            .map_err(|e| e.to_string())
        };
        let motion = Motion::Omitted(
            "Pages of models packaged from a description carry no replay: `mbfmu simulate <FMU> --animate run.html` \
             writes a 3D replay of any run of this FMU."
                .into(),
        );
        let page = |version| crate::documentation::page(&model.description, &model.interface, version, &motion);
        Ok(FmuContent {
            name: model.description.name.clone(),
            fmi2_xml: xml(FmiVersion::V2)?,
            fmi3_xml: xml(FmiVersion::V3)?,
            documentation2: page(FmiVersion::V2),
            documentation3: page(FmiVersion::V3),
            resource_description: Some(json.to_string()),
            icon: Some(icon::png(&model.description)?),
            warnings: model.description.plausibility_warnings(),
            motion,
        })
    }

    fn xml(&self, version: FmiVersion) -> &str {
        match version {
            FmiVersion::V2 => &self.fmi2_xml,
            FmiVersion::V3 => &self.fmi3_xml,
        }
    }

    fn documentation(&self, version: FmiVersion) -> &str {
        match version {
            FmiVersion::V2 => &self.documentation2,
            FmiVersion::V3 => &self.documentation3,
        }
    }
}

/// Writes one archive of a catalog model to `out`.
pub fn write_fmu(entry: &CatalogEntry, version: FmiVersion, library: &Path, out: &Path) -> io::Result<()> {
    write_archive(&FmuContent::catalog(entry), version, library, out)
}

/// Writes one archive with the host's library to `out`.
pub fn write_archive(content: &FmuContent, version: FmiVersion, library: &Path, out: &Path) -> io::Result<()> {
    write_archive_with(content, version, &Binaries::host(library)?, out)
}

/// Writes one archive with the libraries of `binaries` to `out`.
pub fn write_archive_with(
    content: &FmuContent,
    version: FmiVersion,
    binaries: &Binaries,
    out: &Path,
) -> io::Result<()> {
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    write_archive_to(content, version, binaries, std::fs::File::create(out)?)?;
    Ok(())
}

/// Writes one archive with the libraries of `binaries` to `writer` (a file, or memory for an
/// FMU inside an SSP archive) and returns the writer.
pub fn write_archive_to<W: Write + Seek>(
    content: &FmuContent,
    version: FmiVersion,
    binaries: &Binaries,
    writer: W,
) -> io::Result<W> {
    let mut zip = zip::ZipWriter::new(writer);
    let libraries = binaries.entries(version == FmiVersion::V3, &content.name)?;
    let mut entries: Vec<(String, &[u8])> = vec![("modelDescription.xml".into(), content.xml(version).as_bytes())];
    entries.extend(libraries.iter().map(|(name, bytes)| (name.clone(), bytes.as_slice())));
    entries.push(("documentation/index.html".into(), content.documentation(version).as_bytes()));
    let replay_entry = format!("documentation/{}", documentation::replay_file(&content.name));
    if let Motion::Replay { html, .. } = &content.motion {
        entries.push((replay_entry, html.as_bytes()));
    }
    if let Some(png) = &content.icon {
        entries.push((icon_path(version).to_string(), png));
    }
    if let Some(json) = &content.resource_description {
        entries.push((format!("resources/{RESOURCE_DESCRIPTION}"), json.as_bytes()));
    }
    for (name, data) in entries {
        zip.start_file(name, zip_options()).map_err(io::Error::other)?;
        zip.write_all(data)?;
    }
    zip.finish().map_err(io::Error::other)
}

/// Deflated entries with a fixed timestamp, which keeps archives reproducible.
pub fn zip_options() -> SimpleFileOptions {
    SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
}

/// Writes `<root>/fmi2/<Model>.fmu` and `<root>/fmi3/<Model>.fmu` of one model with the
/// host's library.
pub fn package_model(content: &FmuContent, library: &Path, root: &Path) -> io::Result<Vec<PathBuf>> {
    package_model_with(content, &Binaries::host(library)?, root)
}

/// Writes `<root>/fmi2/<Model>.fmu` and `<root>/fmi3/<Model>.fmu` of one model.
pub fn package_model_with(content: &FmuContent, binaries: &Binaries, root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (folder, version) in [("fmi2", FmiVersion::V2), ("fmi3", FmiVersion::V3)] {
        let out = root.join(folder).join(format!("{}.fmu", content.name));
        write_archive_with(content, version, binaries, &out)?;
        written.push(out);
    }
    Ok(written)
}

/// Writes `<root>/fmi2/<Model>.fmu` and `<root>/fmi3/<Model>.fmu` for every catalog model
/// with the host's library.
pub fn package_catalog(library: &Path, root: &Path) -> io::Result<Vec<PathBuf>> {
    package_catalog_with(&Binaries::host(library)?, root)
}

/// Writes `<root>/fmi2/<Model>.fmu` and `<root>/fmi3/<Model>.fmu` for every catalog model.
pub fn package_catalog_with(binaries: &Binaries, root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for entry in CATALOG {
        written.extend(package_model_with(&FmuContent::catalog(entry), binaries, root)?);
    }
    Ok(written)
}

/// Path of the checked-in copy of a generated modelDescription.xml.
pub fn checked_in_path(dir: &Path, entry: &CatalogEntry, version: FmiVersion) -> PathBuf {
    let folder = match version {
        FmiVersion::V2 => "fmi2",
        FmiVersion::V3 => "fmi3",
    };
    dir.join(folder).join(format!("{}.xml", entry.name))
}

/// Writes every generated modelDescription.xml to `<dir>/fmi2/<Model>.xml` and
/// `<dir>/fmi3/<Model>.xml` (the checked-in copies reviewers see).
pub fn write_model_descriptions(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for entry in CATALOG {
        for version in [FmiVersion::V2, FmiVersion::V3] {
            let path = checked_in_path(dir, entry, version);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let text = model_description(entry, version);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
                std::fs::write(&path, text)?;
            }
            written.push(path);
        }
    }
    Ok(written)
}
