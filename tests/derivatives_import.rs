//! Output derivatives of packaged FMI 3.0 FMUs through an independent importer, the `fmi`
//! crate (`get_output_derivatives`), against central differences of the same FMU's outputs in
//! time at communication steps of one internal step, for one model per formulation
//! (index-3, state-space, semirecursive with hydraulics): every order the documented table
//! (tests/common_fmu/orders.rs, README "FMI behaviour") provides matches the differences, every
//! order it does not provide is 0. (FMI 2.0 derivatives go through FMPy in tests/fmpy.rs: the
//! `fmi` crate has no FMI 2.0 derivative functions.)

use crate::common_fmu;

use common_fmu::orders::documented_order;
use common_fmu::*;
use fmi::fmi3::{CoSimulation as _, Common as _, Fmi3Model as _, GetSet as _};
use mbfmu_model::catalog::find;
use mbfmu_model::variables::{Binding, Quantity};

/// The vector an output is a component of (`a.b.x` -> `a.b`).
fn vector_of(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((head, "x" | "y" | "z" | "e0" | "e1" | "e2" | "e3")) => head,
        _ => name,
    }
}

#[test]
fn output_derivatives_match_central_differences_through_the_fmi_crate() {
    let dir = packaged_catalog();
    for (name, from) in [("DoublePendulum", 0.3), ("DoublePendulumStateSpace", 0.3), ("HydraulicFourBar", 1.3)] {
        let entry = find(name).unwrap();
        let model = model(entry);
        let d = &model.description;
        let outputs: Vec<(u32, String, Quantity)> = model
            .interface
            .outputs()
            .filter(|v| v.is_continuous_signal())
            .map(|v| match v.binding {
                Binding::Output(q) => (v.value_reference, v.name.clone(), q),
                _ => unreachable!("outputs bind to quantities"),
            })
            .collect();
        let vrs: Vec<u32> = outputs.iter().map(|o| o.0).collect();
        let import = import_fmi3(&fmu_path(dir.path(), 3, entry));
        let mut cs = import.instantiate_cs(&format!("rates3-{name}"), false, true, false, false, &[]).unwrap();
        let h = d.solver.step_size;
        let start = d.experiment.start;
        cs.enter_initialization_mode(None, start, None).unwrap();
        cs.exit_initialization_mode().unwrap();
        let mut t = start;
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
        let mut step = |cs: &mut fmi::fmi3::instance::InstanceCS, t: &mut f64| {
            cs.do_step(*t, h, true, &mut event, &mut terminate, &mut early, &mut last).unwrap();
            *t += h;
        };
        while t < from - 1e-12 {
            step(&mut cs, &mut t);
        }
        let n = 30;
        let mut rows: Vec<[Vec<f64>; 3]> = Vec::new();
        for _ in 0..=n {
            let mut row = [vec![0.0; vrs.len()], vec![0.0; vrs.len()], vec![0.0; vrs.len()]];
            cs.get_float64(&vrs, &mut row[0]).unwrap();
            for order in 1..=2 {
                cs.get_output_derivatives(&vrs, &vec![order; vrs.len()], &mut row[order as usize]).unwrap();
            }
            rows.push(row);
            step(&mut cs, &mut t);
        }
        let mut scales = vec![[0.0f64; 2]; vrs.len()];
        let mut errors = vec![[0.0f64; 2]; vrs.len()];
        for k in 2..n {
            for j in 0..vrs.len() {
                let (m, z, p) = (rows[k - 1][0][j], rows[k][0][j], rows[k + 1][0][j]);
                let fd = [(p - m) / (2.0 * h), (p - 2.0 * z + m) / (h * h)];
                for o in 0..2 {
                    let d = rows[k][1 + o][j];
                    scales[j][o] = scales[j][o].max(fd[o].abs()).max(d.abs());
                    errors[j][o] = errors[j][o].max((fd[o] - d).abs());
                }
            }
        }
        let mut worst = [(0.0f64, String::new()), (0.0f64, String::new())];
        for (j, (_, out, q)) in outputs.iter().enumerate() {
            let order = documented_order(*q, d, false);
            for o in 0..2 {
                if o >= order {
                    assert!(rows.iter().all(|r| r[1 + o][j] == 0.0), "{name}: {out} has no derivative {}", o + 1);
                    continue;
                }
                let group = outputs.iter().enumerate().filter(|(_, other)| vector_of(&other.1) == vector_of(out));
                let scale = group.fold(0.0f64, |s, (i, _)| s.max(scales[i][o]));
                let values = rows.iter().fold(0.0f64, |m, r| m.max(r[0][j].abs()));
                let floor = 1e-6 * if o == 0 { values } else { scales[j][0] } / h;
                let constant = matches!(q, Quantity::TotalEnergy | Quantity::EnergyBalance);
                if scale < 1e-8 || scale < floor || constant {
                    continue;
                }
                let relative = errors[j][o] / scale;
                assert!(relative < [2e-2, 6e-2][o], "{name}: {out}: derivative {} off by {relative:.2e}", o + 1);
                if relative > worst[o].0 {
                    worst[o] = (relative, out.clone());
                }
            }
        }
        cs.terminate().unwrap();
        println!(
            "{name}: worst relative difference {:.1e} ({}, first), {:.1e} ({}, second)",
            worst[0].0, worst[0].1, worst[1].0, worst[1].1
        );
    }
}
