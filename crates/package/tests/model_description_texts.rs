//! The texts of every modelDescription.xml (descriptions of the model, its variables and
//! enumeration items) name nothing internal to the project: the file travels alone in the FMU.

use crate::internal_names;

use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::FmiVersion;

#[test]
fn model_descriptions_name_nothing_internal() {
    let mut found = Vec::new();
    for entry in CATALOG {
        for version in [FmiVersion::V2, FmiVersion::V3] {
            let xml = mbfmu_package::model_description(entry, version);
            found.extend(internal_names::find(&format!("{} ({version:?})", entry.name), xml));
        }
    }
    assert!(found.is_empty(), "internal names in modelDescription.xml:\n{}", found.join("\n"));
}

#[test]
fn the_pattern_catches_the_old_keys_and_spares_plain_words() {
    let p = internal_names::pattern();
    // Joined from two parts, so that no file of the repository carries these forms as written.
    for (head, tail) in [
        ("se", "ed 004 Sect. 5"),
        ("(se", "ed)"),
        ("the se", "ed's angles"),
        ("se", "ed000"),
        ("benchmarks", ".md Sect. 2.3"),
        ("sha", "red/reference/x"),
        ("iss", "ue 5"),
        ("tests/", "statespace_pendulum.rs"),
    ] {
        let internal = format!("{head}{tail}");
        assert!(p.is_match(&internal), "{internal}");
    }
    for plain in ["seeded with 2022", "Jaiswal et al. 2021, Sect. 5", "e.g. m.d. 3"] {
        assert!(!p.is_match(plain), "{plain}");
    }
}
