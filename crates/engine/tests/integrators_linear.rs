//! Linear analysis of [Zhang2022, Sect. 4] on the undamped oscillator x'' + w^2 x = 0, run through
//! the integrators themselves (a small `DaeSystem` below), compared with values computed here
//! independently from each method's published coefficients (\[Zhang2022\], \[Zhang2020\], \[KennedyCarpenter2019\], \[MBDyn\]):
//! characteristic polynomials of the multistep methods, stability functions of the ESDIRKs.
//!
//! - spectral radius at w dt -> infinity equals rho_inf (measured: eigenvalues of the one-step
//!   map of the integrator, built column by column from single steps);
//! - amplitude decay ratio xi and period elongation (T_bar - T)/T at dt/T = 0.1 (measured: the
//!   principal root fitted to the output sequence x_k of a long run, [Zhang2022, eq. 22]).
//!
//! Published values keep their source's digits, beyond f64 precision.
#![allow(clippy::excessive_precision)]

use mbfmu_engine::integrators::{DaeSystem, History, Integrator, NewtonSettings, StepError};
use mbfmu_model::format::Method;
use nalgebra::{Complex, DMatrix};
use std::f64::consts::PI;

type C = Complex<f64>;

/// The oscillator in scaled first-order form y = (x, u = x'/w): y' = w (u, -x).
struct Oscillator {
    w: f64,
    b0: f64,
}

#[derive(Clone, Debug, PartialEq)]
struct OscState {
    t: f64,
    y: [f64; 2],
    yp: [f64; 2],
}

impl DaeSystem for Oscillator {
    type State = OscState;
    fn n_diff(&self) -> usize {
        2
    }
    fn n_alg(&self) -> usize {
        0
    }
    fn chart(&self, _base: &OscState, s: &OscState, y: &mut [f64], yp: &mut [f64], _l: &mut [f64]) {
        y.copy_from_slice(&s.y);
        yp.copy_from_slice(&s.yp);
    }
    fn lift(&self, _base: &OscState, t: f64, y: &[f64], yp: &[f64], _l: &[f64], out: &mut OscState) {
        *out = OscState { t, y: [y[0], y[1]], yp: [yp[0], yp[1]] };
    }
    fn residual(
        &mut self,
        _b: &OscState,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        _l: &[f64],
        out: &mut [f64],
    ) -> Result<(), StepError> {
        out[0] = yp[0] - self.w * y[1];
        out[1] = yp[1] + self.w * y[0];
        Ok(())
    }
    fn factor(
        &mut self,
        _b: &OscState,
        _t: f64,
        b0: f64,
        _y: &[f64],
        _yp: &[f64],
        _l: &[f64],
    ) -> Result<(), StepError> {
        self.b0 = b0;
        Ok(())
    }
    fn solve(&mut self, r: &[f64], dyp: &mut [f64], _dl: &mut [f64]) -> Result<(), StepError> {
        // (dr/dy' + b0 dr/dy) = [[1, -b0 w], [b0 w, 1]].
        let k = self.b0 * self.w;
        let det = 1.0 + k * k;
        dyp[0] = (-r[0] - k * r[1]) / det;
        dyp[1] = (-r[1] + k * r[0]) / det;
        Ok(())
    }
    fn correction_norm(&self, b0: f64, dyp: &[f64], _dl: &[f64]) -> f64 {
        b0 * dyp[0].abs().max(dyp[1].abs())
    }
    fn time(&self, s: &OscState) -> f64 {
        s.t
    }
}

const NEWTON: NewtonSettings = NewtonSettings { tolerance: 1e-14, max_iterations: 10 };

fn consistent(t: f64, x: f64, u: f64, w: f64) -> OscState {
    OscState { t, y: [x, u], yp: [w * u, -w * x] }
}

/// Methods of the linear analysis: (method, rho_inf values), and whether the method has
/// spurious roots (multistep and single-step families).
fn cases() -> Vec<(Method, Vec<f64>)> {
    let tunable = vec![0.0, 0.3, 0.6, 1.0];
    let mut v: Vec<(Method, Vec<f64>)> = Method::ZHANG2022
        .iter()
        .map(|&m| {
            let rhos = if m.uses_rho_inf() { tunable.clone() } else { vec![0.0] };
            (m, rhos)
        })
        .collect();
    v.push((Method::Trapezoidal, vec![1.0]));
    v.push((Method::Bdf1, vec![0.0]));
    v
}

