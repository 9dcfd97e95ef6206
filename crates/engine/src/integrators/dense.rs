//! Dense output (continuous extensions) of the embedded explicit pairs: a polynomial u(theta)
//! over an accepted step from t_old to t_old + h, theta = (t - t_old) / h in [0, 1], with
//! u(0) = x_old and u(1) = x_new, that approximates the solution inside the step to the
//! interpolant's order \[HairerNorsettWanner1993, Sect. II.6\].
//!
//! Both interpolants are written in Hairer's nested form \[HairerNorsettWanner1993,
//! Sect. II.6 (DOPRI5) and Sect. II.10 (DOP853)\]:
//!
//!   u(theta) = r0 + theta (r1 + (1-theta) (r2 + theta (r3 + (1-theta) (r4 + ...)))),
//!
//! with r0 = x_old, r1 = x_new - x_old, r2 = h f_old - r1, r3 = r1 - h f_new - r2 (the
//! Hermite part: u matches the values and derivatives at both ends) and the higher rows
//! r_{4+j} = h sum_i d_ji k_i over the stages k_i:
//!
//! - DOPRI5: the order-4 continuous extension of Dormand and Prince with Shampine's
//!   coefficients, one row d over the seven stages (the seventh is f_new), no extra stage
//!   \[HairerNorsettWanner1993, Sect. II.6\], \[DormandPrince1980\];
//! - DOP853: the order-7 extension, four rows over sixteen stages: the twelve of the step,
//!   f_new (stage 12) and three extra evaluations at c = 0.1, 0.2 and 7/9 (stages 13 to 15)
//!   \[HairerNorsettWanner1993, Sect. II.10\].
//!
//! A driver that integrates past a communication point forms the rows once per step
//! ([`DenseStep::form`]) and evaluates them at every communication point inside the step
//! ([`DenseStep::value`]).
//!
//! Literals keep the digits of their source even beyond f64 precision.
#![allow(clippy::excessive_precision)]

use serde::{Deserialize, Serialize};

/// The continuous extension of an explicit pair.
#[derive(Debug)]
pub struct Continuous {
    /// The rows r4.. as weights over the extended stages (h sum_i d_i k_i).
    pub d: &'static [&'static [f64]],
    /// The stage that is the derivative at the new point (DOPRI5's last stage; DOP853's
    /// evaluation after the step).
    pub new_point: usize,
    /// Abscissae of the extra stages (after `new_point`).
    pub extra_c: &'static [f64],
    /// Row e: a_(new_point+1+e, j) for j = 0 .. new_point + e.
    pub extra_a: &'static [&'static [f64]],
    /// The interpolant's order (its local error is O(h^(order+1))).
    pub order: u32,
}

impl Continuous {
    /// Rows of the nested polynomial.
    pub fn rows(&self) -> usize {
        4 + self.d.len()
    }

    /// Stages of the step and its extension (the storage a driver needs).
    pub fn stages(&self) -> usize {
        self.new_point + 1 + self.extra_c.len()
    }
}

/// Most rows of any interpolant here (DOP853).
pub const MAX_ROWS: usize = 8;
/// Most stages including the extension (DOP853).
pub const MAX_EXTENDED_STAGES: usize = 16;

/// DOPRI5's continuous extension of order 4 \[HairerNorsettWanner1993, Sect. II.6\]
/// (Shampine's coefficients d_1, d_3 .. d_7, as that section's dense output of DOPRI5 uses them).
pub const DOPRI5: Continuous = Continuous {
    d: &[&[
        -12715105075.0 / 11282082432.0,
        0.0,
        87487479700.0 / 32700410799.0,
        -10690763975.0 / 1880347072.0,
        701980252875.0 / 199316789632.0,
        -1453857185.0 / 822651844.0,
        69997945.0 / 29380423.0,
    ]],
    new_point: 6,
    extra_c: &[],
    extra_a: &[],
    order: 4,
};

