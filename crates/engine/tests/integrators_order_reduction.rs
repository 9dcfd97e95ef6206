//! Why the third- to fifth-order methods converge at order 2 on index-3 mechanisms: the
//! planar pendulum in Cartesian coordinates as a small `DaeSystem`, once with the position
//! constraint (index 3, as the multibody formulation) and once with its derivative, the
//! velocity constraint (index 2). The ESDIRKs of \[Zhang2022\] have stage order 2; stiffly accurate
//! Runge-Kutta methods lose order on higher-index DAEs down to about the stage order (Hairer &
//! Wanner, Solving ODEs II, Sect. VII.4): positions converge at order 3 for index 2 but at
//! order 2 for index 3, while the same methods reach their design orders on ODEs
//! (tests/integrators_mechanisms.rs, unconstrained mechanism).

use mbfmu_engine::integrators::{DaeSystem, Integrator, NewtonSettings, StepError};
use mbfmu_model::format::Method;

const G: f64 = 9.81;

/// y = (x, y, u, v), lambda; x' = u, y' = v, u' = -x lambda, v' = -y lambda - g and either
/// (x^2 + y^2 - 1)/2 = 0 (index 3) or x u + y v = 0 (index 2).
struct Pendulum {
    index3: bool,
    jac: [[f64; 5]; 5],
}

#[derive(Clone, Debug)]
struct State {
    t: f64,
    y: [f64; 4],
    yp: [f64; 4],
    lambda: f64,
}

impl DaeSystem for Pendulum {
    type State = State;
    fn n_diff(&self) -> usize {
        4
    }
    fn n_alg(&self) -> usize {
        1
    }
    fn chart(&self, _base: &State, s: &State, y: &mut [f64], yp: &mut [f64], l: &mut [f64]) {
        y.copy_from_slice(&s.y);
        yp.copy_from_slice(&s.yp);
        l[0] = s.lambda;
    }
    fn lift(&self, _base: &State, t: f64, y: &[f64], yp: &[f64], l: &[f64], out: &mut State) {
        *out = State { t, y: [y[0], y[1], y[2], y[3]], yp: [yp[0], yp[1], yp[2], yp[3]], lambda: l[0] };
    }
    fn residual(
        &mut self,
        _b: &State,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        l: &[f64],
        r: &mut [f64],
    ) -> Result<(), StepError> {
        r[0] = yp[0] - y[2];
        r[1] = yp[1] - y[3];
        r[2] = yp[2] + y[0] * l[0];
        r[3] = yp[3] + y[1] * l[0] + G;
        r[4] = if self.index3 { 0.5 * (y[0] * y[0] + y[1] * y[1] - 1.0) } else { y[0] * y[2] + y[1] * y[3] };
        Ok(())
    }
    fn factor(&mut self, _b: &State, _t: f64, b0: f64, y: &[f64], _yp: &[f64], l: &[f64]) -> Result<(), StepError> {
        // dr/dy' + b0 dr/dy, with dr/dlambda in the last column.
        let mut j = [[0.0; 5]; 5];
        for (i, row) in j.iter_mut().enumerate().take(4) {
            row[i] = 1.0;
        }
        j[0][2] = -b0;
        j[1][3] = -b0;
        j[2][0] = b0 * l[0];
        j[3][1] = b0 * l[0];
        j[2][4] = y[0];
        j[3][4] = y[1];
        if self.index3 {
            j[4][0] = b0 * y[0];
            j[4][1] = b0 * y[1];
        } else {
            j[4] = [b0 * y[2], b0 * y[3], b0 * y[0], b0 * y[1], 0.0];
        }
        self.jac = j;
        Ok(())
    }
    fn solve(&mut self, r: &[f64], dyp: &mut [f64], dl: &mut [f64]) -> Result<(), StepError> {
        let (mut m, mut b) = (self.jac, [-r[0], -r[1], -r[2], -r[3], -r[4]]);
        for c in 0..5 {
            let p = (c..5).max_by(|&i, &k| m[i][c].abs().total_cmp(&m[k][c].abs())).unwrap();
            m.swap(c, p);
            b.swap(c, p);
            for i in c + 1..5 {
                let pivot = m[c];
                let f = m[i][c] / pivot[c];
                for (a, p) in m[i][c..].iter_mut().zip(&pivot[c..]) {
                    *a -= f * p;
                }
                b[i] -= f * b[c];
            }
        }
        let mut x = [0.0; 5];
        for i in (0..5).rev() {
            x[i] = (b[i] - (i + 1..5).map(|k| m[i][k] * x[k]).sum::<f64>()) / m[i][i];
        }
        dyp.copy_from_slice(&x[..4]);
        dl[0] = x[4];
        Ok(())
    }
    fn correction_norm(&self, b0: f64, dyp: &[f64], _dl: &[f64]) -> f64 {
        b0 * dyp.iter().map(|x| x.abs()).sum::<f64>()
    }
    fn time(&self, s: &State) -> f64 {
        s.t
    }
}

