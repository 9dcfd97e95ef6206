//! `mbfmu docs`: a model's documentation page, the documentation/index.html that `package`
//! puts into its archives, written as a file to read without unpacking an FMU.

use crate::args::DocsArgs;
use crate::error::{Context, Error, Result};
use crate::fmu;
use crate::modeldesc;
use mbfmu_model::variables::FmiVersion;
use mbfmu_package::documentation::replay_file;
use mbfmu_package::{FmuContent, Motion};
use std::io::Read;
use std::path::{Path, PathBuf};

fn version_of(number: u8) -> Result<FmiVersion> {
    match number {
        2 => Ok(FmiVersion::V2),
        3 => Ok(FmiVersion::V3),
        n => Err(Error::msg(format!("--fmi {n}: the FMI version is 2 or 3"))),
    }
}

fn folder(version: FmiVersion) -> &'static str {
    match version {
        FmiVersion::V2 => "fmi2",
        FmiVersion::V3 => "fmi3",
    }
}

/// What the command was given, as (model name, version, page, the replay page beside it).
type Written = (String, FmiVersion, String, Option<String>);

fn page(model: &str, fmi: Option<u8>) -> Result<Written> {
    let path = Path::new(model);
    let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("fmu") => archive_page(path, fmi),
        Some("json") => {
            let version = version_of(fmi.unwrap_or(3))?;
            let json = std::fs::read_to_string(path).context(format!("cannot read {}", path.display()))?;
            let content =
                FmuContent::from_description(&json).map_err(|e| Error::msg(format!("{}: {e}", path.display())))?;
            let html = match version {
                FmiVersion::V2 => content.documentation2,
                FmiVersion::V3 => content.documentation3,
            };
            Ok((content.name, version, html, None))
        }
        _ => {
            let version = version_of(fmi.unwrap_or(3))?;
            let entry = mbfmu_model::catalog::find(model).ok_or_else(|| {
                let names: Vec<&str> = mbfmu_model::catalog::CATALOG.iter().map(|e| e.name).collect();
                Error::msg(format!(
                    "unknown model '{model}': give a built-in model ({}), an .fmu archive or a description (.json)",
                    names.join(", ")
                ))
            })?;
            // The replay of the default experiment, as `package` makes it.
            let motion = crate::replays::motions(&[entry]).pop().unwrap_or_else(Motion::not_made);
            let content = FmuContent::catalog_with(entry, motion);
            let replay = match &content.motion {
                Motion::Replay { html, .. } => Some(html.clone()),
                Motion::Omitted(_) => None,
            };
            let html = match version {
                FmiVersion::V2 => content.documentation2,
                FmiVersion::V3 => content.documentation3,
            };
            Ok((entry.name.to_string(), version, html, replay))
        }
    }
}

/// The page an archive carries, and its replay; its FMI version is the archive's.
fn archive_page(path: &Path, fmi: Option<u8>) -> Result<Written> {
    let info = fmu::peek(path)?;
    let version = match info.version {
        modeldesc::FmiVersion::V2 => FmiVersion::V2,
        modeldesc::FmiVersion::V3 => FmiVersion::V3,
    };
    if let Some(n) = fmi {
        if version_of(n)? != version {
            return Err(Error::msg(format!(
                "{} is an {} FMU: its page is written for that version (leave out --fmi {n})",
                path.display(),
                info.version.label()
            )));
        }
    }
    let file = std::fs::File::open(path).context(path.display())?;
    let mut archive = zip::ZipArchive::new(file).context(path.display())?;
    let mut entry = archive
        .by_name("documentation/index.html")
        .map_err(|_| Error::msg(format!("{} has no documentation/index.html", path.display())))?;
    let mut html = String::new();
    entry.read_to_string(&mut html).context(format!("{}: documentation/index.html", path.display()))?;
    drop(entry);
    let name = format!("documentation/{}", replay_file(&info.model_name));
    let replay = match archive.by_name(&name) {
        Ok(mut entry) => {
            let mut text = String::new();
            entry.read_to_string(&mut text).context(format!("{}: {name}", path.display()))?;
            Some(text)
        }
        Err(_) => None,
    };
    Ok((info.model_name, version, html, replay))
}

/// Where the page of `name` goes: `<out>/fmi3/<name>.html` (or fmi2).
pub fn output_path(out: &Path, name: &str, version: FmiVersion) -> PathBuf {
    out.join(folder(version)).join(format!("{name}.html"))
}

pub fn run(args: DocsArgs) -> Result<()> {
    let (name, version, html, replay) = page(&args.model, args.fmi)?;
    let path = output_path(&args.out, &name, version);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).context(format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&path, html).context(format!("cannot write {}", path.display()))?;
    println!("{}", path.display());
    if let Some(replay) = replay {
        // Beside the page, which shows it in a frame.
        let beside = path.with_file_name(replay_file(&name));
        std::fs::write(&beside, replay).context(format!("cannot write {}", beside.display()))?;
        println!("{}", beside.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_pages_default_to_fmi3() {
        let (name, version, html, _) = page("DoublePendulum", None).unwrap();
        assert_eq!((name.as_str(), version), ("DoublePendulum", FmiVersion::V3));
        assert!(html.contains("FMI 3.0"));
        let (_, version, html, _) = page("DoublePendulum", Some(2)).unwrap();
        assert_eq!(version, FmiVersion::V2);
        assert!(html.contains("FMI 2.0"));
        assert!(page("DoublePendulum", Some(4)).is_err());
    }

    #[test]
    fn unknown_names_list_the_catalog() {
        let err = page("DoublePendulun", None).unwrap_err().to_string();
        assert!(err.contains("unknown model 'DoublePendulun'") && err.contains("DoublePendulum, "), "{err}");
    }
}
