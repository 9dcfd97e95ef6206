//! The archives' binaries for the other platforms, as `package --platforms all` builds them:
//! each one is driven by a small C host of this project's own (tests/platforms/host.c, FMI 2.0
//! and FMI 3.0 co-simulation: instantiate, set a parameter, run the default experiment (its
//! first [`MAX_SPAN`] seconds), take, serialize, restore and repeat the FMU state), compiled
//! for Windows with mingw-w64 and run
//! under wine, and for aarch64 Linux and run under qemu, on every catalog model; the outputs
//! must equal those of the x86_64 Linux binary run by the same host. The macOS binaries, which
//! nothing here can run, are checked structurally: Mach-O of the right architecture, the FMI
//! exports only (in the export trie and the symbol table), system libraries only, the
//! deployment target, and on arm64 the ad-hoc signature (renewed after the exports were
//! limited), whose page hashes are recomputed.
//!
//! The libraries are built once per run of this test binary (`target/cross/`, incremental);
//! the toolchains come from scripts/setup-cross.sh, and without them these tests fail.

use mbfmu_package::Platform;
use object::macho;
use object::read::macho::{LoadCommandVariant, MachHeader, MachOFile64};
use object::{Architecture, Endianness, Object, ObjectSymbol};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Not;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const SETUP: &str = "install the cross toolchains with scripts/setup-cross.sh";

/// Agreement required of every output with the native run, relative to the largest magnitude
/// the output takes in the run (absolute, in SI units, for outputs that stay below 1, such as
/// a constraint violation of 1e-16, which is round-off). Another platform's libm (msvcrt's on
/// Windows; aarch64 glibc's sin, cos, exp and pow against the x86_64 FMA variants) differs in
/// the last bits, and a model's Newton iterations and closed loops amplify that; the test
/// prints the differences per model.
const TOLERANCE_LIBM: f64 = 1e-6;

/// A run under error control (a variable-step method) may take another step sequence once a
/// last bit differs: the two runs then differ by the order of the error the control admits,
/// bounded here by 100 times its relative tolerance.
const ERROR_CONTROL_FACTOR: f64 = 100.0;

/// The agreement required of `model`'s runs: [`TOLERANCE_LIBM`], or for a model under error
/// control [`ERROR_CONTROL_FACTOR`] times its relative tolerance where that is larger.
fn tolerance_of(model: &str) -> f64 {
    let entry = mbfmu_model::catalog::find(model).expect("a catalog model");
    let solver = &mbfmu_model::Model::from_catalog(entry).expect("the catalog reads").description.solver;
    if solver.method.variable_step() {
        TOLERANCE_LIBM.max(ERROR_CONTROL_FACTOR * solver.relative_tolerance())
    } else {
        TOLERANCE_LIBM
    }
}

/// The longest span of simulated time a run covers (the DefaultExperiment's span where that is
/// shorter). The comparison needs the last-bit differences of the libraries to have had time
/// to grow, not the whole experiment: FlexibleFourBar's 33 s took 8.6 min under qemu.
const MAX_SPAN: f64 = 4.0;

/// Per `model fmi<v>`: the printed rows of outputs, and whether the restored state repeated
/// the run.
type Runs = BTreeMap<String, (Vec<Vec<f64>>, bool)>;

/// A real variable: name, value reference, causality, start, max.
type Real = (String, u32, String, Option<f64>, Option<f64>);

/// The platforms to build: `all`, or the list in `MBFMU_TEST_PLATFORMS` (as `package
/// --platforms` takes it), to work on one platform at a time; a test of a platform left out
/// fails, naming the variable.
fn selected() -> String {
    std::env::var("MBFMU_TEST_PLATFORMS").unwrap_or_else(|_| "all".into())
}

