//! Partial derivatives of a Model Exchange ODE x' = f(t, x, u) and of output quantities
//! y(t, x, u) with respect to one known (a continuous state, an input or time): what FMI
//! directional derivatives are made of (FMI 2.0.4 Sect. 2.1.9, FMI 3.0 Sect. 2.2.11).
//!
//! Where a formulation has no exact column, the column is formed by central differences
//! with Richardson extrapolation (the central difference's error expands in even powers of
//! the step by Taylor's theorem, and one extrapolation removes the h^2 term):
//!
//!   D(h) = (g(x + h) - g(x - h)) / 2h = g' + c2 h^2 + c4 h^4 + ...,
//!   R = (4 D(h/2) - D(h)) / 3 = g' + O(h^4),
//!
//! with h = [`RELATIVE_STEP`] times the known's scale. Quadratic dependences (the velocity
//! products of the equations of motion) and linear ones (forces of pressures and inputs) are
//! differenced exactly; where a formulation knows a column to be at most quadratic
//! ([`Probe::quadratic`]) one central difference is taken (two evaluations instead of four). Where a law varies on a scale much smaller than the known's (the seal
//! friction of a cylinder over its Stribeck velocity) the formulation reports the laws'
//! arguments over their scales as a monitor, and the step is reduced until one step moves
//! them by at most [`MONITOR_LIMIT`] of their scales. The truncation error is then below
//! about 1e-9 of the entries and the round-off error (the dependent positions solve to about
//! 1e-13) about 1e-13 / h = 1e-10 relative.

use crate::inputs::InputSignals;
use crate::integrators::StepError;
use mbfmu_model::format::Quantity;

/// The parts of a formulation's current point that a [`Known`] moves.
pub struct Point<'a> {
    /// The ODE's continuous states.
    pub states: &'a mut [f64],
    pub inputs: &'a mut InputSignals,
    pub time: &'a mut f64,
}

/// What a partial derivative is taken with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// Continuous state `index` of the ODE.
    State(usize),
    /// Input `index` of the model (the description's input order).
    Input(usize),
    Time,
}

/// Step of the differences relative to the known's scale.
pub const RELATIVE_STEP: f64 = 1e-3;
/// Step of the differences in time \[s\]: drivers and inputs vary over tenths of seconds.
pub const TIME_STEP: f64 = 1e-4;
/// Largest change of a monitored law's argument over its scale in one step.
pub const MONITOR_LIMIT: f64 = 3e-3;
/// Step reductions before the differences give up on a monitored law (and use the step
/// reached).
const MAX_REDUCTIONS: usize = 12;

/// One column of partial derivatives and the scratch its differences need, allocated once
/// for `n` continuous states, `q` quantities and `k` monitored laws.
#[derive(Clone, Debug)]
pub struct Column {
    /// d f / d known (n).
    pub derivatives: Vec<f64>,
    /// d y / d known (q).
    pub outputs: Vec<f64>,
    dx: [Vec<f64>; 4],
    y: [Vec<f64>; 4],
    monitor: [Vec<f64>; 2],
}

impl Column {
    pub fn new(n: usize, q: usize, k: usize) -> Column {
        Column {
            derivatives: vec![0.0; n],
            outputs: vec![0.0; q],
            dx: std::array::from_fn(|_| vec![0.0; n]),
            y: std::array::from_fn(|_| vec![0.0; q]),
            monitor: std::array::from_fn(|_| vec![0.0; k]),
        }
    }
}

/// What the differences need of a formulation's ODE.
pub trait Probe {
    /// Evaluates at the current point with `known` moved by `delta`: the state derivatives
    /// into `dx`, the `quantities` into `y` (none if `y` is empty) and the monitored laws'
    /// arguments over their scales into `monitor`. Afterwards the known is back at its value
    /// and the current point is evaluated again when next needed (it is not now).
    fn probe(
        &mut self,
        known: Known,
        delta: f64,
        quantities: &[Quantity],
        dx: &mut [f64],
        y: &mut [f64],
        monitor: &mut [f64],
    ) -> Result<(), StepError>;

    /// The step of the differences in `known` before any reduction.
    fn step(&self, known: Known) -> f64;

    /// True if the state derivatives and the outputs are polynomials of degree at most 2 in
    /// `known` (the velocity products of the equations of motion): one central difference is
    /// then exact, and the extrapolation is left out.
    fn quadratic(&self, known: Known) -> bool {
        let _ = known;
        false
    }
}

/// A formulation whose current point a [`Known`] moves, for its [`Probe::probe`].
pub trait MovesKnowns {
    /// The current point's states, inputs and time.
    fn point(&mut self) -> Point<'_>;

    /// Runs `evaluate` with `known` moved by `delta` from the current point, and puts the
    /// known back afterwards whatever `evaluate` returned (the input's change is not reported
    /// as a change of the inputs).
    fn moved<R>(&mut self, known: Known, delta: f64, evaluate: impl FnOnce(&mut Self) -> R) -> R
    where
        Self: Sized,
    {
        let p = self.point();
        let t = *p.time;
        match known {
            Known::State(i) => {
                let x0 = p.states[i];
                p.states[i] = x0 + delta;
                let r = evaluate(self);
                self.point().states[i] = x0;
                r
            }
            Known::Input(i) => {
                let u0 = p.inputs.at(i, t);
                p.inputs.set_value(i, u0 + delta, t);
                let r = evaluate(self);
                let inputs = self.point().inputs;
                inputs.set_value(i, u0, t);
                inputs.take_changed();
                r
            }
            Known::Time => {
                *p.time = t + delta;
                let r = evaluate(self);
                *self.point().time = t;
                r
            }
        }
    }
}

