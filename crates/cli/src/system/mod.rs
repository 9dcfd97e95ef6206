//! `mbfmu simulate <system>.ssp`: a system of co-simulation FMUs described by an SSP archive
//! (Modelica Association, "System Structure and Parameterization", version 1.0, 2019,
//! <https://ssp-standard.org>), run by this crate's own master. Everything is checked before
//! the first step (archive.rs, ssd.rs, resolve.rs, graph.rs); master.rs steps the system;
//! instance.rs drives each FMU through the C API.

mod archive;
mod graph;
mod instance;
mod master;
mod resolve;
mod ssd;

pub use archive::is_system;
pub use master::Algorithm;

use crate::args::{split_names, SimulateArgs};
use crate::csv::{format_float, CsvWriter};
use crate::error::{Error, Result};
use crate::modeldesc::{DefaultExperiment, VarType};
use crate::progress::Progress;
use crate::stepping::{step_failure, termination_note};
use master::{Delivery, Halt, Master};
use mbfmu_package::replay::Part;
use resolve::System;
use std::path::PathBuf;
use std::time::Instant;

/// Options of `simulate` that only an FMU takes; a system refuses them by name.
fn refuse_fmu_options(args: &SimulateArgs) -> Result<()> {
    let given = [
        (args.fmi.is_some(), "--fmi"),
        (
            args.inputs.input_file.is_some(),
            "--input-file (systems take parameter values and --set; their inputs come from connections)",
        ),
    ];
    match given.iter().find(|(g, _)| *g) {
        Some((_, option)) => Err(Error::msg(format!("{option} does not apply to a system (.ssp)"))),
        None => Ok(()),
    }
}

/// Options that only a system takes; an FMU refuses them by name.
pub fn refuse_system_options(args: &SimulateArgs) -> Result<()> {
    if args.algorithm.is_some() || args.extrapolate {
        return Err(Error::msg(format!(
            "{} applies to systems (.ssp) only; {} is a single FMU",
            if args.algorithm.is_some() { "--algorithm" } else { "--extrapolate" },
            args.fmu.display()
        )));
    }
    Ok(())
}

/// The CSV columns: `--outputs` as `<component>.<variable>`, else every declared output connector.
fn columns(system: &System, outputs: &[String]) -> Result<Vec<(usize, usize)>> {
    if outputs.is_empty() {
        return Ok(system
            .components
            .iter()
            .enumerate()
            .flat_map(|(k, c)| c.outputs.iter().map(move |&v| (k, v)))
            .collect());
    }
    split_names(outputs)
        .iter()
        .map(|name| {
            let (k, variable) = resolve::split_name(&system.components, name).ok_or_else(|| {
                let names: Vec<&str> = system.components.iter().map(|c| c.name.as_str()).collect();
                Error::msg(format!("--outputs {name}: name <component>.<variable>; components: {}", names.join(", ")))
            })?;
            let info = &system.components[k].info;
            let var = crate::simulate::resolve_recorded(info, &[variable.to_string()], "--outputs")
                .map_err(|e| e.context(format!("component '{}'", system.components[k].name)))?[0];
            Ok((k, info.variables.iter().position(|v| std::ptr::eq(v, var)).expect("own variable")))
        })
        .collect()
}

