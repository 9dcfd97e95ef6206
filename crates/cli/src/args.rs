//! Command-line syntax (clap derive). The doc comments are the `--help` text.
// They are printed verbatim, so they write `<Model>`, `[s]` and the like as the user reads
// them, not as rustdoc markup.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "mbfmu",
    version,
    about = "Multibody models as FMI 2.0 / FMI 3.0 co-simulation FMUs: package them, simulate any FMU",
    long_about = "Multibody models as FMI 2.0 / FMI 3.0 co-simulation FMUs.\n\n\
        `mbfmu package` writes an FMU of every built-in model for both FMI versions;\n\
        `mbfmu simulate` runs any co-simulation FMU (this project's or another tool's) and writes\n\
        its outputs to a CSV file and, on request, a PNG plot.\n\n\
        First run, from the repository:\n  \
        cargo run --release -- package && cargo run --release -- simulate fmus/fmi3/DoublePendulum.fmu --plot double_pendulum.png"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The arguments of a subcommand are built only when it runs (`defer`): building those of
/// all of them took most of the argument parsing of a short `simulate`.
#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum Command {
    /// Package every built-in model as FMI 2.0 and FMI 3.0 co-simulation FMUs
    #[command(long_about = "Package every built-in model as FMI 2.0 and FMI 3.0 co-simulation FMUs.\n\n\
        Writes <OUT>/fmi2/<Model>.fmu and <OUT>/fmi3/<Model>.fmu. Each archive holds the\n\
        modelDescription.xml, documentation/index.html (with a drawing of the machine), the\n\
        icon (FMI 2: model.png, FMI 3: terminalsAndIcons/icon.png) and the shared library\n\
        libmbfmu.so that the same cargo command built (found next to this executable), renamed\n\
        to the model identifier. The built-in systems of several FMUs (the split hydraulic\n\
        four-bar) are written as SSP archives, <OUT>/ssp/fmi2/<System>.ssp and\n\
        <OUT>/ssp/fmi3/<System>.ssp. Build in release mode (`cargo run --release -- package`): a debug library\n\
        works but simulates much more slowly. Run from this project's repository, it also\n\
        refreshes the checked-in copies of the generated modelDescription.xml files\n\
        (elsewhere only with --model-descriptions).\n\n\
        With --model, packages your own mechanism descriptions (JSON, the format of\n\
        crates/model/catalog/*.json) instead: the archive also carries the description as\n\
        resources/model.json, which the library loads at instantiation.")]
    Package(PackageArgs),
    /// Simulate a co-simulation FMU and write its outputs to CSV (and a PNG plot)
    #[command(long_about = "Simulate a co-simulation FMU and write its outputs to CSV (and a PNG plot).\n\n\
        Any FMI 2.0 or FMI 3.0 co-simulation FMU with a binary for this platform can be run;\n\
        the version is read from the archive. The FMU is stepped with a fixed communication\n\
        step and sub-steps internally with its own solver. After each step the outputs are\n\
        written as one CSV row. Times are in the FMU's time unit (seconds for this project's\n\
        FMUs). Run `mbfmu info <FMU>` to see the names, units and defaults of its variables.\n\n\
        Progress: a bar while stderr is a terminal, otherwise a line every 10 s. Messages the\n\
        FMU logs are printed to stderr (its logStatus* categories are switched on). If a step\n\
        fails (Discard, Error), the CSV keeps the rows up to the last completed communication\n\
        point, the error names the time reached, and the exit status is 1.")]
    Simulate(SimulateArgs),
    /// Run many simulations of one FMU over parameter sets, in parallel, into one table
    #[command(long_about = "Run many simulations of one FMU over parameter sets, in parallel, into one table.\n\n\
        The parameter sets come from a CSV file (--parameters), a full grid (--grid, repeatable)\n\
        or random samples (--samples with --uniform / --normal and --seed). Every run is a new\n\
        instance, simulated as `mbfmu simulate` does (same time grid and calls) on --jobs threads;\n\
        with --input-file every run follows the same table of time-varying inputs.\n\
        Names, values (within the variables' min and max) and output paths are checked before\n\
        any run starts.\n\n\
        The table (Parquet or CSV, by --output's extension) has one row per run, in parameter-set\n\
        order: run (the set's index from 0), the parameters, status (ok, terminated, discard,\n\
        error, fatal), message (why a run failed), end_time (the last communication point\n\
        reached), and for every output <name>:min, <name>:max, <name>:mean (over the\n\
        communication points, start included) and <name>:final (at end_time); these are empty\n\
        for a run that failed. --series writes every run's time series as well.\n\n\
        A failed run does not stop the sweep. Ctrl-C stops it: runs under way are abandoned, the\n\
        finished ones are written, and the exit status is 130.")]
    Sweep(SweepArgs),
    /// Write a 3D replay (one HTML file) of a results CSV file of an FMU
    #[command(long_about = "Write a 3D replay (one HTML file) of a results CSV file of an FMU.\n\n\
        RESULTS.csv is a file `mbfmu simulate` wrote (the time, then output names); --model names\n\
        the FMU (archive or built-in model) it came from. The geometry comes from the model's\n\
        description, the poses from its outputs: the file needs every body's and beam node's\n\
        position and orientation, which the description declares with the output group\n\
        {\"animation\": [\"bodies\", \"beams\", \"hydraulics\"]}. The page opens without a network\n\
        (docs/replay.md). Same as `mbfmu simulate FMU --animate FILE.html` on an existing run.")]
    Animate(AnimateArgs),
    /// Show an FMU's interface: default experiment, parameters, inputs, outputs
    Info(InfoArgs),
    /// List the built-in models that `package` turns into FMUs
    List,
    /// Write a model's documentation page (the documentation/index.html of its FMUs)
    #[command(long_about = "Write a model's documentation page (the documentation/index.html of its FMUs).\n\n\
        MODEL is a built-in model (`mbfmu list`), an .fmu archive or a mechanism description\n\
        (.json). The page of a built-in model or a description is generated as `package` generates\n\
        it, for FMI 3.0 unless --fmi 2 is given; an archive's page is the one it carries.\n\
        Writes <OUT>/fmi3/<Model>.html (fmi2/ for FMI 2.0) and prints its path.")]
    Docs(DocsArgs),
    /// Print the JSON Schema of mechanism descriptions (or write it to a file)
    #[command(long_about = "Print the JSON Schema of mechanism descriptions (or write it to a file).\n\n\
        The schema (JSON Schema 2020-12) is generated from the types that read descriptions: every\n\
        field with its description and, where it has one, its unit (\"x-unit\"). Point an editor at\n\
        it for completion and checking as you type, e.g. with a top-level\n\
        \"$schema\": \"path/to/model.schema.json\" in the description (the reader ignores that key).\n\
        The repository keeps a copy at docs/model.schema.json.")]
    Schema(SchemaArgs),
}

