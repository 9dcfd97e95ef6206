//! The planar kernels of the index-3 half-implicit step against the spatial ones: on every catalog model whose bodies move in one plane, one step from each state
//! of a spatial trajectory gives the same positions, rotations, velocities, accelerations,
//! multipliers, joint angles and Newton iterations with either kernel, to 1e-12.
//!
//! Everything is compared in the units of the step's unknowns ([Fang2023, eq. 6]): positions,
//! rotations, theta = h w and lambda_hat = h^2 lambda, which the Newton iteration determines
//! as one vector (its convergence test scales them together). Velocities and accelerations
//! are differences of positions over h and h^2 (Eqs. 4a-4d), so a round-off difference of the
//! positions reappears in them divided by h and h^2: they are compared as h v and h^2 a, and
//! rotation rates as h w and h^2 w'. The multipliers themselves agree to round-off relative
//! to the conditioning of the Schur complement (printed).

use mbfmu_engine::index3::{HalfImplicit, MechState, Mechanism};
use mbfmu_engine::integrators::NewtonSettings;
use mbfmu_model::format;

/// The catalog models the detection must find planar, and spatial ones it must not.
const PLANAR: [&str; 8] = [
    "DoublePendulum",
    "AndrewsSqueezer",
    "HydraulicFourBar",
    "HydraulicFourBarMechanism",
    "HydraulicQuickReturn",
    "PatuLiftBoom",
    "StiffDoublePendulum",
    "StiffDoublePendulumSpin",
];
const SPATIAL: [&str; 5] = ["NLinkChain4", "NLinkChain32", "FourLink", "SliderCrank", "SliderCrankFriction"];

/// Largest |a - b| over `scale` (at least 1).
fn difference<'a>(a: impl Iterator<Item = &'a f64>, b: impl Iterator<Item = &'a f64>, scale: f64) -> f64 {
    a.zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / scale.max(1.0)
}

/// The largest scaled difference between two states after a step of size `h`, and which
/// quantity it is in.
fn compare(p: &MechState, s: &MechState, h: f64) -> (f64, &'static str) {
    let length = s.bodies.iter().flat_map(|b| b.r.iter()).fold(0.0f64, |m, x| m.max(x.abs()));
    let scaled = |f: fn(&mbfmu_engine::index3::BodyState) -> [f64; 3], k: f64| {
        let a: Vec<f64> = p.bodies.iter().flat_map(|b| f(b).map(|x| x * k)).collect();
        let b: Vec<f64> = s.bodies.iter().flat_map(|b| f(b).map(|x| x * k)).collect();
        (a, b)
    };
    let mut worst = (0.0, "");
    let mut check = |what: &'static str, d: f64| {
        if d > worst.0 {
            worst = (d, what);
        }
    };
    for (what, f, k) in [
        ("position", (|b: &mbfmu_engine::index3::BodyState| b.r.into()) as fn(&_) -> [f64; 3], 1.0),
        ("h velocity", |b| b.v.into(), h),
        ("h^2 acceleration", |b| b.acc.into(), h * h),
    ] {
        let (a, b) = scaled(f, k);
        check(what, difference(a.iter(), b.iter(), length));
    }
    for (what, f, k) in [
        ("h angular velocity", (|b: &mbfmu_engine::index3::BodyState| b.w.into()) as fn(&_) -> [f64; 3], h),
        ("h^2 angular acceleration", |b| b.wdot.into(), h * h),
    ] {
        let (a, b) = scaled(f, k);
        check(what, difference(a.iter(), b.iter(), 1.0));
    }
    let rot = |m: &MechState| m.bodies.iter().flat_map(|b| b.rot.iter().copied()).collect::<Vec<f64>>();
    check("rotation", difference(rot(p).iter(), rot(s).iter(), 1.0));
    let hh = |m: &MechState| m.lambda.iter().map(|l| l * h * h).collect::<Vec<f64>>();
    check("h^2 multipliers", difference(hh(p).iter(), hh(s).iter(), length));
    check("joint angles", difference(p.angles.iter(), s.angles.iter(), 1.0));
    check("drives", difference(p.drive_values.iter(), s.drive_values.iter(), 1.0));
    (worst.0, worst.1)
}

