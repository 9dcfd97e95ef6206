//! Systems of FMUs (SSP): the packaged split hydraulic four-bar (force and length exchanged)
//! read by FMPy's SSP reader (schema-validated) and run by libcosim, against `mbfmu simulate
//! <system>.ssp`; Jacobi and Gauss-Seidel against the monolithic FMU; extrapolation through
//! the standard derivative functions and its accuracy, and its fallback to zero-order hold;
//! outputs, --set and --plot. Python parts: crates/cli/tests/ssp_checks.py (fmpy and
//! libcosimpy on PATH, as .ci/run installs them). Bad systems and failing FMUs:
//! ssp_refused.rs; the split at the valve ports: ssp_valve_split.rs.

use crate::ssp_common;

use ssp_common::*;

#[test]
#[ignore = "external: python3 with fmpy (scripts/test-all.sh installs it)"]
fn fmpy_reads_and_validates_the_packaged_ssp() {
    check_structure(SYSTEM, &["m", "N", "m/s"]);
}

#[test]
#[ignore = "external: python3 with libcosimpy 0.0.6 and fmpy (scripts/test-all.sh installs them)"]
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

#[test]
fn gauss_seidel_and_jacobi_converge_to_the_monolithic_fmu() {
    let reference = monolithic();
    let dir = tempfile::tempdir().unwrap();
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
            pair[a] = angle_error(reference, &rows, *h);
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
    let jacobi = cycle_error(&ssp(2), 1e-3, &[]).expect_err("Jacobi at 1 ms diverges");
    assert!(jacobi.1.contains("returned Discard"), "{jacobi:?}");
    let gauss_seidel = cycle_error(&ssp(2), 1e-3, &["--algorithm", "gauss-seidel"]).unwrap();
    println!("| 1e-3 | diverges (Discard at {} s) | | {gauss_seidel:.3e} | |", jacobi.0);
}

/// The FMU calls (logCalls) in what `mbfmu simulate --debug-logging` printed.
fn calls(log: &str, component: &str, call: &str) -> usize {
    log.lines().filter(|l| l.contains(&format!("[{component}]: {call} "))).count()
}

#[test]
fn extrapolation_calls_the_standard_derivative_functions_and_improves_accuracy() {
    // The catalog FMUs declare maxOutputDerivativeOrder="2", FMI 2 canInterpolateInputs and
    // FMI 3 intermediate update on their continuous inputs: every connection is extrapolated
    // with its source's derivative and interpolated by its target.
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("log.csv");
    for version in [2, 3] {
        let args = ["--extrapolate", "--stop-time", "0.004", "--step", "2e-3", "--debug-logging"];
        let archive = ssp(version);
        let mut all = vec!["simulate", s(&archive), "--csv", s(&csv)];
        all.extend(args);
        let (stdout, stderr) = ok(&all);
        let log = format!("{stdout}{stderr}");
        for link in [
            "mechanism.cylinder.length -> drive.cylinder_length (line 63)",
            "mechanism.cylinder.rate -> drive.cylinder_velocity (line 64)",
            "drive.cylinder.force -> mechanism.cylinder_force (line 65)",
        ] {
            assert!(
                log.contains(&format!("{link}: extrapolated with the source's derivative, the target interpolating")),
                "FMI {version}: {link}\n{log}"
            );
        }
        // Two communication steps of two internal steps each: the standard functions, once
        // per component and communication point (the start included).
        if version == 2 {
            for component in ["mechanism", "drive"] {
                assert_eq!(calls(&log, component, "fmi2GetRealOutputDerivatives"), 3, "{log}");
                assert_eq!(calls(&log, component, "fmi2SetRealInputDerivatives"), 2, "{log}");
            }
        } else {
            for (component, inputs) in [("mechanism", 1), ("drive", 2)] {
                assert_eq!(calls(&log, component, "fmi3GetOutputDerivatives"), 3, "{log}");
                // The callback sets each input once per step, before the second internal step.
                let set = calls(&log, component, "fmi3SetFloat64 (state Intermediate Update Mode)");
                assert_eq!(set, 2 * inputs, "{log}");
            }
        }
    }
    // FMI 2: the inputs follow the line through value and derivative over the whole step.
    // Jacobi at 1 ms, which diverges with held inputs, stays within 1e-3 rad of the monolithic
    // FMU (measured 2.0e-4).
    let held = cycle_error(&ssp(2), 1e-3, &[]).expect_err("held inputs at 1 ms diverge");
    let extrapolated = cycle_error(&ssp(2), 1e-3, &["--extrapolate"]).unwrap();
    println!("FMI 2, Jacobi, 1 ms: held: diverges at {} s; extrapolated: {extrapolated:.3e} rad", held.0);
    assert!(extrapolated < 1e-3, "{extrapolated}");
    // FMI 3 has no input derivatives: the intermediate updates set the extrapolated inputs at
    // the FMU's internal steps (1 ms), so at 5 ms they act four times per step. Gauss-Seidel:
    // 9.1e-2 rad held, 1.6e-3 rad extrapolated.
    let gs = ["--algorithm", "gauss-seidel"];
    let held = cycle_error(&ssp(3), 5e-3, &gs).unwrap();
    let extrapolated = cycle_error(&ssp(3), 5e-3, &[&gs[..], &["--extrapolate"]].concat()).unwrap();
    println!("FMI 3, Gauss-Seidel, 5 ms: held {held:.3e} rad, intermediate updates {extrapolated:.3e} rad");
    assert!(extrapolated < held / 10.0 && extrapolated < 5e-3, "{held} {extrapolated}");
    // One internal step per communication step: no intermediate update, so the same as held.
    let (a, b) = (
        cycle_error(&ssp(3), 1e-3, &gs).unwrap(),
        cycle_error(&ssp(3), 1e-3, &[&gs[..], &["--extrapolate"]].concat()).unwrap(),
    );
    assert_eq!(a.to_bits(), b.to_bits(), "{a} {b}");
}