/// `mbfmu package --platforms all` (or [`selected`]) into target/tmp/platforms, once per run.
fn packaged() -> &'static Path {
    static PACKAGED: OnceLock<PathBuf> = OnceLock::new();
    PACKAGED.get_or_init(|| {
        let dir = crate::scratch::dir("platforms");
        let start = std::time::Instant::now();
        let platforms = selected();
        let output = Command::new(env!("CARGO_BIN_EXE_mbfmu"))
            .args(["package", "--platforms", &platforms, "--out"])
            .arg(&dir)
            .output()
            .expect("mbfmu runs");
        assert!(
            output.status.success(),
            "package --platforms {platforms} failed ({SETUP}):\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        // The build time of each target and what the export rewriting did.
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            if line.starts_with("built the library") || line.contains("exports limited") {
                eprintln!("{line}");
            }
        }
        eprintln!("package --platforms {platforms}: {:.0} s", start.elapsed().as_secs_f64());
        dir
    })
}

fn catalog() -> Vec<&'static str> {
    mbfmu_model::catalog::CATALOG.iter().map(|e| e.name).collect()
}

/// The archive `fmi<version>/<model>.fmu`, unpacked once into `<dir>/unpacked/fmi<version>/<model>`.
fn unpacked(version: u8, model: &str) -> PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let root = packaged();
    let dir = root.join("unpacked").join(format!("fmi{version}")).join(model);
    if !dir.exists() {
        let file = std::fs::File::open(root.join(format!("fmi{version}/{model}.fmu"))).unwrap();
        zip::ZipArchive::new(file).unwrap().extract(&dir).unwrap();
    }
    dir
}

fn binary(version: u8, model: &str, platform: Platform) -> PathBuf {
    let folder = if version == 2 { platform.fmi2_folder().unwrap() } else { platform.fmi3_folder() };
    let path = unpacked(version, model).join(format!("binaries/{folder}/{model}.{}", platform.extension()));
    assert!(path.is_file(), "{model} has no {folder} binary: MBFMU_TEST_PLATFORMS={} left {platform} out", selected());
    path
}

fn run(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("cannot run {what} ({SETUP}): {e}"));
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The C host compiled by `compiler` into the package directory.
fn host(compiler: &str, name: &str, extra: &[&str]) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/platforms/host.c");
    let out = packaged().join(name);
    run(Command::new(compiler).args(["-O2", "-o"]).arg(&out).arg(&source).args(extra), compiler);
    out
}

fn hex(x: f64) -> String {
    format!("{:016x}", x.to_bits())
}

