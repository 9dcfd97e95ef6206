//! Systems of FMUs (SSP) that `mbfmu simulate` refuses before the first step, each error
//! naming the file, line and element; a declared loop of direct feed-through; a component
//! that fails during the run, reported with its status and message.

use crate::ssp_common;

use ssp_common::*;
use std::path::Path;

#[test]
fn a_failing_fmu_is_reported_with_its_status_and_message_and_the_results_so_far() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("diverged.csv");
    // 5 ms steps: the explicit coupling diverges once the valve closes (t = 2.5 s).
    let err = fails(&["simulate", s(&ssp(2)), "--step", "5e-3", "--csv", s(&csv), "-q"]);
    println!("{err}");
    assert!(err.contains("component 'mechanism' (HydraulicFourBarMechanism): the FMU returned Discard in the communication step from t = 3.09 to 3.095"), "{err}");
    assert!(err.contains("what mechanism logged:") && err.contains("Newton iteration did not converge"), "{err}");
    let (_, rows) = read_csv(&csv);
    assert_eq!(rows.last().unwrap()[0], 3.09, "the CSV ends at the last completed communication point");
    assert_eq!(rows.len(), 619);
}

/// One bad system: the SSD edited, then run; the error must contain every fragment, and no
/// CSV may be written (refused before the first step).
fn refused(dir: &Path, edits: &[(&str, &str)], fragments: &[&str]) {
    let ssd = dir.join("SystemStructure.ssd");
    let original = std::fs::read_to_string(&ssd).unwrap();
    for (from, to) in edits {
        edit(&ssd, from, to);
    }
    let csv = dir.join("never.csv");
    let err = fails(&["simulate", s(dir), "--csv", s(&csv), "-q"]);
    for f in fragments {
        assert!(err.contains(f), "expected {f:?} in:\n{err}");
    }
    assert!(!csv.exists(), "refused before the first step");
    std::fs::write(&ssd, original).unwrap();
}

