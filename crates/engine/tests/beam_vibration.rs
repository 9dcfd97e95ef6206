//! Free vibration of a clamped-free beam through the real engine: the first
//! bending, torsion and axial natural frequencies against their closed forms, and the energy
//! of undamped and damped free vibration.
//!
//! Each run starts from the static equilibrium under loads on FMU inputs (`static_start`),
//! sets the inputs to zero and integrates with the trapezoidal rule. The loads are the lumped
//! model's mass matrix times its first mode (computed here: in closed form for torsion and
//! axial motion, by inverse iteration for bending), so the released beam vibrates in that mode
//! alone and its frequency is read from the zero crossings of the tip motion.
//!
//! The descriptions integrate with SS2 at rho_inf = 1 ([Zhang2022, Sect. 2.2]): no
//! algorithmic dissipation and, on a linear oscillator, the trapezoidal rule's amplification
//! factor (LMS2 at rho_inf = 1 is two trapezoidal steps, its characteristic polynomial that of
//! the trapezoidal rule times (zeta + 1)); the trapezoidal rule itself is refused for index-3
//! descriptions (`Method::refusal`). "The trapezoidal rule" below is this method.

use mbfmu_engine::Simulation;
use mbfmu_model::format::{parse, Quantity};
use nalgebra::{DMatrix, DVector};
use serde_json::json;
use std::f64::consts::PI;

/// Section of the test beam (length 1 m, clamped at x = 0, free at x = 1): bending
/// EI2 = EI3 = 1, m = 1 (Euler-Bernoulli omega1 = 1.8751^2 = 3.516 rad/s), torsion GJ = 1,
/// J11 = 1 (pi/2 rad/s), axial EA = 10 (pi/2 sqrt(10) = 4.967 rad/s). GA = 1e6 makes the
/// shear correction of the bending frequency ~1e-6, and J22 = J33 = 1e-6 the section's rotary
/// inertia (Rayleigh's correction) as small; the lumped rotary inertia m (h/2)^3/3 of each
/// half element is part of the O(h^2) discretization error.
const EA: f64 = 10.0;
const GA: f64 = 1e7;
const GJ: f64 = 1.0;
const EI: f64 = 1.0;
const M: f64 = 1.0;
const J11: f64 = 1.0;
const J22: f64 = 1e-7;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Bending,
    Torsion,
    Axial,
}

/// beta L of the first bending mode of a clamped-free Euler-Bernoulli beam: the first root of
/// 1 + cos(b) cosh(b) = 0 (Timoshenko, Young & Weaver, Vibration Problems in Engineering,
/// 4th ed. 1974, Sect. 5.3; Blevins, Formulas for Natural Frequency and Mode Shape, 1979,
/// Table 8-1: 1.87510407), by Newton's method.
fn cantilever_root() -> f64 {
    let mut b: f64 = 1.9;
    for _ in 0..50 {
        let f = 1.0 + b.cos() * b.cosh();
        let df = -b.sin() * b.cosh() + b.cos() * b.sinh();
        b -= f / df;
    }
    b
}

/// Closed-form first natural frequencies of the clamped-free continuum [rad/s]: Euler-Bernoulli
/// bending (beta L)^2 sqrt(EI / (m L^4)), and the wave equations of torsion and axial motion
/// (pi / 2) sqrt(GJ / (J11 L^2)), (pi / 2) sqrt(EA / (m L^2)) (Timoshenko, Young & Weaver 1974,
/// Sects. 5.3, 5.6 and 5.1).
fn continuum_frequency(mode: Mode) -> f64 {
    match mode {
        Mode::Bending => cantilever_root().powi(2) * (EI / M).sqrt(),
        Mode::Torsion => 0.5 * PI * (GJ / J11).sqrt(),
        Mode::Axial => 0.5 * PI * (EA / M).sqrt(),
    }
}

/// The lumped model of n elements (each element's half mass m h/2 and half section inertia
/// J h/2 on each end node, plus m (h/2)^3/3 of rotary inertia about the bending axes, as
/// compile_beams documents), solved in closed form where it has one: torsion and axial motion
/// are a fixed-free chain of n equal springs with masses c h (c h / 2 at the free end), whose
/// first mode is sin(j theta) at node j with cos(n theta) = 0 (the continuous mode sampled at
/// the nodes) and first frequency (2 / h) sqrt(k / (c h)) sin(pi / (4 n)) with k h = GJ or EA.
fn discrete_frequency(mode: Mode, n: usize) -> f64 {
    let h = 1.0 / n as f64;
    let chain = |stiffness: f64, density: f64| 2.0 / h * (stiffness / density).sqrt() * (PI / (4.0 * n as f64)).sin();
    match mode {
        Mode::Torsion => chain(GJ, J11),
        Mode::Axial => chain(EA, M),
        Mode::Bending => discrete_bending(n).0,
    }
}

