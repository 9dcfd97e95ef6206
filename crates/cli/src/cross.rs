//! `package --platforms`: the FMU library compiled for other platforms on this machine, and
//! `--binaries`: libraries compiled elsewhere, checked before they go into the archives.
//!
//! Every target is built by the toolchain that builds the host library (rustup's, with each
//! target's prebuilt standard library added by `rustup target add`), one cargo invocation per
//! target, all in one target directory (`target/cross`) apart from the host build's, so the
//! host build is never touched and the crates that run on the host (build scripts, derive
//! macros, bindgen) are compiled once for all targets. Windows links with mingw-w64's gcc;
//! macOS and aarch64 Linux with zig through cargo-zigbuild (aarch64 against glibc 2.17, so
//! that older distributions load it). zig's Mach-O linker ignores rustc's list of exported
//! symbols, and rustc lists a dependency's `#[no_mangle]` function in the DLL's export
//! definitions, so the macOS and Windows libraries are rewritten after the link to export the
//! FMI functions only (crate::exports), into a copy next to cargo's output; on aarch64 Linux
//! the root build.rs's version script does it. scripts/setup-cross.sh installs all of it.

use crate::error::{Context, Error, Result};
use mbfmu_package::Platform;
use object::{Architecture, BinaryFormat, Object, ObjectSymbol};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const SETUP: &str = "run scripts/setup-cross.sh to install the cross toolchains";

/// The repository whose sources this executable was built from.
pub fn repository() -> Result<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    if !manifest.contains("name = \"mbfmu\"") {
        return Err(Error::msg(format!(
            "--platforms compiles the FMU library from this project's sources, which were at {} when \
             this command was built and are gone; build the libraries elsewhere and merge them with --binaries",
            root.display()
        )));
    }
    Ok(root.canonicalize().unwrap_or(root))
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

fn require(ok: bool, platform: Platform, what: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::msg(format!("cannot build the library for {platform}: {what} is missing; {SETUP}")))
    }
}

/// libclang's own headers, which bindgen does not find for the mingw target by itself.
fn clang_resource_dir() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib")
        .ok()?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("llvm-"))
        .filter_map(|e| std::fs::read_dir(e.path().join("lib/clang")).ok())
        .flat_map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()))
        .filter(|p| p.join("include/stddef.h").is_file())
        .collect();
    dirs.sort();
    dirs.pop()
}

/// The packages that the workspace's Cargo.toml builds at `opt-level = 0` (faer's single
/// precision and complex matrix products, which the engine never calls).
const UNOPTIMIZED_ON_HOST: &[&str] =
    &["nano-gemm-c32", "nano-gemm-c64", "nano-gemm-f32", "gemm-c32", "gemm-c64", "gemm-f32", "gemm-f16"];

/// The cargo that builds the host library: the one running this program's build or test
/// (`CARGO`), else the one on `PATH`.
fn cargo_program() -> PathBuf {
    std::env::var_os("CARGO").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("cargo"))
}

/// Whether the toolchain has the standard library of `triple` (rustup's `rust-std` component).
fn has_std(triple: &str) -> bool {
    let rustc = std::env::var_os("RUSTC").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("rustc"));
    Command::new(rustc)
        .args(["--print", "target-libdir", "--target", triple])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .is_some_and(|mut d| d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libstd-"))))
}

/// A build of the library for `platform`, its toolchain checked.
pub struct Build {
    platform: Platform,
    command: Command,
    /// cargo's output.
    library: PathBuf,
    /// The library as it goes into the archives: cargo's output, or for macOS and Windows its
    /// copy with the exports limited to the FMI functions.
    output: PathBuf,
}