#[test]
fn bad_systems_are_refused_before_the_first_step_naming_the_element() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("never.csv");
    let missing = tmp.path().join("missing.ssp");
    assert!(fails(&["simulate", s(&missing)]).contains("missing.ssp: no such file"));
    let not_zip = tmp.path().join("text.ssp");
    std::fs::write(&not_zip, "not a zip").unwrap();
    assert!(fails(&["simulate", s(&not_zip)]).contains("is not an SSP archive (not a zip file"));
    let no_ssd = tmp.path().join("empty.ssp");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&no_ssd).unwrap());
    zip.start_file("resources/readme.txt", zip::write::SimpleFileOptions::default()).unwrap();
    zip.finish().unwrap();
    assert!(fails(&["simulate", s(&no_ssd)]).contains("it has no SystemStructure.ssd at its root"));

    let dir = unpacked(2);
    let d = dir.path();
    refused(d, &[("</ssd:SystemStructureDescription>", "")], &["SystemStructure.ssd is not well-formed XML"]);
    refused(d, &[(" version=\"1.0\" name=", " version=\"3.0\" name=")], &["SSD version 3.0 is not supported"]);
    // A component whose FMU is missing from the archive.
    refused(
        d,
        &[("source=\"resources/HydraulicFourBarDrive.fmu\"", "source=\"resources/Drive.fmu\"")],
        &["component 'drive' (line 33)", "its FMU resources/Drive.fmu is not in the system"],
    );
    // Connections naming an unknown component or connector.
    refused(
        d,
        &[(
            "endElement=\"drive\" endConnector=\"cylinder_length\"",
            "endElement=\"driv\" endConnector=\"cylinder_length\"",
        )],
        &[
            "connection mechanism.cylinder.length -> driv.cylinder_length (line 63)",
            "no component 'driv'",
            "components: mechanism, drive",
        ],
    );
    refused(
        d,
        &[("endConnector=\"cylinder_length\"", "endConnector=\"cylinder_len\"")],
        &["(line 63)", "component 'drive' has no connector 'cylinder_len'"],
    );
    // A connector that is no variable of the FMU, or of the wrong kind, type or unit.
    refused(
        d,
        &[("<ssd:Connector name=\"cylinder_velocity\"", "<ssd:Connector name=\"cylinder_speed\"")],
        &[
            "component 'drive' (line 33)",
            "connector 'cylinder_speed' (line 38)",
            "HydraulicFourBarDrive has no variable of that name",
        ],
    );
    refused(
        d,
        &[(
            "<ssd:Connector name=\"cylinder_velocity\" kind=\"input\">",
            "<ssd:Connector name=\"cylinder_velocity\" kind=\"output\">",
        )],
        &["connector 'cylinder_velocity' (line 38): kind=\"output\" but the FMU's variable is an input"],
    );
    refused(
        d,
        &[("<ssc:Real unit=\"m/s\"/>", "<ssc:Boolean/>")],
        &[
            "component 'mechanism' (line 5)",
            "connector 'cylinder.rate' (line 22): declared Boolean but the FMU's variable is Float64 (Real)",
        ],
    );
    refused(
        d,
        &[("<ssc:Real unit=\"m/s\"/>", "<ssc:Real unit=\"km/h\"/>")],
        &["connector 'cylinder.rate' (line 22): declared in unit km/h but the FMU's variable is in m/s"],
    );
    // Incompatible connections: Integer to Real, different units, an input fed twice,
    // an output into an output.
    refused(
        d,
        &[
            (
                "<ssd:Connector name=\"energy_balance\" kind=\"output\">\n            <ssc:Real unit=\"J\"/>",
                "<ssd:Connector name=\"steps\" kind=\"output\">\n            <ssc:Integer/>",
            ),
            ("startConnector=\"cylinder.length\"", "startConnector=\"steps\""),
        ],
        &[
            "connection mechanism.steps -> drive.cylinder_length (line 63)",
            "incompatible types: mechanism.steps is Int32 (Integer), drive.cylinder_length is Float64 (Real)",
        ],
    );
    refused(
        d,
        &[("startConnector=\"cylinder.length\"", "startConnector=\"O.angle\"")],
        &[
            "connection mechanism.O.angle -> drive.cylinder_length (line 63)",
            "unit mismatch: rad cannot be converted to m (different base units)",
        ],
    );
    refused(
        d,
        &[("</ssd:Connections>", "<ssd:Connection startElement=\"mechanism\" startConnector=\"cylinder.length\" endElement=\"drive\" endConnector=\"cylinder_length\"/></ssd:Connections>")],
        &["input drive.cylinder_length is connected twice: by mechanism.cylinder.length -> drive.cylinder_length (line 63) and by mechanism.cylinder.length -> drive.cylinder_length (line 66)"],
    );
    refused(
        d,
        &[(
            "endElement=\"drive\" endConnector=\"cylinder_velocity\"",
            "endElement=\"mechanism\" endConnector=\"cylinder.length\"",
        )],
        &["(line 64)", "it joins a connector of kind output to one of kind output"],
    );
    // Unsupported SSP features, named.
    refused(
        d,
        &[("<ssd:Elements>", "<ssd:Elements><ssd:System name=\"inner\"/>")],
        &["line 4", "a nested system", "not supported by mbfmu's master"],
    );
    refused(
        d,
        &[("startElement=\"drive\" startConnector=\"cylinder.force\"", "startConnector=\"cylinder.force\"")],
        &["(line 65)", "'cylinder.force' is a connector of the system itself", "not supported by mbfmu's master"],
    );
    refused(
        d,
        &[(
            "<ssd:ParameterBinding type=\"application/x-ssp-parameter-set\" source=\"resources/drive.ssv\"/>",
            "<ssd:ParameterBinding source=\"resources/drive.ssv\"><ssd:ParameterMapping/></ssd:ParameterBinding>",
        )],
        &["line 58", "a parameter mapping (.ssm) is not supported"],
    );
    // Parameter values of the wrong type, from a missing file.
    let ssv = d.join("resources/drive.ssv");
    let original = std::fs::read_to_string(&ssv).unwrap();
    edit(&ssv, "<ssv:Real value=\"1.0\"/>", "<ssv:Boolean value=\"true\"/>");
    let err = fails(&["simulate", s(d), "--csv", s(&csv)]);
    assert!(
        err.contains(
            "parameter 'work_cycle' (resources/drive.ssv line 8): a Boolean value for work_cycle (Float64 (Real))"
        ),
        "{err}"
    );
    std::fs::write(&ssv, original).unwrap();
    refused(
        d,
        &[("source=\"resources/drive.ssv\"", "source=\"resources/gone.ssv\"")],
        &["line 58", "parameter binding source resources/gone.ssv: cannot read it"],
    );
    // --set and --outputs name <component>.<variable>.
    let err = fails(&["simulate", s(d), "--set", "driv.U_ref=1", "--csv", s(&csv)]);
    assert!(
        err.contains(
            "--set driv.U_ref=1: name a component's variable as <component>.<variable>; components: mechanism, drive"
        ),
        "{err}"
    );
    let err = fails(&["simulate", s(d), "--set", "drive.U_rf=1", "--csv", s(&csv)]);
    assert!(err.contains("component 'drive': unknown variable 'U_rf' in --set") && err.contains("'U_ref'"), "{err}");
    let err = fails(&["simulate", s(d), "--outputs", "mechanism.O.angel", "--csv", s(&csv)]);
    assert!(err.contains("unknown variable 'O.angel' in --outputs"), "{err}");
    assert!(!csv.exists());
}

