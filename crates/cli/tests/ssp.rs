//! Systems of FMUs (SSP): the packaged split hydraulic four-bar read by FMPy's SSP reader
//! (schema-validated) and run by libcosim, against `mbfmu simulate <system>.ssp`; Jacobi and
//! Gauss-Seidel against the monolithic FMU; extrapolation's fallback and the derivative
//! functions it calls when FMUs declare them; outputs, --set and --plot. Python parts:
//! crates/cli/tests/ssp_checks.py (fmpy and libcosimpy on PATH, as .ci/run installs them).
//! Bad systems and failing FMUs: ssp_refused.rs.

mod ssp_common;

use ssp_common::*;

#[test]
fn fmpy_reads_and_validates_the_packaged_ssp() {
    let spec = description();
    for version in [2, 3] {
        // read_ssd validates the SSD and each .ssv against the SSP 1.0 schemas FMPy ships.
        let json: serde_json::Value = serde_json::from_str(&python(&["structure", s(&ssp(version))])).unwrap();
        println!("FMI {version}: {json}");
        assert_eq!((json["name"].as_str(), json["version"].as_str()), (Some(SYSTEM), Some("1.0")));
        let components = json["components"].as_array().unwrap();
        let specs = spec["components"].as_array().unwrap();
        assert_eq!(components.len(), specs.len());
        let dir = unpacked(version);
        for (c, sc) in components.iter().zip(specs) {
            let model = sc["model"].as_str().unwrap();
            // The FMU inside is the one `package` writes on its own, byte for byte.
            let inside = std::fs::read(dir.path().join(format!("resources/{model}.fmu"))).unwrap();
            let alone = std::fs::read(root().join(format!("fmus/fmi{version}/{model}.fmu"))).unwrap();
            assert!(inside == alone, "FMI {version}: {model}.fmu in the SSP differs from fmus/fmi{version}");
            assert_eq!(c["name"], sc["name"]);
            assert_eq!(c["source"].as_str().unwrap(), format!("resources/{model}.fmu"));
            assert_eq!(
                c["binding_sources"][0].as_str().unwrap(),
                format!("resources/{}.ssv", sc["name"].as_str().unwrap())
            );
            let parameters = c["parameters"].as_object().unwrap();
            let names: Vec<&str> = sc["parameters"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
            assert_eq!(
                parameters.keys().map(String::as_str).collect::<std::collections::BTreeSet<_>>(),
                names.iter().copied().collect()
            );
            for name in names {
                // The parameter set carries the FMU's own start values.
                let value: f64 = parameters[name][1].as_str().unwrap().parse().unwrap();
                let start: f64 = start_value(&dir.path().join(format!("resources/{model}.fmu")), name).parse().unwrap();
                assert_eq!(value, start, "{model} {name}");
            }
            for output in sc["outputs"].as_array().unwrap() {
                assert!(
                    c["connectors"].as_array().unwrap().iter().any(|k| k[0] == *output && k[1] == "output"),
                    "{output}"
                );
            }
        }
        let connections: Vec<Vec<&str>> = json["connections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect())
            .collect();
        let expected: Vec<Vec<&str>> = spec["connections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                vec![
                    c["from"][0].as_str().unwrap(),
                    c["from"][1].as_str().unwrap(),
                    c["to"][0].as_str().unwrap(),
                    c["to"][1].as_str().unwrap(),
                ]
            })
            .collect();
        assert_eq!(connections, expected);
        // Units by their SI exponents (kg, m, s, A, K, mol, cd, rad).
        let units = &json["units"];
        assert_eq!(units["m"], serde_json::json!([0, 1, 0, 0, 0, 0, 0, 0]));
        assert_eq!(units["N"], serde_json::json!([1, 1, -2, 0, 0, 0, 0, 0]));
        assert_eq!(units["m/s"], serde_json::json!([0, 1, -1, 0, 0, 0, 0, 0]));
    }
}

