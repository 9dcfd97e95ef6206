//! `mbfmu`: package the built-in models as FMUs, write their documentation pages,
//! simulate any co-simulation FMU and print the JSON Schema of descriptions.
//! Run `mbfmu --help` for the commands.

// The C runtime calls `entry` below (exported as `main`) directly, not through Rust's runtime
// start (see `startup`).
#![cfg_attr(not(test), no_main)]

mod animate;
mod args;
mod catalog_fmu;
#[cfg(test)]
mod counting;
mod cross;
mod csv;
mod docs;
mod error;
mod exports;
mod fmi3_slave;
mod fmu;
mod info;
mod inputs;
mod linked;
mod log;
mod modeldesc;
mod package;
mod plot;
mod progress;
mod replays;
mod simulate;
mod startup;
mod stepping;
mod sweep;
mod system;
mod unpacked;

use args::{Cli, Command};
use clap::Parser;

/// The process's entry point, called by the C runtime with the standard streams checked, a
/// broken pipe made an error and standard output flushed at the end (see `startup`).
/// (The unit tests have the test harness's entry point; this one is then unused.)
#[cfg_attr(not(test), export_name = "main")]
#[cfg_attr(test, allow(dead_code))]
pub extern "C" fn entry(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    startup::prepare();
    // A panic cannot unwind into the C runtime: one outside the commands' own guard (in the
    // argument parser, say) ends the run with Rust's usual code for it, after its message.
    let code = std::panic::catch_unwind(run).unwrap_or(101);
    startup::finish();
    code
}

/// Runs the command line's command; the exit code: 0 on success, 1 after an error.
fn run() -> std::ffi::c_int {
    let cli = Cli::parse();
    log::init();
    // The fmi crate's bindings panic when an FMU's binary lacks a function it calls; report
    // that like any other error instead of with a backtrace.
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(|| match cli.command {
        Command::Package(a) => package::run(a),
        Command::Simulate(a) if system::is_system(&a.fmu) => system::run(a),
        Command::Simulate(a) => system::refuse_system_options(&a).and_then(|()| simulate::run(a)),
        Command::Sweep(a) => sweep::run(a),
        Command::Animate(a) => animate::run(a),
        Command::Info(a) => info::info(a),
        Command::List => info::list(),
        Command::Docs(a) => docs::run(a),
        Command::Schema(a) => schema(a),
    })
    .unwrap_or_else(|panic| Err(error::Error::msg(panic_message(panic.as_ref()))));
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// `mbfmu schema`: the JSON Schema of descriptions, to stdout or `--output`.
fn schema(args: args::SchemaArgs) -> error::Result<()> {
    use error::Context;
    let text = mbfmu_model::format::json_schema_text();
    match args.output {
        Some(path) => std::fs::write(&path, text).context(format!("cannot write {}", path.display())),
        None => {
            use std::io::Write;
            std::io::stdout().write_all(text.as_bytes()).context("cannot write the schema")
        }
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    let text =
        panic.downcast_ref::<String>().map(String::as_str).or(panic.downcast_ref::<&str>().copied()).unwrap_or("");
    match text.split_once("undefined symbol: ") {
        Some((_, rest)) => {
            let symbol: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            format!("the FMU's binary does not export {symbol}, which co-simulation needs (an incomplete FMU?)")
        }
        None => format!("internal error (please report it): {text}"),
    }
}