/// One line of the host's job file for `model` with the library `library`.
fn job(version: u8, model: &str, library: &Path) -> String {
    let dir = unpacked(version, model);
    let xml = std::fs::read_to_string(dir.join("modelDescription.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let root = doc.root_element();
    let token = root.attribute(if version == 2 { "guid" } else { "instantiationToken" }).unwrap();
    let experiment = root.children().find(|n| n.has_tag_name("DefaultExperiment")).unwrap();
    let number = |name: &str, default: f64| experiment.attribute(name).map_or(default, |v| v.parse().unwrap());
    let (start, stop, step) = (number("startTime", 0.0), number("stopTime", 1.0), number("stepSize", 0.01));
    let stop = if stop - start > MAX_SPAN { start + (MAX_SPAN / step).round() * step } else { stop };
    // (name, value reference, causality, start, max) of the real variables.
    let variables = root.children().find(|n| n.has_tag_name("ModelVariables")).unwrap();
    let reals: Vec<Real> = variables
        .children()
        .filter(|n| n.is_element())
        .filter_map(|n| {
            let typed = if version == 2 { n.children().find(|c| c.has_tag_name("Real"))? } else { n };
            if version == 3 && !n.has_tag_name("Float64") {
                return None;
            }
            Some((
                n.attribute("name")?.to_string(),
                n.attribute("valueReference")?.parse().ok()?,
                n.attribute("causality").unwrap_or("local").to_string(),
                typed.attribute("start").and_then(|v| v.parse().ok()),
                typed.attribute("max").and_then(|v| v.parse().ok()),
            ))
        })
        .collect();
    // A physical parameter changed by 5 % (within its range), so that setting it matters: a
    // mass, load or stiffness where there is one (a changed crank speed, say, would contradict
    // the model's initial velocities).
    let candidates: Vec<_> = reals
        .iter()
        .filter(|(name, _, causality, start, _)| {
            causality == "parameter" && !name.starts_with("solver.") && start.is_some_and(|s| s != 0.0)
        })
        .collect();
    let preferred = ["mass", "gravity", "pressure", "stiffness", "EA", "torque"];
    let (_, vr, _, value, max) = candidates
        .iter()
        .find(|r| preferred.iter().any(|p| r.0.contains(p)))
        .or(candidates.first())
        .unwrap_or_else(|| panic!("{model}: no real parameter"));
    let value = value.unwrap() * 1.05;
    let value = if max.is_some_and(|m| value > m) { value / 1.05 / 1.05 } else { value };
    let outputs: Vec<String> = reals.iter().filter(|r| r.2 == "output").map(|r| r.1.to_string()).collect();
    assert!(!outputs.is_empty(), "{model}: no real outputs");
    let steps = ((stop - start) / step - 1e-9).ceil() as i64;
    let resources = if version == 2 {
        format!("file://{}/resources", dir.display())
    } else {
        format!("{}/resources/", dir.display())
    };
    format!(
        "{model} {version} {} {token} {resources} {} {} {} {} {vr} {} {} {}\n",
        library.display(),
        hex(start),
        hex(stop),
        hex(step),
        (steps / 40).max(1),
        hex(value),
        outputs.len(),
        outputs.join(" ")
    )
}

/// Every catalog model in both versions, with the libraries of `platform` (aarch64 Linux has
/// no FMI 2.0 folder; its FMI 3.0 library, which exports both APIs, serves the FMI 2.0 runs).
/// The FMI versions whose archives carry the platform's binary: FMI 2.0 names no folder for
/// aarch64 Linux, so its FMI 2.0 functions reach no user and are not run under emulation.
fn versions(platform: Platform) -> &'static [u8] {
    if platform.fmi2_folder().is_some() {
        &[2, 3]
    } else {
        &[3]
    }
}

fn jobs(platform: Platform) -> String {
    let mut text = String::new();
    for model in catalog() {
        for &version in versions(platform) {
            text += &job(version, model, &binary(version, model, platform));
        }
    }
    text
}

/// The host's output: per `model fmi<v>` its rows of bits, and whether the restored state
/// repeated the run.
fn parse(output: &str) -> Runs {
    let mut runs = BTreeMap::new();
    let mut current = String::new();
    for line in output.lines() {
        if let Some(name) = line.strip_prefix("model ") {
            current = name.to_string();
            runs.insert(current.clone(), (Vec::new(), false));
        } else if let Some(row) = line.strip_prefix("t ") {
            let values = row.split(' ').map(|h| f64::from_bits(u64::from_str_radix(h, 16).unwrap())).collect();
            runs.get_mut(&current).unwrap().0.push(values);
        } else if line.starts_with("state ") {
            runs.get_mut(&current).unwrap().1 = line.ends_with("identical");
        }
    }
    runs
}

fn native_runs() -> &'static Runs {
    static NATIVE: OnceLock<Runs> = OnceLock::new();
    NATIVE.get_or_init(|| {
        let host = host("gcc", "host-native", &["-ldl", "-lm"]);
        let jobs_file = packaged().join("jobs-native.txt");
        std::fs::write(&jobs_file, jobs(Platform::X86_64Linux)).unwrap();
        parse(&run(Command::new(host).arg(&jobs_file), "the native host"))
    })
}