// ---------------------------------------------------------------------------------------------
// Independent references: published coefficients, transcribed here again.

/// LMSk coefficients for constant step h = 1 ([Zhang2022, Sect. 2.1]):
/// y_n = sum a_j y_{n-j} + sum b_j y'_{n-j}.
fn lms_coefficients(k: usize, r: f64) -> (Vec<f64>, Vec<f64>) {
    match k {
        2 => {
            let bb = (3.0 - r) * (1.0 + r);
            (
                vec![4.0 * (1.0 - r) / (3.0 - r), (3.0 * r - 1.0) / (3.0 - r)],
                vec![2.0 / bb, 4.0 * r / bb, 2.0 * r * r / bb],
            )
        }
        3 => {
            let d = r * r - 5.0 * r + 10.0;
            let bb = (1.0 + r) * d;
            (
                vec![
                    3.0 * (2.0 * r * r - 9.0 * r + 5.0) / d,
                    -3.0 * (5.0 * r * r - 9.0 * r + 2.0) / d,
                    (10.0 * r * r - 5.0 * r + 1.0) / d,
                ],
                vec![6.0 / bb, 18.0 * r / bb, 18.0 * r * r / bb, 6.0 * r.powi(3) / bb],
            )
        }
        4 => {
            let d = -r.powi(3) + 7.0 * r * r - 21.0 * r + 35.0;
            let bb = (1.0 + r) * d;
            (
                vec![
                    4.0 * (-2.0 * r.powi(3) + 13.0 * r * r - 35.0 * r + 14.0) / d,
                    -4.0 * (1.0 - r) * (7.0 * r * r - 34.0 * r + 7.0) / d,
                    -4.0 * (14.0 * r.powi(3) - 35.0 * r * r + 13.0 * r - 2.0) / d,
                    (35.0 * r.powi(3) - 21.0 * r * r + 7.0 * r - 1.0) / d,
                ],
                vec![20.0 / bb, 80.0 * r / bb, 120.0 * r * r / bb, 80.0 * r.powi(3) / bb, 20.0 * r.powi(4) / bb],
            )
        }
        _ => unreachable!(),
    }
}

/// Principal root of the characteristic polynomial z^k - sum_j (a_j + z0 b_j) z^{k-j} - z0 b_0 z^k
/// of a multistep method applied to y' = lambda y, z0 = lambda h: Newton from e^{z0}.
fn multistep_root(a: &[f64], b: &[f64], z0: C) -> C {
    let k = a.len();
    let p = |z: C| -> (C, C) {
        // value and derivative of sum_j c_j z^{k-j} with c_0 = 1 - z0 b0, c_j = -(a_j + z0 b_j)
        let mut v = C::new(0.0, 0.0);
        let mut d = C::new(0.0, 0.0);
        for j in 0..=k {
            let c = if j == 0 { C::new(1.0, 0.0) - z0 * b[0] } else { -(z0 * b[j] + a[j - 1]) };
            d = d * z + v;
            v = v * z + c;
        }
        (v, d)
    };
    let mut z = z0.exp();
    for _ in 0..50 {
        let (v, d) = p(z);
        z -= v / d;
    }
    z
}

/// R(z) of an ESDIRK by the stage recursion Y_0 = 1, Y_i = (1 + z sum_{j<i} a_ij Y_j)/(1 - z a_ii).
fn esdirk_r(rows: &[Vec<f64>], z: C) -> C {
    let mut y = vec![C::new(1.0, 0.0)];
    for row in rows {
        let i = row.len() - 1;
        let mut s = C::new(1.0, 0.0);
        for j in 0..i {
            s += z * y[j] * row[j];
        }
        y.push(s / (C::new(1.0, 0.0) - z * row[i]));
    }
    *y.last().unwrap()
}