/// Bending of the lumped model: two-node Timoshenko elements with one-point quadrature
/// (strains (w_b - w_a)/h + (theta_a + theta_b)/2 and (theta_b - theta_a)/h with w along z
/// and theta about y; T. J. R. Hughes, The Finite Element Method, 1987, Sect. 5.4) and the
/// lumped masses above. Returns the first frequency and its mode: the generalized loads
/// M x (force along z, moment about y at nodes 1..=n) of the mode x, scaled to a unit tip
/// deflection, by inverse iteration.
fn discrete_bending(n: usize) -> (f64, Vec<[f64; 2]>) {
    let h = 1.0 / n as f64;
    // Unknowns (w_i, theta_i) of nodes 1..=n (node 0 clamped).
    let size = 2 * n;
    let mut k = DMatrix::<f64>::zeros(size, size);
    let mut mass = DVector::<f64>::zeros(size);
    let half = 0.5 * h;
    for e in 0..n {
        let bg = [-1.0 / h, 0.5, 1.0 / h, 0.5];
        let bk = [0.0, -1.0 / h, 0.0, 1.0 / h];
        let dofs: [Option<usize>; 4] = if e == 0 {
            [None, None, Some(0), Some(1)]
        } else {
            [Some(2 * e - 2), Some(2 * e - 1), Some(2 * e), Some(2 * e + 1)]
        };
        for r in 0..4 {
            for c in 0..4 {
                if let (Some(i), Some(j)) = (dofs[r], dofs[c]) {
                    k[(i, j)] += h * (GA * bg[r] * bg[c] + EI * bk[r] * bk[c]);
                }
            }
        }
        for node in [e, e + 1] {
            if node > 0 {
                mass[2 * node - 2] += M * half;
                mass[2 * node - 1] += J22 * half + M * half.powi(3) / 3.0;
            }
        }
    }
    let chol = k.clone().cholesky().expect("clamped stiffness is positive definite");
    let mut x = DVector::from_element(size, 1.0);
    let mut lambda = 0.0;
    for _ in 0..100 {
        x = chol.solve(&mass.component_mul(&x));
        x /= x[size - 2];
        lambda = x.dot(&(&k * &x)) / x.dot(&mass.component_mul(&x));
    }
    let loads = mass.component_mul(&x);
    (lambda.sqrt(), (0..n).map(|i| [loads[2 * i], loads[2 * i + 1]]).collect())
}

/// A clamped-free beam of `n` elements along x with the section above, stiffness-proportional
/// damping `beta`, and on each free node the generalized load of the lumped model's first mode
/// (mass times mode: forces along z and moments about y in bending, moments about x in
/// torsion, forces along x in axial motion) times `amplitude`, held by FMU inputs.
fn beam_model(mode: Mode, n: usize, amplitude: f64, h: f64, beta: f64) -> String {
    let step = 1.0 / n as f64;
    let bending = discrete_bending(n).1;
    let mut forces = Vec::new();
    let mut inputs = Vec::new();
    for i in 1..=n {
        let body = format!("beam.node{i}");
        let share = if i == n { 0.5 * step } else { step };
        let chain = (0.5 * PI * i as f64 * step).sin();
        let loads = match mode {
            Mode::Bending => vec![("force", [0, 0, 1], bending[i - 1][0]), ("torque", [0, 1, 0], bending[i - 1][1])],
            Mode::Torsion => vec![("torque", [1, 0, 0], J11 * share * chain)],
            Mode::Axial => vec![("force", [1, 0, 0], M * share * chain)],
        };
        for (k, (kind, direction, value)) in loads.into_iter().enumerate() {
            let name = format!("load{i}_{k}");
            let key = if kind == "force" { "direction" } else { "axis" };
            forces.push(json!({"type": kind, "name": name, "body": body, key: direction, "input": name}));
            inputs.push(json!({"name": name, "start": amplitude * value}));
        }
    }
    json!({
        "name": "FreeVibration",
        "bodies": [],
        "beams": [{
            "name": "beam", "points": [[0, 0, 0], [1, 0, 0]], "elements": n, "axis2": [0, 1, 0],
            "section": {
                "axial_stiffness": EA, "shear_stiffness": [GA, GA], "torsional_stiffness": GJ,
                "bending_stiffness": [EI, EI], "mass_per_length": M, "inertia_per_length": [J11, J22, J22]
            },
            "damping": beta
        }],
        "joints": [{"name": "clamp", "type": "fixed", "body1": "ground", "body2": "beam.start", "point": [0, 0, 0]}],
        "forces": forces,
        "interface": {"inputs": inputs},
        "static_start": true,
        "experiment": {"stop": 10.0, "step": h},
        "solver": {"method": "ss2", "rho_inf": 1.0, "step_size": h, "tolerance": 1e-12}
    })
    .to_string()
}

