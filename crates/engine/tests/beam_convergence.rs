//! Convergence orders on the flexible rotating shaft (Zhang2022 Sect. 5.4, Figs. 25-27;
//! benches/beam_convergence.rs prints the whole study): relative errors ([Zhang2022, eq. 26]) of the
//! mid-span displacement u3, velocity v3 and acceleration a3 at dt/n = 1/960, 1/1920,
//! 1/3840 s over the first WINDOW seconds of the catalog's RotatingShaft (static start under
//! gravity, spin-up to 48 rad/s), Newton tolerance 1e-12 m.
//!
//! What is asserted, and why (measured here; the bench's table over the whole 2.5 s agrees):
//! - The second-order methods converge at order 2 +- 0.15 in u3 and v3; the multistep and
//!   single-step ones (LMS2-4, SS2-4) and the trapezoidal rule also in a3.
//! - MSSTH(3) and ESDIRK3(2)4L[2]SA converge at order >= 2.8 in u3 (design order 3).
//! - The methods in Runge-Kutta form with an explicit first stage (Bathe, MSSTC, MSSTH, the
//!   ESDIRKs) lose order in a3, to about 1, and the third-order ones in v3, towards 2; both
//!   are asserted as ranges. Cause: their stage order is 2 (the [2] in the Kennedy-Carpenter
//!   names) and the measured node carries an index-3 position constraint: the disk is a rigid
//!   body held on the mid-span node by a fixed joint, and the node's acceleration converges
//!   like that joint's multipliers. Evidence:
//!   - the planar pendulum in Cartesian coordinates (tests/integrators_order_reduction.rs):
//!     with the index-3 constraint these methods give positions and velocities at order 2,
//!     accelerations and multipliers at order 1; with its index-2 form positions and
//!     velocities at 3 (2 for Bathe and MSSTC) and accelerations and multipliers at 2; LMS2,
//!     SS2 and the trapezoidal rule keep order 2 in all four with either form;
//!   - on the shaft, at a node without a constraint (x = 1.5 m, `--node 8` in the bench, 2.5
//!     s), ESDIRK3(2)4L[2]SA and MSSTH(3) converge at order 2.99 in u3 and v3 and 2.7 in a3
//!     (2.9-3.1 against an a3 reference at half the step), Bathe at 2.0 in a3; at the
//!     mid-span node the same runs give a3 orders 0.95 and 0.96-1.2;
//!   - dividing the shaft's axial and shear stiffness by 100 leaves the mid-span a3 errors of
//!     ESDIRK3(2)4L[2]SA (3.0e-2, 1.5e-2, 7.8e-3) and their order (0.96-0.99) unchanged: the
//!     stiff beam modes are not the cause here (they are for ESDIRK4(3)6L[2]SA2's u3 order 3
//!     instead of 4: with that softer beam it shows 3.4-3.9);
//!   - neither is Newton: tolerance 1e-10 instead of 1e-12 changes the errors by RE 3e-12, and
//!     the predictor only chooses where Newton starts, not what it converges to.
//! - \[Zhang2022\]'s model (MBDyn's input) condenses the disk on the node as a body with an offset,
//!   without a joint; that may be why \[Zhang2022\] reports third order for MSSTH(3) and
//!   ESDIRK3(2)4L[2]SA without a reduction in a3. Its remark that the fourth-order methods
//!   lose order at small dt/n, "especially in a3", fits the reference's own error: its
//!   reference method, ESDIRK4(3)6L[2]SA2, converges in the mid-span a3 at order 1.3 here. This
//!   study therefore takes a3 from an LMS4 reference (order 2 in a3).
//! - At still smaller steps the ESDIRK-type positions should fall to order 2 as well (the
//!   pendulum's index-3 order): MSSTH(5), whose higher-order error terms are small, shows only
//!   order 2 in u3 over the bench's steps, and ESDIRK4(3)6L[2]SA2 falls from 3.7 to 2.2
//!   between dt/n = 1/960 and 1/7680 s; for MSSTH(3) and ESDIRK3(2)4L[2]SA the order-2 term
//!   stays invisible down to 1/7680 s (u3 error ratios 2^2.99 to 2^3.00).
//!
//! Run time about 15 s in release on one core.

use crate::shaft;

use mbfmu_model::format::Method;
use shaft::{esdirk4, lms4, relative_error, slope, Study, MID_NODE, QUANTITIES};

/// Length of the simulated interval \[s\]: the spin-up from rest to 48 rad/s, during which the
/// disk's unbalance drives a whirl of the mid-span growing to several centimetres.
const WINDOW: f64 = 0.5;
/// dt/n: 1/960, 1/1920, 1/3840 s.
const COARSEST: f64 = 1.0 / 960.0;
const LEVELS: u32 = 3;