#[test]
fn libcosim_runs_the_packaged_ssp_exactly_like_the_jacobi_master() {
    let dir = tempfile::tempdir().unwrap();
    let columns = "mechanism.O.angle,mechanism.cylinder.length,drive.cylinder.force,drive.V2.pressure";
    // 10 s at 1e-4 s, sampled every 0.04 s.
    let (step_ns, steps, every) = (100_000u64, 100_000u64, 400u64);
    let started = std::time::Instant::now();
    let names: Vec<&str> = columns.split(',').collect();
    let (archive, libcosim_csv) = (ssp(2), dir.path().join("libcosim.csv"));
    let mut args = vec!["libcosim", s(&archive), s(&libcosim_csv)];
    let numbers = [step_ns.to_string(), steps.to_string(), every.to_string()];
    args.extend(numbers.iter().map(String::as_str));
    args.extend(names.iter().copied());
    python(&args);
    let (_, theirs) = read_csv(&libcosim_csv);
    let libcosim_s = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let (header, ours) = run(
        &ssp(2),
        &dir.path().join("jacobi.csv"),
        &["--algorithm", "jacobi", "--step", "1e-4", "--outputs", columns],
    );
    let mbfmu_s = started.elapsed().as_secs_f64();
    assert_eq!(header[1..], names[..]);
    assert_eq!(theirs.len() as u64, steps / every);
    // The same FMU binaries at the same communication points: libcosim keeps time in integer
    // nanoseconds, and k * 1e5 ns / 1e9 is the double nearest k * 1e-4, which is what mbfmu's
    // decimal grid gives; both take the step as the difference of consecutive points; both
    // are Jacobi (every FMU steps from the values of the communication point); both leave
    // initialization with the inputs at the sources' outputs. So the tolerance is zero.
    let mut compared = 0;
    for row in &theirs {
        let k = (row[0] * 1e4).round() as usize;
        let mine = &ours[k];
        assert!((mine[0] - row[0]).abs() < 1e-12, "time {} vs {}", mine[0], row[0]);
        for (c, (a, b)) in mine[1..].iter().zip(&row[1..]).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "{} at t = {}: mbfmu {a:e}, libcosim {b:e}", names[c], row[0]);
        }
        compared += 1;
    }
    println!("libcosim from_ssp_file and mbfmu --algorithm jacobi: {compared} samples of 4 variables bit-identical over 10 s at 1e-4 s (libcosim {libcosim_s:.1} s with Python sampling, mbfmu {mbfmu_s:.1} s)");
    // The FMI 3.0 archive runs the same library: identical results.
    let (_, fmi3) = run(&ssp(3), &dir.path().join("fmi3.csv"), &["--step", "1e-4", "--outputs", columns]);
    assert_eq!(fmi3.len(), ours.len());
    assert!(fmi3.iter().zip(&ours).all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())));
}

/// Largest |angle difference| between a run and the monolithic reference at its sample times.
fn error_against(reference: &[Vec<f64>], run: &[Vec<f64>], h: f64) -> f64 {
    let per_sample = (0.04 / h).round() as usize;
    reference
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r[1..].iter().zip(&run[i * per_sample][1..]).map(|(a, b)| (a - b).abs()))
        .fold(0.0, f64::max)
}

