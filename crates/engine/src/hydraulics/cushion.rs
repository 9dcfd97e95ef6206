//! End cushions of cylinders (docs/modelling.md gives the law and its sources): a throttle
//! whose flow coefficient is multiplied by a fraction f(d) of the distance d of a cylinder's
//! piston to one end of its stroke ([OpenHydraulics] `CylinderCushion`: near the end the
//! outflow of the chamber being emptied is forced through a restriction that closes with
//! the distance to the end). f rises from the end fraction f_0 at d = 0 to 1 at d >= L_c
//! along the rounded ramp of the pressure valves ([`ramp`]), stretched so that its corners
//! lie inside [0, L_c]: f = f_0 + (1 - f_0) x((1 + 2e) d/L_c - e), C1 in d, f_0 for d <= 0.
//!
//! The flow then depends on the stroke: d(Q)/d|s| = C f'(d) dd/d|s| phi(dp), with
//! dd/d|s| = 1 at the retracted end (d = |s| - l_closed) and -1 at the extended end
//! (d = l_closed + stroke - |s|); [`Circuit::cushion_slopes`] adds it, times B_e/V, to the
//! pressure rates' Jacobian by |s|.

use super::components::{ramp, CORNER};
use super::{laws, CylinderSpec, Node, Stroke};
use super::{Circuit, CircuitJacobian};

/// A compiled cushion of a throttle.
#[derive(Clone, Debug)]
pub struct Cushion {
    /// Index of the cylinder.
    pub cylinder: usize,
    /// True at the retracted end (the piston side empties), false at the extended end.
    retracted: bool,
    /// Cushion length L_c \[m\].
    length: f64,
    /// Fraction f_0 of the coefficient left at the end.
    end_fraction: f64,
}

impl Cushion {
    /// Compiles a validated cushion of the cylinder with index `cylinder`.
    pub fn compile(c: &mbfmu_model::format::Cushion, cylinder: usize) -> Cushion {
        Cushion { cylinder, retracted: c.retracted(), length: c.length, end_fraction: c.end_fraction }
    }

    /// The distance d of the piston to the cushioned end at actuator length `length`, and
    /// dd/d|s|.
    #[inline]
    pub fn distance(&self, cyl: &CylinderSpec, length: f64) -> (f64, f64) {
        if self.retracted {
            (length - cyl.closed, 1.0)
        } else {
            (cyl.closed + cyl.stroke - length, -1.0)
        }
    }

    /// The fraction f(d) of the coefficient and df/dd.
    #[inline]
    pub fn fraction(&self, d: f64) -> (f64, f64) {
        let e = CORNER;
        let stretch = (1.0 + 2.0 * e) / self.length;
        let (x, dx) = ramp(stretch * d - e);
        let open = 1.0 - self.end_fraction;
        (self.end_fraction + open * x, open * dx * stretch)
    }

    /// The fraction f at actuator length `length` of cylinder `cyl`, and df/d|s|.
    #[inline]
    pub fn factor(&self, cyl: &CylinderSpec, length: f64) -> (f64, f64) {
        let (d, dd) = self.distance(cyl, length);
        let (f, df) = self.fraction(d);
        (f, df * dd)
    }
}

impl Circuit {
    /// The coefficient of throttle `t` at the strokes `strokes` (its cushion's fraction of
    /// it; the bare coefficient without a cushion or without strokes).
    #[inline(always)]
    pub(super) fn throttle_coefficient(&self, t: &super::Throttle, strokes: Option<&[Stroke]>) -> f64 {
        match (&t.cushion, strokes) {
            (Some(c), Some(s)) => t.coefficient * c.factor(&self.cylinders[c.cylinder], s[c.cylinder].length).0,
            _ => t.coefficient,
        }
    }

    /// True if some throttle has a cushion.
    #[inline(always)]
    pub fn has_cushions(&self) -> bool {
        self.compiled.cushioned
    }

    /// Adds d p'/d|s| of the cushioned throttles' flows to `j.dp_ds` (np x nc): the flow
    /// C f(d) phi(dp) leaves `from` and enters `to`, each volume's rate being its net flow
    /// times B_e/V.
    pub(super) fn cushion_slopes(&self, p: &[f64], inputs: &[f64], strokes: &[Stroke], j: &mut CircuitJacobian) {
        let nc = self.n_cylinders();
        for t in &self.throttles {
            let Some(c) = &t.cushion else { continue };
            let (_, df) = c.factor(&self.cylinders[c.cylinder], strokes[c.cylinder].length);
            if df == 0.0 {
                continue;
            }
            let dp = self.pressure(p, inputs, t.from) - self.pressure(p, inputs, t.to);
            let dq = t.coefficient * df * laws::orifice(dp, t.laminar);
            for (node, sign) in [(t.from, -1.0), (t.to, 1.0)] {
                if let Node::Volume(i) = node {
                    j.dp_ds[i * nc + c.cylinder] += sign * self.stiffness(i, strokes) * dq;
                }
            }
        }
    }
}
