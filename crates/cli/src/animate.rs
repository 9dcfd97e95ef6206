//! The 3D replay of a run (`simulate --animate`, `animate RESULTS.csv --model FMU`): the
//! model's description gives the geometry, the run's outputs the poses
//! (mbfmu_package::replay writes the page).

use crate::args::{split_names, AnimateArgs, ReplayArgs};
use crate::error::{Context, Error, Result};
use crate::modeldesc::ModelInfo;
use mbfmu_model::format::Description;
use mbfmu_package::replay::{self, Channel, Options, Part, Run};
use std::io::Read;
use std::path::Path;

/// The description a model's FMU was made from: the catalog's (found by its token) or the one
/// packaged as resources/model.json. None for an FMU that this project did not make.
pub fn description(fmu: Option<&Path>, info: &ModelInfo) -> Result<Description> {
    let unknown = || {
        Error::msg(format!(
            "{} was not made by mbfmu (its token is no built-in model's and it carries no resources/{}): the replay \
             draws a model from its mbfmu description",
            info.model_name,
            mbfmu_package::RESOURCE_DESCRIPTION
        ))
    };
    if let Some(entry) = mbfmu_model::catalog::by_token(&info.token) {
        return mbfmu_model::format::parse(entry.json)
            .map_err(|e| Error::msg(format!("the built-in model {}: {e}", entry.name)));
    }
    let Some(path) = fmu else { return Err(unknown()) };
    let file = std::fs::File::open(path).context(path.display())?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| Error::msg(format!("{} is not an FMU archive: {e}", path.display())))?;
    let name = format!("resources/{}", mbfmu_package::RESOURCE_DESCRIPTION);
    let Ok(mut entry) = archive.by_name(&name) else { return Err(unknown()) };
    let mut json = String::new();
    entry.read_to_string(&mut json).context(format!("{}: {name}", path.display()))?;
    mbfmu_model::format::parse(&json).map_err(|e| Error::msg(format!("{}: {name}: {e}", path.display())))
}

/// Replay options from the command line.
pub fn options(plot_vars: &[String], replay: &ReplayArgs) -> Options {
    Options {
        plots: split_names(plot_vars),
        max_samples: replay.max_frames as usize,
        magnification: replay.magnification,
    }
}

/// Fails before a run if its recorded columns cannot pose the model or the player is missing:
/// the scene is built from a stand-in run of those columns.
pub fn check_before_run(parts: &[Part], model: &str, columns: &[(String, String)], options: &Options) -> Result<()> {
    let channels =
        columns.iter().map(|(n, u)| Channel { name: n.clone(), unit: u.clone(), values: vec![0.0, 0.0] }).collect();
    let run = Run::new(vec![0.0, 1.0], channels).map_err(|e| Error::msg(format!("--animate: {e}")))?;
    replay::scene_json(model, "", parts, &run, options).map_err(|e| Error::msg(format!("--animate: {e}")))?;
    replay::bundle().map_err(|e| Error::msg(format!("--animate: {e}")))?;
    Ok(())
}

/// Writes the replay page of `run` to `html`.
pub fn write(html: &Path, model: &str, title: &str, parts: &[Part], run: &Run, options: &Options) -> Result<()> {
    let scene = replay::scene_json(model, title, parts, run, options)
        .map_err(|e| Error::msg(format!("cannot replay {model}: {e}")))?;
    let bundle = replay::bundle().map_err(|e| Error::msg(e.to_string()))?;
    std::fs::write(html, replay::page(model, &scene, &bundle)).context(format!("cannot write {}", html.display()))?;
    Ok(())
}

/// A results CSV file of one model (`simulate`'s: a header of the time and variable names,
/// one row per communication point) as a run, units from `info`. Every column must be a
/// variable of the model.
pub fn read_csv(path: &Path, info: &ModelInfo) -> Result<Run> {
    let unit = |name: &str| info.variable(name).map(|v| v.unit.clone().unwrap_or_default());
    read_table(path, info.time_name(), &info.model_name, unit)
}

/// A results CSV file whose first column is `time_name` and whose other columns are the
/// variables `unit_of` knows (it gives their unit; None: not a variable of `owner`).
pub fn read_table(path: &Path, time_name: &str, owner: &str, unit_of: impl Fn(&str) -> Option<String>) -> Result<Run> {
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .from_path(path)
        .map_err(|e| Error::msg(format!("cannot read {}: {e}", path.display())))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| Error::msg(format!("{}: cannot read the header row: {e}", path.display())))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    match header.first().map(String::as_str) {
        None | Some("") => return Err(Error::msg(format!("{} is empty: no header row", path.display()))),
        Some(first) if first != time_name => {
            return Err(Error::msg(format!(
                "{}: the first column is '{first}', not the time '{time_name}' of {owner}: the file should hold                  results of `mbfmu simulate` of it",
                path.display()
            )))
        }
        Some(_) => {}
    }
    let unknown: Vec<&str> = header[1..].iter().filter(|h| unit_of(h).is_none()).map(String::as_str).collect();
    if !unknown.is_empty() {
        let none = unknown.len() == header.len() - 1;
        return Err(Error::msg(format!(
            "{}: {}{} not {}variable{} of {owner}: is this the model the results belong to?",
            path.display(),
            unknown.iter().take(5).map(|u| format!("'{u}'")).collect::<Vec<_>>().join(", "),
            match unknown.len() {
                n if n > 5 => format!(" and {} more columns are", n - 5),
                1 => " is".to_string(),
                _ => " are".to_string(),
            },
            if none { "any " } else { "" },
            if unknown.len() == 1 { "" } else { "s" },
        )));
    }
    let mut time = Vec::new();
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); header.len() - 1];
    for (row, record) in reader.records().enumerate() {
        let line = row + 2;
        let record = record.map_err(|e| Error::msg(format!("{}: row {line}: {e}", path.display())))?;
        let number = |k: usize| -> Result<f64> {
            let text = record[k].trim();
            if text.is_empty() {
                return Ok(f64::NAN);
            }
            text.parse().map_err(|_| {
                Error::msg(format!("{}: row {line}, column '{}': '{text}' is not a number", path.display(), header[k]))
            })
        };
        time.push(number(0)?);
        for (k, c) in columns.iter_mut().enumerate() {
            c.push(number(k + 1)?);
        }
    }
    let channels = header[1..]
        .iter()
        .zip(columns)
        .map(|(name, values)| Channel { name: name.clone(), unit: unit_of(name).unwrap_or_default(), values })
        .collect();
    Run::new(time, channels).map_err(|e| Error::msg(format!("{}: {e}", path.display())))
}

/// `mbfmu animate RESULTS.csv --model FMU`.
pub fn run(args: AnimateArgs) -> Result<()> {
    let (archive, info) = match crate::linked::built_in(&args.model, None) {
        Some(entry) => (None, crate::linked::description(entry)?),
        None => {
            let path = crate::catalog_fmu::resolve(&args.model, None)?;
            let info = crate::fmu::peek(&path)?;
            (Some(path), info)
        }
    };
    let d = description(archive.as_deref(), &info)?;
    let run = read_csv(&args.results, &info)?;
    let html = args.output.clone().unwrap_or_else(|| args.results.with_extension("html"));
    let options = options(&args.plot_vars, &args.replay);
    let parts = [Part { description: &d, prefix: String::new() }];
    write(&html, &info.model_name, info.description.as_deref().unwrap_or(""), &parts, &run, &options)?;
    println!(
        "wrote {} (3D replay of {}, {} samples)",
        html.display(),
        info.model_name,
        run.time.len().min(options.max_samples)
    );
    Ok(())
}