#[test]
fn gauss_seidel_and_jacobi_converge_to_the_monolithic_fmu() {
    let dir = tempfile::tempdir().unwrap();
    let mono = root().join("fmus/fmi2/HydraulicFourBar.fmu");
    let (_, reference) =
        run(&mono, &dir.path().join("mono.csv"), &["--step", "0.04", "--outputs", "O.angle,C.angle,D.angle"]);
    let steps = [1e-4, 5e-5, 2.5e-5];
    println!("| communication step [s] | Jacobi: max |angle error| [rad] | order | Gauss-Seidel [rad] | order |");
    println!("|---|---|---|---|---|");
    let mut errors: Vec<[f64; 2]> = Vec::new();
    for (i, h) in steps.iter().enumerate() {
        let mut pair = [0.0; 2];
        for (a, algorithm) in ["jacobi", "gauss-seidel"].iter().enumerate() {
            let csv = dir.path().join(format!("{algorithm}.csv"));
            let (_, rows) =
                run(&ssp(2), &csv, &["--algorithm", algorithm, "--step", &h.to_string(), "--outputs", ANGLES]);
            pair[a] = error_against(&reference, &rows, *h);
        }
        let order = |a: usize| match i {
            0 => "-".to_string(),
            _ => format!("{:.2}", (errors[i - 1][a] / pair[a]).log2()),
        };
        println!("| {h:e} | {:.3e} | {} | {:.3e} | {} |", pair[0], order(0), pair[1], order(1));
        errors.push(pair);
    }
    for a in 0..2 {
        for w in errors.windows(2) {
            // Both hold the inputs over the step: first order, with margin.
            assert!((w[0][a] / w[1][a]).log2() > 0.8, "{errors:?}");
        }
    }
    // Gauss-Seidel's drive sees the mechanism's new state: smaller errors at every step.
    assert!(errors.iter().all(|[j, g]| g < j), "{errors:?}");
    assert!(errors[2][0] < 5e-4, "{errors:?}");
    // And it stays stable at a step where Jacobi diverges (the trapped oil's stiff spring).
    let csv = dir.path().join("coarse.csv");
    let jacobi = fails(&["simulate", s(&ssp(2)), "--step", "1e-3", "--csv", s(&csv), "-q"]);
    assert!(jacobi.contains("returned Discard"), "{jacobi}");
    let (_, rows) = run(&ssp(2), &csv, &["--algorithm", "gauss-seidel", "--step", "1e-3", "--outputs", ANGLES]);
    println!("| 1e-3 | diverges (Discard) | | {:.3e} | |", error_against(&reference, &rows, 1e-3));
}

#[test]
fn extrapolation_falls_back_to_zero_order_hold_without_output_derivatives() {
    // The catalog FMUs declare maxOutputDerivativeOrder="0": --extrapolate must change nothing.
    let dir = tempfile::tempdir().unwrap();
    for algorithm in ["jacobi", "gauss-seidel"] {
        let plain = dir.path().join("plain.csv");
        let extrapolated = dir.path().join("extrapolated.csv");
        ok(&["simulate", s(&ssp(2)), "--algorithm", algorithm, "--stop-time", "1", "--csv", s(&plain), "-q"]);
        let (_, stderr) = ok(&[
            "simulate",
            s(&ssp(2)),
            "--algorithm",
            algorithm,
            "--stop-time",
            "1",
            "--csv",
            s(&extrapolated),
            "--extrapolate",
        ]);
        assert!(
            stderr.contains("mechanism.cylinder.length -> drive.cylinder_length")
                && stderr.contains("held (zero-order hold"),
            "{stderr}"
        );
        assert!(!stderr.contains("extrapolated with"), "{stderr}");
        assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(&extrapolated).unwrap(), "{algorithm}");
    }
    // --algorithm and --extrapolate belong to systems.
    let fmu = root().join("fmus/fmi2/HydraulicFourBar.fmu");
    let err = fails(&["simulate", s(&fmu), "--algorithm", "jacobi"]);
    assert!(err.contains("--algorithm applies to systems (.ssp) only"), "{err}");
}