/// R(z) = N(z)/(1 - g z)^n with N's coefficients a_0 = 1, a_1, ..., a_n.
fn rational_r(a: &[f64], g: f64, n: i32, z: C) -> C {
    let mut num = C::new(0.0, 0.0);
    for &c in a.iter().rev() {
        num = num * z + c;
    }
    num / (C::new(1.0, 0.0) - z * g).powi(n)
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

fn factorial(n: usize) -> f64 {
    (1..=n).fold(1.0, |acc, i| acc * i as f64)
}

/// Exact gamma roots at rho = 0 and 0.6 ([Zhang2020, Tables 2, 4] solved to 25 digits).
fn published_gamma(m: Method, rho: f64) -> Option<f64> {
    let i = if rho == 0.0 {
        0
    } else if rho == 0.6 {
        1
    } else {
        return None;
    };
    let table: [f64; 2] = match m {
        Method::Msstc3 => [0.1804253064293985641345831, 0.1712486185906915078076604],
        Method::Msstc5 => [0.1035571089202148766377048, 0.1011961150731811994718270],
        Method::Mssth3 => [0.4358665215084589994160195, 0.3661428101033474269449481],
        Method::Mssth4 => [0.5728160624821348554080014, 0.4541307850365275155891952],
        Method::Mssth5 => [0.2780538411364523249315862, 0.2574960298566752206116149],
        _ => return None,
    };
    Some(table[i])
}

/// Published MSSTC4 tableaus at rho = 0 and 0.6 (evaluated from \[MBDyn\]'s formulas).
fn msstc4_table(rho: f64) -> Option<Vec<Vec<f64>>> {
    let (g, last): (f64, [f64; 4]) = if rho == 0.0 {
        (
            0.13137873673049887957,
            [0.13285379607688790017, 0.25147505934663628259, 0.30145683555786266004, 0.18283557228811427763],
        )
    } else if rho == 0.6 {
        (
            0.12713926590205776312,
            [0.12785623219620212047, 0.24911673744861758456, 0.27043235508215166903, 0.22545540937097086282],
        )
    } else {
        return None;
    };
    Some(vec![
        vec![g, g],
        vec![g, 2.0 * g, g],
        vec![g, 2.0 * g, 2.0 * g, g],
        vec![last[0], last[1], last[2], last[3], g],
    ])
}

/// Published Kennedy-Carpenter tableaus (\[KennedyCarpenter2019\], decimals).
fn kc_table(m: Method) -> Vec<Vec<f64>> {
    match m {
        Method::Esdirk324L2Sa => {
            let g = 0.4358665215084589994160194511935568425293;
            vec![
                vec![g, g],
                vec![0.2576482460664272457999960162840797092643, -0.09351476757488624521601546747763655179361, g],
                vec![
                    0.1876410243467238251612921441668043913795,
                    -0.5952974735769549480478230275858851737782,
                    0.9717899277217721234705114322255239398694,
                    g,
                ],
            ]
        }
        Method::Esdirk325L2Sa => {
            let g = 0.225;
            vec![
                vec![g, g],
                vec![0.2715990257669731929901900, 0.2715990257669731929901900, g],
                vec![0.2237436867076458167701478, 0.2237436867076458167701478, -0.07248737341529163354029553, g],
                vec![
                    0.1755455021294052285458922,
                    0.1755455021294052285458922,
                    -0.3468582000260062242875517,
                    0.7707671957671957671957672,
                    g,
                ],
            ]
        }
        Method::Esdirk436L2Sa2 => {
            let g = 0.248;
            let a21 = -360286518617.0 / 7014585480527.0;
            let a31 = -506388693497.0 / 5937754990171.0;
            let a41 = -7628305438933.0 / 11061539393788.0;
            vec![
                vec![g, g],
                vec![a21, a21, g],
                vec![a31, a31, 7149918333491.0 / 13390931526268.0, g],
                vec![a41, a41, 21592626537567.0 / 14352247503901.0, 11630056083252.0 / 17263101053231.0, g],
                vec![
                    -0.002473654250984575794137143,
                    -0.002473654250984575794137143,
                    0.3581348706213476972836248,
                    0.4966739745362784631573008,
                    -0.09786153665565700885265130,
                    g,
                ],
            ]
        }
        _ => unreachable!(),
    }
}

/// The principal root for lambda h = z (one step of a single-step method, or the principal
/// characteristic root of a multistep method), from published coefficients; None where the
/// test has no independent reference at this rho.
fn reference_root(m: Method, rho: f64, z: C) -> Option<C> {
    let one = C::new(1.0, 0.0);
    Some(match m {
        Method::Trapezoidal => (one + z * 0.5) / (one - z * 0.5),
        Method::Bdf1 => one / (one - z),
        // SSk is spectrally equivalent to LMSk ([Zhang2022, Sect. 2.2]).
        Method::Lms2 | Method::Ss2 => {
            let (a, b) = lms_coefficients(2, rho);
            multistep_root(&a, &b, z)
        }
        Method::Lms3 | Method::Ss3 => {
            let (a, b) = lms_coefficients(3, rho);
            multistep_root(&a, &b, z)
        }
        Method::Lms4 | Method::Ss4 => {
            let (a, b) = lms_coefficients(4, rho);
            multistep_root(&a, &b, z)
        }
        Method::Bathe => {
            // [Zhang2022, eq. 7].
            let g = if rho == 1.0 { 0.25 } else { (2.0 - (2.0 * (1.0 + rho)).sqrt()) / (2.0 * (1.0 - rho)) };
            rational_r(&[1.0, 1.0 - 2.0 * g, g * g - 2.0 * g + 0.5], g, 2, z)
        }
        Method::Msstc3 => {
            // [Zhang2020, Sect. 3.2]: a1 = 1 - n g, a2 = 1/2 - n g + n(n-1) g^2/2, a_n = rho g^n.
            let g = published_gamma(m, rho)?;
            rational_r(&[1.0, 1.0 - 3.0 * g, 0.5 - 3.0 * g + 3.0 * g * g, rho * g.powi(3)], g, 3, z)
        }
        Method::Msstc4 => esdirk_r(&msstc4_table(rho)?, z),
        Method::Msstc5 => {
            // [Zhang2020, Table 2].
            let g = published_gamma(m, rho)?;
            let s = 64.0 * (5.0 * rho + 805.0) * g.powi(6) - 32.0 * (2.0 * rho + 2050.0) * g.powi(5)
                + 34560.0 * g.powi(4)
                - 9600.0 * g.powi(3)
                + 1480.0 * g * g
                - 120.0 * g
                + 4.0;
            let a3 = -(400.0 * g.powi(3) - 280.0 * g * g + 60.0 * g - 4.0 + (2.0 * s).sqrt()) / 8.0;
            let a4 = -(720.0 * g.powi(4) - 800.0 * g.powi(3) + 280.0 * g * g + (80.0 * a3 - 40.0) * g - 16.0 * a3
                + 2.0)
                / 16.0;
            rational_r(&[1.0, 1.0 - 5.0 * g, 10.0 * g * g - 5.0 * g + 0.5, a3, a4, rho * g.powi(5)], g, 5, z)
        }
        Method::Mssth3 | Method::Mssth4 | Method::Mssth5 => {
            // Order n with n implicit stages fixes N: a_p = sum_j (-1)^j C(n, j) g^j / (p - j)!
            // ([Zhang2020, eq. 19e]).
            let n = match m {
                Method::Mssth3 => 3,
                Method::Mssth4 => 4,
                _ => 5,
            };
            let g = published_gamma(m, rho)?;
            let a: Vec<f64> = (0..=n)
                .map(|p| {
                    (0..=p).map(|j| (-1f64).powi(j as i32) * binomial(n, j) * g.powi(j as i32) / factorial(p - j)).sum()
                })
                .collect();
            rational_r(&a, g, n as i32, z)
        }
        Method::Esdirk324L2Sa | Method::Esdirk325L2Sa | Method::Esdirk436L2Sa2 => esdirk_r(&kc_table(m), z),
        // Not methods of the residual-form suite.
        Method::HalfImplicit
        | Method::TrapezoidalConstantStep
        | Method::TrapezoidalVariableStep
        | Method::Abm2
        | Method::Sdirk4
        | Method::Rk4
        | Method::Dopri5
        | Method::Dop853
        | Method::Auto => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Measurements on the integrators.

/// One-step map of the integrator on its full state (current y, y', history states, SS
/// auxiliary vectors) at w h = wh, in the steady regime (all history at equal steps): column
/// i = the step taken from basis vector i.
fn one_step_map(m: Method, rho: f64, wh: f64) -> DMatrix<f64> {
    let h = 1.0;
    let mut sys = Oscillator { w: wh / h, b0: 0.0 };
    let start = consistent(0.0, 1.0, 0.0, sys.w);
    let proto = Integrator::new(&sys, m, rho, start.clone()).unwrap();
    let shape = proto.history();
    // History sizes in the steady regime: k - 1 previous states for LMSk.
    let n_prev = match m {
        Method::Lms2 => 1,
        Method::Lms3 => 2,
        Method::Lms4 => 3,
        _ => 0,
    };
    let n_aux = shape.aux.len();
    let dim = 4 * (1 + n_prev) + n_aux;
    let unpack = |v: &[f64]| -> (OscState, History<OscState>) {
        let state = |j: usize, t: f64| OscState { t, y: [v[4 * j], v[4 * j + 1]], yp: [v[4 * j + 2], v[4 * j + 3]] };
        let previous = (1..=n_prev).map(|j| state(j, -(j as f64) * h)).collect();
        (state(0, 0.0), History { previous, steps: vec![h; n_prev], aux: v[4 * (1 + n_prev)..].to_vec() })
    };
    let pack = |s: &OscState, hist: &History<OscState>| -> Vec<f64> {
        let mut v = Vec::with_capacity(dim);
        for st in std::iter::once(s).chain(hist.previous.iter()) {
            v.extend_from_slice(&[st.y[0], st.y[1], st.yp[0], st.yp[1]]);
        }
        v.extend_from_slice(&hist.aux);
        v
    };
    let mut map = DMatrix::zeros(dim, dim);
    for i in 0..dim {
        let mut e = vec![0.0; dim];
        e[i] = 1.0;
        let (state, hist) = unpack(&e);
        let mut it = proto.clone();
        it.restore(state, &hist).unwrap();
        it.step_to(&mut sys, h, &NEWTON).unwrap();
        let out = pack(it.state(), &it.history());
        assert_eq!(out.len(), dim, "{m:?}: history shape changed");
        for (r, x) in out.iter().enumerate() {
            map[(r, i)] = *x;
        }
    }
    map
}

/// Spectral radius of the one-step map on its observable part, seen from the current
/// position-level unknowns y (the first two state entries). The SS auxiliary vectors are
/// stored as real and imaginary parts ([Zhang2022, Sect. 3.1]), a non-minimal real realization:
/// k - 1 of its modes (the filter poles, e.g. 1/3 for SS2 at rho_inf = 0) never reach y and
/// are not eigenvalues of the method. The observable subspace of (M, C) is the Krylov space of
/// M^T from C^T; M's eigenvalues on the quotient are those of M^T restricted to it.
fn spectral_radius(map: DMatrix<f64>) -> f64 {
    let n = map.nrows();
    let mt = map.transpose();
    let mut basis: Vec<nalgebra::DVector<f64>> = Vec::new();
    let mut queue: Vec<nalgebra::DVector<f64>> =
        (0..2).map(|i| nalgebra::DVector::from_fn(n, |r, _| if r == i { 1.0 } else { 0.0 })).collect();
    while let Some(mut v) = queue.pop() {
        let before = v.norm();
        for _ in 0..2 {
            for q in &basis {
                let d = q.dot(&v);
                v.axpy(-d, q, 1.0);
            }
        }
        if before > 0.0 && v.norm() > 1e-9 * before && basis.len() < n {
            v /= v.norm();
            queue.push(&mt * &v);
            basis.push(v);
        }
    }
    let q = DMatrix::from_columns(&basis);
    let h = q.transpose() * &mt * &q;
    h.complex_eigenvalues().iter().map(|z| z.norm()).fold(0.0, f64::max)
}

/// Principal root fitted to the position sequence of a long run at w h = wh from x = 1:
/// least squares for x_{k+1} = p x_k - q x_{k-1} once the spurious roots have decayed.
fn fitted_root(m: Method, rho: f64, wh: f64) -> C {
    let h = 0.01;
    let mut sys = Oscillator { w: wh / h, b0: 0.0 };
    let mut it = Integrator::new(&sys, m, rho, consistent(0.0, 1.0, 0.0, sys.w)).unwrap();
    let mut x = vec![1.0];
    for k in 1..=400 {
        it.step_to(&mut sys, k as f64 * h, &NEWTON).unwrap();
        x.push(it.state().y[0]);
    }
    // Normal equations of min sum (x_{k+1} - p x_k + q x_{k-1})^2 over k = 150..399.
    let (mut a11, mut a12, mut a22, mut r1, mut r2) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for k in 150..400 {
        let (u, v, t) = (x[k], -x[k - 1], x[k + 1]);
        a11 += u * u;
        a12 += u * v;
        a22 += v * v;
        r1 += u * t;
        r2 += v * t;
    }
    let det = a11 * a22 - a12 * a12;
    let p = (r1 * a22 - r2 * a12) / det;
    let q = (a11 * r2 - a12 * r1) / det;
    // z^2 - p z + q = 0, the root with positive imaginary part.
    let disc = C::new(p * p - 4.0 * q, 0.0).sqrt();
    let z = (C::new(p, 0.0) + disc) * 0.5;
    if z.im < 0.0 {
        z.conj()
    } else {
        z
    }
}

/// Amplitude decay ratio xi_bar and period elongation (T_bar - T)/T = w/w_bar - 1 of a
/// principal root z = exp((-xi w_bar + i w_d) h) ([Zhang2022, eq. 22]).
fn decay_and_elongation(z: C, wh: f64) -> (f64, f64) {
    let l = z.ln();
    let wbar_h = l.norm();
    (-l.re / wbar_h, wh / wbar_h - 1.0)
}

#[test]
fn spectral_radius_at_infinity_is_rho_inf() {
    for (m, rhos) in cases() {
        for &rho in &rhos {
            let expect = match m {
                Method::Trapezoidal => 1.0,
                Method::Bdf1 | Method::Esdirk324L2Sa | Method::Esdirk325L2Sa | Method::Esdirk436L2Sa2 => 0.0,
                _ => rho,
            };
            // w h = 1e12: the k-fold root -rho of LMSk's sigma splits by (w h)^(-1/k) and
            // eigenvalues of the nearly defective map are accurate to eps^(1/k).
            let measured = spectral_radius(one_step_map(m, rho, 1e12));
            let tol = match m {
                Method::Lms2 | Method::Ss2 => 1e-6,
                Method::Lms3 | Method::Ss3 => 1e-4,
                Method::Lms4 | Method::Ss4 => 2e-3,
                _ => 1e-9,
            };
            assert!(
                (measured - expect).abs() < tol,
                "{}: rho_inf {rho}: spectral radius {measured} (expected {expect})",
                m.item_name()
            );
        }
    }
}

#[test]
fn amplitude_decay_and_period_elongation_match_characteristic_roots() {
    // dt/T = 0.1, i.e. w h = 0.2 pi ([Zhang2022, Sect. 4]).
    let wh = 0.2 * PI;
    let z = C::new(0.0, wh);
    let mut checked = 0;
    for (m, rhos) in cases() {
        for &rho in rhos.iter().filter(|&&r| r == 0.0 || r == 0.6 || !m.uses_rho_inf()) {
            let Some(reference) = reference_root(m, rho, z) else { continue };
            let (xi_ref, pe_ref) = decay_and_elongation(reference, wh);
            let (xi, pe) = decay_and_elongation(fitted_root(m, rho, wh), wh);
            assert!(
                (xi - xi_ref).abs() < 1e-9 && (pe - pe_ref).abs() < 1e-9,
                "{} rho_inf {rho}: AD {xi:.12e} vs {xi_ref:.12e}, PE {pe:.12e} vs {pe_ref:.12e}",
                m.item_name()
            );
            // One-step map, too: its principal eigenvalue is the reference root.
            let eig = one_step_map(m, rho, wh).complex_eigenvalues();
            let closest = eig.iter().map(|e| (e - reference).norm()).fold(f64::INFINITY, f64::min);
            assert!(
                closest < 1e-9,
                "{} rho_inf {rho}: no eigenvalue of the one-step map at {reference}",
                m.item_name()
            );
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} cases had a reference");
}