#[test]
fn planar_and_spatial_kernels_take_the_same_steps() {
    let mut planar_models = Vec::new();
    for entry in mbfmu_model::catalog::CATALOG {
        let d = format::parse(entry.json).expect("catalog models parse");
        let m = Mechanism::from_description(&d).expect("catalog mechanisms compile");
        let mut state = m.initial.clone();
        m.assemble(&mut state).expect("catalog mechanisms assemble");
        let mut planar = HalfImplicit::new(&m, &state);
        if SPATIAL.contains(&entry.name) {
            assert!(!planar.is_planar(), "{} is spatial", entry.name);
        }
        if !planar.is_planar() {
            continue;
        }
        planar_models.push(entry.name);
        let mut spatial = HalfImplicit::spatial(&m, &state);
        assert!(!spatial.is_planar());
        let newton = NewtonSettings { tolerance: d.solver.tolerance, max_iterations: d.solver.max_iterations };
        // The model's step, at most 1 ms; the stiff springs need short steps with the
        // explicit forces of the method.
        let h = if entry.name.starts_with("Stiff") { 1e-5 } else { d.solver.step_size.min(1e-3) };
        let (mut worst, mut multipliers) = ((0.0, ""), 0.0f64);
        for step in 0..200 {
            let (mut p, mut s) = (state.clone(), state.clone());
            let rp = planar.step(&m, &mut p, h, &newton);
            let rs = spatial.step(&m, &mut s, h, &newton);
            match (rp, rs) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{} step {step}: Newton iterations", entry.name),
                (a, b) => panic!("{} step {step}: planar {a:?}, spatial {b:?}", entry.name),
            }
            let (d, what) = compare(&p, &s, h);
            if d > worst.0 {
                worst = (d, what);
            }
            assert!(d <= 1e-12, "{} step {step}: {what} differs by {d:e} (scaled)", entry.name);
            let force = s.lambda.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            multipliers = multipliers.max(difference(p.lambda.iter(), s.lambda.iter(), force));
            state = s;
        }
        println!(
            "{}: largest scaled difference {:.1e} ({}); multipliers relative to the largest {:.1e}",
            entry.name, worst.0, worst.1, multipliers
        );
    }
    for name in PLANAR {
        assert!(planar_models.contains(&name), "{name} is planar; planar models found: {planar_models:?}");
    }
}

/// What makes the double pendulum spatial keeps the spatial kernels: a product of inertia
/// coupling the rotation about n with the others, gravity along n, a joint point off the
/// plane of the centres of mass (its reactions then have moments about in-plane axes).
#[test]
fn spatial_variants_of_the_double_pendulum_keep_the_spatial_kernels() {
    let base =
        format::parse(mbfmu_model::catalog::find("DoublePendulum").expect("catalog model").json).expect("parses");
    let planar = |d: &format::Description| {
        let m = Mechanism::from_description(d).expect("compiles");
        let mut state = m.initial.clone();
        m.assemble(&mut state).expect("assembles");
        HalfImplicit::new(&m, &state).is_planar()
    };
    assert!(planar(&base));
    let mut d = base.clone();
    d.bodies[1].inertia = format::Inertia::Full([[0.01625, 0.0, 0.01], [0.0, 13.008125, 0.0], [0.01, 0.0, 13.008125]]);
    assert!(!planar(&d), "product of inertia");
    let mut d = base.clone();
    d.gravity = [1.0, 0.0, -9.81];
    assert!(!planar(&d), "gravity along n");
    let mut d = base.clone();
    d.joints[1].point = Some([0.3, 4.0, 0.0]);
    assert!(!planar(&d), "joint point off the plane");
}