pub fn run(args: SimulateArgs) -> Result<()> {
    refuse_fmu_options(&args)?;
    let opened = archive::open(&args.fmu)?;
    let system = resolve::resolve(&opened.ssd, &opened.base, &args.set)?;
    if let Some(note) = graph::check_feedthrough(&system.components, &system.links)? {
        if !args.quiet {
            crate::log::print_line(&format!("note: {note}"));
        }
    }
    let experiment =
        DefaultExperiment { start: opened.ssd.start, stop: opened.ssd.stop, step: opened.ssd.step, tolerance: None };
    let (grid, tolerance) = args.experiment.resolve(&experiment)?;
    let algorithm = args.algorithm.unwrap_or(Algorithm::Jacobi);
    let n = system.components.len();
    let order = match algorithm {
        Algorithm::Jacobi => (0..n).collect(),
        Algorithm::GaussSeidel => graph::gauss_seidel_order(n, &system.links),
    };
    let delivery = master::deliveries(&system, &order, algorithm, args.extrapolate);
    if args.extrapolate && !args.quiet {
        crate::log::print_line(&format!("note: {}", extrapolation_summary(&system, &delivery)));
    }
    let mut recorded = columns(&system, &args.outputs)?;
    let csv_path =
        args.csv.clone().unwrap_or_else(|| PathBuf::from(format!("{}.csv", crate::simulate::file_stem(&system.name))));
    let replay = match &args.animate {
        Some(html) => Some((html.clone(), replay_parts(&args, &system, &mut recorded)?)),
        None => None,
    };

    // Load each FMU once, then one instance per component.
    let mut loaded: Vec<(PathBuf, crate::fmu::Fmu)> = Vec::new();
    let mut units = Vec::new();
    for (k, c) in system.components.iter().enumerate() {
        let here = |e: Error| e.context(format!("component '{}'", c.name));
        if !loaded.iter().any(|(p, _)| *p == c.path) {
            loaded.push((c.path.clone(), crate::fmu::load(&c.path, &c.info).map_err(here)?));
        }
        let fmu = &loaded.iter().find(|(p, _)| *p == c.path).expect("loaded").1;
        let intermediate: Vec<u32> = system
            .links
            .iter()
            .zip(&delivery)
            .filter(|(l, d)| {
                l.to.0 == k && **d == Delivery::Slope && c.info.version == crate::modeldesc::FmiVersion::V3
            })
            .map(|(l, _)| c.variable(l.to.1).vr)
            .collect();
        units.push(instance::instantiate(fmu, &c.info, &c.name, args.debug_logging, &intermediate).map_err(here)?);
    }
    let (mut master, slots) = Master::new(&system, units, order, algorithm, delivery, &recorded);
    for (k, c) in system.components.iter().enumerate() {
        for (index, value, origin) in &c.parameters {
            master
                .unit(k)
                .set(c.variable(*index), value)
                .map_err(|e| e.context(format!("component '{}': {origin}", c.name)))?;
        }
    }
    // The FMUs' messages are kept during the run, so that a failure can quote its component's.
    crate::log::begin_capture();
    let result = simulate(&args, &system, &mut master, &slots, &recorded, &grid, tolerance, &csv_path);
    let logged = crate::log::end_capture();
    if let Some((html, parts)) = &replay {
        // The replay of a failed run shows it up to the failure; its own failure then only adds a note.
        match (write_replay(&args, &system, html, parts, &csv_path), &result) {
            (Err(e), Ok(())) => return Err(e),
            (Err(e), Err(_)) => crate::log::print_line(&format!("note: no 3D replay: {e}")),
            (Ok(()), _) => {}
        }
    }
    let culprit = result.as_ref().err().and_then(|(_, c)| c.as_ref()).map(|name| format!("[{name}]"));
    let (quoted, others): (Vec<&String>, Vec<&String>) =
        logged.iter().partition(|l| culprit.as_ref().is_some_and(|c| l.contains(c.as_str())));
    for line in others {
        crate::log::print_line(line);
    }
    result.map_err(|(e, component)| match component {
        Some(name) if !quoted.is_empty() => {
            let lines: Vec<&str> = quoted.iter().map(|l| l.as_str()).collect();
            Error::msg(format!("{e}\nwhat {name} logged:\n  {}", lines.join("\n  ")))
        }
        _ => e,
    })
}

fn extrapolation_summary(system: &System, delivery: &[Delivery]) -> String {
    let mut parts = Vec::new();
    for (l, d) in system.links.iter().zip(delivery) {
        let how = match d {
            Delivery::Hold => "held (zero-order hold: no output derivatives from the source, a fresh Gauss-Seidel value, or not Real)",
            Delivery::Slope => "extrapolated with the source's derivative, the target interpolating",
            Delivery::Midpoint => "extrapolated with the source's derivative, held at the step's midpoint value (the target takes no input derivatives)",
        };
        parts.push(format!("{}: {how}", l.label));
    }
    format!("--extrapolate: {}", parts.join("; "))
}

