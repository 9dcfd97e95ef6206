//! The archives the packaging step writes (layout from
//! docs/fmi.md#what-importers-demand): one per model and FMI version, the library renamed to the
//! modelIdentifier in the version's platform folder, the generated modelDescription.xml, a
//! documentation page and the icon (FMI 2 `model.png`, FMI 3 `terminalsAndIcons/icon.png`); the
//! library links only the C runtime and carries no debug info.

use mbfmu_model::variables::FmiVersion;
use mbfmu_package::{icon, icon_path, locate_library, model_description, package_catalog};
use std::io::Read;
use std::process::Command;

fn entries(path: &std::path::Path) -> Vec<String> {
    let archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    archive.file_names().map(|n| n.unwrap().to_string()).collect()
}

fn read(path: &std::path::Path, name: &str) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut out = Vec::new();
    archive.by_name(name).unwrap().read_to_end(&mut out).unwrap();
    out
}

#[test]
fn every_model_is_packaged_for_both_versions_with_the_documented_layout() {
    let library = locate_library().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = package_catalog(&library, dir.path()).unwrap();
    assert_eq!(written.len(), 2 * mbfmu_model::catalog::CATALOG.len());
    let binary = std::fs::read(&library).unwrap();
    for entry in mbfmu_model::catalog::CATALOG {
        for (folder, version, platform) in
            [("fmi2", FmiVersion::V2, "linux64"), ("fmi3", FmiVersion::V3, "x86_64-linux")]
        {
            let fmu = dir.path().join(folder).join(format!("{}.fmu", entry.name));
            let mut names = entries(&fmu);
            names.sort();
            let so = format!("binaries/{platform}/{}.so", entry.name);
            let mut expected = vec![
                so.clone(),
                "documentation/index.html".into(),
                "modelDescription.xml".into(),
                icon_path(version).into(),
            ];
            expected.sort();
            assert_eq!(names, expected);
            assert_eq!(read(&fmu, "modelDescription.xml"), model_description(entry, version).as_bytes());
            assert!(read(&fmu, &so) == binary, "{}: the archive carries the library of this build", entry.name);
            let page = String::from_utf8(read(&fmu, "documentation/index.html")).unwrap();
            let model = mbfmu_model::Model::from_catalog(entry).unwrap();
            // The page is HTML: the source appears escaped (citations quote their titles).
            let source = model.description.source.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
            let source = source.replace('"', "&quot;");
            assert!(page.contains(&source), "{}: the page names its source", entry.name);
            for v in model.interface.variables.iter().filter(|v| v.name != "time") {
                assert!(page.contains(&v.name), "{}: the page lists {}", entry.name, v.name);
            }
            for m in &model.interface.methods {
                assert!(page.contains(m.item_name()), "{}: the page lists solver {}", entry.name, m.item_name());
            }
        }
    }
}

#[test]
fn every_archive_carries_the_icon_where_its_standard_looks_for_it() {
    let library = locate_library().unwrap();
    let dir = tempfile::tempdir().unwrap();
    package_catalog(&library, dir.path()).unwrap();
    for entry in mbfmu_model::catalog::CATALOG {
        let mut icons = Vec::new();
        for (folder, version) in [("fmi2", FmiVersion::V2), ("fmi3", FmiVersion::V3)] {
            let fmu = dir.path().join(folder).join(format!("{}.fmu", entry.name));
            let png = read(&fmu, icon_path(version));
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}: PNG signature", entry.name);
            let (width, height, rgba) = icon::decode_png(&png).expect("the icon decodes");
            assert_eq!((width, height), (icon::SIZE, icon::SIZE), "{}", entry.name);
            // Not blank: at least 1 % of the pixels carry the drawing.
            let ink = icon::ink_fraction(&rgba);
            assert!(ink > 0.01, "{} ({folder}): the icon is blank ({ink})", entry.name);
            icons.push(png);
        }
        assert_eq!(icons[0], icons[1], "{}: one icon for both versions", entry.name);
    }
}

#[test]
fn the_library_links_only_the_c_runtime_and_has_no_debug_info() {
    let library = locate_library().unwrap();
    let ldd = Command::new("ldd").arg(&library).output().expect("ldd is available");
    let text = String::from_utf8_lossy(&ldd.stdout);
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let allowed = ["linux-vdso.so", "libc.so", "libm.so", "libgcc_s.so", "ld-linux-x86-64.so"];
        assert!(allowed.iter().any(|a| line.contains(a)), "unexpected dependency: {line}");
    }
    // ELF section headers: no DWARF sections (cargo profile: strip = "debuginfo").
    let elf = std::fs::read(&library).unwrap();
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap()) as usize;
    assert_eq!(&elf[..4], b"\x7fELF");
    let (shoff, shentsize, shnum, shstrndx) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3c), u16_at(0x3e));
    let names_at = u64_at(shoff + shstrndx * shentsize + 0x18);
    let section_names: Vec<String> = (0..shnum)
        .map(|i| {
            let start = names_at + u32::from_le_bytes(elf[shoff + i * shentsize..][..4].try_into().unwrap()) as usize;
            let end = start + elf[start..].iter().position(|&b| b == 0).unwrap();
            String::from_utf8_lossy(&elf[start..end]).into_owned()
        })
        .collect();
    assert!(section_names.iter().any(|n| n == ".dynsym"), "section table parsed: {section_names:?}");
    let debug: Vec<&String> = section_names.iter().filter(|n| n.starts_with(".debug")).collect();
    assert!(debug.is_empty(), "debug sections in the FMU library: {debug:?}");
}