#[test]
fn a_declared_direct_feedthrough_loop_is_refused() {
    // The drive's force depends directly on the cylinder velocity (declared: the seal
    // friction); the mechanism's cylinder rate depends only on its states (declared). Without
    // the mechanism's declaration the loop may be algebraic; with a declared dependency on the
    // force it is. FMI 2 dependencies are 1-based variable indices.
    let dir = unpacked(2);
    let mechanism = dir.path().join("resources/HydraulicFourBarMechanism.fmu");
    // The 1-based indices of the two variables and the output's declaration as packaged.
    let xml = mbfmu_model::catalog::find("HydraulicFourBarMechanism").unwrap().fmi2_xml;
    let index =
        |name: &str| xml.split("<ScalarVariable ").position(|v| v.starts_with(&format!("name=\"{name}\""))).unwrap();
    let (rate, force) = (index("cylinder.rate"), index("cylinder_force"));
    let declared = format!("<Unknown index=\"{rate}\"");
    let start = xml.find(&format!("{declared} ")).expect("the output's dependencies");
    let honest = &xml[start..start + xml[start..].find("/>").unwrap() + 2];
    let bare = format!("{declared}/>");
    let csv = dir.path().join("never.csv");
    // As packaged: no loop, no note.
    let (_, stderr) = ok(&["simulate", s(dir.path()), "--stop-time", "0.01", "--csv", s(&csv)]);
    assert!(!stderr.contains("algebraic"), "{stderr}");
    // cylinder.rate without dependencies (it may depend on everything): a note, and the run
    // goes on.
    edit_model_description(&mechanism, |xml| xml.replacen(honest, &bare, 1));
    std::fs::remove_file(&csv).unwrap();
    let (_, stderr) = ok(&["simulate", s(dir.path()), "--stop-time", "0.01", "--csv", s(&csv)]);
    assert!(
        stderr.contains("would be algebraic") && stderr.contains("; mechanism declares no such dependency"),
        "{stderr}"
    );
    // Declared feed-through on both sides: cylinder.rate on cylinder_force. Refused.
    edit_model_description(&mechanism, |xml| xml.replacen(&bare, &format!("{declared} dependencies=\"{force}\"/>"), 1));
    std::fs::remove_file(&csv).unwrap();
    let err = fails(&["simulate", s(dir.path()), "--csv", s(&csv)]);
    assert!(
        err.contains("form an algebraic loop")
            && err.contains("drive.cylinder.force -> mechanism.cylinder_force (line 65)"),
        "{err}"
    );
    assert!(!csv.exists());
}