/// The tip coordinate that vibrates in `mode`.
fn tip_signal(mode: Mode, n: usize) -> Quantity {
    match mode {
        Mode::Bending => Quantity::NodeDisplacement { node: n, axis: 2 },
        Mode::Torsion => Quantity::NodeRotation { node: n, axis: 0 },
        Mode::Axial => Quantity::NodeDisplacement { node: n, axis: 0 },
    }
}

/// Releases the loads of a statically loaded beam and samples `signals` after every step of
/// `steps` steps (the first row: the released state at t = 0).
fn free_vibration(json: &str, signals: &[Quantity], h: f64, steps: usize) -> Vec<Vec<f64>> {
    let d = parse(json).expect("valid beam model");
    let mut sim = Simulation::new(&d).expect("static equilibrium");
    let zeros = vec![0.0; d.interface.inputs.len()];
    sim.set_inputs(&zeros).unwrap();
    let mut out = Vec::with_capacity(steps + 1);
    out.push(signals.iter().map(|q| sim.quantity(*q)).collect());
    for k in 1..=steps {
        sim.advance_to(k as f64 * h).unwrap_or_else(|e| panic!("step {k}: {e}"));
        out.push(signals.iter().map(|q| sim.quantity(*q)).collect());
    }
    out
}

/// Angular frequency of a sampled oscillation (sample spacing h): the zero crossings, each
/// located by the cubic through the four samples around it, give the half period as the
/// least-squares slope of crossing time against crossing number.
fn crossing_frequency(samples: &[f64], h: f64) -> f64 {
    let mut times = Vec::new();
    for k in 1..samples.len().saturating_sub(2) {
        if samples[k] == 0.0 || (samples[k] > 0.0) == (samples[k + 1] > 0.0) {
            continue;
        }
        let nodes = [k - 1, k, k + 1, k + 2];
        let cubic = |t: f64| {
            nodes
                .iter()
                .map(|&i| {
                    let basis: f64 =
                        nodes.iter().filter(|&&j| j != i).map(|&j| (t - j as f64) / (i as f64 - j as f64)).product();
                    samples[i] * basis
                })
                .sum::<f64>()
        };
        let (mut lo, mut hi) = (k as f64, k as f64 + 1.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if (cubic(mid) > 0.0) == (samples[k] > 0.0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        times.push(0.5 * (lo + hi) * h);
    }
    assert!(times.len() >= 4, "only {} zero crossings", times.len());
    let count = times.len() as f64;
    let mean_j = (count - 1.0) / 2.0;
    let mean_t = times.iter().sum::<f64>() / count;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (j, t) in times.iter().enumerate() {
        sxy += (j as f64 - mean_j) * (t - mean_t);
        sxx += (j as f64 - mean_j).powi(2);
    }
    PI / (sxy / sxx)
}

/// The frequency the trapezoidal rule gives an undamped linear oscillator of frequency omega
/// is Omega = (2 / h) atan(omega h / 2) (its period elongation; Hughes 1987, Sect. 9.3); the
/// inverse maps a measured Omega back to the frequency of the semi-discrete system.
fn undo_period_elongation(measured: f64, h: f64) -> f64 {
    2.0 / h * (0.5 * measured * h).tan()
}

/// The first natural frequency of the n-element beam in `mode`, measured through the engine
/// over `periods` periods at 200 steps per period.
fn engine_frequency(mode: Mode, n: usize, periods: f64) -> f64 {
    let omega = continuum_frequency(mode);
    let h = 2.0 * PI / omega / 200.0;
    let steps = (periods * 200.0).round() as usize;
    // Amplitudes: tip deflection ~1e-4 (bending, whose frequency depends on the amplitude at
    // second order), ~1e-2 (torsion and axial motion of a straight beam are linear).
    let lumped = discrete_frequency(mode, n);
    let amplitude = match mode {
        Mode::Bending => 1e-4 * lumped * lumped,
        Mode::Torsion | Mode::Axial => 1e-2 * lumped * lumped,
    };
    let out = free_vibration(&beam_model(mode, n, amplitude, h, 0.0), &[tip_signal(mode, n)], h, steps);
    let signal: Vec<f64> = out.iter().map(|o| o[0]).collect();
    undo_period_elongation(crossing_frequency(&signal, h), h)
}

#[test]
fn lumped_models_converge_to_the_continuum() {
    assert!((cantilever_root() - 1.87510407).abs() < 5e-9, "{}", cantilever_root());
    for mode in [Mode::Bending, Mode::Torsion, Mode::Axial] {
        let exact = continuum_frequency(mode);
        let errors: Vec<f64> = [8, 16, 32, 64].iter().map(|&n| discrete_frequency(mode, n) / exact - 1.0).collect();
        let rates: Vec<f64> = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
        let shown: Vec<String> = errors.iter().map(|e| format!("{e:.3e}")).collect();
        eprintln!("{mode:?}: lumped-model relative frequency errors (8-64 elements) {shown:?}, rates {rates:.3?}");
        for r in rates {
            assert!((r - 2.0).abs() < 0.05, "{mode:?}: {errors:?}");
        }
    }
}

/// First bending, torsion and axial frequencies measured from free vibration of 4, 8, 16 and
/// 32 element beams (the trapezoidal rule's period elongation undone): equal to the lumped
/// model's own frequency (measured: bending within 1.2e-8, torsion and axial within 4e-12),
/// and so converging as h^2 to the closed forms of the continuum (relative errors at 32
/// elements: bending -4.5e-4, torsion and axial -1.0e-4; rates 1.98-2.00).
#[test]
fn first_natural_frequencies_match_the_closed_forms() {
    let meshes = [4, 8, 16, 32];
    for mode in [Mode::Bending, Mode::Torsion, Mode::Axial] {
        let exact = continuum_frequency(mode);
        let mut errors = Vec::new();
        for n in meshes {
            let measured = engine_frequency(mode, n, 4.0);
            let discrete = discrete_frequency(mode, n);
            let error = measured / exact - 1.0;
            eprintln!(
                "{mode:?}, {n:2} elements: omega {measured:.9} rad/s (continuum {exact:.9}, error {error:.3e}; lumped model {discrete:.9}, engine vs lumped {:.2e})",
                measured / discrete - 1.0
            );
            // Torsion and axial motion of a straight beam are linear: the engine reproduces the
            // chain to round-off; bending at a tip amplitude of 1e-4 L to its (1e-4)^2
            // geometric nonlinearity.
            let agreement = if mode == Mode::Bending { 5e-8 } else { 1e-10 };
            assert!(
                (measured / discrete - 1.0).abs() < agreement,
                "{mode:?}, {n} elements: {measured} vs lumped {discrete}"
            );
            errors.push(error);
        }
        let rates: Vec<f64> = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
        eprintln!("{mode:?}: convergence rates {rates:.3?}");
        assert!(errors[3].abs() < 1e-3, "{mode:?}: 32 elements off by {:.3e}", errors[3]);
        for r in &rates[1..] {
            assert!((r - 2.0).abs() < 0.1, "{mode:?}: rates {rates:?}");
        }
    }
}

/// Energy of the released bending vibration of an 8-element beam over two periods at
/// `per_period` trapezoidal steps per period, tip amplitude `tip`, damping `beta`: the total
/// energy and the energy balance (E - E0 - W) at each step.
fn energy_history(tip: f64, per_period: f64, beta: f64) -> Vec<[f64; 2]> {
    let n = 8;
    let lumped = discrete_frequency(Mode::Bending, n);
    let h = 2.0 * PI / lumped / per_period;
    let steps = (2.0 * per_period).round() as usize;
    let json = beam_model(Mode::Bending, n, tip * lumped * lumped, h, beta);
    free_vibration(&json, &[Quantity::TotalEnergy, Quantity::EnergyBalance], h, steps)
        .into_iter()
        .map(|o| [o[0], o[1]])
        .collect()
}

/// Largest |E_k - E_1| / E_1 over the steps k >= 1. The first step is left out: the loads
/// drop to zero at t = 0, and the trapezoidal rule starts from the accelerations of the loaded
/// equilibrium (zero), so over the first step it sees the mean of the old and the new load and
/// loses (omega h)^2 / 4 of the energy (measured: 2.47e-4 at 200 steps per period), which the
/// work of the held (zero) input does not book.
fn deviation_after_first_step(history: &[[f64; 2]]) -> f64 {
    let e1 = history[1][0];
    history[1..].iter().map(|o| (o[0] - e1).abs()).fold(0.0, f64::max) / e1
}

/// Undamped free vibration, trapezoidal rule (no algorithmic dissipation, Newton tolerance
/// 1e-12 m): at a tip amplitude of 1e-3 L (linear regime) the total energy stays within 1e-9
/// of its value (measured 1.0e-10 at 200 steps per period). The trapezoidal rule conserves the
/// energy of linear systems exactly; the geometric nonlinearity leaves a bounded deviation of
/// order (omega h)^2 (tip / L)^2, not of the Newton tolerance (Simo & Tarnow, "The discrete energy-momentum method",
/// ZAMP 43 (1992) 757-792, Sect. 1: the trapezoidal rule is not energy conserving for
/// nonlinear elastodynamics): at a tip amplitude of 0.1 L it is 9.9e-7 and falls fourfold when
/// h halves. The energy balance output equals the energy change (no external work).
#[test]
fn undamped_free_vibration_conserves_energy() {
    let small = energy_history(1e-3, 200.0, 0.0);
    let deviation = deviation_after_first_step(&small);
    let first = (small[1][0] - small[0][0]) / small[0][0];
    eprintln!(
        "tip 1e-3 L, 200 steps/period: energy lost in the first step {first:.3e}, then max deviation {deviation:.3e}"
    );
    let expected_first = -(2.0 * PI / 200.0f64).powi(2) / 4.0;
    assert!((first / expected_first - 1.0).abs() < 0.02, "first step {first} vs {expected_first}");
    assert!(deviation < 1e-9, "energy deviation {deviation:.3e}");
    for o in &small {
        assert!((o[1] - (o[0] - small[0][0])).abs() < 1e-12 * small[0][0], "energy balance {} vs {}", o[1], o[0]);
    }
    let coarse = deviation_after_first_step(&energy_history(0.1, 200.0, 0.0));
    let fine = deviation_after_first_step(&energy_history(0.1, 400.0, 0.0));
    eprintln!(
        "tip 0.1 L: max energy deviation {coarse:.3e} (200 steps/period), {fine:.3e} (400), ratio {:.2}",
        coarse / fine
    );
    assert!(coarse < 2e-6 && (3.5..4.5).contains(&(coarse / fine)), "{coarse:.3e} {fine:.3e}");
}

/// Stiffness-proportional damping beta = 2 zeta1 / omega1 with zeta1 = 2 % (the first mode's
/// damping ratio, Clough & Penzien, Dynamics of Structures, 1975, Sect. 13-3): the total
/// energy falls at every step and by exp(-4 pi zeta1) per period, and the energy balance
/// E - E0 - W stays small against the dissipated energy: the booked dissipation (the
/// trapezoidal quadrature of L beta eps'^T C eps' at the step ends) differs from the
/// trapezoidal rule's own (at the mid-step rates) by O((omega h)^2), measured 3.1e-4 of the
/// dissipated energy at 200 steps per period and 7.8e-5 at 400.
#[test]
fn damped_free_vibration_dissipates_monotonically_and_books_the_work() {
    let zeta = 0.02;
    let omega = discrete_frequency(Mode::Bending, 8);
    let beta = 2.0 * zeta / omega;
    let mut balances = Vec::new();
    for per_period in [200usize, 400] {
        let history = energy_history(0.01, per_period as f64, beta);
        let e1 = history[1][0];
        let mut worst_balance = 0.0f64;
        for k in 2..history.len() {
            assert!(
                history[k][0] < history[k - 1][0],
                "energy rose at step {k}: {:?} -> {:?}",
                history[k - 1],
                history[k]
            );
            // From a quarter period on (before it, near the turning point, a step's
            // quadrature error is of the order of what it dissipates).
            if k >= per_period / 4 {
                let dissipated = e1 - history[k][0];
                let balance = history[k][1] - history[1][1];
                worst_balance = worst_balance.max(balance.abs() / dissipated);
            }
        }
        // One period later the energy is back in the same phase of the vibration.
        let decay = history[per_period + 1][0] / history[1][0];
        let expected = (-4.0 * PI * zeta).exp();
        let dissipated = 1.0 - history.last().unwrap()[0] / e1;
        eprintln!(
            "zeta1 = {zeta}, {per_period} steps/period: energy ratio over one period {decay:.6} (exp(-4 pi zeta) = {expected:.6}), dissipated over two periods {dissipated:.3}, worst |balance| / dissipated {worst_balance:.2e}"
        );
        assert!((decay / expected - 1.0).abs() < 1e-3, "energy decay per period {decay} vs {expected}");
        assert!(worst_balance < 5e-4, "energy balance {worst_balance:.3e} of the dissipated energy");
        balances.push(worst_balance);
    }
    let ratio = balances[0] / balances[1];
    assert!((3.5..4.5).contains(&ratio), "the booking error is not O(h^2): {balances:?}");
}
