//! The platforms an archive carries a binary for, and where each standard puts it: FMI 2.0
//! Sect. 2.3 (`win64`, `linux64`, `darwin64`), FMI 3.0 Sect. 2.5.1.4 (`<arch>-<os>` tuples).

use std::fmt;
use std::io;
use std::path::Path;

/// A platform of the FMU library.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Platform {
    X86_64Linux,
    Aarch64Linux,
    X86_64Windows,
    X86_64Darwin,
    Aarch64Darwin,
}

impl Platform {
    pub const ALL: [Platform; 5] = [
        Platform::X86_64Linux,
        Platform::X86_64Windows,
        Platform::Aarch64Linux,
        Platform::X86_64Darwin,
        Platform::Aarch64Darwin,
    ];

    /// The FMI 3.0 platform tuple, which is also the name `--platforms` takes.
    pub fn name(self) -> &'static str {
        match self {
            Platform::X86_64Linux => "x86_64-linux",
            Platform::Aarch64Linux => "aarch64-linux",
            Platform::X86_64Windows => "x86_64-windows",
            Platform::X86_64Darwin => "x86_64-darwin",
            Platform::Aarch64Darwin => "aarch64-darwin",
        }
    }

    /// The Rust target the library is compiled for.
    pub fn rust_target(self) -> &'static str {
        match self {
            Platform::X86_64Linux => "x86_64-unknown-linux-gnu",
            Platform::Aarch64Linux => "aarch64-unknown-linux-gnu",
            Platform::X86_64Windows => "x86_64-pc-windows-gnu",
            Platform::X86_64Darwin => "x86_64-apple-darwin",
            Platform::Aarch64Darwin => "aarch64-apple-darwin",
        }
    }

    /// Extension of the shared library (`<modelIdentifier>.<ext>` in the archive).
    pub fn extension(self) -> &'static str {
        match self {
            Platform::X86_64Linux | Platform::Aarch64Linux => "so",
            Platform::X86_64Windows => "dll",
            Platform::X86_64Darwin | Platform::Aarch64Darwin => "dylib",
        }
    }

    /// File name cargo gives the cdylib on this platform.
    pub fn cargo_file_name(self) -> &'static str {
        match self {
            Platform::X86_64Linux | Platform::Aarch64Linux => "libmbfmu.so",
            Platform::X86_64Windows => "mbfmu.dll",
            Platform::X86_64Darwin | Platform::Aarch64Darwin => "libmbfmu.dylib",
        }
    }

    /// The FMI 3.0 folder under `binaries/`.
    pub fn fmi3_folder(self) -> &'static str {
        self.name()
    }

    /// The FMI 2.0 folder under `binaries/`. FMI 2.0 names no ARM platform: `darwin64` holds a
    /// universal binary of both macOS architectures, and aarch64 Linux has no folder.
    pub fn fmi2_folder(self) -> Option<&'static str> {
        match self {
            Platform::X86_64Linux => Some("linux64"),
            Platform::X86_64Windows => Some("win64"),
            Platform::X86_64Darwin | Platform::Aarch64Darwin => Some("darwin64"),
            Platform::Aarch64Linux => None,
        }
    }

    /// The platform this program runs on, if the library supports it.
    pub fn host() -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| {
            p.rust_target().starts_with(std::env::consts::ARCH)
                && match std::env::consts::OS {
                    "linux" => p.name().ends_with("linux"),
                    "windows" => p.name().ends_with("windows"),
                    "macos" => p.name().ends_with("darwin"),
                    _ => false,
                }
        })
    }

    /// A platform by its name; the error names the valid ones.
    pub fn from_name(name: &str) -> Result<Platform, String> {
        Platform::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            format!("unknown platform '{name}'; the platforms are: all, {}", Platform::names().join(", "))
        })
    }

    /// A comma-separated list, or `all`; duplicates are dropped.
    pub fn parse_list(list: &str) -> Result<Vec<Platform>, String> {
        if list.trim() == "all" {
            return Ok(Platform::ALL.to_vec());
        }
        let mut platforms = Vec::new();
        for name in list.split(',').map(str::trim) {
            if name.is_empty() {
                return Err(format!(
                    "empty platform name in '{list}'; the platforms are: all, {}",
                    Platform::names().join(", ")
                ));
            }
            let platform = Platform::from_name(name)?;
            if !platforms.contains(&platform) {
                platforms.push(platform);
            }
        }
        Ok(platforms)
    }

    pub fn names() -> Vec<&'static str> {
        Platform::ALL.iter().map(|p| p.name()).collect()
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The libraries an archive carries, one per platform.
#[derive(Clone, Debug, Default)]
pub struct Binaries {
    libraries: Vec<(Platform, Vec<u8>)>,
}

impl Binaries {
    /// The library of the host alone (what `package` writes by default). On a host the library
    /// does not support, the library goes where it always went: x86_64 Linux.
    pub fn host(library: &Path) -> io::Result<Binaries> {
        let mut binaries = Binaries::default();
        binaries.insert(Platform::host().unwrap_or(Platform::X86_64Linux), std::fs::read(library)?);
        Ok(binaries)
    }

