//! Shared by the state-space tests: an independent reference for the stiff double pendulum
//! of [Negrut1997, Sect. 4] (a minimal-coordinate ODE in the two absolute link angles, Lagrange's
//! equations written out here, integrated with classical RK4 at a tiny step as \[Negrut1997\]
//! does) and runs of catalog models through the Rust API.
#![allow(dead_code)]

use mbfmu_engine::integrators::StepError;
use mbfmu_engine::Simulation;
use mbfmu_model::format::Quantity;
use mbfmu_model::format::{self, Description, Method};

/// Table 1 of \[Negrut1997\] and the assumptions of the catalog model (slender rods, gravity -y,
/// free angles 2 pi and 0).
#[derive(Clone, Copy, Debug)]
pub struct Pendulum {
    pub l1: f64,
    pub l2: f64,
    pub m1: f64,
    pub m2: f64,
    pub j1: f64,
    pub j2: f64,
    pub k1: f64,
    pub c1: f64,
    pub k2: f64,
    pub c2: f64,
    pub g: f64,
    pub rest1: f64,
    pub rest2: f64,
}

pub const PENDULUM: Pendulum = Pendulum {
    l1: 1.0,
    l2: 1.5,
    m1: 3.0,
    m2: 0.3,
    j1: 1.0, // m1 (2 l1)^2 / 12 = 3 * 2^2 / 12 (slender link of length 2 l1)
    j2: 0.3 * 9.0 / 12.0,
    k1: 400.0,
    c1: 15.0,
    k2: 300.0,
    c2: 10_000.0,
    g: 9.81,
    rest1: std::f64::consts::TAU,
    rest2: 0.0,
};

/// [theta1, theta2, omega1, omega2] of Table 2 and Table 3.
pub fn table2() -> [f64; 4] {
    [std::f64::consts::TAU, 23.0 * std::f64::consts::PI / 12.0, 0.0, 0.0]
}
pub fn table3() -> [f64; 4] {
    [std::f64::consts::TAU, std::f64::consts::TAU, 0.0, 60.0]
}

impl Pendulum {
    /// Lagrange's equations in the absolute angles: M(theta) theta'' = Q - c(theta, theta').
    pub fn rhs(&self, y: &[f64; 4]) -> [f64; 4] {
        let p = self;
        let [t1, t2, w1, w2] = *y;
        let a = 2.0 * p.l1 * p.l2 * p.m2;
        let m11 = p.m1 * p.l1 * p.l1 + p.j1 + p.m2 * 4.0 * p.l1 * p.l1;
        let m22 = p.m2 * p.l2 * p.l2 + p.j2;
        let m12 = a * (t1 - t2).cos();
        let s = a * (t1 - t2).sin();
        let phi = t2 - t1 - p.rest2;
        let spring2 = p.k2 * phi + p.c2 * (w2 - w1);
        let q1 = -p.g * (p.m1 * p.l1 + 2.0 * p.m2 * p.l1) * t1.cos() - p.k1 * (t1 - p.rest1) - p.c1 * w1 + spring2
            - s * w2 * w2;
        let q2 = -p.g * p.m2 * p.l2 * t2.cos() - spring2 + s * w1 * w1;
        let det = m11 * m22 - m12 * m12;
        [w1, w2, (m22 * q1 - m12 * q2) / det, (m11 * q2 - m12 * q1) / det]
    }

    /// Classical RK4 from `y0` with step `h`, sampled every `every` steps (samples[0] = y0).
    pub fn rk4(&self, y0: [f64; 4], h: f64, steps: usize, every: usize) -> Vec<[f64; 4]> {
        let mut y = y0;
        let mut out = vec![y];
        let add = |y: &[f64; 4], k: &[f64; 4], f: f64| std::array::from_fn::<f64, 4, _>(|i| y[i] + f * k[i]);
        for n in 1..=steps {
            let k1 = self.rhs(&y);
            let k2 = self.rhs(&add(&y, &k1, 0.5 * h));
            let k3 = self.rhs(&add(&y, &k2, 0.5 * h));
            let k4 = self.rhs(&add(&y, &k3, h));
            y = std::array::from_fn(|i| y[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]));
            if n % every == 0 {
                out.push(y);
            }
        }
        out
    }
}

/// A catalog model's description with another method and step.
pub fn description(name: &str, method: Method, step: f64) -> Description {
    let entry = mbfmu_model::catalog::find(name).unwrap_or_else(|| panic!("catalog model {name}"));
    let mut d = format::parse(entry.json).expect("catalog descriptions parse");
    d.solver.method = method;
    d.solver.step_size = step;
    d
}

/// [theta1, theta2, omega1, omega2] of a pendulum simulation.
pub fn angles(sim: &Simulation) -> [f64; 4] {
    let q = |q| sim.quantity(q);
    let t1 = q(Quantity::JointAngle { joint: 0 });
    let t2 = t1 + q(Quantity::JointAngle { joint: 1 });
    [
        t1,
        t2,
        q(Quantity::BodyAngularVelocity { body: 0, axis: 2 }),
        q(Quantity::BodyAngularVelocity { body: 1, axis: 2 }),
    ]
}

/// Runs a pendulum description, sampling every `dt` until `stop`.
pub fn run(d: &Description, dt: f64, stop: f64) -> Result<(Simulation, Vec<[f64; 4]>), StepError> {
    let mut sim = Simulation::new(d).expect("the model builds");
    let mut out = vec![angles(&sim)];
    let n = (stop / dt).round() as usize;
    for k in 1..=n {
        sim.advance_to(k as f64 * dt)?;
        out.push(angles(&sim));
    }
    Ok((sim, out))
}

/// Largest |a_i - b_i| of component `c` over the samples.
pub fn max_error(a: &[[f64; 4]], b: &[[f64; 4]], c: usize) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x[c] - y[c]).abs()).fold(0.0, f64::max)
}