#[derive(Args, Debug)]
pub struct PackageArgs {
    /// Directory that receives fmi2/<Model>.fmu and fmi3/<Model>.fmu
    #[arg(long, value_name = "DIR", default_value = "fmus")]
    pub out: PathBuf,

    /// Directory of the checked-in modelDescription.xml copies (fmi2/<Model>.xml, fmi3/<Model>.xml)
    /// that this command refreshes. Default: ./modelDescription when run from this project's
    /// repository, else none are written
    #[arg(long, value_name = "DIR")]
    pub model_descriptions: Option<PathBuf>,

    /// Package this shared library instead of the libmbfmu.so built next to this executable
    #[arg(long, value_name = "FILE")]
    pub library: Option<PathBuf>,

    /// Package this mechanism description (JSON) instead of the catalog (repeatable); it is
    /// validated first, and errors name the item at fault. Sizes far outside machine scale (a
    /// likely unit mistake: millimetres, bar) are warned of; its top-level "plausibility":
    /// {"ignore": [...]} silences the kinds it lists
    #[arg(long, value_name = "FILE.json")]
    pub model: Vec<PathBuf>,

    /// Also compile the library for these platforms and put every binary into each archive:
    /// `all` or a comma-separated list of x86_64-linux, x86_64-windows, aarch64-linux,
    /// x86_64-darwin, aarch64-darwin (needs this project's sources and the toolchains of
    /// scripts/setup-cross.sh; each target is built in target/cross/<rust target>)
    #[arg(long, value_name = "all|LIST")]
    pub platforms: Option<String>,

