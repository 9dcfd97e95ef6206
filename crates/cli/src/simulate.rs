//! `mbfmu simulate`: a fixed-step co-simulation master for one FMU.

use crate::args::{split_names, SimulateArgs};
use crate::csv::{format_float, CsvWriter};
use crate::error::{Error, Result};
use crate::fmu::{self, read_groups, Value};
use crate::inputs::InputTable;
use crate::modeldesc::{Causality, ModelInfo, VarType, Variable};
use crate::plot;
use crate::progress::Progress;
use crate::stepping::{step_failure, step_through, termination_note, Ending};
use std::path::PathBuf;
use std::time::Instant;

/// Converts a value given as text (`origin`: where, e.g. "--set") to the variable's type.
pub(crate) fn parse_value(info: &ModelInfo, var: &Variable, text: &str, origin: &str) -> Result<Value> {
    let bad = |what: &str| Error::msg(format!("{origin} {}={text}: {} expects {what}", var.name, var.name));
    let trimmed = text.trim();
    match var.ty {
        VarType::Float64 | VarType::Float32 => trimmed.parse::<f64>().map(Value::Real).map_err(|_| bad("a number")),
        VarType::Boolean => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(bad("true, false, 1 or 0")),
        },
        VarType::Enumeration => {
            let items = info.enum_items(var);
            let listing = || items.iter().map(|i| format!("{} ({})", i.name, i.value)).collect::<Vec<_>>().join(", ");
            if let Some(item) = items.iter().find(|i| i.name == trimmed) {
                return Ok(Value::Int(item.value));
            }
            let folded: Vec<_> = items.iter().filter(|i| i.name.eq_ignore_ascii_case(trimmed)).collect();
            if let [item] = folded.as_slice() {
                return Ok(Value::Int(item.value));
            }
            match trimmed.parse::<i64>() {
                Ok(n) if items.is_empty() || items.iter().any(|i| i.value == n) => Ok(Value::Int(n)),
                Ok(n) => Err(Error::msg(format!(
                    "{origin} {}={text}: {n} is not an item of {}; items: {}",
                    var.name,
                    var.name,
                    listing()
                ))),
                Err(_) => Err(Error::msg(format!(
                    "{origin} {}={text}: \"{trimmed}\" is not an item of {}; items: {}",
                    var.name,
                    var.name,
                    listing()
                ))),
            }
        }
        VarType::String => Ok(Value::Str(text.to_string())),
        VarType::Binary | VarType::Clock => {
            Err(Error::msg(format!("{origin} {}: {} variables cannot be set", var.name, var.ty.name())))
        }
        ty => {
            let n = trimmed.parse::<i64>().map_err(|_| bad("an integer"))?;
            let (lo, hi) = integer_range(ty);
            if !(lo..=hi).contains(&n) {
                return Err(Error::msg(format!(
                    "{origin} {}={text}: {n} is out of range for {} ({lo} .. {hi})",
                    var.name,
                    ty.name()
                )));
            }
            Ok(Value::Int(n))
        }
    }
}

/// Representable values of an integer type (UInt64 is limited to what i64 holds).
pub(crate) fn integer_range(ty: VarType) -> (i64, i64) {
    match ty {
        VarType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        VarType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        VarType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        VarType::UInt8 => (0, u8::MAX.into()),
        VarType::UInt16 => (0, u16::MAX.into()),
        VarType::UInt32 => (0, u32::MAX.into()),
        VarType::UInt64 => (0, i64::MAX),
        _ => (i64::MIN, i64::MAX),
    }
}

pub(crate) fn unknown_variable(
    info: &ModelInfo,
    name: &str,
    option: &str,
    filter: impl Fn(&Variable) -> bool,
) -> Error {
    let similar = info.similar_names(name, filter);
    let hint = if similar.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", similar.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(" or "))
    };
    Error::msg(format!(
        "unknown variable '{name}' in {option}: {} has no such variable{hint}; `mbfmu info` lists them",
        info.model_name
    ))
}

/// The --set assignments, checked against the model description before the FMU is loaded.
pub(crate) fn resolve_overrides<'a>(
    info: &'a ModelInfo,
    assignments: &[(String, String)],
) -> Result<Vec<(&'a Variable, Value)>> {
    assignments
        .iter()
        .map(|(name, text)| {
            let var =
                info.variable(name).ok_or_else(|| unknown_variable(info, name, "--set", |v| v.settable().is_ok()))?;
            var.settable()
                .map_err(|why| Error::msg(format!("--set {name}: cannot set '{name}' before the run: {why}")))?;
            Ok((var, parse_value(info, var, text, "--set")?))
        })
        .collect()
}

/// Variables named in --outputs / --plot-vars; each must be a numeric scalar.
pub(crate) fn resolve_recorded<'a>(info: &'a ModelInfo, names: &[String], option: &str) -> Result<Vec<&'a Variable>> {
    names
        .iter()
        .map(|name| {
            let var = info.variable(name).ok_or_else(|| unknown_variable(info, name, option, |v| v.ty.is_numeric()))?;
            if var.is_array {
                return Err(Error::msg(format!(
                    "{option}: '{name}' is an array; only scalar variables can be recorded"
                )));
            }
            if !var.ty.is_numeric() {
                return Err(Error::msg(format!(
                    "{option}: '{name}' is a {} variable; only numeric ones can be recorded",
                    var.ty.name()
                )));
            }
            Ok(var)
        })
        .collect()
}

