//! Coefficients of the integrator suite of seed 000, computed from their defining equations
//! (shared/reference/integrators.md, "integrators.md" below). Parameters that are roots of an
//! equation (gamma of MSSTC/MSSTH, the SS4 kappa) are solved here in f64, never copied as
//! truncated literals (integrators.md Sect. 10.3). Only the MSSTH4/MSSTH5 abscissae, which the
//! sources tabulate at rho_inf in {0, 0.1, ..., 1} without their criterion, are literals
//! (integrators.md Sect. 6.2 and 10.4).
//!
//! Literals keep the digits of their source even beyond f64 precision, so they can be checked
//! against it.
#![allow(clippy::excessive_precision)]

use crate::linalg::solve_small;

// SS3 and SS4 have complex parameters (seed 000 Sect. 2.2): num-complex's type, re-exported
// by nalgebra.
use nalgebra::Complex;

/// The root of `f` in [lo, hi] by bisection to the last bit; `f(lo)` and `f(hi)` must differ
/// in sign (each caller's bracket holds exactly one root for every rho_inf in [0, 1]; the
/// brackets were checked against all real roots of the equations).
fn bisect(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    let mut flo = f(lo);
    let fhi = f(hi);
    if flo == 0.0 {
        return lo;
    }
    if fhi == 0.0 {
        return hi;
    }
    debug_assert!(flo.signum() != fhi.signum(), "no sign change in [{lo}, {hi}]");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        let fm = f(mid);
        if fm == 0.0 {
            return mid;
        }
        if fm.signum() == flo.signum() {
            lo = mid;
            flo = fm;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Compensated Horner evaluation (Graillat, Langlois & Louvet 2005) of a polynomial with
/// coefficients from the highest degree down: returns (s, e) with s + e as accurate as Horner
/// in twice the working precision. The gamma equations of MSSTC4/5 cancel heavily near their
/// roots (relative condition ~3e3), so plain Horner would leave gamma uncertain at ~1e-13.
fn poly_dd(c: &[f64], x: f64) -> (f64, f64) {
    let (mut s, mut err) = (c[0], 0.0);
    for &a in &c[1..] {
        // TwoProd by FMA and TwoSum (Knuth): exact error terms of s * x + a.
        let p = s * x;
        let pe = s.mul_add(x, -p);
        let (t, se) = two_sum(p, a);
        s = t;
        err = err * x + (pe + se);
    }
    (s, err)
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let z = s - a;
    (s, (a - (s - z)) + (b - z))
}

/// sum_k rho^k P_k(x) in double-double for polynomials P_k with integer (exactly
/// representable) coefficients: the equations' rho-dependent coefficients are never rounded
/// (e.g. -192 rho - 2731200 in the MSSTC5 equation would lose ~1e-16 relative, which the
/// root amplifies to ~1e-12).
fn poly_rho_dd(p: &[&[f64]], rho: f64, x: f64) -> (f64, f64) {
    p.iter().rev().fold((0.0, 0.0), |(ah, al), c| {
        let (ph, pl) = poly_dd(c, x);
        let m = ah * rho;
        let me = ah.mul_add(rho, -m) + al * rho;
        let (s, se) = two_sum(m, ph);
        (s, se + me + pl)
    })
}

fn poly_rho(p: &[&[f64]], rho: f64, x: f64) -> f64 {
    let (h, l) = poly_rho_dd(p, rho, x);
    h + l
}

fn poly(c: &[f64], x: f64) -> f64 {
    let (h, l) = poly_dd(c, x);
    h + l
}

// ---------------------------------------------------------------------------------------------
// Linear multistep methods (seed 000 eq. 2) and the trapezoidal rule (eq. 3).

/// One multistep formula y_n = sum_j a_j y_{n-j} + sum_j b_j y'_{n-j} (seed 000 eq. 2), with
/// the step size included in b (integrators.md Sect. 0.2). `a[j-1]` multiplies y_{n-j},
/// `b[j]` multiplies y'_{n-j}; `steps` is the number of past points used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multistep {
    pub steps: usize,
    pub a: [f64; 4],
    pub b: [f64; 5],
}

impl Multistep {
    /// Backward Euler, y_n = y_{n-1} + h y'_n (seed 003 eq. 13).
    pub fn bdf1(h: f64) -> Multistep {
        Multistep { steps: 1, a: [1.0, 0.0, 0.0, 0.0], b: [h, 0.0, 0.0, 0.0, 0.0] }
    }

    /// Trapezoidal rule, y_n = y_{n-1} + h/2 (y'_n + y'_{n-1}) (seed 000 eq. 3).
    pub fn trapezoidal(h: f64) -> Multistep {
        Multistep { steps: 1, a: [1.0, 0.0, 0.0, 0.0], b: [0.5 * h, 0.5 * h, 0.0, 0.0, 0.0] }
    }

    /// Variable-step LMS2 (integrators.md Sect. 1.1; Masarati et al. 2001, seed 000 ref. [24]):
    /// h = h_n, alpha = h_n / h_{n-1}.
    pub fn lms2(rho: f64, h: f64, alpha: f64) -> Multistep {
        let h_prev = h / alpha;
        let s = (1.0 - rho) * (1.0 - rho);
        let d = 2.0 * (1.0 + alpha) - s;
        let beta = alpha * (s * (2.0 + alpha) + 2.0 * (2.0 * rho - 1.0) * (1.0 + alpha)) / d;
        let delta = alpha * alpha * s / (2.0 * d);
        Multistep {
            steps: 2,
            a: [1.0 - beta, beta, 0.0, 0.0],
            b: [
                h_prev * (delta / alpha + 0.5 * alpha),
                h_prev * (0.5 * beta + 0.5 * alpha - delta / alpha * (1.0 + alpha)),
                h_prev * (0.5 * beta + delta),
                0.0,
                0.0,
            ],
        }
    }

    /// Constant-step LMS3 (integrators.md Sect. 2.1; seed 000 ref. [36]).
    pub fn lms3(rho: f64, h: f64) -> Multistep {
        let r = rho;
        let d = r * r - 5.0 * r + 10.0;
        let bb = (1.0 + r) * d;
        Multistep {
            steps: 3,
            a: [
                3.0 * (2.0 * r * r - 9.0 * r + 5.0) / d,
                -3.0 * (5.0 * r * r - 9.0 * r + 2.0) / d,
                (10.0 * r * r - 5.0 * r + 1.0) / d,
                0.0,
            ],
            b: [6.0 * h / bb, 18.0 * r * h / bb, 18.0 * r * r * h / bb, 6.0 * r * r * r * h / bb, 0.0],
        }
    }

    /// Constant-step LMS4 (integrators.md Sect. 2.2; seed 000 ref. [36]).
    pub fn lms4(rho: f64, h: f64) -> Multistep {
        let r = rho;
        let (r2, r3) = (r * r, r * r * r);
        let d = -r3 + 7.0 * r2 - 21.0 * r + 35.0;
        let bb = (1.0 + r) * d;
        Multistep {
            steps: 4,
            a: [
                4.0 * (-2.0 * r3 + 13.0 * r2 - 35.0 * r + 14.0) / d,
                -4.0 * (1.0 - r) * (7.0 * r2 - 34.0 * r + 7.0) / d,
                -4.0 * (14.0 * r3 - 35.0 * r2 + 13.0 * r - 2.0) / d,
                (35.0 * r3 - 21.0 * r2 + 7.0 * r - 1.0) / d,
            ],
            b: [20.0 * h / bb, 80.0 * r * h / bb, 120.0 * r2 * h / bb, 80.0 * r3 * h / bb, 20.0 * r2 * r2 * h / bb],
        }
    }
}

/// Second-order (cubic Hermite) derivative predictor of seed 000 eqs. (12)-(14):
/// y'_N = (m0 y_{N-1} + m1 y_{N-2}) / (t_N - t_{N-1}) + n0 y'_{N-1} + n1 y'_{N-2},
/// alpha = (t_N - t_{N-1}) / (t_{N-1} - t_{N-2}). Written with 1/(t_N - t_{N-1}) as in eq. (12),
/// this is the form integrators.md Sect. 1.4 recommends (MBDyn's regression divides by h_{N-1}).
/// Returns (m0, m1, n0, n1).
pub fn hermite3(alpha: f64) -> [f64; 4] {
    let m0 = -6.0 * alpha * alpha * (1.0 + alpha);
    [m0, -m0, (1.0 + alpha) * (1.0 + 3.0 * alpha), alpha * (2.0 + 3.0 * alpha)]
}

/// Fourth-order (quintic Hermite) derivative predictor of seed 000 eqs. (16)-(17):
/// y'_N = (m0 y_{N-1} + m1 y_{N-2} + m2 y_{N-3}) / (t_N - t_{N-1}) + n0 y'_{N-1} + n1 y'_{N-2} + n2 y'_{N-3},
/// alpha1 = (t_N - t_{N-1})/(t_{N-1} - t_{N-2}), alpha2 = (t_N - t_{N-1})/(t_{N-2} - t_{N-3}).
/// Returns ([m0, m1, m2], [n0, n1, n2]).
pub fn hermite5(a1: f64, a2: f64) -> ([f64; 3], [f64; 3]) {
    let (a1_2, a1_3) = (a1 * a1, a1 * a1 * a1);
    let (a2_2, a2_3) = (a2 * a2, a2 * a2 * a2);
    let s = a1 + a2;
    // eq. (17b)
    let m0 = -2.0 * a1_2 * (1.0 + a1) / (s * s * s)
        * (5.0 * a1_3 * a2_2
            + 8.0 * a1_3 * a2
            + 10.0 * a1_2 * a2_3
            + 3.0 * a1_3
            + 25.0 * a1_2 * a2_2
            + 13.0 * a1_2 * a2
            + 20.0 * a1 * a2_3
            + 20.0 * a1 * a2_2
            + 10.0 * a2_3);
    // eq. (17c)
    let m1 = 2.0 * (1.0 + a1) / a1
        * (5.0 * a1_3 * a2_2 + 8.0 * a1_3 * a2 + 3.0 * a1_3 - 5.0 * a1_2 * a2_3 + a1_2 * a2_2 + 4.0 * a1_2 * a2
            - 7.0 * a1 * a2_3
            - a1 * a2_2
            - 2.0 * a2_3);
    // eq. (17d)
    let m2 = -m0 - m1;
    // eq. (17e)
    let n0 = (1.0 + a1) / (s * s)
        * (5.0 * a1_3 * a2_2
            + 8.0 * a1_3 * a2
            + 3.0 * a1_3
            + 11.0 * a1_2 * a2_2
            + 10.0 * a1_2 * a2
            + a1_2
            + 7.0 * a1 * a2_2
            + 2.0 * a1 * a2
            + a2_2);
    // eq. (17f)
    let n1 = (5.0 * a1_3 * a2_2
        + 8.0 * a1_3 * a2
        + 3.0 * a1_3
        + 12.0 * a1_2 * a2_2
        + 12.0 * a1_2 * a2
        + 2.0 * a1_2
        + 9.0 * a1 * a2_2
        + 4.0 * a1 * a2
        + 2.0 * a2_2)
        / a1;
    // eq. (17g)
    let n2 = a2_3 * (1.0 + a1) / (a1 * s * s) * (2.0 * a1 + 2.0 * a2 + 7.0 * a1 * a2 + 5.0 * a1_2 * a2 + 4.0 * a1_2);
    ([m0, m1, m2], [n0, n1, n2])
}

// ---------------------------------------------------------------------------------------------
// Equivalent single-step methods SS2-SS4 (seed 000 eqs. 4a-4e).

/// SSk as a cascade of k-1 filters (seed 000 eqs. 4a-4e; integrators.md Sect. 3.1-3.2) with
/// auxiliary vectors W_1 (outermost, eq. 4a) ... W_{k-1} (innermost, eq. 4e), W_k := y':
///   y_n - y_{n-1} = h (gamma_0 W_1^n + (1 - gamma_0) W_1^{n-1}),
///   W_i^n = c_i W_i^{n-1} + d_i W_{i+1}^n + e_i W_{i+1}^{n-1},
///   c_i = -(1 - gamma_{2i-1})/gamma_{2i-1}, d_i = gamma_{2i}/gamma_{2i-1}, e_i = (1 - gamma_{2i})/gamma_{2i-1}.
#[derive(Clone, Debug, PartialEq)]
pub struct SingleStep {
    pub gamma0: f64,
    /// Per filter i = 1..k-1 (index i-1): (gamma_{2i-1}, gamma_{2i}).
    pub gammas: Vec<(Complex<f64>, Complex<f64>)>,
    pub c: Vec<Complex<f64>>,
    pub d: Vec<Complex<f64>>,
    pub e: Vec<Complex<f64>>,
    /// D_i = d_i d_{i+1} ... d_{k-1}: dW_i^n / dy'_n.
    pub dw: Vec<Complex<f64>>,
}

impl SingleStep {
    /// The parameters of SSk, k in 2..=4, equivalent to LMSk (integrators.md Sect. 3.1):
    /// gamma_even = 1/(1+rho), gamma_{2i-1} = (1 + kappa_i (1-rho))/(1+rho), kappa_i the roots
    /// of 2 kappa - 1 (SS2), 6 kappa^2 - 3 kappa + 1 (SS3), 20 kappa^3 - 10 kappa^2 + 4 kappa - 1
    /// (SS4). The complex kappas go to the inner filters as in MBDyn (real ones outside).
    pub fn new(k: usize, rho: f64) -> SingleStep {
        let kappas: Vec<Complex<f64>> = match k {
            2 => vec![Complex::new(0.5, 0.0)],
            3 => {
                // 6 kappa^2 - 3 kappa + 1 = 0
                let im = (15.0f64).sqrt() / 12.0;
                vec![Complex::new(0.25, im), Complex::new(0.25, -im)]
            }
            4 => {
                // 20 kappa^3 - 10 kappa^2 + 4 kappa - 1 = 0: the real root by bisection (the
                // cubic is increasing: derivative 60k^2 - 20k + 4 > 0), then deflation
                // 20 (kappa - k1)(kappa^2 + p kappa + q).
                let f = |x: f64| poly(&[20.0, -10.0, 4.0, -1.0], x);
                let k1 = bisect(f, 0.0, 1.0);
                let p = -0.5 + k1;
                let q = 0.05 / k1;
                let re = -0.5 * p;
                let im = (q - re * re).sqrt();
                vec![Complex::new(k1, 0.0), Complex::new(re, im), Complex::new(re, -im)]
            }
            _ => panic!("SS{k} does not exist"),
        };
        let even = 1.0 / (1.0 + rho);
        let gammas: Vec<(Complex<f64>, Complex<f64>)> = kappas
            .iter()
            .map(|kappa| ((kappa.scale(1.0 - rho) + Complex::ONE).scale(1.0 / (1.0 + rho)), Complex::new(even, 0.0)))
            .collect();
        let c: Vec<Complex<f64>> = gammas.iter().map(|(go, _)| (Complex::<f64>::ONE - *go).scale(-1.0) / *go).collect();
        let d: Vec<Complex<f64>> = gammas.iter().map(|(go, ge)| *ge / *go).collect();
        let e: Vec<Complex<f64>> = gammas.iter().map(|(go, ge)| (Complex::<f64>::ONE - *ge) / *go).collect();
        let mut dw = vec![Complex::ONE; k - 1];
        let mut acc = Complex::ONE;
        for i in (0..k - 1).rev() {
            acc = d[i] * acc;
            dw[i] = acc;
        }
        SingleStep { gamma0: even, gammas, c, d, e, dw }
    }

    /// Number of auxiliary vectors (k - 1).
    pub fn filters(&self) -> usize {
        self.c.len()
    }

    /// dy_n/dy'_n = gamma_0 D_1 per unit step (seed 000 Sect. 3.2: gamma_0 gamma_2 .../(gamma_1 gamma_3 ...)).
    pub fn b0_per_h(&self) -> f64 {
        self.gamma0 * self.dw[0].re
    }
}

// ---------------------------------------------------------------------------------------------
// Stiffly accurate ESDIRKs with explicit first stage (seed 000 Sect. 2.3, eqs. 5-6).

/// A stiffly accurate ESDIRK: stage 0 is the step's start; stage i = 1..s solves
/// Y_i = y_{n-1} + h sum_{j<i} a_ij Y'_j + h gamma Y'_i at t_{n-1} + c_i h; y_n = Y_s
/// (seed 000 eqs. 5-6, integrators.md Sect. 0.2). `a[i-1]` holds a_i0 .. a_ii (a_ii = gamma).
#[derive(Clone, Debug, PartialEq)]
pub struct Tableau {
    pub gamma: f64,
    pub c: Vec<f64>,
    pub a: Vec<Vec<f64>>,
    /// The last stage uses the fourth-order predictor of seed 000 eqs. (16)-(17).
    pub quintic_last: bool,
}

impl Tableau {
    /// Implicit stages s.
    pub fn stages(&self) -> usize {
        self.a.len()
    }

    /// Builds the tableau from rows a_i1 .. a_i,i-1 (without a_i0 and gamma) and the
    /// abscissae; a_i0 = c_i - gamma - sum_{j>=1} a_ij as in MBDyn (integrators.md Sect. 8),
    /// so that every row sums to its abscissa exactly.
    fn from_inner(gamma: f64, c: Vec<f64>, inner: &[Vec<f64>], quintic_last: bool) -> Tableau {
        let a = inner
            .iter()
            .enumerate()
            .map(|(k, row)| {
                let i = k + 1;
                let a0 = c[i] - gamma - row.iter().sum::<f64>();
                let mut full = Vec::with_capacity(i + 1);
                full.push(a0);
                full.extend_from_slice(row);
                full.push(gamma);
                full
            })
            .collect();
        Tableau { gamma, c, a, quintic_last }
    }

    /// rho_inf-Bathe (seed 000 eq. 7; integrators.md Sect. 4).
    pub fn bathe(rho: f64) -> Tableau {
        let g = if rho >= 1.0 { 0.25 } else { (2.0 - (2.0 * (1.0 + rho)).sqrt()) / (2.0 * (1.0 - rho)) };
        let q1 = (1.0 - 2.0 * g) / (4.0 * g);
        Tableau::from_inner(g, vec![0.0, 2.0 * g, 1.0], &[vec![], vec![q1]], false)
    }

    /// MSSTC(n), n = 3, 4, 5 (seed 000 Sect. 2.3, ref. [35]; integrators.md Sect. 5): n - 1
    /// trapezoidal sub-steps of length 2 gamma h and a general last stage; gamma is the root
    /// of the dissipation condition nearest 1/(2n).
    pub fn msstc(n: usize, rho: f64) -> Tableau {
        let r = rho;
        let (g, q): (f64, Vec<f64>) = match n {
            3 => {
                let g = bisect(
                    |g| poly_rho(&[&[24.0, -72.0, 48.0, -12.0, 1.0], &[24.0, -8.0, 0.0, 0.0, 0.0]], r, g),
                    0.15,
                    0.2,
                );
                let q = vec![
                    ((2.0 * r - 6.0) * g * g + 8.0 * g - 1.0) / (8.0 * g),
                    (1.0 - (1.0 + r) * g) / 2.0,
                    (2.0 * (1.0 + r) * g * g - 4.0 * g + 1.0) / (8.0 * g),
                ];
                (g, q)
            }
            4 => {
                let p0 = [10304.0, -44032.0, 57728.0, -37632.0, 14128.0, -3200.0, 432.0, -32.0, 1.0];
                let p1 = [-10368.0, 11264.0, -4480.0, 768.0, -48.0, 0.0, 0.0, 0.0, 0.0];
                let p2 = [64.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
                let g = bisect(|g| poly_rho(&[&p0, &p1, &p2], r, g), 0.12, 0.14);
                let (g2, g3, g4) = (g * g, g * g * g, g * g * g * g);
                let d = 64.0 * g2 * (1.0 - 4.0 * g);
                let q = vec![
                    ((40.0 * r + 216.0) * g4 - (8.0 * r + 376.0) * g3 + 144.0 * g2 - 20.0 * g + 1.0) / d,
                    -(104.0 * (r - 1.0) * g4 - (24.0 * r - 88.0) * g3 + 16.0 * g2 - 12.0 * g + 1.0) / d,
                    -(88.0 * (1.0 - r) * g4 + (24.0 * r - 216.0) * g3 + 112.0 * g2 - 20.0 * g + 1.0) / d,
                    (24.0 * (1.0 - r) * g4 + (8.0 * r - 72.0) * g3 + 48.0 * g2 - 12.0 * g + 1.0) / d,
                ];
                (g, q)
            }
            5 => {
                let s_of = |g: f64| {
                    poly_rho(
                        &[
                            &[51520.0, -65600.0, 34560.0, -9600.0, 1480.0, -120.0, 4.0],
                            &[320.0, -64.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                        ],
                        r,
                        g,
                    )
                };
                // A0 + A1 sqrt(2 S) in double-double: the two terms cancel to 1e-3 near the root.
                let f = |g: f64| {
                    let (a0h, a0l) = poly_rho_dd(
                        &[
                            &[5265280.0, -8902400.0, 6546240.0, -2731200.0, 706560.0, -116000.0, 11800.0, -680.0, 17.0],
                            &[22400.0, -14080.0, 2880.0, -192.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                        ],
                        r,
                        g,
                    );
                    let (a1h, a1l) = poly_rho_dd(
                        &[&[8200.0, -8640.0, 3600.0, -740.0, 75.0, -3.0], &[8.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
                        r,
                        g,
                    );
                    let (sh, sl) = poly_rho_dd(
                        &[
                            &[51520.0, -65600.0, 34560.0, -9600.0, 1480.0, -120.0, 4.0],
                            &[320.0, -64.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                        ],
                        r,
                        g,
                    );
                    // sqrt(2 S) = q + ql by one Newton correction; A0/64 + A1/32 sqrt(2S) times 64.
                    let q = (2.0 * sh).sqrt();
                    let ql = ((-q).mul_add(q, 2.0 * sh) + 2.0 * sl) / (2.0 * q);
                    let p = a1h * q;
                    let pl = a1h.mul_add(q, -p) + a1h * ql + a1l * q;
                    let (t, tl) = two_sum(a0h, 2.0 * p);
                    t + (tl + a0l + 2.0 * pl)
                };
                let g = bisect(f, 0.095, 0.11);
                let (g2, g3, g4) = (g * g, g * g * g, g * g * g * g);
                let a1 = 1.0 - 5.0 * g;
                let a2 = 10.0 * g2 - 5.0 * g + 0.5;
                let a5 = r * g4 * g;
                let a3 = -(400.0 * g3 - 280.0 * g2 + 60.0 * g - 4.0 + (2.0 * s_of(g)).sqrt()) / 8.0;
                let a4 = -(720.0 * g4 - 800.0 * g3 + 280.0 * g2 + (80.0 * a3 - 40.0) * g - 16.0 * a3 + 2.0) / 16.0;
                let q = vec![
                    15.0 * g / 16.0 + a1 / 16.0 - a2 / (16.0 * g) + a3 / (16.0 * g2) - a4 / (16.0 * g3)
                        + a5 / (16.0 * g4),
                    13.0 * g / 8.0 + a1 / 4.0 - a2 / (8.0 * g) + a4 / (8.0 * g3) - a5 / (4.0 * g4),
                    g + 3.0 * a1 / 8.0 - a3 / (8.0 * g2) + 3.0 * a5 / (8.0 * g4),
                    3.0 * g / 8.0 + a1 / 4.0 + a2 / (8.0 * g) - a4 / (8.0 * g3) - a5 / (4.0 * g4),
                    g / 16.0 + a1 / 16.0 + a2 / (16.0 * g) + a3 / (16.0 * g2) + a4 / (16.0 * g3) + a5 / (16.0 * g4),
                ];
                (g, q)
            }
            _ => panic!("MSSTC({n}) does not exist"),
        };
        let mut c: Vec<f64> = (0..n).map(|i| 2.0 * i as f64 * g).collect();
        c.push(1.0);
        let mut a: Vec<Vec<f64>> = (1..n)
            .map(|i| {
                let mut row = vec![2.0 * g; i + 1];
                row[0] = g;
                row[i] = g;
                row
            })
            .collect();
        let mut last = q;
        last.push(g);
        a.push(last);
        Tableau { gamma: g, c, a, quintic_last: false }
    }

    /// gamma of MSSTH(n), n = 3, 4, 5: the root of N(z)'s order condition with
    /// R(inf) = (-1)^n ... in the A-stable range (integrators.md Sect. 6.1; NLD-2020 eq. 19e).
    pub fn mssth_gamma(n: usize, rho: f64) -> f64 {
        match n {
            // The equations times 6, 24 and 120 (integer coefficients).
            3 => bisect(|g| poly_rho(&[&[-6.0, 18.0, -9.0, 1.0], &[6.0, 0.0, 0.0, 0.0]], rho, g), 0.3, 0.5),
            4 => bisect(
                |g| poly_rho(&[&[24.0, -96.0, 72.0, -16.0, 1.0], &[-24.0, 0.0, 0.0, 0.0, 0.0]], rho, g),
                0.38,
                0.6,
            ),
            5 => bisect(
                |g| {
                    poly_rho(&[&[-120.0, 600.0, -600.0, 200.0, -25.0, 1.0], &[-120.0, 0.0, 0.0, 0.0, 0.0, 0.0]], rho, g)
                },
                0.24,
                0.29,
            ),
            _ => panic!("MSSTH({n}) does not exist"),
        }
    }

    /// Third-order, stage-order-2 ESDIRK with c1 = 2 gamma and a free c2 (integrators.md
    /// Sect. 6.2, MSSTH3, and Sect. 8.1, the same closed forms for ESDIRK3(2)4L[2]SA).
    fn third_order(g: f64, c2: f64) -> Tableau {
        let a21 = c2 * (c2 - 2.0 * g) / (4.0 * g);
        let q1 = (3.0 * c2 + 6.0 * g - 6.0 * c2 * g - 2.0) / (12.0 * g * (c2 - 2.0 * g));
        let q2 = (6.0 * g * g - 6.0 * g + 1.0) / (3.0 * c2 * (c2 - 2.0 * g));
        Tableau::from_inner(g, vec![0.0, 2.0 * g, c2, 1.0], &[vec![], vec![a21], vec![q1, q2]], false)
    }

    /// MSSTH(n) in the stage-order-2 form of seed 000 Sect. 2.3 (MBDyn; integrators.md Sect. 6):
    /// MSSTH3 for any rho_inf; MSSTH4/5 only at the tabulated rho_inf in {0, 0.1, ..., 1}.
    pub fn mssth(n: usize, rho: f64) -> Result<Tableau, String> {
        match n {
            3 => {
                let g = Self::mssth_gamma(3, rho);
                let c2 = (24.0 * g * g - 20.0 * g + 3.0) / (24.0 * g * g - 24.0 * g + 4.0);
                Ok(Self::third_order(g, c2))
            }
            4 => {
                let k = tabulated_index(rho).ok_or_else(|| tabulated_error("MSSTH4", rho))?;
                let (c2, c3) = MSSTH4_C[k];
                Ok(Self::mssth4(Self::mssth_gamma(4, k as f64 / 10.0), c2, c3))
            }
            5 => {
                let k = tabulated_index(rho).ok_or_else(|| tabulated_error("MSSTH5", rho))?;
                Self::mssth5(Self::mssth_gamma(5, k as f64 / 10.0), k)
            }
            _ => panic!("MSSTH({n}) does not exist"),
        }
    }

    /// MSSTH4 from (gamma, c2, c3): closed forms of integrators.md Sect. 6.2 (fourth order for
    /// any c2 != c3; c1 = 2 gamma).
    fn mssth4(g: f64, c2: f64, c3: f64) -> Tableau {
        let (g2, g3) = (g * g, g * g * g);
        let c22 = c2 * c2;
        let a21 = c2 * (c2 - 2.0 * g) / (4.0 * g);
        let d = 24.0 * c22 * g2 - 24.0 * c22 * g + 4.0 * c22 - 48.0 * c2 * g3 + 24.0 * c2 * g2 + 12.0 * c2 * g
            - 3.0 * c2
            + 48.0 * g3
            - 40.0 * g2
            + 6.0 * g;
        let a31 = c3
            * (c3 - 2.0 * g)
            * (2.0 * c3 - 5.0 * c2 + 6.0 * g + 36.0 * c2 * g - 24.0 * c3 * g - 48.0 * c2 * g2 - 24.0 * c22 * g
                + 72.0 * c3 * g2
                - 48.0 * c3 * g3
                + 4.0 * c22
                - 40.0 * g2
                + 48.0 * g3
                + 24.0 * c22 * g2)
            / (4.0 * g * d);
        let a32 = -c3 * (c2 - c3) * (c3 - 2.0 * g) * (24.0 * g3 - 36.0 * g2 + 12.0 * g - 1.0) / (c2 * d);
        let q1 = -(4.0 * c2 + 4.0 * c3 + 12.0 * g - 6.0 * c2 * c3 - 12.0 * c2 * g - 12.0 * c3 * g + 12.0 * c2 * c3 * g
            - 3.0)
            / (24.0 * g * (c2 - 2.0 * g) * (c3 - 2.0 * g));
        let q2 = -(4.0 * c3 + 20.0 * g - 24.0 * c3 * g + 24.0 * c3 * g2 - 24.0 * g2 - 3.0)
            / (12.0 * c2 * (c2 - c3) * (c2 - 2.0 * g));
        let q3 = (4.0 * c2 + 20.0 * g - 24.0 * c2 * g + 24.0 * c2 * g2 - 24.0 * g2 - 3.0)
            / (12.0 * c3 * (c2 - c3) * (c3 - 2.0 * g));
        Tableau::from_inner(
            g,
            vec![0.0, 2.0 * g, c2, c3, 1.0],
            &[vec![], vec![a21], vec![a31, a32], vec![q1, q2, q3]],
            true,
        )
    }

    /// MSSTH5: c1 = 2 gamma, c2 = 0.1, c3 tabulated (integrators.md Sect. 6.2). The sources give
    /// the remaining coefficients only as long rational functions; here they follow from the
    /// conditions that define them: stage order 2 in every stage (A c = c^2/2, seed 000 Sect. 2.3
    /// "each stage, from the second one, has at least second-order accuracy") and order 5. With
    /// stage order 2 the order-5 conditions reduce to b.c^k = 1/(k+1) (k = 0..4), b.A c^2 = 1/12,
    /// b.(c A c^2) = 1/15, b.A c^3 = 1/20 and b.A A c^2 = 1/60. Unknowns: a32, a42, a43 and c4
    /// (integrators.md: "c4 is fixed by an order-5 condition given (g, c2, c3)"); Newton from the
    /// tabulated c4 and the appendix-A coefficients, which it reproduces.
    fn mssth5(g: f64, k: usize) -> Result<Tableau, String> {
        let (c3, c4_guess, guess) = MSSTH5_C[k];
        let mut x = [guess[0], guess[1], guess[2], c4_guess];
        let mut f = mssth5_conditions(g, c3, &x).1;
        for _ in 0..20 {
            let norm = f.iter().map(|v| v.abs()).fold(0.0, f64::max);
            if norm < 1e-15 {
                break;
            }
            // Jacobian by central differences (the conditions are polynomial in x).
            let mut jac = [[0.0; 4]; 4];
            for j in 0..4 {
                let dx = 1e-6 * x[j].abs().max(1e-3);
                let (mut xp, mut xm) = (x, x);
                xp[j] += dx;
                xm[j] -= dx;
                let (fp, fm) = (mssth5_conditions(g, c3, &xp).1, mssth5_conditions(g, c3, &xm).1);
                for i in 0..4 {
                    jac[i][j] = (fp[i] - fm[i]) / (2.0 * dx);
                }
            }
            let dx = solve4(jac, f).ok_or("MSSTH5: singular order conditions")?;
            for j in 0..4 {
                x[j] -= dx[j];
            }
            f = mssth5_conditions(g, c3, &x).1;
        }
        let norm = f.iter().map(|v| v.abs()).fold(0.0, f64::max);
        if norm.is_nan() || norm >= 1e-12 {
            return Err(format!("MSSTH5: order conditions not satisfied ({norm:e})"));
        }
        Ok(mssth5_conditions(g, c3, &x).0)
    }

    /// ESDIRK3(2)4L[2]SA of Kennedy & Carpenter 2019 (seed 000 ref. [21]; MBDyn DIRK33;
    /// integrators.md Sect. 8.1): gamma the middle root of 6g^3 - 18g^2 + 9g - 1 = 0, c2 = 3/5,
    /// the MSSTH3 closed forms.
    pub fn esdirk324l2sa() -> Tableau {
        let g = bisect(|g| poly(&[6.0, -18.0, 9.0, -1.0], g), 0.3, 0.5);
        Self::third_order(g, 0.6)
    }

    /// ESDIRK3(2)5L[2]SA of Kennedy & Carpenter (seed 000 ref. [21]; MBDyn DIRK43;
    /// integrators.md Sect. 8.2), exact in sqrt(2).
    pub fn esdirk325l2sa() -> Tableau {
        let s2 = std::f64::consts::SQRT_2;
        let g = 9.0 / 40.0;
        let a2 = 9.0 * (1.0 + s2) / 80.0;
        let a3 = (22.0 + 15.0 * s2) / (80.0 * (1.0 + s2));
        let a4 = (2398.0 + 1205.0 * s2) / (2835.0 * (4.0 + 3.0 * s2));
        Tableau {
            gamma: g,
            c: vec![0.0, 9.0 / 20.0, 9.0 * (2.0 + s2) / 40.0, 3.0 / 5.0, 1.0],
            a: vec![
                vec![g, g],
                vec![a2, a2, g],
                vec![a3, a3, -7.0 / (40.0 * (1.0 + s2)), g],
                vec![a4, a4, -2374.0 * (1.0 + 2.0 * s2) / (2835.0 * (5.0 + 3.0 * s2)), 5827.0 / 7560.0, g],
            ],
            quintic_last: false,
        }
    }

    /// ESDIRK4(3)6L[2]SA_2 of Kennedy & Carpenter 2019, gamma = 31/125 (seed 000 ref. [21];
    /// MBDyn DIRK54; integrators.md Sect. 8.3), with a_i0 from the row sums as in MBDyn.
    pub fn esdirk436l2sa2() -> Tableau {
        let g = 31.0 / 125.0;
        let a21 = -360286518617.0 / 7014585480527.0;
        let a31 = -506388693497.0 / 5937754990171.0;
        let a41 = -7628305438933.0 / 11061539393788.0;
        let b1 = -12917657251.0 / 5222094901039.0;
        let c = vec![0.0, 62.0 / 125.0, 486119545908.0 / 3346201505189.0, 1043.0 / 1706.0, 1361.0 / 1300.0, 1.0];
        Tableau::from_inner(
            g,
            c,
            &[
                vec![],
                vec![a21],
                vec![a31, 7149918333491.0 / 13390931526268.0],
                vec![a41, 21592626537567.0 / 14352247503901.0, 11630056083252.0 / 17263101053231.0],
                vec![
                    b1,
                    5602338284630.0 / 15643096342197.0,
                    9002339615474.0 / 18125249312447.0,
                    -2420307481369.0 / 24731958684496.0,
                ],
            ],
            true,
        )
    }
}

/// Index k with rho = k/10 (to within 1e-9), for the tabulated MSSTH4/5 abscissae.
pub fn tabulated_index(rho: f64) -> Option<usize> {
    let k = (rho * 10.0).round();
    ((0.0..=10.0).contains(&k) && (rho - k / 10.0).abs() <= 1e-9).then_some(k as usize)
}

fn tabulated_error(name: &str, rho: f64) -> String {
    format!(
        "{name} is defined only for rho_inf in {{0, 0.1, ..., 1}} (its stage abscissae are tabulated, integrators.md Sect. 6.2); got {rho}"
    )
}

/// MSSTH4 (c2, c3) at rho_inf = k/10 (integrators.md Sect. 6.2, MBDyn table).
const MSSTH4_C: [(f64, f64); 11] = [
    (0.5590985754229417305152542, 0.7414011664833654036144139),
    (0.6002938888698324121975147, 0.7584129875780372120885886),
    (0.638522814489160595332861, 0.7731436659604612460228168),
    (0.67524540713318077522649, 0.7860312064122737529814344),
    (0.7116626313535582440037008, 0.7972514819203143643377985),
    (0.7489373901316857945701066, 0.8067140747427041791439706),
    (0.7884370115210036155119526, 0.813966252941913492868764),
    (0.8321495959968309360981758, 0.8179301032006714988753515),
    (0.8836585039419085905336449, 0.8162478946500242305006623),
    (0.9508833135343227253337252, 0.8036295352568830763217989),
    (1.05348034117028673017024, 0.7689305362617052663765094),
];

/// MSSTH5 at rho_inf = k/10: c3 and c4 (integrators.md Sect. 6.2, MBDyn table) and starting
/// values of (a32, a42, a43) for the Newton solve (integrators.md appendix A).
#[allow(clippy::type_complexity)]
const MSSTH5_C: [(f64, f64, [f64; 3]); 11] = [
    (
        0.9673258605571696255864822,
        1.140134263244145573779065,
        [-13.246792646197920793, 7.7120235540293486852, -0.14405428331622872122],
    ),
    (
        0.9085500184865173967097007,
        1.147028320924987188078603,
        [-12.915667733662427115, 4.5800753987392581528, -0.13676272351092601744],
    ),
    (
        0.8510912674088796370241994,
        1.153119767864889455566413,
        [-12.858397368319562241, 3.0713397404454809447, -0.13538770310591695932],
    ),
    (
        0.7951780419709296721109126,
        1.158468410781347657234619,
        [-13.453355674193984229, 2.154154013706220595, -0.13035681004154166898],
    ),
    (
        0.7409689864721386021173544,
        1.163120553594974015965136,
        [-15.961486892731876011, 1.5332286509963901054, -0.11165661583799983721],
    ),
    (
        0.6885609787040850582329199,
        1.167112017832381054560642,
        [-30.436783250071502018, 1.097113030669325709, -0.059703010669447381756],
    ),
    (
        0.6379972790560722861741283,
        1.170470299562808680349235,
        [24.960783834606311753, 0.79969606054395467288, 0.074286208732510175974],
    ),
    (
        0.5892756783804685705163706,
        1.173216142360941294242593,
        [4.2377568692280058401, 0.62465841306517784389, 0.44623640288116699219],
    ),
    (
        0.5423562209596147765111596,
        1.175364704054515430087235,
        [1.0245504918910441522, 0.57309156253087614171, 1.8799847667434517676],
    ),
    (
        0.4971683414199104533715001,
        1.176926433659807091913763,
        [-0.01655790695158472015, 0.65970448702047147414, -118.28919064142282546],
    ),
    (
        0.4536172576687555468843982,
        1.177907736613444944495654,
        [-0.39420463276444229162, 0.91356062654539825592, -5.0427331674685900021],
    ),
];

/// The MSSTH5 tableau for unknowns x = (a32, a42, a43, c4) and the residuals of the four
/// order-5 conditions that remain once stage order 2 and the quadrature conditions hold.
fn mssth5_conditions(g: f64, c3: f64, x: &[f64; 4]) -> (Tableau, [f64; 4]) {
    let [a32, a42, a43, c4] = *x;
    let (c1, c2) = (2.0 * g, 0.1);
    // Stage order 2: sum_j a_ij = c_i and sum_j a_ij c_j = c_i^2 / 2 (c_0 = 0).
    let a21 = (0.5 * c2 * c2 - g * c2) / c1;
    let a31 = (0.5 * c3 * c3 - g * c3 - a32 * c2) / c1;
    let a41 = (0.5 * c4 * c4 - g * c4 - a42 * c2 - a43 * c3) / c1;
    let c = [0.0, c1, c2, c3, c4, 1.0];
    // Quadrature conditions sum_j b_j c_j^k = 1/(k+1), k = 0..4, with b_5 = gamma at c_5 = 1.
    let mut m = [[0.0; 5]; 5];
    let mut rhs = [0.0; 5];
    for k in 0..5 {
        for j in 0..5 {
            m[k][j] = c[j].powi(k as i32);
        }
        rhs[k] = 1.0 / (k as f64 + 1.0) - g;
    }
    let b = solve5(m, rhs).unwrap_or([f64::NAN; 5]);
    let t = Tableau::from_inner(
        g,
        c.to_vec(),
        &[vec![], vec![a21], vec![a31, a32], vec![a41, a42, a43], vec![b[1], b[2], b[3], b[4]]],
        true,
    );
    // Full (s+1) x (s+1) matrix for the conditions.
    let n = 6;
    let mut a = [[0.0; 6]; 6];
    for (i, row) in t.a.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            a[i + 1][j] = *v;
        }
    }
    let bv = a[5];
    let av = |v: &[f64; 6]| -> [f64; 6] { std::array::from_fn(|i| (0..n).map(|j| a[i][j] * v[j]).sum()) };
    let dot = |u: &[f64; 6], v: &[f64; 6]| -> f64 { (0..n).map(|i| u[i] * v[i]).sum() };
    let c2v: [f64; 6] = std::array::from_fn(|i| t.c[i] * t.c[i]);
    let c3v: [f64; 6] = std::array::from_fn(|i| t.c[i] * t.c[i] * t.c[i]);
    let ac2 = av(&c2v);
    let cac2: [f64; 6] = std::array::from_fn(|i| t.c[i] * ac2[i]);
    let f = [
        dot(&bv, &ac2) - 1.0 / 12.0,
        dot(&bv, &cac2) - 1.0 / 15.0,
        dot(&bv, &av(&c3v)) - 1.0 / 20.0,
        dot(&bv, &av(&ac2)) - 1.0 / 60.0,
    ];
    (t, f)
}

fn solve4(m: [[f64; 4]; 4], r: [f64; 4]) -> Option<[f64; 4]> {
    solve_small(m, r)
}

fn solve5(m: [[f64; 5]; 5], r: [f64; 5]) -> Option<[f64; 5]> {
    solve_small(m, r)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Order of a tableau by the rooted-tree conditions up to order 5 (Butcher), and the
    /// largest stage-order-2 defect |A c - c^2/2| over the internal stages.
    fn order_of(t: &Tableau) -> (usize, f64) {
        let n = t.stages() + 1;
        let mut a = vec![vec![0.0; n]; n];
        for (i, row) in t.a.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                a[i + 1][j] = *v;
            }
        }
        let b = a[n - 1].clone();
        let c: Vec<f64> = (0..n).map(|i| a[i].iter().sum()).collect();
        let av = |v: &[f64]| -> Vec<f64> { (0..n).map(|i| (0..n).map(|j| a[i][j] * v[j]).sum()).collect() };
        let dot = |u: &[f64], v: &[f64]| -> f64 { u.iter().zip(v).map(|(x, y)| x * y).sum() };
        let pw = |k: i32| -> Vec<f64> { c.iter().map(|x| x.powi(k)).collect() };
        let mul = |u: &[f64], v: &[f64]| -> Vec<f64> { u.iter().zip(v).map(|(x, y)| x * y).collect() };
        let ac = av(&c);
        let ac2 = av(&pw(2));
        let aac = av(&ac);
        let groups: Vec<Vec<f64>> = vec![
            vec![dot(&b, &pw(0)) - 1.0],
            vec![dot(&b, &c) - 0.5],
            vec![dot(&b, &pw(2)) - 1.0 / 3.0, dot(&b, &ac) - 1.0 / 6.0],
            vec![
                dot(&b, &pw(3)) - 0.25,
                dot(&b, &mul(&c, &ac)) - 1.0 / 8.0,
                dot(&b, &ac2) - 1.0 / 12.0,
                dot(&b, &aac) - 1.0 / 24.0,
            ],
            vec![
                dot(&b, &pw(4)) - 0.2,
                dot(&b, &mul(&pw(2), &ac)) - 0.1,
                dot(&b, &mul(&c, &ac2)) - 1.0 / 15.0,
                dot(&b, &mul(&c, &aac)) - 1.0 / 30.0,
                dot(&b, &mul(&ac, &ac)) - 0.05,
                dot(&b, &av(&pw(3))) - 0.05,
                dot(&b, &av(&mul(&c, &ac))) - 1.0 / 40.0,
                dot(&b, &av(&ac2)) - 1.0 / 60.0,
                dot(&b, &av(&aac)) - 1.0 / 120.0,
            ],
        ];
        // Coefficient sizes up to ~100 (MSSTH4/5) make the conditions cancel at ~1e-12.
        let scale = t.a.iter().flatten().map(|x| x.abs()).fold(1.0, f64::max);
        let order = groups.iter().take_while(|g| g.iter().all(|r| r.abs() < 1e-13 * scale)).count();
        let so2 = (1..n - 1).map(|i| (ac[i] - 0.5 * c[i] * c[i]).abs()).fold(0.0, f64::max);
        (order, so2)
    }

    /// R(z) at z = -1e12 by the stage recursion: Y_0 = 1, Y_i = (1 + z sum_{j<i} a_ij Y_j)/(1 - z gamma).
    fn r_inf(t: &Tableau) -> f64 {
        let z = -1e12;
        let mut y = vec![1.0];
        for row in &t.a {
            let i = row.len() - 1;
            let s: f64 = (0..i).map(|j| row[j] * y[j]).sum();
            y.push((1.0 + z * s) / (1.0 - z * row[i]));
        }
        *y.last().unwrap()
    }

    #[test]
    fn tableaus_have_their_order_and_rho_inf() {
        for k in 0..=10 {
            let rho = k as f64 / 10.0;
            let cases: Vec<(&str, Tableau, usize, f64)> = vec![
                ("Bathe", Tableau::bathe(rho), 2, rho),
                ("MSSTC3", Tableau::msstc(3, rho), 2, -rho),
                ("MSSTC4", Tableau::msstc(4, rho), 2, rho),
                ("MSSTC5", Tableau::msstc(5, rho), 2, -rho),
                ("MSSTH3", Tableau::mssth(3, rho).unwrap(), 3, rho),
                ("MSSTH4", Tableau::mssth(4, rho).unwrap(), 4, rho),
                ("MSSTH5", Tableau::mssth(5, rho).unwrap(), 5, -rho),
            ];
            for (name, t, order, rinf) in cases {
                let (p, so2) = order_of(&t);
                assert_eq!(p, order, "{name} rho {rho}");
                assert!(so2 < 1e-12, "{name} rho {rho}: stage order 2 defect {so2:e}");
                assert!((r_inf(&t) - rinf).abs() < 1e-9, "{name} rho {rho}: R(inf) {} != {rinf}", r_inf(&t));
            }
        }
        for (name, t, order) in [
            ("ESDIRK3(2)4L[2]SA", Tableau::esdirk324l2sa(), 3),
            ("ESDIRK3(2)5L[2]SA", Tableau::esdirk325l2sa(), 3),
            ("ESDIRK4(3)6L[2]SA2", Tableau::esdirk436l2sa2(), 4),
        ] {
            let (p, so2) = order_of(&t);
            assert_eq!(p, order, "{name}");
            assert!(so2 < 1e-12, "{name}: stage order 2 defect {so2:e}");
            assert!(r_inf(&t).abs() < 1e-9, "{name}: L-stable");
        }
    }

    #[test]
    fn gammas_are_the_published_roots() {
        // integrators.md Sect. 4, 5.3 and 6.1 (25-digit exact roots) at rho = 0 and 0.6.
        // A few ulps (MBDyn's MSSTC4 literals are off by up to 2.2e-13, integrators.md Sect. 5.3).
        let close = |a: f64, b: f64| (a - b).abs() < 1e-16;
        assert!(close(Tableau::bathe(0.0).gamma, 0.292893218813452475599155637895));
        assert!(close(Tableau::bathe(0.6).gamma, 0.263932022500210303590826331269));
        assert!(close(Tableau::msstc(3, 0.0).gamma, 0.1804253064293985641345831));
        assert!(close(Tableau::msstc(3, 0.6).gamma, 0.1712486185906915078076604));
        assert!(close(Tableau::msstc(4, 0.0).gamma, 0.1313787367304661325241454));
        assert!(close(Tableau::msstc(4, 0.6).gamma, 0.1271392659020838138864249));
        assert!(close(Tableau::msstc(5, 0.0).gamma, 0.1035571089202148766377048));
        assert!(close(Tableau::msstc(5, 0.6).gamma, 0.1011961150731811994718270));
        assert!(close(Tableau::mssth_gamma(3, 0.0), 0.4358665215084589994160195));
        assert!(close(Tableau::mssth_gamma(4, 0.6), 0.4541307850365275155891952));
        assert!(close(Tableau::mssth_gamma(5, 0.6), 0.2574960298566752206116149));
        assert!(close(Tableau::mssth_gamma(4, 1.0), (3.0 + 3f64.sqrt()) / 12.0));
    }

    #[test]
    fn esdirk_tables_match_the_published_decimals() {
        let t = Tableau::esdirk324l2sa();
        let want = [
            vec![0.2576482460664272457999960162840797092643, -0.09351476757488624521601546747763655179361],
            vec![
                0.1876410243467238251612921441668043913795,
                -0.5952974735769549480478230275858851737782,
                0.9717899277217721234705114322255239398694,
            ],
        ];
        for (row, w) in t.a[1..].iter().zip(&want) {
            for (x, y) in row.iter().zip(w) {
                assert!((x - y).abs() < 1e-15, "{x} vs {y}");
            }
        }
        let t = Tableau::esdirk325l2sa();
        let b = [
            0.1755455021294052285458922,
            0.1755455021294052285458922,
            -0.3468582000260062242875517,
            0.7707671957671957671957672,
            0.225,
        ];
        for (x, y) in t.a[3].iter().zip(&b) {
            assert!((x - y).abs() < 1e-15);
        }
        assert!((t.c[2] - 0.7681980515339463859803800).abs() < 1e-15);
        let t = Tableau::esdirk436l2sa2();
        let b = [
            -0.002473654250984575794137143,
            -0.002473654250984575794137143,
            0.3581348706213476972836248,
            0.4966739745362784631573008,
            -0.09786153665565700885265130,
            0.248,
        ];
        for (x, y) in t.a[4].iter().zip(&b) {
            assert!((x - y).abs() < 1e-14, "{x} vs {y}");
        }
    }

    #[test]
    fn mssth_tables_match_appendix_a() {
        // integrators.md appendix A, MSSTH4 and MSSTH5 last rows at rho = 0 (computed there
        // from MBDyn's literal gamma, which differs from the solved root by ~1e-15).
        let t = Tableau::mssth(4, 0.0).unwrap();
        let b4 = [
            0.16539623442088580066,
            -0.15297739848570797732,
            1.12487468949618071,
            -0.71010958791349354664,
            0.57281606248213501331,
        ];
        for (x, y) in t.a[3].iter().zip(&b4) {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
        let t = Tableau::mssth(5, 0.0).unwrap();
        let b5 = [
            -0.038861936642984537923,
            0.52551929588283759032,
            0.33299652003971448114,
            -0.045143111937672582296,
            -0.052564608478344881955,
            0.27805384113644993072,
        ];
        for (x, y) in t.a[4].iter().zip(&b5) {
            assert!((x - y).abs() < 1e-11, "{x} vs {y}");
        }
        assert!((t.c[4] - 1.140134263244145573779065).abs() < 1e-12);
        assert!(Tableau::mssth(4, 0.65).is_err());
        assert!(Tableau::mssth(5, 0.05).is_err());
    }

    #[test]
    fn multistep_formulas_are_second_order() {
        // Exact for 1, t, t^2 on the grid t_{n-j} = -j h (variable step for LMS2).
        for rho in [0.0, 0.3, 0.6, 1.0] {
            for (m, times) in [
                (Multistep::lms2(rho, 0.7, 0.7 / 1.3), vec![0.0, -0.7, -2.0]),
                (Multistep::lms2(rho, 1.0, 1.0), vec![0.0, -1.0, -2.0]),
                (Multistep::lms3(rho, 1.0), vec![0.0, -1.0, -2.0, -3.0]),
                (Multistep::lms4(rho, 1.0), vec![0.0, -1.0, -2.0, -3.0, -4.0]),
            ] {
                for p in 0..3 {
                    let y = |t: f64| t.powi(p);
                    let yp = |t: f64| if p == 0 { 0.0 } else { p as f64 * t.powi(p - 1) };
                    let mut rhs = m.b[0] * yp(times[0]);
                    for (j, &t) in times.iter().enumerate().skip(1) {
                        rhs += m.a[j - 1] * y(t) + m.b[j] * yp(t);
                    }
                    assert!((rhs - y(times[0])).abs() < 1e-13, "rho {rho} p {p} steps {}", m.steps);
                }
            }
        }
    }

    #[test]
    fn hermite_predictors_are_exact_for_polynomials() {
        // eq. (12)-(14): exact for cubics; eqs. (16)-(17): exact for quintics.
        for (t1, t2) in [(-1.0, -2.0), (-0.4, -1.5), (0.3, -0.2)] {
            let (tn, h) = (0.5, 0.5 - t1);
            let alpha = h / (t1 - t2);
            let [m0, m1, n0, n1] = hermite3(alpha);
            let y = |t: f64| 1.0 + 2.0 * t - 3.0 * t * t + 0.7 * t * t * t;
            let yp = |t: f64| 2.0 - 6.0 * t + 2.1 * t * t;
            let pred = (m0 * y(t1) + m1 * y(t2)) / h + n0 * yp(t1) + n1 * yp(t2);
            assert!((pred - yp(tn)).abs() < 1e-11, "{pred} vs {}", yp(tn));
        }
        for (t1, t2, t3) in [(-1.0, -2.0, -3.0), (0.74, 0.56, 1.15), (1.047, 0.611, 0.145)] {
            let tn: f64 = 1.0;
            let h = tn - t1;
            let (a1, a2) = (h / (t1 - t2), h / (t2 - t3));
            let (m, n) = hermite5(a1, a2);
            let y = |t: f64| 0.3 - t + 0.5 * t * t + 2.0 * t.powi(3) - 1.5 * t.powi(4) + 0.8 * t.powi(5);
            let yp = |t: f64| -1.0 + t + 6.0 * t * t - 6.0 * t.powi(3) + 4.0 * t.powi(4);
            let pred = (m[0] * y(t1) + m[1] * y(t2) + m[2] * y(t3)) / h + n[0] * yp(t1) + n[1] * yp(t2) + n[2] * yp(t3);
            assert!((pred - yp(tn)).abs() < 1e-9, "{pred} vs {}", yp(tn));
        }
    }

    #[test]
    fn ss_parameters_match_integrators_md() {
        // SS2: gamma1 = (3 - rho)/(2(1 + rho)); SS3: gamma1 = (5-rho)/(4(1+rho)) + i sqrt15 (1-rho)/(12(1+rho)).
        let rho = 0.6;
        let s2 = SingleStep::new(2, rho);
        assert!((s2.gammas[0].0.re - (3.0 - rho) / (2.0 * (1.0 + rho))).abs() < 1e-15);
        let s3 = SingleStep::new(3, rho);
        assert!((s3.gammas[0].0.re - (5.0 - rho) / (4.0 * (1.0 + rho))).abs() < 1e-15);
        assert!((s3.gammas[0].0.im - 15f64.sqrt() * (1.0 - rho) / (12.0 * (1.0 + rho))).abs() < 1e-15);
        let s4 = SingleStep::new(4, rho);
        let kappa1 = 0.342384094858369131699303654002781687;
        assert!((s4.gammas[0].0.re - (1.0 + kappa1 * (1.0 - rho)) / (1.0 + rho)).abs() < 1e-15);
        let k3 = Complex::new(0.0788079525708154341503481729986091564, 0.373930645433610122608971599226572341);
        let g3 = (k3.scale(1.0 - rho) + Complex::ONE).scale(1.0 / (1.0 + rho));
        assert!((s4.gammas[1].0.re - g3.re).abs() < 1e-15 && (s4.gammas[1].0.im - g3.im).abs() < 1e-15);
        // b0 equals LMSk's b0 (spectral equivalence, integrators.md Sect. 3.1).
        for (k, lms) in
            [(2, Multistep::lms2(rho, 1.0, 1.0)), (3, Multistep::lms3(rho, 1.0)), (4, Multistep::lms4(rho, 1.0))]
        {
            let s = SingleStep::new(k, rho);
            assert!((s.b0_per_h() - lms.b[0]).abs() < 1e-14, "SS{k}: {} vs {}", s.b0_per_h(), lms.b[0]);
            assert!(s.dw[0].im.abs() < 1e-14);
        }
    }
}