#[test]
fn extrapolation_falls_back_to_zero_order_hold_without_output_derivatives() {
    // FMUs whose XML declares no output derivatives (and no input interpolation): --extrapolate
    // must change nothing, bit for bit, and ask for no derivative.
    let dir = tempfile::tempdir().unwrap();
    for version in [2, 3] {
        let system = unpacked(version);
        for fmu in ["HydraulicFourBarMechanism", "HydraulicFourBarDrive"] {
            edit_model_description(&system.path().join(format!("resources/{fmu}.fmu")), |xml| {
                let xml = xml.replace("maxOutputDerivativeOrder=\"2\"", "maxOutputDerivativeOrder=\"0\"");
                assert!(xml.contains("maxOutputDerivativeOrder=\"0\""), "{fmu}");
                xml.replace("canInterpolateInputs=\"true\"", "canInterpolateInputs=\"false\"")
                    .replace("providesIntermediateUpdate=\"true\"", "providesIntermediateUpdate=\"false\"")
            });
        }
        for algorithm in ["jacobi", "gauss-seidel"] {
            let plain = dir.path().join("plain.csv");
            let extrapolated = dir.path().join("extrapolated.csv");
            let common = ["--algorithm", algorithm, "--stop-time", "1", "--step", "1e-3"];
            let mut args = vec!["simulate", s(system.path()), "--csv", s(&plain), "-q"];
            args.extend(common);
            ok(&args);
            let mut args = vec!["simulate", s(system.path()), "--csv", s(&extrapolated), "--extrapolate"];
            args.extend(common);
            let (stdout, stderr) = ok(&args);
            assert!(
                stderr.contains("mechanism.cylinder.length -> drive.cylinder_length (line 63): held (zero-order hold"),
                "{stderr}"
            );
            assert!(!stderr.contains("extrapolated with"), "{stderr}");
            assert!(!format!("{stdout}{stderr}").contains("OutputDerivatives"));
            assert_eq!(
                std::fs::read(&plain).unwrap(),
                std::fs::read(&extrapolated).unwrap(),
                "FMI {version} {algorithm}"
            );
        }
        // Such FMUs are also instantiated without intermediate update: the run with the
        // packaged FMUs' flags differs.
        let packaged = dir.path().join("packaged.csv");
        ok(&[
            "simulate",
            s(&ssp(version)),
            "--stop-time",
            "1",
            "--step",
            "2e-3",
            "--extrapolate",
            "--csv",
            s(&packaged),
            "-q",
        ]);
        let fallback = dir.path().join("fallback.csv");
        ok(&[
            "simulate",
            s(system.path()),
            "--stop-time",
            "1",
            "--step",
            "2e-3",
            "--extrapolate",
            "--csv",
            s(&fallback),
            "-q",
        ]);
        assert_ne!(std::fs::read(&packaged).unwrap(), std::fs::read(&fallback).unwrap(), "FMI {version}");
    }
    // --algorithm and --extrapolate belong to systems.
    let fmu = root().join("fmus/fmi2/HydraulicFourBar.fmu");
    let err = fails(&["simulate", s(&fmu), "--algorithm", "jacobi"]);
    assert!(err.contains("--algorithm applies to systems (.ssp) only"), "{err}");
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
