//! Andrews' squeezing mechanism (seed 000 Sect. 5.1) as a planar index-3 model: checked
//! against the test set's own relative-angle formulation integrated here, whose accuracy is
//! in turn checked against the published PSIDE solution at t = 0.03 s.

mod common;

use common::andrews;
use mbfmu::description::Method;

/// The seven test-set angles as outputs of the catalog model (joint coordinates).
const ANGLES: [&str; 7] = ["O.angle", "F.angle", "B.angle", "G.angle", "A_AG.angle", "H.angle", "A_AH.angle"];

#[test]
fn the_reference_reproduces_the_published_solution() {
    let y = andrews::reference(&[0.03], 2e-7)[0];
    for (k, (a, b)) in y.iter().zip(&andrews::PSIDE_003).enumerate() {
        assert!((a - b).abs() <= 1e-7 * (1.0 + b.abs()), "component {k}: {a} vs published {b}");
    }
}

#[test]
fn the_planar_index3_model_converges_to_the_reference() {
    let d = common::catalog("AndrewsSqueezer");
    let times = [0.01, 0.02, 0.03];
    let refs = andrews::reference(&times, 2e-7);
    let mut outputs: Vec<&str> = ANGLES.to_vec();
    outputs.push("O.angle_rate");
    for method in [Method::HalfImplicit, Method::Bdf1] {
        let mut worst = Vec::new();
        for h in [2e-6, 1e-6] {
            let out = common::sample(&d, method, h, 1e-12, &times, &outputs);
            let mut e = 0.0f64;
            for (o, r) in out.iter().zip(&refs) {
                for k in 0..7 {
                    e = e.max((o[k] - r[k]).abs());
                }
                // Angular velocity of bar O-F (seed 000 Figs. 9, 11), relative to its size.
                e = e.max((o[7] - r[7]).abs() / 1e3);
            }
            worst.push(e);
        }
        println!("{method:?}: max angle error {:.3e} (h = 2e-6), {:.3e} (h = 1e-6)", worst[0], worst[1]);
        // Backward Euler's numerical damping costs accuracy on this fast mechanism (the
        // angles turn by 16 rad in 0.03 s); both converge at first order.
        let bound = if method == Method::HalfImplicit { 2e-3 } else { 0.2 };
        assert!(worst[1] < bound, "{method:?}: error {:.3e} rad at h = 1e-6", worst[1]);
        let ratio = worst[0] / worst[1];
        assert!((1.7..2.3).contains(&ratio), "{method:?}: first-order convergence expected, ratio {ratio}");
    }
}

#[test]
fn the_energy_balance_is_exact_for_the_exact_solution_and_small_for_half_implicit() {
    // dE = E - E0 - T (beta - beta0) (seed 000 eq. 23) measured on the half-implicit run:
    // it converges to zero with the step size.
    let d = common::catalog("AndrewsSqueezer");
    let de: Vec<f64> = [4e-6, 2e-6, 1e-6]
        .iter()
        .map(|&h| {
            common::sample(&d, Method::HalfImplicit, h, 1e-12, &common::grid(0.0, 1e-3, 30), &["energy_balance"])
                .iter()
                .map(|o| o[0].abs())
                .fold(0.0, f64::max)
        })
        .collect();
    println!("max |dE| over [0, 0.03] s: {de:?}");
    assert!(de[2] < de[1] && de[1] < de[0], "dE shrinks with h: {de:?}");
    assert!(de[2] < 1e-3, "dE {:.3e} J at h = 1e-6", de[2]);
}