    /// Adds (or replaces) the library of `platform`.
    pub fn insert(&mut self, platform: Platform, library: Vec<u8>) {
        self.libraries.retain(|(p, _)| *p != platform);
        self.libraries.push((platform, library));
        self.libraries.sort_by_key(|(p, _)| *p);
    }

    pub fn get(&self, platform: Platform) -> Option<&[u8]> {
        self.libraries.iter().find(|(p, _)| *p == platform).map(|(_, b)| b.as_slice())
    }

    pub fn platforms(&self) -> Vec<Platform> {
        self.libraries.iter().map(|(p, _)| *p).collect()
    }

    /// The archive entries `(path under binaries/, bytes)` of an FMI 2.0 (`fmi3 == false`) or
    /// FMI 3.0 archive for the model identifier `name`.
    pub fn entries(&self, fmi3: bool, name: &str) -> io::Result<Vec<(String, Vec<u8>)>> {
        let mut entries = Vec::new();
        for (platform, bytes) in &self.libraries {
            let file = format!("{name}.{}", platform.extension());
            if fmi3 {
                entries.push((format!("binaries/{}/{file}", platform.fmi3_folder()), bytes.clone()));
                continue;
            }
            match platform {
                // Both macOS architectures in one universal binary; written once, at x86_64.
                Platform::Aarch64Darwin if self.get(Platform::X86_64Darwin).is_some() => {}
                Platform::X86_64Darwin => {
                    let slices: Vec<&[u8]> =
                        [Platform::X86_64Darwin, Platform::Aarch64Darwin].iter().filter_map(|p| self.get(*p)).collect();
                    let universal = if slices.len() > 1 { universal_binary(&slices)? } else { bytes.clone() };
                    entries.push((format!("binaries/darwin64/{file}"), universal));
                }
                _ => {
                    if let Some(folder) = platform.fmi2_folder() {
                        entries.push((format!("binaries/{folder}/{file}"), bytes.clone()));
                    }
                }
            }
        }
        Ok(entries)
    }
}

/// A Mach-O universal ("fat") binary of thin 64-bit slices: a big-endian header, one record
/// (CPU type, subtype, offset, size, alignment) per slice, each slice at a 16 KiB boundary.
pub fn universal_binary(slices: &[&[u8]]) -> io::Result<Vec<u8>> {
    const ALIGN_LOG2: u32 = 14;
    let align = 1usize << ALIGN_LOG2;
    let mut out = Vec::new();
    out.extend_from_slice(&0xcafe_babe_u32.to_be_bytes());
    out.extend_from_slice(&(slices.len() as u32).to_be_bytes());
    let mut offset = align;
    for slice in slices {
        if slice.len() < 12 || slice[..4] != 0xfeed_facf_u32.to_le_bytes() {
            return Err(io::Error::other("a macOS library is not a thin 64-bit Mach-O file"));
        }
        out.extend_from_slice(&u32::from_le_bytes(slice[4..8].try_into().unwrap()).to_be_bytes());
        out.extend_from_slice(&u32::from_le_bytes(slice[8..12].try_into().unwrap()).to_be_bytes());
        out.extend_from_slice(&(offset as u32).to_be_bytes());
        out.extend_from_slice(&(slice.len() as u32).to_be_bytes());
        out.extend_from_slice(&ALIGN_LOG2.to_be_bytes());
        offset = (offset + slice.len()).div_ceil(align) * align;
    }
    for slice in slices {
        out.resize(out.len().div_ceil(align) * align, 0);
        out.extend_from_slice(slice);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_list_the_choices() {
        for p in Platform::ALL {
            assert_eq!(Platform::from_name(p.name()), Ok(p));
        }
        let err = Platform::parse_list("x86_64-windows,arm64-mac").unwrap_err();
        assert!(err.contains("'arm64-mac'") && err.contains("aarch64-darwin") && err.contains("all"), "{err}");
        assert_eq!(Platform::parse_list("all").unwrap().len(), 5);
        assert_eq!(Platform::parse_list("aarch64-linux, aarch64-linux").unwrap(), vec![Platform::Aarch64Linux]);
        assert!(Platform::parse_list("x86_64-linux,").is_err());
    }

    #[test]
    fn folders_follow_each_standard() {
        let mut b = Binaries::default();
        for p in Platform::ALL {
            let mut mach = vec![0u8; 64];
            mach[..4].copy_from_slice(&0xfeed_facf_u32.to_le_bytes());
            b.insert(p, if p.extension() == "dylib" { mach } else { vec![1, 2, 3] });
        }
        let names = |fmi3| b.entries(fmi3, "M").unwrap().into_iter().map(|(n, _)| n).collect::<Vec<_>>();
        assert_eq!(names(false), ["binaries/linux64/M.so", "binaries/win64/M.dll", "binaries/darwin64/M.dylib"]);
        assert_eq!(
            names(true),
            [
                "binaries/x86_64-linux/M.so",
                "binaries/aarch64-linux/M.so",
                "binaries/x86_64-windows/M.dll",
                "binaries/x86_64-darwin/M.dylib",
                "binaries/aarch64-darwin/M.dylib"
            ]
        );
        let fat = &b.entries(false, "M").unwrap()[2].1;
        assert_eq!(fat[..8], [0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]);
        assert_eq!(fat.len(), (1 << 14) * 2 + 64);
    }
}
