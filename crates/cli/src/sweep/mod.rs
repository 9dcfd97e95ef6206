//! `mbfmu sweep`: many runs of one co-simulation FMU over parameter sets, on worker threads
//! in this process, into one results table. Every run makes the calls `simulate` makes (the
//! shared stepping loop), so a run equals `simulate --set` of its parameters, and the Python
//! package in python/ (the same sweep on a Dask cluster with FMPy) can match it bit for bit.

mod parquet;
mod plan;
mod pool;
mod run;
mod sampling;
mod table;

use crate::args::{split_names, SweepArgs};
use crate::error::{Error, Result};
use crate::fmu::{self, read_groups};
use crate::inputs::InputTable;
use crate::simulate::{default_outputs, file_stem, resolve_overrides, resolve_recorded};
use plan::Plan;
use run::{RunSpec, Status};
use std::path::PathBuf;
use table::Sink;

pub fn run(args: SweepArgs) -> Result<()> {
    let fmu_path = crate::catalog_fmu::resolve(&args.fmu, args.fmi)?;
    let info = fmu::peek(&fmu_path)?;
    let (grid, tolerance) = args.experiment.resolve(&info.experiment)?;

    // Everything is checked before the binary is loaded and any run starts.
    let fixed = resolve_overrides(&info, &args.set)?;
    let plan = Plan::from_args(&args, &info)?;
    if let Some(clash) = plan.variables.iter().find(|v| fixed.iter().any(|(f, _)| f.vr == v.vr && f.ty == v.ty)) {
        return Err(Error::msg(format!("'{}' is both swept and given by --set; keep one", clash.name)));
    }
    let inputs = InputTable::from_args(&args.inputs, &info)?;
    if let Some(table) = &inputs {
        if let Some(clash) = table.also_given(fixed.iter().map(|(v, _)| *v)) {
            return Err(Error::msg(format!("'{}' is given both by --set and by --input-file; keep one", clash.name)));
        }
        if let Some(clash) = table.also_given(plan.variables.iter().copied()) {
            return Err(Error::msg(format!("'{}' is both swept and given by --input-file; keep one", clash.name)));
        }
    }
    let (outputs, skipped) = if args.outputs.is_empty() {
        default_outputs(&info)
    } else {
        (resolve_recorded(&info, &split_names(&args.outputs), "--outputs")?, Vec::new())
    };
    if !skipped.is_empty() && !args.quiet {
        eprintln!("note: outputs not summarized (not numeric scalars): {}", skipped.join(", "));
    }
    if outputs.is_empty() {
        return Err(Error::msg(format!(
            "{} has no numeric outputs; name the variables with --outputs",
            info.model_name
        )));
    }
    let output_paths = if args.output.is_empty() {
        vec![PathBuf::from(format!("{}_sweep.parquet", file_stem(&info.model_name)))]
    } else {
        args.output.clone()
    };
    let sinks = output_paths.iter().map(|p| Sink::create(p, "--output")).collect::<Result<Vec<_>>>()?;
    let series_sink = args.series.as_deref().map(|p| Sink::create(p, "--series")).transpose()?;

    let fmu = fmu::load(&fmu_path, &info)?;
    let groups = read_groups(&outputs);
    let spec = RunSpec {
        info: &info,
        grid: &grid,
        tolerance,
        fixed: &fixed,
        inputs: inputs.as_ref(),
        outputs: outputs.len(),
        groups: &groups,
        keep_series: series_sink.is_some(),
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.map_or(cores, |j| j as usize);
    let runs = plan.runs();
    if !args.quiet {
        eprintln!(
            "{} ({}): {runs} run{} of t = {} .. {} s on {} thread{}",
            info.model_name,
            info.version.label(),
            if runs == 1 { "" } else { "s" },
            grid.start,
            grid.stop,
            jobs.min(runs),
            if jobs.min(runs) == 1 { "" } else { "s" }
        );
    }
    let outcome = pool::run_all(&fmu, &spec, &plan, jobs, !args.quiet);
    drop(fmu);

    let results = &outcome.results;
    let table = table::results(&plan, &outputs, results);
    let mut written = Vec::new();
    for sink in sinks {
        written.push(sink.path().display().to_string());
        sink.write(&table)?;
    }
    if let Some(sink) = series_sink {
        let series = table::series(info.time_name(), &outputs, results);
        written.push(format!("{} ({} rows)", sink.path().display(), series.rows));
        sink.write(&series)?;
    }
    let failed = results.iter().filter(|r| !matches!(r.status, Status::Ok | Status::Terminated)).count();
    if !args.quiet || outcome.interrupted {
        println!(
            "{} of {runs} runs done in {:.2} s ({:.1} runs/s on {} thread{}), {failed} failed; wrote {}",
            results.len(),
            outcome.seconds,
            results.len() as f64 / outcome.seconds.max(1e-9),
            jobs.min(runs),
            if jobs.min(runs) == 1 { "" } else { "s" },
            written.join(", ")
        );
    }
    if let Some(first) = results.iter().find(|r| !matches!(r.status, Status::Ok | Status::Terminated)) {
        if !args.quiet {
            eprintln!("first failure (run {}, {}): {}", first.index, first.status.label(), first.message);
        }
    }
    if outcome.interrupted {
        eprintln!("interrupted: the table holds the {} runs that finished", results.len());
        std::process::exit(130);
    }
    Ok(())
}