/// The column of `known` by central differences with Richardson extrapolation (module
/// documentation): the state derivatives always, the quantities if `outputs`.
pub fn differences<P: Probe + ?Sized>(
    p: &mut P,
    known: Known,
    quantities: &[Quantity],
    outputs: bool,
    column: &mut Column,
) -> Result<(), StepError> {
    let q = if outputs { quantities.len() } else { 0 };
    let mut h = p.step(known);
    let Column { derivatives, outputs: dy, dx, y, monitor } = column;
    let [dx_plus, dx_minus, dx_half_plus, dx_half_minus] = dx;
    let [y_plus, y_minus, y_half_plus, y_half_minus] = y;
    let [m_plus, m_minus] = monitor;
    for reduction in 0..=MAX_REDUCTIONS {
        p.probe(known, h, quantities, dx_plus, &mut y_plus[..q], m_plus)?;
        p.probe(known, -h, quantities, dx_minus, &mut y_minus[..q], m_minus)?;
        let change = m_plus.iter().zip(m_minus.iter()).fold(0.0f64, |a, (x, y)| a.max(0.5 * (x - y).abs()));
        if change <= MONITOR_LIMIT || reduction == MAX_REDUCTIONS {
            break;
        }
        h *= (0.5 * MONITOR_LIMIT / change).clamp(1e-3, 0.5);
    }
    if p.quadratic(known) {
        for (d, (a, b)) in derivatives.iter_mut().zip(dx_plus.iter().zip(dx_minus.iter())) {
            *d = (a - b) / (2.0 * h);
        }
        for (d, (a, b)) in dy[..q].iter_mut().zip(y_plus.iter().zip(y_minus.iter())) {
            *d = (a - b) / (2.0 * h);
        }
        return Ok(());
    }
    p.probe(known, 0.5 * h, quantities, dx_half_plus, &mut y_half_plus[..q], m_plus)?;
    p.probe(known, -0.5 * h, quantities, dx_half_minus, &mut y_half_minus[..q], m_minus)?;
    let richardson = |plus: f64, minus: f64, half_plus: f64, half_minus: f64| {
        let whole = (plus - minus) / (2.0 * h);
        let half = (half_plus - half_minus) / h;
        (4.0 * half - whole) / 3.0
    };
    for (i, d) in derivatives.iter_mut().enumerate() {
        *d = richardson(dx_plus[i], dx_minus[i], dx_half_plus[i], dx_half_minus[i]);
    }
    for (i, d) in dy[..q].iter_mut().enumerate() {
        *d = richardson(y_plus[i], y_minus[i], y_half_plus[i], y_half_minus[i]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x) = [sin x0 * x1^2, exp(x0) + tanh(x1 / s)], y = [x0 x1]: smooth in x0, steep in x1
    /// on the scale s, monitored.
    struct Toy {
        x: [f64; 2],
        s: f64,
    }

    impl Probe for Toy {
        fn probe(
            &mut self,
            known: Known,
            delta: f64,
            _: &[Quantity],
            dx: &mut [f64],
            y: &mut [f64],
            monitor: &mut [f64],
        ) -> Result<(), StepError> {
            let mut x = self.x;
            if let Known::State(i) = known {
                x[i] += delta;
            }
            dx[0] = x[0].sin() * x[1] * x[1];
            dx[1] = x[0].exp() + (x[1] / self.s).tanh();
            if !y.is_empty() {
                y[0] = x[0] * x[1];
            }
            monitor[0] = x[1] / self.s;
            Ok(())
        }

        fn step(&self, known: Known) -> f64 {
            match known {
                Known::State(i) => RELATIVE_STEP * self.x[i].abs().max(1.0),
                _ => RELATIVE_STEP,
            }
        }
    }

    #[test]
    fn richardson_differences_are_accurate_also_on_a_steep_monitored_law() {
        let mut toy = Toy { x: [0.7, 0.002], s: 5e-3 };
        let quantities = [Quantity::KineticEnergy];
        let mut c = Column::new(2, 1, 1);
        differences(&mut toy, Known::State(0), &quantities, true, &mut c).unwrap();
        let (x0, x1) = (0.7f64, 0.002f64);
        let exact0 = [x0.cos() * x1 * x1, x0.exp()];
        for (a, b) in c.derivatives.iter().zip(exact0) {
            assert!((a - b).abs() <= 1e-10 * b.abs().max(1e-12), "{a} vs {b}");
        }
        assert!((c.outputs[0] - x1).abs() <= 1e-12);
        differences(&mut toy, Known::State(1), &quantities, false, &mut c).unwrap();
        let sech2 = 1.0 / (x1 / 5e-3f64).cosh().powi(2);
        let exact1 = [2.0 * x0.sin() * x1, sech2 / 5e-3];
        for (a, b) in c.derivatives.iter().zip(exact1) {
            assert!((a - b).abs() <= 1e-9 * b.abs(), "{a} vs {b}");
        }
    }
}
