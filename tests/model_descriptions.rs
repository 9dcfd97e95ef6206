//! The generated modelDescription.xml files are checked in under modelDescription/ so that a
//! change of a model's interface shows in review (docs/architecture.md#generated-model-descriptions). This test
//! fails when they are stale; `cargo run --release -- package` or
//! `MBFMU_REGENERATE=1 cargo test --release --test suite model_descriptions::` refreshes them.

use mbfmu_model::variables::FmiVersion;
use mbfmu_package::{checked_in_path, model_description, write_model_descriptions};
use std::path::Path;

#[test]
fn checked_in_model_descriptions_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("modelDescription");
    if std::env::var_os("MBFMU_REGENERATE").is_some() {
        write_model_descriptions(&dir).unwrap();
    }
    let mut stale = Vec::new();
    for entry in mbfmu_model::catalog::CATALOG {
        for version in [FmiVersion::V2, FmiVersion::V3] {
            let path = checked_in_path(&dir, entry, version);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(model_description(entry, version)) {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(stale.is_empty(), "stale model descriptions (run `cargo run --release -- package`): {stale:?}");
    // No orphans: every checked-in file belongs to a catalog model.
    for folder in ["fmi2", "fmi3"] {
        for file in std::fs::read_dir(dir.join(folder)).unwrap() {
            let name = file.unwrap().file_name().to_string_lossy().trim_end_matches(".xml").to_string();
            assert!(
                mbfmu_model::catalog::find(&name).is_some(),
                "modelDescription/{folder}/{name}.xml has no catalog model"
            );
        }
    }
}

#[test]
fn tokens_and_identifiers_are_consistent() {
    let mut tokens = std::collections::HashSet::new();
    for entry in mbfmu_model::catalog::CATALOG {
        assert!(tokens.insert(entry.token), "token of {} is not unique", entry.name);
        let model = mbfmu_model::Model::from_catalog(entry).unwrap();
        assert_eq!(model.token, entry.token);
        for version in [FmiVersion::V2, FmiVersion::V3] {
            let xml = model_description(entry, version);
            assert!(xml.contains(&format!("modelIdentifier=\"{}\"", entry.name)));
            assert!(xml.contains(entry.token), "{} XML carries its token", entry.name);
            assert!(!xml.contains("<!--"), "no XML comments (OMSimulator iterates all children)");
        }
    }
}
