//! Stiffly accurate ESDIRKs with explicit first stage ([Zhang2022, Sect. 2.3], eqs. 5-6).

use super::mssth_tables::{mssth5_conditions, solve4, tabulated_error, MSSTH4_C, MSSTH5_C};
use super::*;

/// A stiffly accurate ESDIRK: stage 0 is the step's start; stage i = 1..s solves
/// Y_i = y_{n-1} + h sum_{j<i} a_ij Y'_j + h gamma Y'_i at t_{n-1} + c_i h; y_n = Y_s
/// ([Zhang2022, eqs. 5-6]; the step size included as in [Zhang2022, eq. 8b]). `a[i-1]` holds a_i0 .. a_ii (a_ii = gamma).
#[derive(Clone, Debug, PartialEq)]
pub struct Tableau {
    pub gamma: f64,
    pub c: Vec<f64>,
    pub a: Vec<Vec<f64>>,
    /// The last stage uses the fourth-order predictor of [Zhang2022, eqs. 16-17].
    pub quintic_last: bool,
}

impl Tableau {
    /// Implicit stages s.
    pub fn stages(&self) -> usize {
        self.a.len()
    }

    /// Builds the tableau from rows a_i1 .. a_i,i-1 (without a_i0 and gamma) and the
    /// abscissae; a_i0 = c_i - gamma - sum_{j>=1} a_ij as in \[MBDyn\] (multistagestepsol_impl.cc),
    /// so that every row sums to its abscissa exactly.
    pub(super) fn from_inner(gamma: f64, c: Vec<f64>, inner: &[Vec<f64>], quintic_last: bool) -> Tableau {
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

    /// rho_inf-Bathe ([Zhang2022, eq. 7]; gamma in closed form as in \[MBDyn\]).
    pub fn bathe(rho: f64) -> Tableau {
        let g = if rho >= 1.0 { 0.25 } else { (2.0 - (2.0 * (1.0 + rho)).sqrt()) / (2.0 * (1.0 - rho)) };
        let q1 = (1.0 - 2.0 * g) / (4.0 * g);
        Tableau::from_inner(g, vec![0.0, 2.0 * g, 1.0], &[vec![], vec![q1]], false)
    }

    /// MSSTC(n), n = 3, 4, 5 ([Zhang2022, Sect. 2.3], ref. 35; [Zhang2020, Sect. 3.2, Table 2]): n - 1
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
    /// R(inf) = (-1)^n ... in the A-stable range ([Zhang2020, eq. 19e, Table 4]).
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

    /// Third-order, stage-order-2 ESDIRK with c1 = 2 gamma and a free c2 (MSSTH3 of
    /// [Zhang2022, Sect. 2.3]; the same closed forms give ESDIRK3(2)4L[2]SA of \[KennedyCarpenter2019\]).
    fn third_order(g: f64, c2: f64) -> Tableau {
        let a21 = c2 * (c2 - 2.0 * g) / (4.0 * g);
        let q1 = (3.0 * c2 + 6.0 * g - 6.0 * c2 * g - 2.0) / (12.0 * g * (c2 - 2.0 * g));
        let q2 = (6.0 * g * g - 6.0 * g + 1.0) / (3.0 * c2 * (c2 - 2.0 * g));
        Tableau::from_inner(g, vec![0.0, 2.0 * g, c2, 1.0], &[vec![], vec![a21], vec![q1, q2]], false)
    }

    /// MSSTH(n) in the stage-order-2 form of [Zhang2022, Sect. 2.3] (\[MBDyn\]; gamma as in [Zhang2020, Table 4]):
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

    /// MSSTH4 from (gamma, c2, c3): closed forms of the order conditions (fourth order for
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

    /// MSSTH5: c1 = 2 gamma, c2 = 0.1, c3 tabulated in \[MBDyn\]. The sources give
    /// the remaining coefficients only as long rational functions; here they follow from the
    /// conditions that define them: stage order 2 in every stage (A c = c^2/2, [Zhang2022, Sect. 2.3]
    /// "each stage, from the second one, has at least second-order accuracy") and order 5. With
    /// stage order 2 the order-5 conditions reduce to b.c^k = 1/(k+1) (k = 0..4), b.A c^2 = 1/12,
    /// b.(c A c^2) = 1/15, b.A c^3 = 1/20 and b.A A c^2 = 1/60. Unknowns: a32, a42, a43 and c4
    /// (c4 is fixed by an order-5 condition given (g, c2, c3)); Newton from the
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

    /// ESDIRK3(2)4L\[2\]SA of \[KennedyCarpenter2019\] ([Zhang2022, ref. 21]; MBDyn DIRK33): gamma the middle root of 6g^3 - 18g^2 + 9g - 1 = 0, c2 = 3/5,
    /// the MSSTH3 closed forms.
    pub fn esdirk324l2sa() -> Tableau {
        let g = bisect(|g| poly(&[6.0, -18.0, 9.0, -1.0], g), 0.3, 0.5);
        Self::third_order(g, 0.6)
    }

    /// ESDIRK3(2)5L\[2\]SA of \[KennedyCarpenter2019\] ([Zhang2022, ref. 21]; MBDyn DIRK43), exact in sqrt(2).
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

    /// ESDIRK4(3)6L\[2\]SA_2 of \[KennedyCarpenter2019\], gamma = 31/125 ([Zhang2022, ref. 21];
    /// MBDyn DIRK54), with a_i0 from the row sums as in MBDyn.
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
