//! Linear multistep methods ([Zhang2022, eq. 2]) and the trapezoidal rule (eq. 3).

/// One multistep formula y_n = sum_j a_j y_{n-j} + sum_j b_j y'_{n-j} ([Zhang2022, eq. 2]), with
/// the step size included in b ([Zhang2022, eq. 8b]). `a[j-1]` multiplies y_{n-j},
/// `b[j]` multiplies y'_{n-j}; `steps` is the number of past points used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Multistep {
    pub steps: usize,
    pub a: [f64; 4],
    pub b: [f64; 5],
}

impl Multistep {
    /// Backward Euler, y_n = y_{n-1} + h y'_n ([Fang2023, eq. 13]).
    pub fn bdf1(h: f64) -> Multistep {
        Multistep { steps: 1, a: [1.0, 0.0, 0.0, 0.0], b: [h, 0.0, 0.0, 0.0, 0.0] }
    }

    /// Trapezoidal rule, y_n = y_{n-1} + h/2 (y'_n + y'_{n-1}) ([Zhang2022, eq. 3]).
    pub fn trapezoidal(h: f64) -> Multistep {
        Multistep { steps: 1, a: [1.0, 0.0, 0.0, 0.0], b: [0.5 * h, 0.5 * h, 0.0, 0.0, 0.0] }
    }

    /// Variable-step LMS2 (\[Masarati2001\] = [Zhang2022, ref. 24]; \[MBDyn\] Multistep2Solver):
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

    /// Constant-step LMS3 ([Zhang2022, Sect. 2.1, ref. 36]).
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

    /// Constant-step LMS4 ([Zhang2022, Sect. 2.1, ref. 36]).
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

/// Second-order (cubic Hermite) derivative predictor of [Zhang2022, eqs. 12-14]:
/// y'_N = (m0 y_{N-1} + m1 y_{N-2}) / (t_N - t_{N-1}) + n0 y'_{N-1} + n1 y'_{N-2},
/// alpha = (t_N - t_{N-1}) / (t_{N-1} - t_{N-2}). Written with 1/(t_N - t_{N-1}) as in eq. (12),
/// this form is exact for cubics (\[MBDyn\]'s LMS2 predictor divides by h_{N-1} instead).
/// Returns (m0, m1, n0, n1).
pub fn hermite3(alpha: f64) -> [f64; 4] {
    let m0 = -6.0 * alpha * alpha * (1.0 + alpha);
    [m0, -m0, (1.0 + alpha) * (1.0 + 3.0 * alpha), alpha * (2.0 + 3.0 * alpha)]
}

/// Fourth-order (quintic Hermite) derivative predictor of [Zhang2022, eqs. 16-17]:
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