/// theta(t_end), theta'(t_end) of theta'' = -g sin(theta), theta(0) = pi/2, by RK4 with
/// h = 1e-5 (x = sin theta, y = -cos theta).
fn exact_angle(t_end: f64) -> [f64; 2] {
    let f = |s: [f64; 2]| [s[1], -G * s[0].sin()];
    let mut s = [std::f64::consts::FRAC_PI_2, 0.0];
    let h = 1e-5;
    for _ in 0..(t_end / h).round() as usize {
        let k1 = f(s);
        let k2 = f([s[0] + 0.5 * h * k1[0], s[1] + 0.5 * h * k1[1]]);
        let k3 = f([s[0] + 0.5 * h * k2[0], s[1] + 0.5 * h * k2[1]]);
        let k4 = f([s[0] + h * k3[0], s[1] + h * k3[1]]);
        for i in 0..2 {
            s[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    s
}

/// x(t_end).
fn exact_x(t_end: f64) -> f64 {
    exact_angle(t_end)[0].sin()
}

/// x, its velocity u and acceleration u', and lambda at t_end: lambda = u^2 + v^2 - g y
/// (the constraint differentiated twice) = theta'^2 + g cos(theta), u' = -x lambda.
fn exact_x_u_a_lambda(t_end: f64) -> [f64; 4] {
    let [th, w] = exact_angle(t_end);
    let lambda = w * w + G * th.cos();
    [th.sin(), th.cos() * w, -th.sin() * lambda, lambda]
}

/// The state at t = 1 s after steps of h.
fn state_at(m: Method, index3: bool, h: f64) -> State {
    let mut sys = Pendulum { index3, jac: [[0.0; 5]; 5] };
    // Released from rest with the bar horizontal: lambda = 0, y'' = -g.
    let start = State { t: 0.0, y: [1.0, 0.0, 0.0, 0.0], yp: [0.0, 0.0, 0.0, -G], lambda: 0.0 };
    let mut it = Integrator::new(&sys, m, 0.0, start).unwrap();
    let newton = NewtonSettings { tolerance: 1e-11, max_iterations: 50 };
    for k in 1..=(1.0 / h).round() as usize {
        it.step_to(&mut sys, k as f64 * h, &newton).unwrap();
    }
    it.state().clone()
}

fn error(m: Method, index3: bool, h: f64, exact: f64) -> f64 {
    (state_at(m, index3, h).y[0] - exact).abs()
}

#[test]
fn stage_order_limits_the_position_order_on_index3() {
    let exact = exact_x(1.0);
    for m in [Method::Mssth3, Method::Esdirk324L2Sa, Method::Esdirk325L2Sa, Method::Esdirk436L2Sa2] {
        let p3 = (error(m, true, 0.005, exact) / error(m, true, 0.0025, exact)).log2();
        let p2 = (error(m, false, 0.005, exact) / error(m, false, 0.0025, exact)).log2();
        assert!((p3 - 2.0).abs() < 0.15, "{}: index 3, order {p3:.2}", m.paper_name());
        assert!((p2 - 3.0).abs() < 0.15, "{}: index 2, order {p2:.2}", m.paper_name());
    }
}

/// The same reduction one derivative further: with the index-3 constraint every method whose
/// every stage solves the index-3 equations at an intermediate time (the ESDIRKs, MSSTH,
/// and also the second-order Bathe and MSSTC) gives velocities at order 2 but accelerations
/// and multipliers only at order 1 (stage order 2 minus one), with the index-2 constraint
/// order 2 (and 3 in positions and velocities for the third- and fourth-order methods). The
/// multistep and single-step methods and the trapezoidal rule keep order 2 in all four. This
/// was the order of the rotating shaft's mid-span acceleration while the disk was held on the
/// node by a fixed joint; attached to the node without a joint it converges at 2.8 and more
/// (tests/beam_convergence.rs).
#[test]
fn stage_order_limits_accelerations_and_multipliers_to_order_1_on_index3() {
    let exact = exact_x_u_a_lambda(1.0);
    let errors = |m: Method, index3: bool, h: f64| {
        let s = state_at(m, index3, h);
        let got = [s.y[0], s.y[2], s.yp[2], s.lambda];
        std::array::from_fn::<f64, 4, _>(|k| (got[k] - exact[k]).abs())
    };
    let orders = |m: Method, index3: bool| {
        let (a, b) = (errors(m, index3, 0.005), errors(m, index3, 0.0025));
        std::array::from_fn::<f64, 4, _>(|k| (a[k] / b[k]).log2())
    };
    let near = |p: f64, q: f64| (p - q).abs() < 0.15;
    for m in [Method::Lms2, Method::Ss2, Method::Trapezoidal] {
        let p = orders(m, true);
        assert!(p.iter().all(|&p| near(p, 2.0)), "{}: index 3, orders (x, u, u', lambda) {p:.2?}", m.paper_name());
    }
    for m in [
        Method::Bathe,
        Method::Msstc3,
        Method::Mssth3,
        Method::Esdirk324L2Sa,
        Method::Esdirk325L2Sa,
        Method::Esdirk436L2Sa2,
    ] {
        let p3 = orders(m, true);
        let p2 = orders(m, false);
        let vel = if m.order() > 2 { 3.0 } else { 2.0 };
        assert!(
            near(p3[1], 2.0) && near(p3[2], 1.0) && near(p3[3], 1.0),
            "{}: index 3, orders (x, u, u', lambda) {p3:.2?}",
            m.paper_name()
        );
        assert!(
            near(p2[1], vel) && near(p2[2], 2.0) && near(p2[3], 2.0),
            "{}: index 2, orders (x, u, u', lambda) {p2:.2?}",
            m.paper_name()
        );
    }
}
