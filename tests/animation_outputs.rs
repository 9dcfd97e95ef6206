//! The animation outputs through the C ABI, as the 3D replay reads them: DoublePendulum's
//! bodies at the start time are where its description puts them (position and orientation),
//! and their orientation quaternions stay unit quaternions with e0 >= 0 over the default
//! experiment.

use crate::common_fmu;

use common_fmu::abi::*;
use common_fmu::*;
use mbfmu_model::catalog::find;
use mbfmu_model::format::{AnimationPart, Orientation, OutputSpec};

/// The rotation matrix (body to global) of the unit quaternion e.
fn rotation(e: [f64; 4]) -> [[f64; 3]; 3] {
    let [e0, e1, e2, e3] = e;
    [
        [e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3, 2.0 * (e1 * e2 - e0 * e3), 2.0 * (e1 * e3 + e0 * e2)],
        [2.0 * (e1 * e2 + e0 * e3), e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 - e0 * e1)],
        [2.0 * (e1 * e3 - e0 * e2), 2.0 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3],
    ]
}

#[test]
fn double_pendulum_bodies_start_where_the_description_puts_them_with_unit_quaternions() {
    let entry = find("DoublePendulum").unwrap();
    let model = model(entry);
    let d = &model.description;
    assert!(
        d.interface.outputs.contains(&OutputSpec::Animation { animation: vec![AnimationPart::Bodies] }),
        "the catalog model declares the animation group"
    );
    let vr = |name: &str| var(&model, name).value_reference;
    // Per body: the position's and the orientation's value references.
    let bodies: Vec<([u32; 3], [u32; 4])> = d
        .bodies
        .iter()
        .map(|b| {
            let position = ["x", "y", "z"].map(|a| vr(&format!("{}.position.{a}", b.name)));
            let orientation = [0, 1, 2, 3].map(|c| vr(&format!("{}.orientation.e{c}", b.name)));
            (position, orientation)
        })
        .collect();
    let read = |f: &Fmu3, vrs: &[u32]| -> Vec<f64> {
        vrs.iter()
            .map(|&r| {
                let (status, x) = f.get_f64(r);
                assert_eq!(status, OK3, "{:?}", f.log.lines());
                x
            })
            .collect()
    };
    let (start, stop, h) = experiment(&model);
    let f = Fmu3::new(entry, "animation3");
    f.init(start, stop);
    for (b, (position, orientation)) in d.bodies.iter().zip(&bodies) {
        let r = read(&f, position);
        for axis in 0..3 {
            assert!((r[axis] - b.position[axis]).abs() <= 1e-12, "{}: position {r:?} at the start", b.name);
        }
        let e: [f64; 4] = read(&f, orientation).try_into().unwrap();
        let Orientation::Matrix(a) = b.orientation else { panic!("DoublePendulum gives rotation matrices") };
        let from_outputs = rotation(e);
        for (row, expected) in from_outputs.iter().zip(&a) {
            for (x, y) in row.iter().zip(expected) {
                assert!((x - y).abs() <= 1e-12, "{}: orientation {e:?} is not the description's {a:?}", b.name);
            }
        }
    }
    let steps = ((stop - start) / h).round() as usize;
    let mut t = start;
    let mut moved = 0.0f64;
    for _ in 0..steps {
        assert_eq!(f.do_step(t, h).0, OK3, "{:?}", f.log.lines());
        t += h;
        for (b, (position, orientation)) in d.bodies.iter().zip(&bodies) {
            let e = read(&f, orientation);
            let norm = e.iter().map(|x| x * x).sum::<f64>().sqrt();
            assert!((norm - 1.0).abs() <= 1e-12, "{}: |e| = {norm} at t = {t}", b.name);
            assert!(e[0] >= 0.0, "{}: e0 = {} < 0 at t = {t}", b.name, e[0]);
            let r = read(&f, position);
            moved = moved.max((0..3).map(|k| (r[k] - b.position[k]).abs()).fold(0.0, f64::max));
        }
    }
    assert!(moved > 1.0, "the pendulum swings (largest displacement {moved} m)");
}
