//! `mbfmu info` (an FMU's interface) and `mbfmu list` (the built-in models).

use crate::args::InfoArgs;
use crate::error::{Error, Result};
use crate::fmu;
use crate::modeldesc::{Causality, ModelInfo, Variable};

pub fn list() -> Result<()> {
    for entry in mbfmu_model::catalog::CATALOG {
        let d = mbfmu_model::format::parse(entry.json)
            .map_err(|e| Error::msg(format!("built-in model {}: {e}", entry.name)))?;
        println!("{:<20} {}", d.name, d.description);
        println!(
            "{:<20} default experiment: {} .. {} s, step {} s; FMUs: fmus/fmi2/{n}.fmu, fmus/fmi3/{n}.fmu",
            "",
            d.experiment.start,
            d.experiment.stop,
            d.experiment.step,
            n = d.name
        );
    }
    Ok(())
}

fn describe(info: &ModelInfo, var: &Variable) -> String {
    let mut line = format!("  {:<32} {}", var.name, var.ty.name());
    if let Some(start) = &var.start {
        let item = info.enum_items(var).iter().find(|i| i.value.to_string() == *start);
        match item {
            Some(item) => line.push_str(&format!(" = {} ({start})", item.name)),
            None => line.push_str(&format!(" = {start}")),
        }
    }
    if let Some(unit) = &var.unit {
        line.push_str(&format!(" [{unit}]"));
    }
    if var.is_array {
        line.push_str(" (array)");
    }
    if let Some(d) = &var.description {
        line.push_str(&format!("  {d}"));
    }
    for item in info.enum_items(var) {
        line.push_str(&format!("\n  {:<32} {} = {}", "", item.name, item.value));
        if let Some(d) = &item.description {
            line.push_str(&format!(": {d}"));
        }
    }
    line
}

pub fn info(args: InfoArgs) -> Result<()> {
    let info = fmu::peek(&args.fmu)?;
    println!("{} ({}, fmiVersion {})", info.model_name, info.version.label(), info.fmi_version);
    if let Some(d) = &info.description {
        println!("{d}");
    }
    let mut interfaces = Vec::new();
    if let Some(id) = &info.cs_identifier {
        interfaces.push(format!("Co-Simulation (modelIdentifier {id})"));
    }
    if info.has_model_exchange {
        interfaces.push("Model Exchange".into());
    }
    if info.has_scheduled_execution {
        interfaces.push("Scheduled Execution".into());
    }
    println!("interfaces: {}", interfaces.join(", "));
    let e = &info.experiment;
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| v.to_string());
    println!(
        "default experiment: start {}, stop {}, step {}, tolerance {}",
        show(e.start),
        show(e.stop),
        show(e.step),
        show(e.tolerance)
    );
    let sections = [
        ("parameters (--set NAME=VALUE)", &[Causality::Parameter, Causality::StructuralParameter][..]),
        ("calculated parameters", &[Causality::CalculatedParameter][..]),
        ("inputs (--set NAME=VALUE holds a constant value)", &[Causality::Input][..]),
        ("outputs (CSV columns by default)", &[Causality::Output][..]),
    ];
    for (title, causalities) in sections {
        let vars: Vec<&Variable> = info.variables.iter().filter(|v| causalities.contains(&v.causality)).collect();
        if !vars.is_empty() {
            println!("\n{title}:");
            for var in vars {
                println!("{}", describe(&info, var));
            }
        }
    }
    Ok(())
}
