//! `mbfmu`: package the built-in models as FMUs and simulate any co-simulation FMU.
//! Run `mbfmu --help` for the commands.

mod args;
mod csv;
mod error;
mod fmu;
mod info;
mod log;
mod modeldesc;
mod package;
mod plot;
mod progress;
mod simulate;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    log::init();
    let result = match cli.command {
        Command::Package(a) => package::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Info(a) => info::info(a),
        Command::List => info::list(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
