//! The co-simulation study of the split hydraulic four-bar: the largest joint-angle
//! error (joints O, C and D) against the monolithic `HydraulicFourBar` over the 10 s work
//! cycle, or where the run diverged, for both splits, both algorithms, held inputs and
//! extrapolation (FMI 2.0 input derivatives, FMI 3.0 intermediate updates), at communication
//! steps of 0.1 to 10 ms: the README's table. About 30 s, so it is ignored by default:
//!
//!     cargo test --release -p mbfmu-cli --test suite split_study:: -- --ignored --nocapture
//!
//! The best configuration's two numbers are asserted by ssp_valve_split.rs.

use crate::ssp_common;

use ssp_common::*;

#[test]
#[ignore = "slow: prints the whole study table (about 30 s); the full tier runs it"]
fn split_study_table() {
    let steps = [1e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2];
    let mut header = String::from("| split | inputs | algorithm |");
    let mut rule = String::from("|---|---|---|");
    for h in steps {
        header += &format!(" {} ms |", h * 1e3);
        rule += "---|";
    }
    println!("{header}\n{rule}");
    let splits =
        [("force (HydraulicFourBarSplit)", SYSTEM), ("valve ports (HydraulicFourBarValveSplit)", VALVE_SYSTEM)];
    let inputs: [(&str, u8, &[&str]); 3] = [
        ("held (zero-order hold)", 2, &[]),
        ("extrapolated, FMI 2.0 input derivatives", 2, &["--extrapolate"]),
        ("extrapolated, FMI 3.0 intermediate update", 3, &["--extrapolate"]),
    ];
    for (split, system) in splits {
        for (how, version, options) in inputs {
            for algorithm in ["jacobi", "gauss-seidel"] {
                let mut line = format!("| {split} | {how} | {algorithm} |");
                for h in steps {
                    let all = [&["--algorithm", algorithm][..], options].concat();
                    line += &match cycle_error(&ssp_of(system, version), h, &all) {
                        Ok(e) => format!(" {e:.1e} |"),
                        Err((t, _)) => format!(" diverges at {t:.2} s |"),
                    };
                }
                println!("{line}");
            }
        }
    }
    // The monolithic FMU at internal steps of min(h, 1 ms), as the splits take them: how much
    // of a split's error is the integration step's.
    let dir = tempfile::tempdir().unwrap();
    let mono = root().join("fmus/fmi2/HydraulicFourBar.fmu");
    let mut line = String::from("| none (HydraulicFourBar, internal step min(h, 1 ms)) | - | - |");
    for h in steps {
        let (step, internal) = (h.to_string(), format!("solver.stepSize={}", h.min(1e-3)));
        let csv = dir.path().join("mono.csv");
        let (_, rows) =
            run(&mono, &csv, &["--step", &step, "--set", &internal, "--outputs", "O.angle,C.angle,D.angle"]);
        line += &format!(" {:.1e} |", angle_error(monolithic(), &rows, h));
    }
    println!("{line}");
    // Held inputs reach both FMI versions alike: the FMI 3.0 archives give the same numbers.
    for system in [SYSTEM, VALVE_SYSTEM] {
        let at = |version| cycle_error(&ssp_of(system, version), 1e-3, &[]).map_err(|(t, _)| t);
        assert_eq!(at(2), at(3), "{system}");
    }
}