#[derive(Clone, Copy, PartialEq)]
enum Expect {
    /// Order 2 +- 0.15 in u3, v3 and a3.
    Second,
    /// Order 2 +- 0.15 in u3 and v3; a3 between 0.7 and 2.15 (falls towards 1: index-3
    /// reduction; 0.85-1.25 here, 0.9-1.8 over the bench's 2.5 s).
    SecondReducedA,
    /// Order >= 2.8 in u3; v3 between 1.8 and 3.2 (from 3 towards 2: 2.1 here, 2.6 over the
    /// bench's 2.5 s); a3 at order 1 (0.7 to 1.3).
    Third,
}

#[test]
fn mid_span_orders_of_the_rotating_shaft() {
    let study = Study::new(1e-12, MID_NODE, WINDOW);
    let dtn: Vec<f64> = (0..LEVELS).map(|l| COARSEST / f64::from(1u32 << l)).collect();
    // References sampled at every multiple of the coarsest dt/n: u3 by ESDIRK4(3)6L[2]SA2 at
    // dt/n = 1/38400 s (step 1/7680 s; its u3 error, order 3, is below 1e-3 of the
    // third-order methods' smallest), v3 and a3 by LMS4 (0.6) at 1/30720 s (order 2: 1/64 of
    // LMS4's own smallest error, about 1e-6 in v3). With v3 from the ESDIRK4(3)6L[2]SA2 run
    // instead (its v3 error about 2e-6), the v3 errors below change by at most 2 % and the
    // slopes by at most 0.02.
    let fine = 1u32 << (LEVELS - 1);
    let r = study.reference(COARSEST, [esdirk4(2 * fine), lms4(8 * fine), lms4(8 * fine)]).expect("reference");
    let methods: Vec<(Method, f64, Expect)> = vec![
        (Method::Lms2, 0.6, Expect::Second),
        (Method::Lms3, 0.6, Expect::Second),
        (Method::Lms4, 0.6, Expect::Second),
        (Method::Ss2, 0.6, Expect::Second),
        (Method::Ss3, 0.6, Expect::Second),
        (Method::Ss4, 0.6, Expect::Second),
        (Method::Bathe, 0.6, Expect::SecondReducedA),
        (Method::Msstc3, 0.6, Expect::SecondReducedA),
        (Method::Msstc4, 0.6, Expect::SecondReducedA),
        (Method::Msstc5, 0.6, Expect::SecondReducedA),
        (Method::Mssth3, 0.0, Expect::Third),
        (Method::Esdirk324L2Sa, 0.0, Expect::Third),
    ];
    let mut failures = Vec::new();
    for (m, rho, expect) in methods {
        let n = m.implicit_stages();
        let every = f64::from(n) * COARSEST;
        let mut e = vec![Vec::new(); 3];
        for &h in &dtn {
            let run = study.run(m, rho, h, every).unwrap_or_else(|err| panic!("{}: {err}", m.paper_name()));
            for (q, e) in e.iter_mut().enumerate() {
                e.push(relative_error(&run.trace.x[q], &r.trace.x[q], n as usize));
            }
        }
        let p: Vec<f64> = e.iter().map(|e| slope(&dtn, e)).collect();
        let text: Vec<String> = (0..3)
            .map(|q| {
                let errors: Vec<String> = e[q].iter().map(|x| format!("{x:.2e}")).collect();
                format!("{} {} (slope {:.2})", QUANTITIES[q], errors.join(" "), p[q])
            })
            .collect();
        println!("{:<18} rho {rho:.1}: {}", m.paper_name(), text.join(", "));
        let within = |x: f64, lo: f64, hi: f64| (lo..=hi).contains(&x);
        let ok = match expect {
            Expect::Second => p.iter().all(|&x| within(x, 1.85, 2.15)),
            Expect::SecondReducedA => within(p[0], 1.85, 2.15) && within(p[1], 1.85, 2.15) && within(p[2], 0.7, 2.15),
            Expect::Third => p[0] >= 2.8 && within(p[1], 1.8, 3.2) && within(p[2], 0.7, 1.3),
        };
        if !ok {
            failures.push(format!("{}: slopes u3 {:.2}, v3 {:.2}, a3 {:.2}", m.paper_name(), p[0], p[1], p[2]));
        }
    }
    assert!(failures.is_empty(), "orders outside the expected ranges:\n{}", failures.join("\n"));
}