#[test]
fn declared_derivatives_are_requested_through_the_standard_functions() {
    // FMUs that declare output derivatives and input interpolation get them used. The
    // catalog's FMU library does not implement the functions yet (it declares order 0), so
    // declaring them by editing the XML makes the master's call reach the library, which
    // answers Error; the message shows the master called the standard function. When the
    // library provides derivatives, this test becomes the accuracy check of --extrapolate.
    for (version, call, how) in [
        (2, "fmi2GetRealOutputDerivatives returned Error", "the target interpolating"),
        (3, "fmi3GetOutputDerivatives returned Error", "held at the step's midpoint value"),
    ] {
        let dir = unpacked(version);
        edit_model_description(&dir.path().join("resources/HydraulicFourBarMechanism.fmu"), |xml| {
            xml.replace("maxOutputDerivativeOrder=\"0\"", "maxOutputDerivativeOrder=\"1\"")
        });
        edit_model_description(&dir.path().join("resources/HydraulicFourBarDrive.fmu"), |xml| {
            xml.replace("canInterpolateInputs=\"false\"", "canInterpolateInputs=\"true\"")
        });
        let csv = dir.path().join("out.csv");
        let err = fails(&["simulate", s(dir.path()), "--extrapolate", "--stop-time", "0.01", "--csv", s(&csv)]);
        assert!(err.contains(&format!("mechanism.cylinder.length -> drive.cylinder_length (line 63): extrapolated with the source's derivative, {how}")), "FMI {version}: {err}");
        assert!(err.contains("component 'mechanism'") && err.contains(call), "FMI {version}: {err}");
        // Without --extrapolate the same FMUs run: no derivative is asked for.
        ok(&["simulate", s(dir.path()), "--stop-time", "0.01", "--csv", s(&csv), "-q"]);
    }
    // An FMI 3.0 drive that provides intermediate update for its inputs is instantiated with
    // them as requiredIntermediateVariables (FMI 3.0 Sect. 4.2.2); the catalog library, which
    // provides none, refuses that at instantiation and says why.
    let dir = unpacked(3);
    edit_model_description(&dir.path().join("resources/HydraulicFourBarMechanism.fmu"), |xml| {
        xml.replace("maxOutputDerivativeOrder=\"0\"", "maxOutputDerivativeOrder=\"1\"")
    });
    edit_model_description(&dir.path().join("resources/HydraulicFourBarDrive.fmu"), |xml| {
        xml.replace("providesIntermediateUpdate=\"false\"", "providesIntermediateUpdate=\"true\"")
            .replace("name=\"cylinder_length\"", "name=\"cylinder_length\" intermediateUpdate=\"true\"")
    });
    let csv = dir.path().join("out.csv");
    let err = fails(&["simulate", s(dir.path()), "--extrapolate", "--stop-time", "0.01", "--csv", s(&csv)]);
    assert!(err.contains("mechanism.cylinder.length -> drive.cylinder_length (line 63): extrapolated with the source's derivative, the target interpolating"), "{err}");
    assert!(err.contains("mechanism.cylinder.rate -> drive.cylinder_velocity (line 64): extrapolated with the source's derivative, held at the step's midpoint value"), "{err}");
    assert!(err.contains("component 'drive'") && err.contains("requiredIntermediateVariables is not empty"), "{err}");
}

#[test]
fn outputs_set_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("still.csv");
    let png = dir.path().join("plot.png");
    // Without the work cycle the valve stays closed: the boom holds still.
    let (header, rows) = run(
        &ssp(3),
        &csv,
        &[
            "--set",
            "drive.work_cycle=0",
            "--stop-time",
            "2",
            "--step",
            "1e-4",
            "--outputs",
            "mechanism.O.angle,drive.dcv.spool",
            "--plot",
            s(&png),
        ],
    );
    assert_eq!(header, ["time", "mechanism.O.angle", "drive.dcv.spool"]);
    assert!(rows.iter().all(|r| r[1].abs() < 1e-9 && r[2] == 0.0), "{:?}", rows.last());
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    // With it, the valve opens at 1 s.
    let (_, rows) =
        run(&ssp(3), &csv, &["--stop-time", "2", "--step", "1e-4", "--outputs", "mechanism.O.angle,drive.dcv.spool"]);
    assert!(rows.last().unwrap()[2] > 9.0 && rows.last().unwrap()[1].abs() > 1e-3, "{:?}", rows.last());
}
