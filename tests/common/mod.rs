//! Independent references shared by the integration tests: minimal-coordinate ODEs of the
//! seeds' mechanisms integrated with classical RK4 at a small step, and closed forms.
#![allow(dead_code)]

/// Classical fourth-order Runge-Kutta on y' = f(y), fixed step, from 0 to each of `times`.
pub fn rk4<const N: usize>(f: impl Fn(&[f64; N]) -> [f64; N], y0: [f64; N], h: f64, times: &[f64]) -> Vec<[f64; N]> {
    let mut out = Vec::new();
    let mut y = y0;
    let mut t = 0.0;
    for &target in times {
        while t < target - 1e-12 {
            let step = h.min(target - t);
            let k1 = f(&y);
            let k2 = f(&std::array::from_fn(|i| y[i] + 0.5 * step * k1[i]));
            let k3 = f(&std::array::from_fn(|i| y[i] + 0.5 * step * k2[i]));
            let k4 = f(&std::array::from_fn(|i| y[i] + step * k3[i]));
            for i in 0..N {
                y[i] += step / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            t += step;
        }
        out.push(y);
    }
    out
}

/// Planar double pendulum of two uniform bars (seed 003 Fig. 1a; benchmarks.md 1.3 A) in
/// absolute angles from the downward vertical: y = (theta1, theta2, theta1', theta2').
/// Lagrange's equations with centroidal inertias `jc` (including the cross-section term).
pub struct DoublePendulum {
    pub m: [f64; 2],
    pub length: [f64; 2],
    pub jc: [f64; 2],
    pub g: f64,
}

impl DoublePendulum {
    /// The seed-003 pendulum: steel bars 4 m and 2 m, w = 0.05 m.
    pub fn seed003() -> Self {
        let w = 0.05;
        let (m1, m2) = (78.0, 39.0);
        DoublePendulum {
            m: [m1, m2],
            length: [4.0, 2.0],
            jc: [m1 * (w * w + 16.0) / 12.0, m2 * (w * w + 4.0) / 12.0],
            g: 9.81,
        }
    }

    pub fn rhs(&self, y: &[f64; 4]) -> [f64; 4] {
        let [m1, m2] = self.m;
        let [l1, _] = self.length;
        let (c1, c2) = (0.5 * self.length[0], 0.5 * self.length[1]);
        let d = y[0] - y[1];
        let a11 = m1 * c1 * c1 + self.jc[0] + m2 * l1 * l1;
        let a12 = m2 * l1 * c2 * d.cos();
        let a22 = m2 * c2 * c2 + self.jc[1];
        let b1 = -m2 * l1 * c2 * d.sin() * y[3] * y[3] - (m1 * c1 + m2 * l1) * self.g * y[0].sin();
        let b2 = m2 * l1 * c2 * d.sin() * y[2] * y[2] - m2 * self.g * c2 * y[1].sin();
        let det = a11 * a22 - a12 * a12;
        [y[2], y[3], (a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det]
    }

    /// Height (global z) of the centre of mass of bar 2.
    pub fn z2(&self, y: &[f64; 4]) -> f64 {
        -self.length[0] * y[0].cos() - 0.5 * self.length[1] * y[1].cos()
    }

    /// Horizontal position (global y) of the centre of mass of bar 2.
    pub fn y2(&self, y: &[f64; 4]) -> f64 {
        self.length[0] * y[0].sin() + 0.5 * self.length[1] * y[1].sin()
    }

    pub fn energy(&self, y: &[f64; 4]) -> f64 {
        let [m1, m2] = self.m;
        let [l1, _] = self.length;
        let (c1, c2) = (0.5 * self.length[0], 0.5 * self.length[1]);
        let kin = 0.5 * (m1 * c1 * c1 + self.jc[0] + m2 * l1 * l1) * y[2] * y[2]
            + 0.5 * (m2 * c2 * c2 + self.jc[1]) * y[3] * y[3]
            + m2 * l1 * c2 * (y[0] - y[1]).cos() * y[2] * y[3];
        let pot = -m1 * self.g * c1 * y[0].cos() - m2 * self.g * (l1 * y[0].cos() + c2 * y[1].cos());
        kin + pot
    }
}

use mbfmu::description::{Description, Method};
use mbfmu::engine::{Simulation, SolverSettings};
use mbfmu::interface::{interface_of, Binding};

/// A catalog model's description.
pub fn catalog(name: &str) -> Description {
    mbfmu::description::parse(mbfmu::models::find(name).expect("catalog model").json).expect("valid")
}

/// Runs `d` with `method`, internal step `h` and Newton tolerance `tol`, and samples the
/// named outputs at each of `times` (which must be increasing and on the step grid).
pub fn sample(d: &Description, method: Method, h: f64, tol: f64, times: &[f64], outputs: &[&str]) -> Vec<Vec<f64>> {
    let mut settings = SolverSettings::from_description(d);
    settings.method = method;
    settings.step_size = h;
    settings.newton.tolerance = tol;
    let mut sim = Simulation::new(d, settings).expect("model builds");
    let iface = interface_of(d).expect("interface");
    let quantities: Vec<_> = outputs
        .iter()
        .map(|name| match iface.by_name(name).unwrap_or_else(|| panic!("no output {name}")).binding {
            Binding::Output(q) => q,
            ref b => panic!("{name} is bound to {b:?}"),
        })
        .collect();
    times
        .iter()
        .map(|&t| {
            sim.advance_to(t).unwrap_or_else(|e| panic!("{method:?} h = {h}: {e}"));
            quantities.iter().map(|q| sim.quantity(*q)).collect()
        })
        .collect()
}

/// Times t0 + k dt for k = 1..=n.
pub fn grid(t0: f64, dt: f64, n: usize) -> Vec<f64> {
    (1..=n).map(|k| t0 + k as f64 * dt).collect()
}

/// Root-mean-square of a sequence (the seed-003 error measure, Sect. 3.1).
pub fn rms(errors: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for e in errors {
        s += e * e;
        n += 1;
    }
    (s / n as f64).sqrt()
}

/// Least-squares slope of log(error) against log(h).
pub fn order(hs: &[f64], errors: &[f64]) -> f64 {
    let xs: Vec<f64> = hs.iter().map(|h| h.ln()).collect();
    let ys: Vec<f64> = errors.iter().map(|e| e.ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

/// Haug's slider-crank in closed form (benchmarks.md 1.3 B): slider x(t) and x'(t) for the
/// crank pin B = (0, 0.1 + 0.08 sin 2 pi t, 0.12 + 0.08 cos 2 pi t) and a 0.3 m rod.
pub fn slider_closed_form(t: f64) -> (f64, f64) {
    let w = 2.0 * std::f64::consts::PI;
    let (by, bz) = (0.1 + 0.08 * (w * t).sin(), 0.12 + 0.08 * (w * t).cos());
    let (dby, dbz) = (0.08 * w * (w * t).cos(), -0.08 * w * (w * t).sin());
    let x = (0.09 - by * by - bz * bz).sqrt();
    (x, -(by * dby + bz * dbz) / x)
}

/// Kinematic solution of Haug's four-link (benchmarks.md 1.3 C) from its planar closure,
/// independent of the multibody engine: the rotor point U(t) = (0, -2 sin pi t, 2 cos pi t)
/// (rotor at pi rad/s about x), the rocker end S(phi) = D + R_y(phi) (S0 - D) about
/// D = (-4, -8.5, 0), and |S - U| = 12.2. Returns the rocker angle phi, its rate, and the
/// coupler centre-of-mass velocity (U' + S')/2.
pub struct FourLinkKinematics {
    phi: f64,
}

impl FourLinkKinematics {
    const D: [f64; 3] = [-4.0, -8.5, 0.0];
    const S0_MINUS_D: [f64; 2] = [-3.49111544, 6.52473088];

    pub fn new() -> Self {
        FourLinkKinematics { phi: 0.0 }
    }

    fn s(phi: f64) -> ([f64; 3], [f64; 3]) {
        let [x, z] = Self::S0_MINUS_D;
        let (c, s) = (phi.cos(), phi.sin());
        // R_y(phi) (x, 0, z) and its derivative w.r.t. phi.
        ([Self::D[0] + x * c + z * s, Self::D[1], Self::D[2] - x * s + z * c], [-x * s + z * c, 0.0, -x * c - z * s])
    }

    /// (phi, phi', coupler CM velocity) at time t; call with increasing t.
    pub fn at(&mut self, t: f64) -> (f64, f64, [f64; 3]) {
        let pi = std::f64::consts::PI;
        let u = [0.0, -2.0 * (pi * t).sin(), 2.0 * (pi * t).cos()];
        let du = [0.0, -2.0 * pi * (pi * t).cos(), -2.0 * pi * (pi * t).sin()];
        let closure = |phi: f64| {
            let (s, ds) = Self::s(phi);
            let d: Vec<f64> = (0..3).map(|i| s[i] - u[i]).collect();
            (d.iter().map(|x| x * x).sum::<f64>() - 12.2 * 12.2, 2.0 * (0..3).map(|i| d[i] * ds[i]).sum::<f64>())
        };
        for _ in 0..50 {
            let (f, df) = closure(self.phi);
            self.phi -= f / df;
            if f.abs() < 1e-13 {
                break;
            }
        }
        // d/dt |S - U|^2 = 0: (S - U) . (S_phi phi' - U') = 0.
        let (s, ds) = Self::s(self.phi);
        let d: Vec<f64> = (0..3).map(|i| s[i] - u[i]).collect();
        let phidot = (0..3).map(|i| d[i] * du[i]).sum::<f64>() / (0..3).map(|i| d[i] * ds[i]).sum::<f64>();
        let v = std::array::from_fn(|i| 0.5 * (du[i] + ds[i] * phidot));
        (self.phi, phidot, v)
    }
}
