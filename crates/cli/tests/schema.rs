//! `mbfmu schema` prints the JSON Schema of descriptions, and a wrong description given to
//! `package --model` is refused with the file, the JSON path and the valid choices.

use std::process::{Command, Output};

fn mbfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu")).args(args).output().expect("the mbfmu binary runs")
}

#[test]
fn schema_goes_to_stdout_or_a_file() {
    let out = mbfmu(&["schema"]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), mbfmu_model::format::json_schema_text());

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.schema.json");
    let out = mbfmu(&["schema", "--output", file.to_str().unwrap()]);
    assert!(out.status.success() && out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), mbfmu_model::format::json_schema_text());

    let out = mbfmu(&["schema", "--output", dir.path().join("no/such/dir/x.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
}

#[test]
fn a_misspelt_word_names_file_path_and_choices() {
    let dir = tempfile::tempdir().unwrap();
    let json = include_str!("../../../docs/examples/pendulum.json").replacen("\"revolute\"", "\"revolut\"", 1);
    let file = dir.path().join("Pendulum.json");
    std::fs::write(&file, json).unwrap();
    let out =
        mbfmu(&["package", "--model", file.to_str().unwrap(), "--out", dir.path().join("fmus").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    for part in [
        file.to_str().unwrap(),
        "joints[0].type: unknown joint type 'revolut'; did you mean 'revolute'? Valid: revolute, spherical",
        "(line ",
    ] {
        assert!(stderr.contains(part), "{stderr:?} should mention {part:?}");
    }
    assert!(!dir.path().join("fmus").exists(), "nothing is written");
}