    /// Put the libraries compiled elsewhere into the archives too: DIR/<platform>/ holds one
    /// platform's library under cargo's name (libmbfmu.so, mbfmu.dll, libmbfmu.dylib)
    #[arg(long, value_name = "DIR")]
    pub binaries: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The .fmu archive to simulate (FMI 2.0 or 3.0, co-simulation), the name of a built-in
    /// model (`mbfmu list`), run in-process by the FMU library built into this command (FMI
    /// 3.0; with --fmi 2 its FMU is taken from ./fmus or packaged on the fly), or a system of
    /// FMUs: an .ssp archive, a SystemStructure.ssd or a directory holding one
    #[arg(value_name = "FMU|SSP")]
    pub fmu: PathBuf,

    /// FMI version of a built-in model named instead of an archive: 3 (default) or 2
    #[arg(long, value_name = "VERSION", value_parser = clap::value_parser!(u8).range(2..=3))]
    pub fmi: Option<u8>,

    #[command(flatten)]
    pub experiment: ExperimentArgs,

    /// Set a parameter or input before initialization (repeatable). Reals take a number in the
    /// variable's unit, Integers an integer, Booleans true/false/1/0, Enumerations an item name
    /// or its number (e.g. --set solver.method=bdf1), Strings any text. Inputs keep the value
    /// for the whole run. In a system, name <component>.<variable>; --set wins over the
    /// SSD's parameter values
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub set: Vec<(String, String)>,

    #[command(flatten)]
    pub inputs: InputArgs,

    /// Comma-separated output variables to write (repeatable). Default: every variable with
    /// causality "output"; any other scalar numeric variable may also be named. In a system,
    /// <component>.<variable>; default: every output connector the SSD declares
    #[arg(long, value_name = "A,B,...")]
    pub outputs: Vec<String>,

    /// CSV file to write: a header row (time, then the variable names) and one row per
    /// communication point. Default: <modelName>.csv (a system's: <systemName>.csv) in the
    /// current directory
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Also draw the results as a PNG line plot (one panel per unit, time on the x axis)
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,

    /// Comma-separated variables to plot (repeatable; needs --plot or --animate). They need not
    /// be among the CSV outputs. Default: the four CSV outputs that change most over the run, by
    /// their range relative to the largest magnitude among the outputs of their unit (equal
    /// changes in CSV order); a constant output is never chosen, unless every output is constant
    #[arg(long, value_name = "A,B,...")]
    pub plot_vars: Vec<String>,

    /// Also write a 3D replay of the run: one HTML file that opens in a browser without a
    /// network and shows the model moving (orbit, pan and zoom with the mouse; play, speed, a
    /// time slider, a plot of --plot-vars beside it). The poses come from the model's outputs:
    /// its description declares them with the output group {"animation": [...]}
    /// (docs/replay.md). Needs the player installed by scripts/install-replay.sh
    #[arg(long, value_name = "FILE.html")]
    pub animate: Option<PathBuf>,

    #[command(flatten)]
    pub replay: ReplayArgs,

    /// Turn on the FMU's debug logging (all log categories) and print every message it logs
    #[arg(long)]
    pub debug_logging: bool,

    /// Systems (.ssp) only: the co-simulation algorithm. jacobi: every component steps from
    /// the values of the communication point (default); gauss-seidel: the components step one
    /// after another in the order of the connection graph, each from the newest outputs of
    /// those before it (the components of a loop in their order in the SSD)
    #[arg(long, value_enum, value_name = "ALGORITHM")]
    pub algorithm: Option<crate::system::Algorithm>,

    /// Systems (.ssp) only: extrapolate each Real input over the step with its source's output
    /// derivative where the source FMU declares maxOutputDerivativeOrder >= 1 (the target
    /// interpolates when it declares canInterpolateInputs (FMI 2) or intermediate update (FMI
    /// 3), else it holds the extrapolation's midpoint value); other inputs are held
    #[arg(long)]
    pub extrapolate: bool,

    /// Print neither progress nor the summary (errors and FMU warnings are still printed)
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The .fmu archive (FMI 2.0 or 3.0, co-simulation), or the name of a built-in model
    /// (`mbfmu list`), whose FMU is taken from ./fmus or packaged on the fly
    #[arg(value_name = "FMU")]
    pub fmu: PathBuf,

