//! Every packaged FMU (FMI 2.0 and 3.0) loaded by an independent importer, the `fmi` crate,
//! runs its DefaultExperiment, and every output at every communication point is
//! bit-identical to the same model driven through the Rust API (`sim::Slave`).

use crate::common_fmu;

use common_fmu::*;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation as _, Common as _};
use fmi::fmi3::{CoSimulation as _, Common as _, Fmi3Model as _, GetSet as _};
use fmi::traits::FmiImport;
use mbfmu_model::catalog::CATALOG;
use mbfmu_model::variables::VarType;

/// (start, stop, step) of a DefaultExperiment, all three required.
fn experiment(start: Option<f64>, stop: Option<f64>, step: Option<f64>, fmu: &str) -> (f64, f64, f64) {
    let stop = stop.unwrap_or_else(|| panic!("{fmu}: DefaultExperiment has no stopTime"));
    let step = step.unwrap_or_else(|| panic!("{fmu}: DefaultExperiment has no stepSize"));
    (start.unwrap_or(0.0), stop, step)
}

#[test]
fn fmi2_fmus_match_the_rust_api_bit_for_bit() {
    let dir = packaged_catalog();
    for entry in CATALOG {
        let model = model(entry);
        let path = fmu_path(dir.path(), 2, entry);
        let import: Fmi2Import = fmi::import::from_path(&path).expect("the fmi crate imports the FMU");
        let md = import.model_description();
        assert_eq!(md.guid, entry.token, "{}: GUID", entry.name);
        let de = md.default_experiment.as_ref().expect("DefaultExperiment");
        let (start, stop, h) = experiment(de.start_time, de.stop_time, de.step_size, entry.name);
        let steps = grid(start, stop, h);

        let mut cs = import.instantiate_cs(&format!("import2-{}", entry.name), false, true).expect("instantiate");
        cs.setup_experiment(None, start, Some(stop)).unwrap();
        cs.enter_initialization_mode().unwrap();
        for (vr, ty, value) in inputs(&model) {
            match ty {
                VarType::Real => cs.set_real(&[vr], &[value]).unwrap(),
                _ => cs.set_integer(&[vr], &[value as i32]).unwrap(),
            };
        }
        cs.exit_initialization_mode().unwrap();

        let outs = outputs(&model);
        let record = |cs: &mut fmi::fmi2::instance::InstanceCS| -> Vec<f64> {
            let mut row = Vec::with_capacity(outs.len());
            for &(vr, ty) in &outs {
                if ty == VarType::Real {
                    let mut x = [0.0];
                    cs.get_real(&[vr], &mut x).unwrap();
                    row.push(x[0]);
                } else {
                    let mut i = [0];
                    cs.get_integer(&[vr], &mut i).unwrap();
                    row.push(f64::from(i[0]));
                }
            }
            row
        };
        let mut rows = vec![record(&mut cs)];
        for &(t, h) in &steps {
            cs.do_step(t, h, true).unwrap_or_else(|e| panic!("{}: doStep({t}, {h}): {e:?}", entry.name));
            rows.push(record(&mut cs));
        }
        cs.terminate().unwrap();

        let expected = reference_run(&model, start, stop, &steps);
        assert_identical(&format!("FMI 2 {}", entry.name), &model, &expected, &rows);
    }
}

#[test]
fn fmi3_fmus_match_the_rust_api_bit_for_bit() {
    let dir = packaged_catalog();
    for entry in CATALOG {
        let model = model(entry);
        let path = fmu_path(dir.path(), 3, entry);
        let import = import_fmi3(&path);
        let md = import.model_description();
        assert_eq!(md.instantiation_token, entry.token, "{}: instantiationToken", entry.name);
        let de = md.default_experiment.as_ref().expect("DefaultExperiment");
        let (start, stop, h) = experiment(de.start_time, de.stop_time, de.step_size, entry.name);
        let steps = grid(start, stop, h);

        let name = format!("import3-{}", entry.name);
        let mut cs = import.instantiate_cs(&name, false, true, false, false, &[]).expect("instantiate");
        cs.enter_initialization_mode(None, start, Some(stop)).unwrap();
        for (vr, ty, value) in inputs(&model) {
            match ty {
                VarType::Real => cs.set_float64(&[vr], &[value]).unwrap(),
                VarType::Integer => cs.set_int32(&[vr], &[value as i32]).unwrap(),
                _ => cs.set_int64(&[vr], &[value as i64]).unwrap(),
            };
        }
        cs.exit_initialization_mode().unwrap();

        let outs = outputs(&model);
        let record = |cs: &mut fmi::fmi3::instance::InstanceCS| -> Vec<f64> {
            let mut row = Vec::with_capacity(outs.len());
            for &(vr, ty) in &outs {
                match ty {
                    VarType::Real => {
                        let mut x = [0.0];
                        cs.get_float64(&[vr], &mut x).unwrap();
                        row.push(x[0]);
                    }
                    VarType::Integer => {
                        let mut i = [0i32];
                        cs.get_int32(&[vr], &mut i).unwrap();
                        row.push(f64::from(i[0]));
                    }
                    _ => {
                        let mut i = [0i64];
                        cs.get_int64(&[vr], &mut i).unwrap();
                        row.push(i[0] as f64);
                    }
                }
            }
            row
        };
        let mut rows = vec![record(&mut cs)];
        for &(t, h) in &steps {
            let (mut event, mut terminate, mut early, mut last) = (true, true, true, f64::NAN);
            cs.do_step(t, h, true, &mut event, &mut terminate, &mut early, &mut last)
                .unwrap_or_else(|e| panic!("{}: doStep({t}, {h}): {e:?}", entry.name));
            assert!(!event && !terminate && !early, "{}: no event, termination or early return", entry.name);
            assert_eq!(last.to_bits(), (t + h).to_bits(), "{}: lastSuccessfulTime", entry.name);
            rows.push(record(&mut cs));
        }
        cs.terminate().unwrap();

        let expected = reference_run(&model, start, stop, &steps);
        assert_identical(&format!("FMI 3 {}", entry.name), &model, &expected, &rows);
    }
}