/// DOP853's continuous extension of order 7 \[HairerNorsettWanner1993, Sect. II.10\]: rows
/// d4 .. d7 over the stages 0 .. 15 (stage 12 is f_new, 13 .. 15 the extra evaluations).
pub const DOP853: Continuous = Continuous {
    d: &[
        &[
            -0.84289382761090128651353491142e+1,
            0.0,
            0.0,
            0.0,
            0.0,
            0.56671495351937776962531783590e+0,
            -0.30689499459498916912797304727e+1,
            0.23846676565120698287728149680e+1,
            0.21170345824450282767155149946e+1,
            -0.87139158377797299206789907490e+0,
            0.22404374302607882758541771650e+1,
            0.63157877876946881815570249290e+0,
            -0.88990336451333310820698117400e-1,
            0.18148505520854727256656404962e+2,
            -0.91946323924783554000451984436e+1,
            -0.44360363875948939664310572000e+1,
        ],
        &[
            0.10427508642579134603413151009e+2,
            0.0,
            0.0,
            0.0,
            0.0,
            0.24228349177525818288430175319e+3,
            0.16520045171727028198505394887e+3,
            -0.37454675472269020279518312152e+3,
            -0.22113666853125306036270938578e+2,
            0.77334326684722638389603898808e+1,
            -0.30674084731089398182061213626e+2,
            -0.93321305264302278729567221706e+1,
            0.15697238121770843886131091075e+2,
            -0.31139403219565177677282850411e+2,
            -0.93529243588444783865713862664e+1,
            0.35816841486394083752465898540e+2,
        ],
        &[
            0.19985053242002433820987653617e+2,
            0.0,
            0.0,
            0.0,
            0.0,
            -0.38703730874935176555105901742e+3,
            -0.18917813819516756882830838328e+3,
            0.52780815920542364900561016686e+3,
            -0.11573902539959630126141871134e+2,
            0.68812326946963000169666922661e+1,
            -0.10006050966910838403183860980e+1,
            0.77771377980534432092869265740e+0,
            -0.27782057523535084065932004339e+1,
            -0.60196695231264120758267380846e+2,
            0.84320405506677161018159903784e+2,
            0.11992291136182789328035130030e+2,
        ],
        &[
            -0.25693933462703749003312586129e+2,
            0.0,
            0.0,
            0.0,
            0.0,
            -0.15418974869023643374053993627e+3,
            -0.23152937917604549567536039109e+3,
            0.35763911791061412378285349910e+3,
            0.93405324183624310003907691704e+2,
            -0.37458323136451633156875139351e+2,
            0.10409964950896230045147246184e+3,
            0.29840293426660503123344363579e+2,
            -0.43533456590011143754432175058e+2,
            0.96324553959188282948394950600e+2,
            -0.39177261675615439165231486172e+2,
            -0.14972683625798562581422125276e+3,
        ],
    ],
    new_point: 12,
    extra_c: &[0.1, 0.2, 0.777777777777777777777777777778],
    extra_a: &[
        &[
            5.61675022830479523392909219681e-2,
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
            2.53500210216624811088794765333e-1,
            -2.46239037470802489917441475441e-1,
            -1.24191423263816360469010140626e-1,
            1.5329179827876569731206322685e-1,
            8.20105229563468988491666602057e-3,
            7.56789766054569976138603589584e-3,
            -8.298e-3,
        ],
        &[
            3.18346481635021405060768473261e-2,
            0.0,
            0.0,
            0.0,
            0.0,
            2.83009096723667755288322961402e-2,
            5.35419883074385676223797384372e-2,
            -5.49237485713909884646569340306e-2,
            0.0,
            0.0,
            -1.08347328697249322858509316994e-4,
            3.82571090835658412954920192323e-4,
            -3.40465008687404560802977114492e-4,
            1.41312443674632500278074618366e-1,
        ],
        &[
            -4.28896301583791923408573538692e-1,
            0.0,
            0.0,
            0.0,
            0.0,
            -4.69762141536116384314449447206e+0,
            7.68342119606259904184240953878e+0,
            4.06898981839711007970213554331e+0,
            3.56727187455281109270669543021e-1,
            0.0,
            0.0,
            0.0,
            -1.39902416515901462129418009734e-3,
            2.9475147891527723389556272149e+0,
            -9.15095847217987001081870187138e+0,
        ],
    ],
    order: 7,
};

/// sum_j w_j k(j, c) over the nonzero weights.
pub fn combine(w: &[f64], k: &impl Fn(usize, usize) -> f64, c: usize) -> f64 {
    let mut sum = 0.0;
    for (j, w) in w.iter().enumerate() {
        if *w != 0.0 {
            sum += w * k(j, c);
        }
    }
    sum
}