    /// FMI version of a built-in model named instead of an archive: 3 (default) or 2
    #[arg(long, value_name = "VERSION", value_parser = clap::value_parser!(u8).range(2..=3))]
    pub fmi: Option<u8>,

    #[command(flatten)]
    pub experiment: ExperimentArgs,

    /// Parameter sets from a CSV file: a header of variable names and one row per run.
    /// Cells take what --set takes (numbers, true/false, enumeration item names)
    #[arg(long, value_name = "FILE.csv", conflicts_with_all = ["grid", "samples"])]
    pub parameters: Option<PathBuf>,

    /// A parameter's values on an evenly spaced grid from START to STOP (COUNT values, both
    /// ends included). Repeatable: the runs are every combination, the first --grid varying
    /// slowest
    #[arg(long, value_name = "NAME=START:STOP:COUNT", value_parser = parse_assignment, conflicts_with = "samples")]
    pub grid: Vec<(String, String)>,

    /// Number of random parameter sets, drawn from the --uniform and --normal distributions
    #[arg(long, value_name = "N")]
    pub samples: Option<usize>,

    /// With --samples: draw a parameter uniformly from [LOW, HIGH) (repeatable)
    #[arg(long, value_name = "NAME=LOW:HIGH", value_parser = parse_assignment, requires = "samples")]
    pub uniform: Vec<(String, String)>,

    /// With --samples: draw a parameter from a normal distribution (repeatable); every drawn
    /// value must lie within the parameter's min and max
    #[arg(long, value_name = "NAME=MEAN:SD", value_parser = parse_assignment, requires = "samples")]
    pub normal: Vec<(String, String)>,

    /// Seed of the random samples: the same seed gives the same parameter sets
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,

    /// Set a parameter to the same value in every run (repeatable), as `simulate --set` does
    #[arg(long = "set", value_name = "NAME=VALUE", value_parser = parse_assignment)]
    pub set: Vec<(String, String)>,

    #[command(flatten)]
    pub inputs: InputArgs,

    /// Comma-separated output variables to summarize (repeatable). Default: every variable
    /// with causality "output" that is a numeric scalar
    #[arg(long, value_name = "A,B,...")]
    pub outputs: Vec<String>,

    /// Results table to write: FILE.parquet or FILE.csv (repeatable, to write both).
    /// Default: <modelName>_sweep.parquet in the current directory
    #[arg(long, short, value_name = "FILE")]
    pub output: Vec<PathBuf>,

    /// Also write every run's time series as one long table (FILE.parquet or FILE.csv):
    /// run, time, then the outputs, one row per run and communication point
    #[arg(long, value_name = "FILE")]
    pub series: Option<PathBuf>,

    /// Runs simulated at once, each on its own thread. Default: the number of cores
    #[arg(long, short, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub jobs: Option<u32>,

    /// Print neither progress nor the summary (errors are still printed)
    #[arg(long, short)]
    pub quiet: bool,
}

// The time grid and tolerance of a run (simulate and sweep); a plain comment: a doc comment
// would become the about text of the subcommands that flatten it, their arguments being
// built after their own metadata (`defer`).
#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// Start time [s]. Default: the FMU's DefaultExperiment startTime, else 0
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub start_time: Option<f64>,

    /// Stop time [s]. Default: the FMU's DefaultExperiment stopTime, else start time + 1
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub stop_time: Option<f64>,

    /// Communication step size [s]: the FMU is advanced and its outputs are recorded every H
    /// seconds (a last, shorter step ends exactly at the stop time). Default: the FMU's
    /// DefaultExperiment stepSize, else (stop - start) / 500
    #[arg(long, value_name = "H", allow_negative_numbers = true)]
    pub step: Option<f64>,

    /// Relative tolerance handed to the FMU at initialization (FMUs with a fixed-step solver may
    /// ignore it). Default: the FMU's DefaultExperiment tolerance, else none
    #[arg(long, value_name = "TOL")]
    pub tolerance: Option<f64>,
}

