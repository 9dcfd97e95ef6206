//! `mbfmu package`: archives of every catalog model from the library the same cargo command
//! built, plus the checked-in modelDescription.xml copies.

use crate::args::PackageArgs;
use crate::error::{Context, Error, Result};
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::format::{Keyword, PlausibilityWarning};
use mbfmu_model::variables::FmiVersion;
use mbfmu_package::{
    checked_in_path, model_description, package_model_with, write_model_descriptions, Binaries, FmuContent, Motion,
    Platform,
};
use std::path::{Path, PathBuf};

/// The cdylib of the cargo invocation that built this executable (the newer of
/// `target/<profile>/` and its `deps/` folder; see [`mbfmu_package::locate_library`]).
fn locate_library() -> Result<PathBuf> {
    mbfmu_package::locate_library().map_err(|e| {
        Error::msg(format!(
            "{e}. Run this command through cargo from the repository (`cargo run --release -- package`), \
             which builds the library first, or name a library with --library"
        ))
    })
}

/// Refuses a library without the FMI entry points (e.g. an old build of the crate): an
/// archive around it would only fail later, in the importer.
fn check_exports(library: &Path) -> Result<()> {
    let bytes = std::fs::read(library).context(format!("cannot read {}", library.display()))?;
    for symbol in ["fmi2DoStep", "fmi3DoStep"] {
        let needle = format!("{symbol}\0");
        if !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
            return Err(Error::msg(format!(
                "{} does not export {symbol}: it is not a build of the FMI library (a stale file?)",
                library.display()
            )));
        }
    }
    Ok(())
}

/// "release" or "debug" from `target/<profile>/[deps/]lib.so`, when the path shows it.
fn profile_of(library: &Path) -> Option<String> {
    let mut dir = library.parent()?;
    if dir.file_name()? == "deps" {
        dir = dir.parent()?;
    }
    Some(dir.file_name()?.to_string_lossy().into_owned())
}

fn size(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) if m.len() >= 1 << 20 => format!("{:.1} MiB", m.len() as f64 / f64::from(1 << 20)),
        Ok(m) => format!("{:.0} KiB", m.len() as f64 / 1024.0),
        Err(_) => "?".into(),
    }
}

pub fn run(args: PackageArgs) -> Result<()> {
    let library = match args.library {
        Some(path) if path.is_file() => path,
        Some(path) => return Err(Error::msg(format!("--library {}: no such file", path.display()))),
        None => locate_library()?,
    };
    check_exports(&library)?;
    let profile = profile_of(&library);
    println!(
        "library: {} ({}{})",
        library.display(),
        size(&library),
        profile.as_ref().map_or(String::new(), |p| format!(", {p} build"))
    );
    if profile.as_deref() == Some("debug") {
        eprintln!("note: this is a debug build; for fast FMUs run `cargo run --release -- package`");
    }

    let binaries = binaries(&library, args.platforms.as_deref(), args.binaries.as_deref())?;
    if !args.model.is_empty() {
        return package_descriptions(&args.model, &binaries, &args.out);
    }
    // The documentation's replays first: each model's default experiment, run in-process.
    let entries: Vec<&'static mbfmu_model::catalog::CatalogEntry> = CATALOG.iter().collect();
    let motions = crate::replays::motions(&entries);
    let replayed = motions.iter().filter(|m| matches!(m, Motion::Replay { .. })).count();
    let mut contents = Vec::new();
    for (entry, motion) in entries.iter().zip(motions) {
        let content = FmuContent::catalog_with(entry, motion);
        let fmus = package_model_with(&content, &binaries, &args.out)
            .context(format!("cannot write the FMUs to {}", args.out.display()))?;
        for fmu in &fmus {
            println!("wrote {} ({})", fmu.display(), size(fmu));
        }
        contents.push(content);
    }
    if replayed > 0 {
        println!("documentation: 3D replays of the default experiment of {replayed} of {} models", entries.len());
    }
    let systems = mbfmu_package::ssp::package_systems_with(&binaries, &contents, &args.out)
        .context(format!("cannot write the systems to {}", args.out.display()))?;
    for ssp in &systems {
        println!("wrote {} ({})", ssp.display(), size(ssp));
    }

    let Some(dir) = args.model_descriptions.or_else(|| in_repository().then(|| PathBuf::from("modelDescription")))
    else {
        return Ok(());
    };
    // Tell which checked-in copies changed: a changed interface shows up in review.
    let mut stale = Vec::new();
    for entry in CATALOG {
        for version in [FmiVersion::V2, FmiVersion::V3] {
            let path = checked_in_path(&dir, entry, version);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(model_description(entry, version)) {
                stale.push(path);
            }
        }
    }
    let descriptions =
        write_model_descriptions(&dir).context(format!("cannot write the model descriptions to {}", dir.display()))?;
    for path in &descriptions {
        let state = if stale.contains(path) { "updated" } else { "unchanged" };
        println!("{state} {}", path.display());
    }
    Ok(())
}