/// Initializes, steps and records; an error carries the name of the component at fault.
#[allow(clippy::too_many_arguments)]
fn simulate(
    args: &SimulateArgs,
    system: &System,
    master: &mut Master,
    slots: &[usize],
    recorded: &[(usize, usize)],
    grid: &crate::stepping::Grid,
    tolerance: Option<f64>,
    csv_path: &std::path::Path,
) -> std::result::Result<(), (Error, Option<String>)> {
    let name = |k: usize| system.components[k].name.clone();
    let at = |k: usize| move |e: Error| (e.context(format!("component '{}'", name(k))), Some(name(k)));
    for k in 0..system.components.len() {
        master.unit(k).enter_initialization(tolerance, grid.start, grid.stop).map_err(at(k))?;
    }
    let order = graph::gauss_seidel_order(system.components.len(), &system.links);
    master.propagate_initial_values(grid.start, &order).map_err(|e| (e, None))?;
    for k in 0..system.components.len() {
        master.unit(k).exit_initialization().map_err(at(k))?;
    }
    master.read_all().map_err(|e| (e, None))?;

    let header_names: Vec<String> = recorded
        .iter()
        .map(|&(k, v)| format!("{}.{}", system.components[k].name, system.components[k].variable(v).name))
        .collect();
    let mut header = vec!["time"];
    header.extend(header_names.iter().map(String::as_str));
    let integer = recorded
        .iter()
        .map(|&(k, v)| !matches!(system.components[k].variable(v).ty, VarType::Float64 | VarType::Float32))
        .collect();
    let mut csv =
        CsvWriter::create(csv_path, &header, integer, Some(grid.steps as usize + 1)).map_err(|e| (e, None))?;
    let keep = args.plot.is_some();
    let (mut times, mut history) = (Vec::new(), vec![Vec::new(); if keep { slots.len() } else { 0 }]);
    let mut row = vec![0.0; slots.len()];
    let mut record = |t: f64, master: &Master, csv: &mut CsvWriter| -> Result<()> {
        for (r, &s) in row.iter_mut().zip(slots) {
            *r = master.value(s);
        }
        csv.row(t, &row)?;
        if keep {
            times.push(t);
            for (h, v) in history.iter_mut().zip(&row) {
                h.push(*v);
            }
        }
        Ok(())
    };
    record(grid.start, master, &mut csv).map_err(|e| (e, None))?;

    let wall = Instant::now();
    let mut progress = Progress::new(!args.quiet, grid.start, grid.stop, grid.steps);
    let mut reached = grid.start;
    let mut failure = None;
    for i in 0..grid.steps {
        let (t, t_next) = (grid.time(i), grid.time(i + 1));
        match master.advance(t, t_next - t) {
            Ok(()) => {}
            Err(Halt::Terminated { component, at }) => {
                crate::log::print_line(&format!("note: component '{}': {}", name(component), termination_note(t, at)));
                break;
            }
            Err(Halt::Failed { component, status, last_successful_time }) => {
                let message = format!(
                    "component '{}' ({}): {}. {} holds the results up to t = {t}",
                    name(component),
                    system.components[component].info.model_name,
                    step_failure(t, t_next, status, last_successful_time),
                    csv_path.display()
                );
                failure = Some((Error::msg(message), Some(name(component))));
                break;
            }
            Err(Halt::Error(e)) => {
                failure = Some((e.context(format!("in the step from t = {t}")), None));
                break;
            }
        }
        if let Err(e) = record(t_next, master, &mut csv) {
            failure = Some((e, None));
            break;
        }
        progress.update(i + 1, t_next);
        reached = t_next;
    }
    progress.finish();
    let rows = csv.rows;
    // The FMUs are terminated while the writer thread formats the last rows.
    csv.end_rows();
    if failure.is_none() {
        for k in 0..system.components.len() {
            master.unit(k).terminate().map_err(at(k))?;
        }
    }
    csv.finish().map_err(|e| (e, None))?;
    if !args.quiet {
        println!(
            "{} ({} components, {}): simulated t = {} .. {} s in {} communication steps of {} s, {:.2} s wall clock",
            system.name,
            system.components.len(),
            match args.algorithm.unwrap_or(Algorithm::Jacobi) {
                Algorithm::Jacobi => "Jacobi",
                Algorithm::GaussSeidel => "Gauss-Seidel",
            },
            format_float(grid.start),
            format_float(reached),
            rows - 1,
            format_float(grid.step),
            wall.elapsed().as_secs_f64()
        );
        println!("wrote {} ({} rows, {} columns)", csv_path.display(), rows, slots.len() + 1);
    }
    if let (Some(png), None) = (&args.plot, &failure) {
        plot(args, system, recorded, &header_names, &times, &history, png).map_err(|e| (e, None))?;
    }
    match failure {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// The components a replay draws (those made by mbfmu: their descriptions, with the prefix
/// `<component>.` of their columns), checked against the recorded columns before the run.
/// Without --outputs, every output of those components is recorded as well.
fn replay_parts(
    args: &SimulateArgs,
    system: &System,
    recorded: &mut Vec<(usize, usize)>,
) -> Result<Vec<(String, mbfmu_model::format::Description)>> {
    let mut parts = Vec::new();
    for (k, c) in system.components.iter().enumerate() {
        let Ok(d) = crate::animate::description(Some(&c.path), &c.info) else { continue };
        if args.outputs.is_empty() {
            for (v, var) in c.info.variables.iter().enumerate() {
                let output =
                    var.causality == crate::modeldesc::Causality::Output && var.ty.is_numeric() && !var.is_array;
                if output && !recorded.contains(&(k, v)) {
                    recorded.push((k, v));
                }
            }
        }
        parts.push((format!("{}.", c.name), d));
    }
    if parts.is_empty() {
        return Err(Error::msg(format!(
            "--animate: no component of {} was made by mbfmu, so none can be drawn",
            system.name
        )));
    }
    let names: Vec<(String, String)> = recorded
        .iter()
        .map(|&(k, v)| {
            let var = system.components[k].variable(v);
            (format!("{}.{}", system.components[k].name, var.name), var.unit.clone().unwrap_or_default())
        })
        .collect();
    let options = crate::animate::options(&args.plot_vars, &args.replay);
    let views: Vec<Part> = parts.iter().map(|(prefix, d)| Part { description: d, prefix: prefix.clone() }).collect();
    crate::animate::check_before_run(&views, &system.name, &names, &options)?;
    Ok(parts)
}

/// The replay of the system's run as the CSV file holds it.
fn write_replay(
    args: &SimulateArgs,
    system: &System,
    html: &std::path::Path,
    parts: &[(String, mbfmu_model::format::Description)],
    csv_path: &std::path::Path,
) -> Result<()> {
    let unit = |name: &str| {
        let (k, variable) = resolve::split_name(&system.components, name)?;
        system.components[k].info.variable(variable).map(|v| v.unit.clone().unwrap_or_default())
    };
    let run = crate::animate::read_table(csv_path, "time", &system.name, unit)?;
    let options = crate::animate::options(&args.plot_vars, &args.replay);
    let views: Vec<Part> = parts.iter().map(|(prefix, d)| Part { description: d, prefix: prefix.clone() }).collect();
    crate::animate::write(html, &system.name, "SSP system", &views, &run, &options)?;
    if !args.quiet {
        println!("wrote {} (3D replay, {} samples)", html.display(), run.time.len().min(options.max_samples));
    }
    Ok(())
}

fn plot(
    args: &SimulateArgs,
    system: &System,
    recorded: &[(usize, usize)],
    names: &[String],
    times: &[f64],
    history: &[Vec<f64>],
    png: &std::path::Path,
) -> Result<()> {
    let unit = |c: usize| {
        let (k, v) = recorded[c];
        system.components[k].variable(v).unit.as_deref()
    };
    let chosen: Vec<usize> = if args.plot_vars.is_empty() {
        let units: Vec<Option<&str>> = (0..names.len()).map(unit).collect();
        mbfmu_package::replay::run::most_changing(history, &units)
    } else {
        split_names(&args.plot_vars)
            .iter()
            .map(|p| {
                names.iter().position(|n| n == p).ok_or_else(|| {
                    Error::msg(format!("--plot-vars {p}: not among the recorded columns (add it to --outputs)"))
                })
            })
            .collect::<Result<_>>()?
    };
    let series: Vec<crate::plot::Series> = chosen
        .iter()
        .map(|&c| crate::plot::Series { label: names[c].clone(), unit: unit(c), values: history[c].clone() })
        .collect();
    let panels = crate::plot::write_png(png, &format!("{} (SSP system)", system.name), "time [s]", times, &series)?;
    if !args.quiet {
        println!("wrote {} ({} panel{})", png.display(), panels, if panels == 1 { "" } else { "s" });
    }
    Ok(())
}