/// Every recordable output, and a note on those skipped.
pub(crate) fn default_outputs(info: &ModelInfo) -> (Vec<&Variable>, Vec<String>) {
    let mut skipped = Vec::new();
    let outputs = info
        .outputs()
        .filter(|v| {
            let ok = v.ty.is_numeric() && !v.is_array;
            if !ok {
                skipped.push(format!("{} ({}{})", v.name, v.ty.name(), if v.is_array { " array" } else { "" }));
            }
            ok
        })
        .collect();
    (outputs, skipped)
}

pub(crate) fn file_stem(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

/// Where the FMU comes from.
enum Source {
    Archive(PathBuf),
    /// A built-in model, run by the FMU library linked into this command (linked.rs).
    BuiltIn,
}

pub fn run(args: SimulateArgs) -> Result<()> {
    let (source, info) = match crate::linked::built_in(&args.fmu, args.fmi) {
        Some(entry) => (Source::BuiltIn, crate::linked::description(entry)?),
        None => {
            let path = crate::catalog_fmu::resolve(&args.fmu, args.fmi)?;
            let info = fmu::peek(&path)?;
            (Source::Archive(path), info)
        }
    };
    let (grid, tolerance) = args.experiment.resolve(&info.experiment)?;

    // Check every name before loading the binary, so mistakes fail fast.
    let overrides = resolve_overrides(&info, &args.set)?;
    let inputs = InputTable::from_args(&args.inputs, &info)?;
    if let Some(clash) = inputs.as_ref().and_then(|t| t.also_given(overrides.iter().map(|(v, _)| *v))) {
        return Err(Error::msg(format!("'{}' is given both by --set and by --input-file; keep one", clash.name)));
    }
    let (columns, skipped) = if args.outputs.is_empty() {
        default_outputs(&info)
    } else {
        (resolve_recorded(&info, &split_names(&args.outputs), "--outputs")?, Vec::new())
    };
    if !skipped.is_empty() {
        eprintln!("note: outputs not written (not numeric scalars): {}", skipped.join(", "));
    }
    if !args.plot_vars.is_empty() && args.plot.is_none() && args.animate.is_none() {
        return Err(Error::msg("--plot-vars chooses what --plot or --animate plots; give one of them"));
    }
    let explicit_plot = resolve_recorded(&info, &split_names(&args.plot_vars), "--plot-vars")?;
    // The replay's description, and a check that the recorded columns pose the model.
    let replay = match &args.animate {
        None => None,
        Some(html) => {
            let archive = match &source {
                Source::Archive(path) => Some(path.as_path()),
                Source::BuiltIn => None,
            };
            let d = crate::animate::description(archive, &info)?;
            let names: Vec<(String, String)> =
                columns.iter().map(|v| (v.name.clone(), v.unit.clone().unwrap_or_default())).collect();
            // Plotted beside the 3D view: the --plot-vars among the CSV columns.
            let plots: Vec<String> = explicit_plot
                .iter()
                .filter(|p| columns.iter().any(|c| c.name == p.name))
                .map(|p| p.name.clone())
                .collect();
            let options = crate::animate::options(&plots, &args.replay);
            let parts = [mbfmu_package::replay::Part { description: &d, prefix: String::new() }];
            crate::animate::check_before_run(&parts, &info.model_name, &names, &options)?;
            Some((html.clone(), d, options))
        }
    };
    // Recorded = CSV columns, then plot variables that are not among them.
    let mut recorded = columns.clone();
    for var in &explicit_plot {
        if !recorded.iter().any(|r| r.vr == var.vr && r.ty == var.ty) {
            recorded.push(var);
        }
    }
    let groups = read_groups(&recorded);
    let csv_path = args.csv.clone().unwrap_or_else(|| PathBuf::from(format!("{}.csv", file_stem(&info.model_name))));

    // Before the FMU is loaded: a path that cannot be written fails first, and the writer
    // thread prepares its memory meanwhile (a run that fails before its first row leaves the
    // file as it was).
    let mut header = vec![info.time_name()];
    header.extend(columns.iter().map(|v| v.name.as_str()));
    let integer = columns.iter().map(|v| !matches!(v.ty, VarType::Float64 | VarType::Float32)).collect();
    let mut csv = CsvWriter::create(&csv_path, &header, integer, Some(grid.steps as usize + 1))?;

    let (mut slave, loaded) = match &source {
        Source::Archive(path) => {
            let fmu = fmu::load(path, &info)?;
            (fmu.instantiate_one(&info, args.debug_logging)?, Some(fmu))
        }
        Source::BuiltIn => (crate::linked::instantiate(&info, args.debug_logging)?, None),
    };
    for (var, value) in &overrides {
        slave.set(var, value)?;
    }
    // Inputs at time t, before the step from t (and before initialization at the start).
    let set_inputs = |slave: &mut dyn fmu::Slave, t: f64| -> Result<()> {
        inputs.as_ref().map_or(Ok(()), |table| table.apply(slave, t))
    };
    set_inputs(&mut *slave, grid.start)?;
    slave.enter_initialization(tolerance, grid.start, grid.stop)?;
    slave.exit_initialization()?;

    // Kept in memory only when a plot is wanted.
    let keep = args.plot.is_some();
    let mut times = Vec::new();
    let mut history: Vec<Vec<f64>> = vec![Vec::new(); if keep { recorded.len() } else { 0 }];
    let mut row = vec![0.0; recorded.len()];
    let mut record = |t: f64, row: &[f64], csv: &mut CsvWriter| -> Result<()> {
        csv.row(t, &row[..columns.len()])?;
        if keep {
            times.push(t);
            for (h, v) in history.iter_mut().zip(row) {
                h.push(*v);
            }
        }
        Ok(())
    };

    slave.read(&groups, &mut row)?;
    record(grid.start, &row, &mut csv)?;
    let wall = Instant::now();
    let mut progress = Progress::new(!args.quiet, grid.start, grid.stop, grid.steps);
    let (ending, reached) = step_through(&mut *slave, &grid, &groups, &mut row, &set_inputs, |step, t, row| {
        record(t, row, &mut csv)?;
        progress.update(step, t);
        Ok(())
    });
    let failure = match ending {
        Ending::Completed => None,
        Ending::Terminated { t, at } => {
            crate::log::print_line(&format!("note: {}", termination_note(t, at)));
            None
        }
        Ending::Failed { t, t_next, status, last_successful_time } => Some(Error::msg(format!(
            "{}. {} holds the results up to t = {t}",
            step_failure(t, t_next, status, last_successful_time),
            csv_path.display()
        ))),
        Ending::Error(e) => Some(e),
    };
    progress.finish();
    let elapsed = wall.elapsed().as_secs_f64();
    let rows = csv.rows;
    // The FMU is terminated and freed while the writer thread formats the last rows.
    csv.end_rows();
    if failure.is_none() {
        slave.terminate()?;
    }
    drop(slave);
    if let Some(fmu) = loaded {
        fmu.keep_loaded_until_exit();
    }
    csv.finish()?;

    if !args.quiet {
        println!(
            "{} ({}): simulated t = {} .. {} s in {} communication steps of {} s, {:.2} s wall clock",
            info.model_name,
            info.version.label(),
            format_float(grid.start),
            format_float(reached),
            rows - 1,
            format_float(grid.step),
            elapsed
        );
        println!("wrote {} ({} rows, {} columns)", csv_path.display(), rows, columns.len() + 1);
    }
    if let Some(png) = &args.plot {
        let plotted: Vec<usize> = if explicit_plot.is_empty() {
            let units: Vec<Option<&str>> = columns.iter().map(|v| v.unit.as_deref()).collect();
            mbfmu_package::replay::run::most_changing(&history, &units)
        } else {
            explicit_plot
                .iter()
                .map(|p| recorded.iter().position(|r| r.vr == p.vr && r.ty == p.ty).expect("recorded"))
                .collect()
        };
        let series: Vec<plot::Series> = plotted
            .iter()
            .map(|&c| plot::Series {
                label: recorded[c].name.clone(),
                unit: recorded[c].unit.as_deref(),
                values: history[c].clone(),
            })
            .collect();
        let time_var = info.variables.iter().find(|v| v.causality == Causality::Independent);
        let time_label = match time_var.and_then(|v| v.unit.as_deref()) {
            Some(unit) => format!("{} [{unit}]", info.time_name()),
            None => info.time_name().to_string(),
        };
        let file = match &source {
            Source::Archive(path) => path.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
            Source::BuiltIn => "built-in".to_string(),
        };
        let title = format!("{} ({}, {file})", info.model_name, info.version.label());
        let panels = plot::write_png(png, &title, &time_label, &times, &series)?;
        if !args.quiet {
            let names: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
            println!(
                "wrote {} ({} in {} panel{})",
                png.display(),
                names.join(", "),
                panels,
                if panels == 1 { "" } else { "s" }
            );
        }
    }
    if let Some((html, d, options)) = &replay {
        // The run as written, up to the last completed communication point.
        let written = crate::animate::read_csv(&csv_path, &info).and_then(|run| {
            let parts = [mbfmu_package::replay::Part { description: d, prefix: String::new() }];
            let title = info.description.as_deref().unwrap_or("");
            crate::animate::write(html, &info.model_name, title, &parts, &run, options)?;
            if !args.quiet {
                println!("wrote {} (3D replay, {} samples)", html.display(), run.time.len().min(options.max_samples));
            }
            Ok(())
        });
        // The replay of a failed run shows it up to the failure; its own failure then only adds a note.
        match (written, &failure) {
            (Err(e), None) => return Err(e),
            (Err(e), Some(_)) => crate::log::print_line(&format!("note: no 3D replay: {e}")),
            (Ok(()), _) => {}
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