// Time-varying inputs from a table (simulate and sweep); a plain comment for the reason
// given at ExperimentArgs.
#[derive(Args, Debug)]
pub struct InputArgs {
    /// Time-varying inputs from a CSV file, as FMPy reads them: a header `time,<input>,...`
    /// and one row per time (non-decreasing; two rows at one time make a jump). Real inputs
    /// follow --input-interpolation, Integer, Boolean and Enumeration inputs hold each row's
    /// value; the first and last rows hold before and after the table. Each input is set at
    /// every communication point, before the step from it. In a sweep every run follows the
    /// same table
    #[arg(long, value_name = "FILE.csv")]
    pub input_file: Option<PathBuf>,

    /// How Real inputs of --input-file vary between rows
    #[arg(long, value_enum, value_name = "KIND", default_value = "linear")]
    pub input_interpolation: crate::inputs::Interpolation,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// The .fmu archive to describe
    #[arg(value_name = "FMU")]
    pub fmu: PathBuf,
}

/// Choices of a 3D replay page.
#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// 3D replay: keep at most this many samples of the run (evenly spaced, first and last
    /// included); the page's size grows with them
    #[arg(long, value_name = "N", default_value_t = 600, value_parser = clap::value_parser!(u64).range(2..=100_000))]
    pub max_frames: u64,

    /// 3D replay: initial magnification of the beams' elastic deformation (the page has a
    /// control for it)
    #[arg(long, value_name = "M", default_value_t = 1.0)]
    pub magnification: f64,
}

#[derive(Args, Debug)]
pub struct AnimateArgs {
    /// Results of a run: a CSV file as `mbfmu simulate` writes it (time, then output names)
    #[arg(value_name = "RESULTS.csv")]
    pub results: PathBuf,

    /// The FMU the results came from: an .fmu archive or a built-in model's name
    #[arg(long, value_name = "FMU")]
    pub model: PathBuf,

    /// The HTML file to write. Default: RESULTS with the extension .html
    #[arg(long, short, value_name = "FILE.html")]
    pub output: Option<PathBuf>,

    /// Comma-separated outputs plotted beside the 3D view at first (repeatable). Default: the
    /// first four that do not pose the model
    #[arg(long, value_name = "A,B,...")]
    pub plot_vars: Vec<String>,

    #[command(flatten)]
    pub replay: ReplayArgs,
}

#[derive(Args, Debug)]
pub struct DocsArgs {
    /// A built-in model's name, an .fmu archive or a mechanism description (.json)
    #[arg(value_name = "MODEL")]
    pub model: String,

    /// Directory that receives fmi3/<Model>.html (or fmi2/<Model>.html)
    #[arg(long, value_name = "DIR", default_value = "fmus/documentation")]
    pub out: PathBuf,

    /// FMI version the page describes: 3 or 2 (an archive's page is always its own version's)
    #[arg(long, value_name = "VERSION")]
    pub fmi: Option<u8>,
}

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Write the schema to this file instead of standard output
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `NAME=VALUE` -> (NAME, VALUE); the value may itself contain '='.
fn parse_assignment(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.to_string())),
        _ => Err(format!("expected NAME=VALUE, got \"{s}\"")),
    }
}

/// Splits comma-separated variable names, keeping commas inside array subscripts (`x[1,2]`)
/// and quoted name parts (`'a,b'`), which FMI's structured naming allows.
pub fn split_names(lists: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    for list in lists {
        let (mut depth, mut quoted, mut current) = (0i32, false, String::new());
        for c in list.chars() {
            match c {
                '\'' => quoted = !quoted,
                '[' if !quoted => depth += 1,
                ']' if !quoted => depth -= 1,
                ',' if !quoted && depth == 0 => {
                    names.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        names.push(current);
    }
    names.into_iter().map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_top_level_commas_only() {
        let lists = ["a, b.c,x[1,2]".to_string(), "'q,r'.s".to_string(), ",".to_string()];
        assert_eq!(split_names(&lists), ["a", "b.c", "x[1,2]", "'q,r'.s"]);
    }

    #[test]
    fn assignments_split_at_the_first_equals_sign() {
        assert_eq!(parse_assignment("s=a=b").unwrap(), ("s".to_string(), "a=b".to_string()));
        assert!(parse_assignment("=1").is_err());
        assert!(parse_assignment("x").is_err());
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