/// Checks the toolchain of `platform` and prepares its build (all are checked before the
/// first, long, build starts).
pub fn prepare(repo: &Path, platform: Platform) -> Result<Build> {
    let triple = platform.rust_target();
    let venv = repo.join(".venv/bin");
    require(has_std(triple), platform, &format!("the standard library for {triple} (rustup target add {triple})"))?;

    let target_dir = repo.join("target/cross");
    let mut cargo = Command::new(cargo_program());
    cargo.current_dir(repo);
    // The repository's .venv holds zig and cargo-zigbuild.
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![venv.clone()];
    dirs.extend(std::env::split_paths(&path));
    cargo.env("PATH", std::env::join_paths(dirs).context("PATH")?);
    match platform {
        Platform::X86_64Linux => return Err(Error::msg("the x86_64-linux library is the host's, built by cargo")),
        Platform::X86_64Windows => {
            require(on_path("x86_64-w64-mingw32-gcc"), platform, "x86_64-w64-mingw32-gcc (gcc-mingw-w64-x86-64)")?;
            let resources = clang_resource_dir();
            require(resources.is_some(), platform, "libclang (libclang-dev)")?;
            cargo.arg("build").env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER", "x86_64-w64-mingw32-gcc").env(
                "BINDGEN_EXTRA_CLANG_ARGS_x86_64_pc_windows_gnu",
                format!("-resource-dir={}", resources.unwrap_or_default().display()),
            );
            cargo.args(["--target", triple]);
            // Rust's windows-gnu code has no per-function sections, so the linker cannot drop
            // the matrix products that are never called, and unoptimized they make the DLL
            // 18.6 MB instead of 11.8: optimized for this target as for any other.
            for package in UNOPTIMIZED_ON_HOST {
                cargo.arg("--config").arg(format!("profile.release.package.{package}.opt-level=3"));
            }
        }
        Platform::Aarch64Linux | Platform::X86_64Darwin | Platform::Aarch64Darwin => {
            require(venv.join("cargo-zigbuild").is_file(), platform, "cargo-zigbuild and ziglang in .venv")?;
            cargo = retarget(cargo, venv.join("cargo-zigbuild"));
            // zig reports its include directories relative to the working directory when they
            // lie below it, and cargo-zigbuild hands them to bindgen (fmi-sys), whose build
            // script runs elsewhere: started in an empty directory of its own, which holds
            // neither zig (in the repository's .venv) nor its cache, zig gives them whole (the
            // system's temporary directory would not do for a repository inside it).
            let empty = target_dir.join("zig-working-directory");
            std::fs::create_dir_all(&empty).context(format!("cannot create {}", empty.display()))?;
            cargo.arg("zigbuild").arg("--manifest-path").arg(repo.join("Cargo.toml")).current_dir(empty);
            match platform {
                Platform::Aarch64Linux => {
                    cargo.args(["--target", &format!("{triple}.2.17")]);
                }
                _ => {
                    // The oldest macOS of each architecture that Rust supports; zig would
                    // otherwise stamp its own newest.
                    let minimum = if platform == Platform::X86_64Darwin { "10.12" } else { "11.0" };
                    cargo.env("MACOSX_DEPLOYMENT_TARGET", minimum).args(["--target", triple]);
                }
            }
        }
    }
    // Apple's ad-hoc signature is made by the linker; stripping the symbol table afterwards
    // would invalidate it, so the macOS libraries keep the profile's debuginfo-only strip.
    if !matches!(platform, Platform::X86_64Darwin | Platform::Aarch64Darwin) {
        cargo.env("CARGO_PROFILE_RELEASE_STRIP", "symbols");
    }
    cargo.args(["--release", "--lib", "-p", "mbfmu", "--target-dir"]).arg(&target_dir);
    // Settings of the cargo that may have started this program do not apply to these builds.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "LD_LIBRARY_PATH",
    ] {
        cargo.env_remove(var);
    }
    let library = target_dir.join(triple).join("release").join(platform.cargo_file_name());
    let output = match platform {
        Platform::X86_64Linux | Platform::Aarch64Linux => library.clone(),
        _ => target_dir.join(triple).join(platform.cargo_file_name()),
    };
    Ok(Build { platform, command: cargo, library, output })
}