/// One accepted step's interpolant, and what a driver that stepped past a communication point
/// keeps of the step until it continues (part of the formulation's snapshot, so that a
/// restored run continues as the run would).
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DenseStep {
    /// The step is accepted but not yet completed by the system: the system was left at the
    /// interpolated point at time `at`, and the next advance continues the step from `end`
    /// if nothing changed at `at`.
    pub pending: bool,
    /// The communication point the system was left at.
    pub at: f64,
    /// Start and size of the step (theta = (t - t_old) / h) and the time of its end.
    pub t_old: f64,
    pub h: f64,
    pub t_new: f64,
    /// The step ends on a time event of the system (taken when the step is completed).
    pub event: bool,
    rows: usize,
    /// Rows r0 .. r_(rows-1), each of the state's length, one after the other.
    coefficients: Vec<f64>,
    /// The state at the end of the step.
    pub end: Vec<f64>,
}

impl Clone for DenseStep {
    fn clone(&self) -> Self {
        let mut copy = DenseStep::default();
        copy.clone_from(self);
        copy
    }

    /// Field-wise, reusing the vectors' storage (checkpoints copy without allocation).
    fn clone_from(&mut self, s: &Self) {
        self.pending = s.pending;
        self.at = s.at;
        self.t_old = s.t_old;
        self.h = s.h;
        self.t_new = s.t_new;
        self.event = s.event;
        self.rows = s.rows;
        self.coefficients.clone_from(&s.coefficients);
        self.end.clone_from(&s.end);
    }
}

impl DenseStep {
    /// Storage for states of `len` (the most rows of any interpolant), allocated once.
    pub fn new(len: usize) -> DenseStep {
        DenseStep { coefficients: vec![0.0; MAX_ROWS * len], end: vec![0.0; len], ..DenseStep::default() }
    }

    /// True if this is empty or holds data for states of `len` with finite numbers (a
    /// restored snapshot is checked with it before use).
    pub fn fits(&self, len: usize) -> bool {
        let sized = (self.coefficients.is_empty() && self.end.is_empty() && !self.pending)
            || (self.coefficients.len() == MAX_ROWS * len && self.end.len() == len && self.rows <= MAX_ROWS);
        sized
            && (!self.pending
                || (self.rows >= 4 && [self.at, self.t_old, self.h, self.t_new].iter().all(|v| v.is_finite())))
    }

