//! Andrews' squeezing mechanism ([Zhang2022, Sect. 5.1]) as a planar index-3 model: checked
//! against the test set's own relative-angle formulation integrated here, whose accuracy is
//! in turn checked against the published PSIDE solution at t = 0.03 s.

use crate::common;

use common::andrews;
use mbfmu_model::format::Method;

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
                // Angular velocity of bar O-F ([Zhang2022, Figs. 9, 11]), relative to its size.
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
    // dE = E - E0 - T (beta - beta0) ([Zhang2022, eq. 23]) measured on the half-implicit run:
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

/// A run of the squeezer with a method of \[Zhang2022\] at equal cost per stage (dt/n): the angles at
/// t = 0.01, 0.02, 0.03 s and the energy balance dE ([Zhang2022, eq. 23]) sampled every 0.5 ms.
fn andrews_run(method: Method, rho: f64, dt_per_stage: f64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut d = common::catalog("AndrewsSqueezer");
    d.solver.rho_inf = rho;
    let h = dt_per_stage * f64::from(method.implicit_stages());
    let times = common::grid(0.0, 5e-4, 60);
    let mut outputs: Vec<&str> = ANGLES.to_vec();
    outputs.push("energy_balance");
    let out = common::sample(&d, method, h, 1e-12, &times, &outputs);
    let angles = [19, 39, 59].iter().map(|&k| out[k][..7].to_vec()).collect();
    (angles, out.iter().map(|o| o[7]).collect())
}

/// The configurations of [Zhang2022, Sect. 5]: second-order methods with rho_inf 0 and 0.6,
/// higher-order ones with 0.
fn zhang2022_cases() -> Vec<(Method, f64)> {
    let second_order = [
        Method::Lms2,
        Method::Lms3,
        Method::Lms4,
        Method::Ss2,
        Method::Ss3,
        Method::Ss4,
        Method::Bathe,
        Method::Msstc3,
        Method::Msstc4,
        Method::Msstc5,
    ];
    let higher = [
        Method::Mssth3,
        Method::Mssth4,
        Method::Mssth5,
        Method::Esdirk324L2Sa,
        Method::Esdirk325L2Sa,
        Method::Esdirk436L2Sa2,
    ];
    let mut cases: Vec<(Method, f64)> = second_order.iter().flat_map(|&m| [(m, 0.0), (m, 0.6)]).collect();
    cases.extend(higher.iter().map(|&m| (m, 0.0)));
    cases
}

#[test]
fn every_zhang2022_method_agrees_with_the_reference_at_dt_per_stage_1e5() {
    let refs = andrews::reference(&[0.01, 0.02, 0.03], 2e-7);
    for (method, rho) in zhang2022_cases() {
        let (angles, _) = andrews_run(method, rho, 1e-5);
        let worst = angles
            .iter()
            .zip(&refs)
            .flat_map(|(a, r)| a.iter().zip(&r[..7]).map(|(x, y)| (x - y).abs()))
            .fold(0.0, f64::max);
        println!("{method:?} rho {rho}: max angle error {worst:.3e} rad");
        // [Zhang2022, Fig. 11]: at dt/n = 1e-5 every method is accurate; beta travels 16 rad.
        assert!(worst < 1e-2, "{method:?} rho {rho}: angle error {worst:.3e} rad at dt/n = 1e-5");
    }
}

#[test]
fn energy_behaviour_follows_zhang2022_figs_10_and_12() {
    // dE at the end and its largest magnitude, per method, at dt/n = 1e-4 and 1e-5.
    let summary = |dt: f64| -> Vec<(Method, f64, f64, f64)> {
        zhang2022_cases()
            .into_iter()
            .map(|(m, rho)| {
                let (_, de) = andrews_run(m, rho, dt);
                (m, rho, *de.last().unwrap(), de.iter().map(|x| x.abs()).fold(0.0, f64::max))
            })
            .collect()
    };
    let find = |s: &[(Method, f64, f64, f64)], m: Method, rho: f64| *s.iter().find(|c| c.0 == m && c.1 == rho).unwrap();
    for dt in [1e-4, 1e-5] {
        let s = summary(dt);
        for c in &s {
            println!("dt/n {dt:.0e}: {:?} rho {}: dE end {:+.3e} J, max |dE| {:.3e} J", c.0, c.1, c.2, c.3);
        }
        // Fig. 10/12: MSSTH(3), MSSTH(4) and ESDIRK3(2)4L[2]SA gain energy (dE > 0) ...
        for m in [Method::Mssth3, Method::Mssth4, Method::Esdirk324L2Sa] {
            assert!(find(&s, m, 0.0).2 > 0.0, "dt/n {dt}: {m:?} should gain energy");
        }
        // ... while the multistep methods with rho_inf = 0.6 lose the least of all second-order
        // schemes and BDF2-like LMS2 with rho_inf = 0 loses clearly more.
        let lms = [Method::Lms3, Method::Lms4, Method::Ss3, Method::Ss4].map(|m| find(&s, m, 0.6).3);
        let bdf2 = find(&s, Method::Lms2, 0.0).3;
        assert!(
            lms.iter().all(|&e| e < 0.5 * bdf2),
            "dt/n {dt}: |dE| of LMS3/4, SS3/4 (0.6) {lms:?} vs LMS2 (0) {bdf2}"
        );
        // MSSTH(5) shows an obvious energy drop.
        let mssth5 = find(&s, Method::Mssth5, 0.0);
        assert!(mssth5.2 < 0.0 && mssth5.3 > bdf2, "dt/n {dt}: MSSTH(5) dE {:?}", mssth5);
    }
}