/// The host's columns (time first, then the real outputs) where a quaternion output
/// `<x>.orientation.e0 .. e3` starts.
fn quaternion_columns(version: u8, model: &str) -> Vec<usize> {
    let xml = std::fs::read_to_string(unpacked(version, model).join("modelDescription.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let variables = doc.root_element().children().find(|n| n.has_tag_name("ModelVariables")).unwrap();
    let outputs: Vec<&str> = variables
        .children()
        .filter(|n| n.is_element() && n.attribute("causality") == Some("output"))
        .filter(|n| if version == 2 { n.children().any(|c| c.has_tag_name("Real")) } else { n.has_tag_name("Float64") })
        .filter_map(|n| n.attribute("name"))
        .collect();
    (0..outputs.len().saturating_sub(3))
        .filter(|&i| {
            outputs[i]
                .strip_suffix(".orientation.e0")
                .is_some_and(|x| (1..4).all(|c| outputs[i + c] == format!("{x}.orientation.e{c}")))
        })
        .map(|i| i + 1)
        .collect()
}

/// Compares a platform's runs with the native ones, printing the largest difference per run.
fn compare(platform: Platform, runs: &Runs) {
    let native = native_runs();
    assert_eq!(native.len(), catalog().len() * 2, "native runs");
    let mut failures = Vec::new();
    let mut report = Vec::new();
    let shipped = |name: &str| versions(platform).iter().any(|v| name.ends_with(&format!(" fmi{v}")));
    for (name, (rows, _)) in native.iter().filter(|(name, _)| shipped(name)) {
        let Some((theirs, restored)) = runs.get(name) else {
            failures.push(format!("{name}: did not run on {platform}"));
            continue;
        };
        if !restored {
            failures.push(format!("{name}: the restored state did not repeat the run on {platform}"));
        }
        if theirs.len() != rows.len() {
            failures.push(format!("{name}: {} rows on {platform}, {} natively", theirs.len(), rows.len()));
            continue;
        }
        // q and -q are one orientation: a quaternion output (e0 >= 0) near e0 = 0 may come out
        // with either sign where the runs differ by round-off; compare it up to sign.
        let (model, version) = name.split_once(" fmi").expect("<model> fmi<version>");
        let groups = quaternion_columns(version.parse().expect("a version"), model);
        let theirs: Vec<Vec<f64>> = rows
            .iter()
            .zip(theirs)
            .map(|(a, b)| {
                let mut b = b.clone();
                for &first in &groups {
                    if (first..first + 4).map(|k| a[k] * b[k]).sum::<f64>() < 0.0 {
                        b[first..first + 4].iter_mut().for_each(|x| *x = -*x);
                    }
                }
                b
            })
            .collect();
        let columns = rows[0].len();
        let mut worst: f64 = 0.0;
        for column in 0..columns {
            let scale = rows.iter().map(|r| r[column].abs()).fold(1.0, f64::max);
            for (a, b) in rows.iter().zip(&theirs) {
                let difference = if a[column] == b[column] { 0.0 } else { (a[column] - b[column]).abs() / scale };
                worst = worst.max(if difference.is_nan() { f64::INFINITY } else { difference });
            }
        }
        report.push(format!("{name}: {worst:.1e}"));
        let tolerance = tolerance_of(name.split(' ').next().expect("model name"));
        if worst > tolerance {
            failures.push(format!("{name}: outputs differ by {worst:.2e} (relative) on {platform}"));
        }
    }
    eprintln!("{platform}: largest relative difference from x86_64-linux per run:\n  {}", report.join("\n  "));
    assert!(failures.is_empty(), "{platform}:\n{}", failures.join("\n"));
}

#[test]
#[ignore = "external: the cross toolchains (scripts/setup-cross.sh; the full tier installs them) and builds of four targets"]
fn windows_binaries_under_wine_give_the_native_results() {
    let dir = packaged().join("wine");
    std::fs::create_dir_all(&dir).unwrap();
    let host = host("x86_64-w64-mingw32-gcc", "wine/host.exe", &[]);
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/platforms/bcryptprimitives.c");
    run(
        Command::new("x86_64-w64-mingw32-gcc")
            .args(["-shared", "-O2", "-o"])
            .arg(dir.join("bcryptprimitives.dll"))
            .arg(stub)
            .arg("-ladvapi32"),
        "x86_64-w64-mingw32-gcc",
    );
    let jobs_file = dir.join("jobs.txt");
    std::fs::write(&jobs_file, jobs(Platform::X86_64Windows)).unwrap();
    let prefix = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/cross/wineprefix");
    let output = run(
        Command::new("wine")
            .arg(&host)
            .arg(&jobs_file)
            .env("WINEPREFIX", prefix)
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
            .env_remove("DISPLAY"),
        "wine",
    );
    compare(Platform::X86_64Windows, &parse(&output));
}

#[test]
#[ignore = "external: the cross toolchains (scripts/setup-cross.sh; the full tier installs them) and builds of four targets"]
fn aarch64_binaries_under_qemu_give_the_native_results() {
    let host = host("aarch64-linux-gnu-gcc", "host-aarch64", &["-ldl", "-lm"]);
    // An emulated run is single-threaded and takes minutes: two emulators at once, each with
    // every other model's FMI 3.0 run (the only version whose archives carry this binary).
    let jobs = jobs(Platform::Aarch64Linux);
    let halves: Vec<String> =
        (0..2).map(|half| jobs.lines().skip(half).step_by(2).map(|line| format!("{line}\n")).collect()).collect();
    let runs: Runs = std::thread::scope(|scope| {
        let handles: Vec<_> = halves
            .iter()
            .enumerate()
            .map(|(k, half)| {
                let jobs_file = packaged().join(format!("jobs-aarch64-{k}.txt"));
                std::fs::write(&jobs_file, half).unwrap();
                let host = &host;
                scope.spawn(move || {
                    let mut qemu = Command::new("qemu-aarch64");
                    qemu.args(["-L", "/usr/aarch64-linux-gnu"]).arg(host).arg(&jobs_file);
                    parse(&run(&mut qemu, "qemu-aarch64"))
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(runs.len(), catalog().len(), "every model's FMI 3.0 run");
    compare(Platform::Aarch64Linux, &runs);
}

/// Exported names (without Mach-O's leading underscore) of a library.
fn exports(bytes: &[u8]) -> BTreeSet<String> {
    let file = object::File::parse(bytes).unwrap();
    let mut names: BTreeSet<String> = file
        .exports()
        .unwrap()
        .map(|e| e.unwrap())
        .filter_map(|e| e.name().into_name().map(|n| String::from_utf8_lossy(n).trim_start_matches('_').to_string()))
        .collect();
    if file.format() == object::BinaryFormat::Elf {
        names.extend(
            file.dynamic_symbols()
                .filter(|s| s.is_definition() && s.is_global())
                .filter_map(|s| s.name().ok().map(str::to_string)),
        );
    }
    names
}

#[test]
#[ignore = "external: the cross toolchains (scripts/setup-cross.sh; the full tier installs them) and builds of four targets"]
fn every_binary_exports_the_fmi_functions_only_and_links_the_system_only() {
    let model = catalog()[0];
    let native = exports(&std::fs::read(binary(3, model, Platform::X86_64Linux)).unwrap());
    assert!(native.len() > 100 && native.iter().all(|n| n.starts_with("fmi2") || n.starts_with("fmi3")), "{native:?}");
    for platform in Platform::ALL {
        let bytes = std::fs::read(binary(3, model, platform)).unwrap();
        // Exactly the FMI functions everywhere: the ELF version script and, after the link,
        // `package` itself (macOS, Windows) keep fmi-sys' `callback_log` and the rest out.
        let names = exports(&bytes);
        let extra: Vec<_> = names.difference(&native).take(10).collect();
        let missing: Vec<_> = native.difference(&names).collect();
        assert!(
            extra.is_empty() && missing.is_empty(),
            "{platform}: {} exports; extra (first 10): {extra:?}; missing: {missing:?}",
            names.len()
        );
        let file = object::File::parse(&*bytes).unwrap();
        let libraries: BTreeSet<String> =
            file.imports().unwrap().map(|i| String::from_utf8_lossy(i.unwrap().library()).to_lowercase()).collect();
        match platform {
            Platform::X86_64Windows => {
                let system = [
                    "kernel32.dll",
                    "ntdll.dll",
                    "userenv.dll",
                    "ws2_32.dll",
                    "msvcrt.dll",
                    "bcryptprimitives.dll",
                    "advapi32.dll",
                    "api-ms-win-core-synch-l1-2-0.dll",
                ];
                let foreign: Vec<_> = libraries.iter().filter(|l| !system.contains(&l.as_str())).collect();
                assert!(foreign.is_empty(), "{platform} imports DLLs outside Windows: {foreign:?}");
            }
            Platform::X86_64Darwin | Platform::Aarch64Darwin => {
                let dylibs = mach_o(&bytes).dylibs;
                assert!(dylibs.iter().all(|d| d.starts_with("/usr/lib/")), "{platform} links {dylibs:?}");
                // The symbol table agrees with the export trie: every other definition is
                // private (as `nm -gU` would list them).
                let globals: BTreeSet<String> = file
                    .symbols()
                    .filter(|s| s.is_definition() && s.is_global())
                    .filter_map(|s| s.name().ok().map(|n| n.trim_start_matches('_').to_string()))
                    .collect();
                let extra: Vec<_> = globals.difference(&native).take(10).collect();
                assert!(extra.is_empty() && globals.len() == native.len(), "{platform}: global symbols {extra:?}");
            }
            Platform::X86_64Linux | Platform::Aarch64Linux => {
                let needed =
                    run(Command::new("readelf").args(["-d", "-W", "-V"]).arg(binary(3, model, platform)), "readelf");
                let foreign: Vec<&str> = needed
                    .lines()
                    .filter(|l| l.contains("(NEEDED)"))
                    // glibc's own libraries; before glibc 2.34 (the aarch64 build's 2.17)
                    // threads and dlopen were libpthread and libdl.
                    .filter(|l| {
                        ["libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux", "libpthread.so.0", "libdl.so.2"]
                            .iter()
                            .any(|s| l.contains(s))
                            .not()
                    })
                    .collect();
                assert!(foreign.is_empty(), "{platform} needs {foreign:?}");
                if platform == Platform::Aarch64Linux {
                    let newest = needed
                        .split("GLIBC_2.")
                        .skip(1)
                        .filter_map(|s| s.split(|c: char| !c.is_ascii_digit()).next()?.parse::<u32>().ok())
                        .max();
                    assert!(newest.is_some_and(|v| v <= 17), "{platform} needs glibc 2.{newest:?}, not 2.17");
                }
            }
        }
    }
}

struct MachO {
    dylibs: Vec<String>,
    /// The minimum macOS as (major, minor).
    minimum: Option<(u32, u32)>,
    signature: Option<(u32, u32)>,
}

fn mach_o(bytes: &[u8]) -> MachO {
    let file = MachOFile64::<Endianness>::parse(bytes).unwrap();
    let endian = file.endian();
    let mut info = MachO { dylibs: Vec::new(), minimum: None, signature: None };
    let mut commands = file.macho_header().load_commands(endian, bytes, 0).unwrap();
    let version = |v: macho::Version| (u32::from(v.major()), u32::from(v.minor()));
    while let Some(command) = commands.next().unwrap() {
        match command.variant().unwrap() {
            LoadCommandVariant::Dylib(d) if command.cmd() == macho::LC_LOAD_DYLIB => {
                info.dylibs.push(String::from_utf8_lossy(command.string(endian, d.dylib.name).unwrap()).into_owned());
            }
            LoadCommandVariant::BuildVersion(b, _) => info.minimum = Some(version(b.minos.get(endian))),
            LoadCommandVariant::VersionMin(v) => info.minimum = Some(version(v.version.get(endian))),
            LoadCommandVariant::LinkeditData(l) if command.cmd() == macho::LC_CODE_SIGNATURE => {
                info.signature = Some((l.dataoff.get(endian), l.datasize.get(endian)));
            }
            _ => {}
        }
    }
    info
}

fn be32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Recomputes the page hashes of the code directory of an ad-hoc signature; returns how many
/// pages it covers.
fn verify_ad_hoc_signature(bytes: &[u8], offset: usize) -> usize {
    assert_eq!(be32(bytes, offset), 0xfade_0cc0, "an embedded signature (SuperBlob)");
    let count = be32(bytes, offset + 8) as usize;
    let directory = (0..count)
        .map(|i| offset + be32(bytes, offset + 12 + 8 * i + 4) as usize)
        .find(|&at| be32(bytes, at) == 0xfade_0c02)
        .expect("a code directory");
    let flags = be32(bytes, directory + 12);
    assert!(flags & 0x2 != 0, "ad-hoc signed (flags {flags:#x})");
    let hash_offset = directory + be32(bytes, directory + 16) as usize;
    let code_slots = be32(bytes, directory + 28) as usize;
    let code_limit = be32(bytes, directory + 32) as usize;
    let (hash_size, hash_type, page_log2) =
        (bytes[directory + 36] as usize, bytes[directory + 37], bytes[directory + 39]);
    assert_eq!((hash_size, hash_type), (32, 2), "SHA-256 page hashes");
    let page = 1usize << page_log2;
    for i in 0..code_slots {
        let data = &bytes[i * page..((i + 1) * page).min(code_limit)];
        let stored = &bytes[hash_offset + i * hash_size..hash_offset + (i + 1) * hash_size];
        assert_eq!(Sha256::digest(data).as_slice(), stored, "page {i} of the signed code");
    }
    code_slots
}

#[test]
#[ignore = "external: the cross toolchains (scripts/setup-cross.sh; the full tier installs them) and builds of four targets"]
fn macos_binaries_are_well_formed_and_signed() {
    for model in catalog() {
        for (platform, architecture, minimum) in [
            (Platform::X86_64Darwin, Architecture::X86_64, (10, 12)),
            (Platform::Aarch64Darwin, Architecture::Aarch64, (11, 0)),
        ] {
            let bytes = std::fs::read(binary(3, model, platform)).unwrap();
            let file = object::File::parse(&*bytes).unwrap();
            assert_eq!((file.format(), file.architecture()), (object::BinaryFormat::MachO, architecture), "{platform}");
            let info = mach_o(&bytes);
            assert_eq!(info.minimum, Some(minimum), "{platform}: minimum macOS");
            if platform == Platform::Aarch64Darwin {
                let (offset, _) = info.signature.expect("arm64 code must be signed");
                assert!(verify_ad_hoc_signature(&bytes, offset as usize) > 10);
            }
        }
        // FMI 2.0's darwin64: one universal binary holding both, byte for byte.
        let universal = std::fs::read(binary(2, model, Platform::X86_64Darwin)).unwrap();
        assert_eq!(be32(&universal, 0), 0xcafe_babe);
        assert_eq!(be32(&universal, 4), 2);
        for (k, platform) in [Platform::X86_64Darwin, Platform::Aarch64Darwin].into_iter().enumerate() {
            let (at, size) = (be32(&universal, 8 + 20 * k + 8) as usize, be32(&universal, 8 + 20 * k + 12) as usize);
            let thin = std::fs::read(binary(3, model, platform)).unwrap();
            assert!(universal[at..at + size] == thin[..], "{model}: the {platform} slice of darwin64");
        }
    }
}