    /// The state's length this holds data for.
    pub fn len(&self) -> usize {
        self.end.len()
    }

    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }

    /// Forms the interpolant of the step of size `h` from (t_old, x_old) to x_new at `t_new`
    /// with the stages `k(i, c)` (component c of stage i, 0 .. m.stages(), the extension's
    /// evaluated) \[HairerNorsettWanner1993, Sect. II.6, II.10\]; keeps x_new as the end.
    #[allow(clippy::too_many_arguments)]
    pub fn form(
        &mut self,
        m: &Continuous,
        t_old: f64,
        h: f64,
        t_new: f64,
        x_old: &[f64],
        x_new: &[f64],
        k: impl Fn(usize, usize) -> f64,
    ) {
        let n = x_old.len();
        if self.end.len() != n {
            // Sized by `new` in every driver; a fallback for storage of another length.
            *self = DenseStep::new(n);
        }
        self.t_old = t_old;
        self.h = h;
        self.t_new = t_new;
        self.rows = m.rows();
        self.end.copy_from_slice(x_new);
        let (r, rest) = self.coefficients.split_at_mut(n);
        r.copy_from_slice(x_old);
        let (r1, rest) = rest.split_at_mut(n);
        let (r2, rest) = rest.split_at_mut(n);
        let (r3, rest) = rest.split_at_mut(n);
        for c in 0..n {
            let dx = x_new[c] - x_old[c];
            r1[c] = dx;
            r2[c] = h * k(0, c) - dx;
            r3[c] = dx - h * k(m.new_point, c) - r2[c];
        }
        for (j, d) in m.d.iter().enumerate() {
            let row = &mut rest[j * n..(j + 1) * n];
            for (c, v) in row.iter_mut().enumerate() {
                *v = h * combine(d, &k, c);
            }
        }
    }

    /// u(theta) at time `t` into `out`: the nested form of the module documentation.
    pub fn value(&self, t: f64, out: &mut [f64]) {
        let n = out.len();
        let theta = (t - self.t_old) / self.h;
        let theta1 = 1.0 - theta;
        let r = |j: usize, c: usize| self.coefficients[j * n + c];
        for (c, o) in out.iter_mut().enumerate() {
            let mut acc = r(self.rows - 1, c);
            for j in (1..self.rows - 1).rev() {
                acc = r(j, c) + if j % 2 == 1 { theta1 } else { theta } * acc;
            }
            *o = r(0, c) + theta * acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::explicit::{Explicit, DOP853 as DOP853_TABLEAU, DOPRI5 as DOPRI5_TABLEAU};
    use super::*;

    /// One step of `m` with its extension for x' = f(t, x): the new point, and the interpolant.
    fn step(
        m: &Explicit,
        ext: &Continuous,
        f: &dyn Fn(f64, &[f64]) -> Vec<f64>,
        t: f64,
        x: &[f64],
        h: f64,
    ) -> (Vec<f64>, DenseStep) {
        let n = x.len();
        let mut k: Vec<Vec<f64>> = Vec::new();
        let stage = |k: &Vec<Vec<f64>>, a: &[f64]| -> Vec<f64> {
            (0..n).map(|c| x[c] + h * a.iter().zip(k.iter()).map(|(a, k)| a * k[c]).sum::<f64>()).collect()
        };
        for i in 0..m.stages() {
            let y = stage(&k, m.a[i]);
            k.push(f(t + m.c[i] * h, &y));
        }
        let x_new = stage(&k, m.b);
        if !m.fsal {
            k.push(f(t + h, &x_new));
        }
        assert_eq!(k.len(), ext.new_point + 1);
        for (c, a) in ext.extra_c.iter().zip(ext.extra_a) {
            let y = stage(&k, a);
            k.push(f(t + c * h, &y));
        }
        let mut dense = DenseStep::new(n);
        dense.form(ext, t, h, t + h, x, &x_new, |i, c| k[i][c]);
        (x_new, dense)
    }

    /// y' = -y + sin t, y(0) = 1: y = 3/2 e^-t + (sin t - cos t) / 2.
    fn linear(t: f64, y: &[f64]) -> Vec<f64> {
        vec![-y[0] + t.sin()]
    }

    fn linear_exact(t: f64) -> Vec<f64> {
        vec![1.5 * (-t).exp() + 0.5 * (t.sin() - t.cos())]
    }

    /// The nonlinear y' = 1 + y^2 with y = tan t, and a harmonic oscillator x'' = -x
    /// (x = cos t) beside it.
    fn nonlinear(_t: f64, y: &[f64]) -> Vec<f64> {
        vec![1.0 + y[0] * y[0], y[2], -y[1]]
    }

    fn nonlinear_exact(t: f64) -> Vec<f64> {
        vec![t.tan(), t.cos(), -t.sin()]
    }

    /// The largest interpolation error over theta in [0, 1] of one step of size h from the
    /// exact solution at t0.
    fn worst(
        m: &Explicit,
        ext: &Continuous,
        f: &dyn Fn(f64, &[f64]) -> Vec<f64>,
        exact: &dyn Fn(f64) -> Vec<f64>,
        t0: f64,
        h: f64,
    ) -> f64 {
        let x0 = exact(t0);
        let (x_new, dense) = step(m, ext, f, t0, &x0, h);
        let mut u = vec![0.0; x0.len()];
        // The ends: theta = 0 is x_old bit for bit, theta = 1 the new point to round-off.
        dense.value(t0, &mut u);
        assert_eq!(u, x0);
        dense.value(t0 + h, &mut u);
        for (u, x) in u.iter().zip(&x_new) {
            assert!((u - x).abs() <= 1e-14 * x.abs().max(1.0), "u(1) = {u} vs x_new = {x}");
        }
        let mut e: f64 = 0.0;
        for i in 1..40 {
            let t = t0 + h * i as f64 / 40.0;
            dense.value(t, &mut u);
            for (u, y) in u.iter().zip(exact(t)) {
                e = e.max((u - y).abs());
            }
        }
        e
    }

    /// The least-squares slope of log(error) against log(h).
    fn slope(hs: &[f64], es: &[f64]) -> f64 {
        let xs: Vec<f64> = hs.iter().map(|h| h.ln()).collect();
        let ys: Vec<f64> = es.iter().map(|e| e.ln()).collect();
        let n = xs.len() as f64;
        let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
        let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
        let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
        sxy / sxx
    }

    /// The extensions' extra stages are consistent (row sums are their abscissae) and the
    /// rows d are exact for constant derivatives (they sum to zero: the Hermite rows carry
    /// the linear part).
    #[test]
    fn extensions_are_consistent() {
        for (e, (c, a)) in DOP853.extra_c.iter().zip(DOP853.extra_a).enumerate() {
            assert_eq!(a.len(), DOP853.new_point + 1 + e);
            let sum: f64 = a.iter().sum();
            assert!((sum - c).abs() < 1e-14, "extra stage {e}: {sum} vs {c}");
        }
        for ext in [&DOPRI5, &DOP853] {
            for d in ext.d {
                assert_eq!(d.len(), ext.stages());
                assert!(d.iter().sum::<f64>().abs() < 1e-12, "{d:?}");
            }
        }
        assert_eq!((DOPRI5.rows(), DOP853.rows()), (5, 8));
        assert!(DOP853.stages() <= MAX_EXTENDED_STAGES && DOP853.rows() <= MAX_ROWS);
    }

    /// The interpolants' local errors over one step fall as h^(order + 1): DOPRI5's as h^5
    /// (order 4), DOP853's as h^8 (order 7), on a linear non-autonomous equation and on a
    /// nonlinear system, with the ends matched exactly (`worst`).
    #[test]
    fn interpolants_converge_with_their_design_orders() {
        type Problem<'a> = (&'a dyn Fn(f64, &[f64]) -> Vec<f64>, &'a dyn Fn(f64) -> Vec<f64>, f64);
        let problems: [Problem; 2] = [(&linear, &linear_exact, 0.3), (&nonlinear, &nonlinear_exact, 0.2)];
        // Steps where the errors are above round-off. Measured slopes: DOPRI5 5.09 and 5.16,
        // DOP853 7.96 and 9.18 (on the nonlinear system its h^8 term is small against the
        // next ones over these steps, as the pairs' own errors are in explicit_methods.rs).
        for (m, ext, ladders) in [
            (&DOPRI5_TABLEAU, &DOPRI5, [[0.2, 0.1, 0.05, 0.025], [0.2, 0.1, 0.05, 0.025]]),
            (&DOP853_TABLEAU, &DOP853, [[0.4, 0.3, 0.2, 0.15], [0.2, 0.15, 0.1, 0.075]]),
        ] {
            for ((f, exact, t0), hs) in problems.into_iter().zip(ladders) {
                let errors: Vec<f64> = hs.iter().map(|&h| worst(m, ext, f, exact, t0, h)).collect();
                let p = slope(&hs, &errors);
                println!("order {}: errors {errors:?} at h = {hs:?}: slope {p:.2}", ext.order);
                let want = f64::from(ext.order + 1);
                assert!(p > want - 0.3 && p < want + 2.5, "order {}: slope {p:.2} ({errors:?})", ext.order);
            }
        }
    }

    /// A wrong digit in a row would leave the ends matched (the Hermite rows do that) and
    /// lower the order: perturbing one DOP853 coefficient by 1e-6 relative shows in the error.
    #[test]
    fn the_order_test_sees_a_wrong_coefficient() {
        static ROW: [f64; 16] = {
            let mut r = [0.0; 16];
            let mut i = 0;
            while i < 16 {
                r[i] = DOP853.d[0][i];
                i += 1;
            }
            r[6] *= 1.0 + 1e-6;
            r
        };
        static WRONG: Continuous = Continuous {
            d: &[&ROW, DOP853.d[1], DOP853.d[2], DOP853.d[3]],
            new_point: DOP853.new_point,
            extra_c: DOP853.extra_c,
            extra_a: DOP853.extra_a,
            order: 7,
        };
        let right = worst(&DOP853_TABLEAU, &DOP853, &linear, &linear_exact, 0.3, 0.05);
        let wrong = worst(&DOP853_TABLEAU, &WRONG, &linear, &linear_exact, 0.3, 0.05);
        assert!(wrong > 10.0 * right, "right {right:.2e}, wrong {wrong:.2e}");
    }
}