/// The host's library, the ones `--binaries` names and the ones `--platforms` asks for (the
/// latter compiled here unless `--binaries` holds them).
fn binaries(library: &Path, platforms: Option<&str>, merged: Option<&Path>) -> Result<Binaries> {
    let mut binaries = Binaries::host(library).context(format!("cannot read {}", library.display()))?;
    // Names first: a typo is reported before any build starts.
    let wanted = match platforms {
        Some(list) => Platform::parse_list(list).map_err(|e| Error::msg(format!("--platforms: {e}")))?,
        None => Vec::new(),
    };
    if let Some(dir) = merged {
        for (platform, bytes) in crate::cross::read_binaries(dir)? {
            println!(
                "library for {platform}: from {} ({:.1} MiB)",
                dir.display(),
                bytes.len() as f64 / f64::from(1 << 20)
            );
            binaries.insert(platform, bytes);
        }
    }
    let given = binaries.platforms();
    let to_build: Vec<Platform> = wanted.into_iter().filter(|p| !given.contains(p)).collect();
    if to_build.is_empty() {
        return Ok(binaries);
    }
    let repo = crate::cross::repository()?;
    let builds = to_build.iter().map(|p| crate::cross::prepare(&repo, *p)).collect::<Result<Vec<_>>>()?;
    for (platform, build) in to_build.into_iter().zip(builds) {
        let path = build.run()?;
        let bytes = std::fs::read(&path).context(format!("cannot read the {platform} library {}", path.display()))?;
        crate::cross::check_library(&bytes, platform).map_err(|e| Error::msg(format!("{}: {e}", path.display())))?;
        println!("library for {platform}: {} ({})", path.display(), size(&path));
        binaries.insert(platform, bytes);
    }
    Ok(binaries)
}

/// Whether the current directory is this project's repository, whose modelDescription/ holds
/// the checked-in copies (elsewhere `package` must not litter the directory with them).
fn in_repository() -> bool {
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap_or_default();
    manifest.contains("name = \"mbfmu\"") && Path::new("crates/model/catalog").is_dir()
}

/// `--model`: the user's descriptions, each validated before anything is written.
fn package_descriptions(files: &[PathBuf], binaries: &Binaries, out: &Path) -> Result<()> {
    let mut contents = Vec::new();
    for file in files {
        let json = std::fs::read_to_string(file).context(format!("cannot read {}", file.display()))?;
        let content =
            FmuContent::from_description(&json).map_err(|e| Error::msg(format!("{}: {e}", file.display())))?;
        warn_implausible(file, &json, &content.warnings);
        if let Some(entry) = mbfmu_model::catalog::find(&content.name) {
            if entry.json != json {
                eprintln!(
                    "note: {} is named like the built-in model {}; its FMUs replace the built-in ones in {}",
                    file.display(),
                    entry.name,
                    out.display()
                );
            }
        }
        contents.push(content);
    }
    for content in &contents {
        let fmus = package_model_with(content, binaries, out)
            .context(format!("cannot write the FMUs to {}", out.display()))?;
        for fmu in &fmus {
            println!("wrote {} ({})", fmu.display(), size(fmu));
        }
    }
    Ok(())
}

/// Prints the plausibility warnings of a description, and how to silence them if meant.
fn warn_implausible(file: &Path, json: &str, warnings: &[PlausibilityWarning]) {
    for w in warnings {
        eprintln!("warning: {}: {}", file.display(), mbfmu_model::format::plausibility::located(w, json));
    }
    let mut kinds: Vec<&str> = Vec::new();
    for w in warnings {
        if !kinds.contains(&w.check.word()) {
            kinds.push(w.check.word());
        }
    }
    if !kinds.is_empty() {
        let list = kinds.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ");
        eprintln!(
            "note: {} is packaged as it is; if these sizes are meant, add \"plausibility\": {{\"ignore\": [{list}]}} \
             to it to silence the warnings",
            file.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_is_read_from_the_target_layout() {
        assert_eq!(profile_of(Path::new("/t/release/deps/libmbfmu.so")).as_deref(), Some("release"));
        assert_eq!(profile_of(Path::new("/t/debug/libmbfmu.so")).as_deref(), Some("debug"));
    }
}