/// The names a library of this project exports: the FMI 2.0 and 3.0 functions.
fn is_fmi_function(name: &[u8]) -> bool {
    name.starts_with(b"fmi2") || name.starts_with(b"fmi3")
}

/// The same in Mach-O's spelling, with the leading underscore of C names.
fn is_fmi_function_mach_o(name: &[u8]) -> bool {
    name.strip_prefix(b"_").is_some_and(is_fmi_function)
}

impl Build {
    /// Compiles the library (incrementally) and returns its path.
    pub fn run(mut self) -> Result<PathBuf> {
        let platform = self.platform;
        let start = Instant::now();
        println!("building the library for {platform} in {}", self.library.display());
        let status = self.command.status().context(format!("cannot run {:?}", self.command.get_program()))?;
        if !status.success() {
            return Err(Error::msg(format!("building the library for {platform} failed (cargo's messages above)")));
        }
        println!("built the library for {platform} in {:.0} s", start.elapsed().as_secs_f64());
        if self.output != self.library {
            self.limit_exports()?;
        }
        Ok(self.output)
    }

    /// The macOS or Windows library with its exports limited to the FMI functions (a macOS one
    /// re-signed) into `self.output`; cargo's own output stays as the linker wrote it.
    fn limit_exports(&self) -> Result<()> {
        let platform = self.platform;
        let mut bytes = std::fs::read(&self.library).context(format!("cannot read {}", self.library.display()))?;
        let failed = |e: String| Error::msg(format!("cannot limit the exports of {}: {e}", self.library.display()));
        let windows = platform == Platform::X86_64Windows;
        let keep: fn(&[u8]) -> bool = if windows { is_fmi_function } else { is_fmi_function_mach_o };
        let (kept, note) = if windows {
            let (kept, removed) = crate::exports::limit_pe_exports(&mut bytes, &keep).map_err(failed)?;
            (kept, format!("{removed} others removed"))
        } else {
            let limited = crate::exports::limit_mach_o_exports(&mut bytes, &keep).map_err(failed)?;
            let signed = match limited.pages_signed {
                0 => String::new(),
                pages => format!(", ad-hoc signature renewed over {pages} pages"),
            };
            (limited.kept, format!("{} others hidden{signed}", limited.removed))
        };
        // Read back by another reader: every export is an FMI function, and all of them are there.
        let file = object::File::parse(&*bytes).map_err(|e| failed(e.to_string()))?;
        let names = file
            .exports()
            .map_err(|e| failed(e.to_string()))?
            .map(|e| e.map(|e| e.name().into_name().map(<[u8]>::to_vec)))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| failed(e.to_string()))?;
        if names.len() != kept || !names.iter().all(|n| n.as_deref().is_some_and(keep)) {
            return Err(failed(format!("{} exports read back, {kept} expected", names.len())));
        }
        std::fs::write(&self.output, &bytes).context(format!("cannot write {}", self.output.display()))?;
        println!("{platform}: exports limited to the {kept} FMI functions ({note})");
        Ok(())
    }
}

/// The same command settings with another program.
fn retarget(old: Command, program: PathBuf) -> Command {
    let mut new = Command::new(program);
    for (key, value) in old.get_envs() {
        match value {
            Some(v) => new.env(key, v),
            None => new.env_remove(key),
        };
    }
    new
}

