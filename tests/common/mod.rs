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
        DoublePendulum { m: [m1, m2], length: [4.0, 2.0], jc: [m1 * (w * w + 16.0) / 12.0, m2 * (w * w + 4.0) / 12.0], g: 9.81 }
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
