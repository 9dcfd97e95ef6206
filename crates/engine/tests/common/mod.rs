//! Independent references shared by the integration tests: minimal-coordinate ODEs of the
//! mechanisms of the cited papers integrated with classical RK4 at a small step, and closed forms.
// Reference data is quoted with the digits it was published with; the reference solvers are
// written index-style like the formulas they transcribe.
#![allow(dead_code, clippy::excessive_precision, clippy::needless_range_loop)]

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

/// Planar double pendulum of two uniform bars ([Fang2023, Fig. 1a]; parameters of \[FangCode2022\]) in
/// absolute angles from the downward vertical: y = (theta1, theta2, theta1', theta2').
/// Lagrange's equations with centroidal inertias `jc` (including the cross-section term).
pub struct DoublePendulum {
    pub m: [f64; 2],
    pub length: [f64; 2],
    pub jc: [f64; 2],
    pub g: f64,
}

impl DoublePendulum {
    /// The \[Fang2023\] pendulum: steel bars 4 m and 2 m, w = 0.05 m.
    pub fn fang2023() -> Self {
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

use mbfmu_engine::Simulation;
use mbfmu_model::format::{Description, Method};
use mbfmu_model::variables::{interface_of, Binding, Quantity};

/// A catalog model's description.
pub fn catalog(name: &str) -> Description {
    mbfmu_model::format::parse(mbfmu_model::catalog::find(name).expect("catalog model").json).expect("valid")
}

/// `d` without the joint outputs relative coordinates do not give (reactions and friction are
/// index-3 multipliers): what a catalog model keeps in a semirecursive formulation.
pub fn without_joint_reactions(mut d: Description) -> Description {
    for o in &mut d.interface.outputs {
        if let mbfmu_model::format::OutputSpec::Joint { quantities, .. } = o {
            quantities.retain(|q| {
                matches!(q, mbfmu_model::format::JointQuantity::Coordinate | mbfmu_model::format::JointQuantity::Rate)
            });
        }
    }
    d
}

/// The quantity output `name` of `d` gives.
pub fn quantity(d: &Description, name: &str) -> Quantity {
    match interface_of(d).unwrap().by_name(name).unwrap_or_else(|| panic!("no output {name}")).binding {
        Binding::Output(q) => q,
        ref b => panic!("{name} is bound to {b:?}"),
    }
}

/// A circuit without a mechanism: `circuit` as its `hydraulics`, `outputs` as its interface,
/// run to 1 s with `formulation`, `method` and internal step `step`.
pub fn circuit_description(
    circuit: serde_json::Value,
    outputs: serde_json::Value,
    formulation: &str,
    method: &str,
    step: f64,
) -> Description {
    let d = serde_json::json!({
        "name": "circuit", "bodies": [], "hydraulics": circuit,
        "interface": {"outputs": outputs},
        "experiment": {"stop": 1.0, "step": step},
        "solver": {"formulation": formulation, "method": method, "step_size": step}
    });
    mbfmu_model::format::parse(&d.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `d` with `method`, internal step `h` and Newton tolerance `tol`, and samples the
/// named outputs at each of `times` (which must be increasing and on the step grid).
pub fn sample(d: &Description, method: Method, h: f64, tol: f64, times: &[f64], outputs: &[&str]) -> Vec<Vec<f64>> {
    let mut run = d.clone();
    run.solver.method = method;
    run.solver.step_size = h;
    run.solver.tolerance = tol;
    let mut sim = Simulation::new(&run).expect("model builds");
    let quantities: Vec<_> = outputs.iter().map(|name| quantity(d, name)).collect();
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

/// Root-mean-square of a sequence (the error measure of [Fang2023, Sect. 3.1]).
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

/// Haug's slider-crank in closed form (\[Haug1989\]; parameters of \[FangCode2022\]): slider x(t) and x'(t) for the
/// crank pin B = (0, 0.1 + 0.08 sin 2 pi t, 0.12 + 0.08 cos 2 pi t) and a 0.3 m rod.
pub fn slider_closed_form(t: f64) -> (f64, f64) {
    let w = 2.0 * std::f64::consts::PI;
    let (by, bz) = (0.1 + 0.08 * (w * t).sin(), 0.12 + 0.08 * (w * t).cos());
    let (dby, dbz) = (0.08 * w * (w * t).cos(), -0.08 * w * (w * t).sin());
    let x = (0.09 - by * by - bz * bz).sqrt();
    (x, -(by * dby + bz * dbz) / x)
}

/// Kinematic solution of Haug's four-link (\[Haug1989\]; parameters of \[FangCode2022\]) from its planar closure,
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

/// Andrews' squeezing mechanism in the IVP test set's own formulation (7 relative angles
/// q = (beta, Theta, gamma, Phi, delta, Omega, epsilon), 6 loop constraints; parameters and
/// equations from \[IVPTestSet\], problem andrews), reduced to index 1:
/// [M G^T; G 0] [q''; lambda] = [f; -g_quad] with g_quad the velocity terms of g''. An
/// independent reference for the planar index-3 model of the catalog.
pub mod andrews {
    const M: [f64; 7] = [0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498];
    const I: [f64; 7] = [2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5];
    const XA: f64 = -0.06934;
    const YA: f64 = -0.00227;
    const XB: f64 = -0.03635;
    const YB: f64 = 0.03273;
    const XC: f64 = 0.014;
    const YC: f64 = 0.072;
    const D: f64 = 28e-3;
    const DA: f64 = 115e-4;
    const E: f64 = 2e-2;
    const EA: f64 = 1421e-5;
    const RR: f64 = 7e-3;
    const RA: f64 = 92e-5;
    const SS: f64 = 35e-3;
    const SA: f64 = 1874e-5;
    const SB: f64 = 1043e-5;
    const SC: f64 = 18e-3;
    const SD: f64 = 2e-2;
    const TA: f64 = 2308e-5;
    const TB: f64 = 916e-5;
    const U: f64 = 4e-2;
    const UA: f64 = 1228e-5;
    const UB: f64 = 449e-5;
    const ZF: f64 = 2e-2;
    const ZT: f64 = 4e-2;
    const FA: f64 = 1421e-5;
    const MOM: f64 = 33e-3;
    const C0: f64 = 4530.0;
    const L0: f64 = 7785e-5;

    /// Consistent initial angles (\[IVPTestSet\]); velocities are zero.
    pub const Q0: [f64; 7] = [
        -0.0617138900142764496358948458001,
        0.0,
        0.455279819163070380255912382449,
        0.222668390165885884674473185609,
        0.487364979543842550225598953530,
        -0.222668390165885884674473185609,
        1.23054744454982119249735015568,
    ];

    /// The test set's PSIDE solution at t = 0.03 (rtol = atol = 1e-14): angles, then rates.
    pub const PSIDE_003: [f64; 14] = [
        0.1581077119629904e2,
        -0.1575637105984298e2,
        0.4082224013073101e-1,
        -0.5347301163226948,
        0.5244099658805304,
        0.5347301163226948,
        0.1048080741042263e1,
        0.1139920302151208e4,
        -0.1424379294994111e4,
        0.1103291221937134e2,
        0.1929337464421385e2,
        0.5735699284790808,
        -0.1929337464421385e2,
        0.3231791658026955,
    ];

    /// y = (q, q'): y' = (q', q'').
    pub fn rhs(y: &[f64; 14]) -> [f64; 14] {
        let (q, v) = (&y[..7], &y[7..]);
        let (b, th, ga, ph, de, om, ep) = (q[0], q[1], q[2], q[3], q[4], q[5], q[6]);
        let (sb, cb, sth, cth) = (b.sin(), b.cos(), th.sin(), th.cos());
        let (sg, cg, sph, sde, cde) = (ga.sin(), ga.cos(), ph.sin(), de.sin(), de.cos());
        let (som, sep, cep) = (om.sin(), ep.sin(), ep.cos());
        let (sbt, cbt) = ((b + th).sin(), (b + th).cos());
        let (spd, cpd) = ((ph + de).sin(), (ph + de).cos());
        let (soe, coe) = ((om + ep).sin(), (om + ep).cos());
        let mut a = [[0.0; 13]; 13];
        let mut rhs = [0.0; 13];
        // Mass matrix ([IVPTestSet]).
        a[0][0] = M[0] * RA * RA + M[1] * (RR * RR - 2.0 * DA * RR * cth + DA * DA) + I[0] + I[1];
        a[1][0] = M[1] * (DA * DA - DA * RR * cth) + I[1];
        a[0][1] = a[1][0];
        a[1][1] = M[1] * DA * DA + I[1];
        a[2][2] = M[2] * (SA * SA + SB * SB) + I[2];
        let ee = E - EA;
        a[3][3] = M[3] * ee * ee + I[3];
        a[4][3] = M[3] * (ee * ee + ZT * ee * sph) + I[3];
        a[3][4] = a[4][3];
        a[4][4] = M[3] * (ZT * ZT + 2.0 * ZT * ee * sph + ee * ee) + M[4] * (TA * TA + TB * TB) + I[3] + I[4];
        let zz = ZF - FA;
        a[5][5] = M[5] * zz * zz + I[5];
        a[6][5] = M[5] * (zz * zz - U * zz * som) + I[5];
        a[5][6] = a[6][5];
        a[6][6] = M[5] * (zz * zz - 2.0 * U * zz * som + U * U) + M[6] * (UA * UA + UB * UB) + I[5] + I[6];
        // Forces.
        let xd = SD * cg + SC * sg + XB;
        let yd = SD * sg - SC * cg + YB;
        let l = ((xd - XC).powi(2) + (yd - YC).powi(2)).sqrt();
        let force = -C0 * (l - L0) / l;
        let (fx, fy) = (force * (xd - XC), force * (yd - YC));
        rhs[0] = MOM - M[1] * DA * RR * v[1] * (v[1] + 2.0 * v[0]) * sth;
        rhs[1] = M[1] * DA * RR * v[0] * v[0] * sth;
        rhs[2] = fx * (SC * cg - SD * sg) + fy * (SD * cg + SC * sg);
        rhs[3] = M[3] * ZT * ee * v[4] * v[4] * ph.cos();
        rhs[4] = -M[3] * ZT * ee * v[3] * (v[3] + 2.0 * v[4]) * ph.cos();
        rhs[5] = -M[5] * U * zz * v[6] * v[6] * om.cos();
        rhs[6] = M[5] * U * zz * v[5] * (v[5] + 2.0 * v[6]) * om.cos();
        // Constraint Jacobian G (6 x 7), placed as [M G^T; G 0].
        let mut g = [[0.0; 7]; 6];
        for r in [0, 2, 4] {
            g[r][0] = -RR * sb + D * sbt;
            g[r][1] = D * sbt;
            g[r + 1][0] = RR * cb - D * cbt;
            g[r + 1][1] = -D * cbt;
        }
        g[0][2] = -SS * cg;
        g[1][2] = -SS * sg;
        g[2][3] = -E * cpd;
        g[2][4] = -E * cpd + ZT * sde;
        g[3][3] = -E * spd;
        g[3][4] = -E * spd - ZT * cde;
        g[4][5] = ZF * soe;
        g[4][6] = ZF * soe - U * cep;
        g[5][5] = -ZF * coe;
        g[5][6] = -ZF * coe - U * sep;
        for r in 0..6 {
            for c in 0..7 {
                a[7 + r][c] = g[r][c];
                a[c][7 + r] = g[r][c];
            }
        }
        // Velocity terms of g'': every term coef * trig(sum of angles) contributes
        // -coef * trig(sum) * (sum')^2.
        let (wb, wbt, wg, wpd, wd, woe, we) = (v[0], v[0] + v[1], v[2], v[3] + v[4], v[4], v[5] + v[6], v[6]);
        let common_x = RR * cb * wb * wb - D * cbt * wbt * wbt;
        let common_y = RR * sb * wb * wb - D * sbt * wbt * wbt;
        let quad = [
            -(common_x - SS * sg * wg * wg),
            -(common_y + SS * cg * wg * wg),
            -(common_x - E * spd * wpd * wpd - ZT * cde * wd * wd),
            -(common_y + E * cpd * wpd * wpd - ZT * sde * wd * wd),
            -(common_x - ZF * coe * woe * woe - U * sep * we * we),
            -(common_y - ZF * soe * woe * woe + U * cep * we * we),
        ];
        for r in 0..6 {
            rhs[7 + r] = -quad[r];
        }
        let x = solve13(a, rhs);
        let mut out = [0.0; 14];
        out[..7].copy_from_slice(v);
        out[7..].copy_from_slice(&x[..7]);
        out
    }

    /// Gaussian elimination with partial pivoting (reference code, 13 x 13).
    fn solve13(mut a: [[f64; 13]; 13], mut b: [f64; 13]) -> [f64; 13] {
        for k in 0..13 {
            let p = (k..13).max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs())).unwrap();
            a.swap(k, p);
            b.swap(k, p);
            for i in k + 1..13 {
                let f = a[i][k] / a[k][k];
                for j in k..13 {
                    a[i][j] -= f * a[k][j];
                }
                b[i] -= f * b[k];
            }
        }
        let mut x = [0.0; 13];
        for k in (0..13).rev() {
            let s: f64 = (k + 1..13).map(|j| a[k][j] * x[j]).sum();
            x[k] = (b[k] - s) / a[k][k];
        }
        x
    }

    /// (q, q') at each of `times`, RK4 with step `h`.
    pub fn reference(times: &[f64], h: f64) -> Vec<[f64; 14]> {
        let mut y0 = [0.0; 14];
        y0[..7].copy_from_slice(&Q0);
        super::rk4(rhs, y0, h, times)
    }
}