/// Checks that `bytes` is a library of `platform` that exports the FMI functions.
pub fn check_library(bytes: &[u8], platform: Platform) -> std::result::Result<(), String> {
    let file = object::File::parse(bytes).map_err(|e| format!("not a shared library ({e})"))?;
    let (format, arch) = match platform {
        Platform::X86_64Linux => (BinaryFormat::Elf, Architecture::X86_64),
        Platform::Aarch64Linux => (BinaryFormat::Elf, Architecture::Aarch64),
        Platform::X86_64Windows => (BinaryFormat::Pe, Architecture::X86_64),
        Platform::X86_64Darwin => (BinaryFormat::MachO, Architecture::X86_64),
        Platform::Aarch64Darwin => (BinaryFormat::MachO, Architecture::Aarch64),
    };
    let kind = |format: BinaryFormat, arch: Architecture| {
        let format = match format {
            BinaryFormat::Elf => "ELF".to_string(),
            BinaryFormat::Pe => "PE".to_string(),
            BinaryFormat::MachO => "Mach-O".to_string(),
            other => format!("{other:?}"),
        };
        let arch = match arch {
            Architecture::X86_64 => "x86_64".to_string(),
            Architecture::Aarch64 => "aarch64".to_string(),
            other => format!("{other:?}"),
        };
        format!("{format} {arch}")
    };
    if file.format() != format || file.architecture() != arch {
        return Err(format!(
            "is a {} file, not the {} library that {platform} needs",
            kind(file.format(), file.architecture()),
            kind(format, arch)
        ));
    }
    let exports: Vec<String> = file
        .exports()
        .map_err(|e| format!("cannot read its exports ({e})"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.name().into_name().map(|n| String::from_utf8_lossy(n).trim_start_matches('_').to_string()))
        .chain(file.dynamic_symbols().filter(|s| s.is_definition()).filter_map(|s| s.name().ok().map(str::to_string)))
        .collect();
    for symbol in ["fmi2DoStep", "fmi3DoStep"] {
        if !exports.iter().any(|e| e == symbol) {
            return Err(format!("does not export {symbol}: it is not a build of the FMU library"));
        }
    }
    Ok(())
}

/// `--binaries DIR`: `DIR/<platform>/` holds the library of that platform, under cargo's
/// name (`libmbfmu.so`, `mbfmu.dll`, `libmbfmu.dylib`).
pub fn read_binaries(dir: &Path) -> Result<Vec<(Platform, Vec<u8>)>> {
    let entries = std::fs::read_dir(dir).context(format!("--binaries {}", dir.display()))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.context(format!("--binaries {}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.path().is_dir() {
            continue;
        }
        let platform =
            Platform::from_name(&name).map_err(|e| Error::msg(format!("--binaries {}: {e}", dir.display())))?;
        let file = entry.path().join(platform.cargo_file_name());
        let bytes = std::fs::read(&file).context(format!(
            "--binaries: cannot read the {platform} library {} (each platform's folder holds the library under cargo's name)",
            file.display()
        ))?;
        check_library(&bytes, platform).map_err(|e| Error::msg(format!("--binaries: {}: {e}", file.display())))?;
        found.push((platform, bytes));
    }
    if found.is_empty() {
        return Err(Error::msg(format!(
            "--binaries {}: no platform folder in it; it holds <platform>/<library>, with platforms {}",
            dir.display(),
            Platform::names().join(", ")
        )));
    }
    found.sort_by_key(|(p, _)| *p);
    Ok(found)
}

#[cfg(test)]
mod tests {
    /// The list above is the one in the workspace's Cargo.toml.
    #[test]
    fn the_unoptimized_packages_are_those_of_the_manifest() {
        let manifest = include_str!("../../../Cargo.toml");
        let mut listed = Vec::new();
        let mut lines = manifest.lines().peekable();
        while let Some(line) = lines.next() {
            if let Some(package) = line.strip_prefix("[profile.release.package.").and_then(|l| l.strip_suffix(']')) {
                if lines.peek().is_some_and(|next| next.replace(' ', "") == "opt-level=0") {
                    listed.push(package);
                }
            }
        }
        let mut expected = super::UNOPTIMIZED_ON_HOST.to_vec();
        expected.sort();
        listed.sort();
        assert_eq!(listed, expected);
    }
}
