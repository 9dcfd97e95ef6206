//! Evaluation of a [`Circuit`]: pressure rates and cylinder forces ([Jaiswal2021, eqs. 22-29]) and
//! their Jacobians in closed form and by forward differences (eqs. 40-41). Called a few times
//! per step of the semirecursive formulations, so the per-volume constants come from
//! [`super::Compiled`] and the orifices are visited without a closure.

use super::{laws, Circuit, CircuitError, CircuitJacobian, Node, Stroke};
use crate::linalg::zero_small;

impl Circuit {
    /// The pressure of node `n`: a volume's state, a source's constant or its input's value.
    #[inline(always)]
    pub(super) fn pressure(&self, p: &[f64], inputs: &[f64], n: Node) -> f64 {
        self.pressure_with(p, |k| inputs[k], n)
    }

    /// [`Circuit::pressure`] with the input values from `input`.
    #[inline(always)]
    pub(super) fn pressure_with(&self, p: &[f64], input: impl Fn(usize) -> f64, n: Node) -> f64 {
        match n {
            Node::Volume(i) => p[i],
            Node::Source(i) => match self.source_inputs[i] {
                Some(k) => input(k),
                None => self.sources[i],
            },
        }
    }

    /// Calls `f(from, to, coefficient, laminar)` for every orifice: the throttles (eq. 24) and
    /// the two connections the spool opens in each directional valve (eq. 26: U > 0 connects
    /// pump -> A and B -> tank, U < 0 A -> tank and pump -> B, coefficient C_vd |U|).
    /// A cushioned throttle's coefficient is its fraction at `strokes` (`cushion.rs`).
    #[inline(always)]
    fn orifices(&self, spools: &[f64], strokes: &[Stroke], mut f: impl FnMut(Node, Node, f64, f64)) {
        self.moving_orifices(spools, None, Some(strokes), |from, to, coefficient, _, laminar| {
            f(from, to, coefficient, laminar)
        });
    }

    /// [`Circuit::orifices`], also giving each coefficient's time derivative from the spools'
    /// rates (C_vd sgn(U) U'; 0 without rates and for throttles). Without `strokes` a
    /// cushioned throttle gives its bare coefficient: such throttles connect two volumes
    /// (validated), so the flows into sources that need no strokes do not pass them.
    #[inline(always)]
    pub(super) fn moving_orifices(
        &self,
        spools: &[f64],
        spool_rates: Option<&[f64]>,
        strokes: Option<&[Stroke]>,
        mut f: impl FnMut(Node, Node, f64, f64, f64),
    ) {
        // Split on the cushions so that a circuit without one keeps its plain loop.
        if self.has_cushions() {
            for t in &self.throttles {
                f(t.from, t.to, self.throttle_coefficient(t, strokes), 0.0, t.laminar);
            }
        } else {
            for t in &self.throttles {
                f(t.from, t.to, t.coefficient, 0.0, t.laminar);
            }
        }
        for (j, (v, &u)) in self.valves.iter().zip(spools).enumerate() {
            let k = v.flow_constant * u.abs();
            let rate = spool_rates.map_or(0.0, |r| v.flow_constant * if u >= 0.0 { r[j] } else { -r[j] });
            if u >= 0.0 {
                f(v.pump, v.port_a, k, rate, v.laminar);
                f(v.port_b, v.tank, k, rate, v.laminar);
            } else {
                f(v.port_a, v.tank, k, rate, v.laminar);
                f(v.pump, v.port_b, k, rate, v.laminar);
            }
        }
    }

    /// The flow through one orifice (eqs. 24, 26) taken from `from` and added to `to`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn orifice_flow(
        &self,
        p: &[f64],
        inputs: &[f64],
        flows: &mut [f64],
        from: Node,
        to: Node,
        coefficient: f64,
        laminar: f64,
    ) {
        let q = coefficient * laws::orifice(self.pressure(p, inputs, from) - self.pressure(p, inputs, to), laminar);
        if let Node::Volume(i) = from {
            flows[i] -= q;
        }
        if let Node::Volume(i) = to {
            flows[i] += q;
        }
    }

    /// Net flows Q into every volume (eqs. 24, 26, 28, and the inflow inputs) into `flows`,
    /// and the cylinder forces.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn flows(
        &self,
        t: f64,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        flows: &mut [f64],
        forces: &mut [f64],
    ) -> Result<(), CircuitError> {
        zero_small(flows);
        // The orifices of [`Circuit::orifices`] in its order, each flow formed inline.
        if self.has_cushions() {
            for t in &self.throttles {
                let coefficient = self.throttle_coefficient(t, Some(strokes));
                self.orifice_flow(p, inputs, flows, t.from, t.to, coefficient, t.laminar);
            }
        } else {
            for t in &self.throttles {
                self.orifice_flow(p, inputs, flows, t.from, t.to, t.coefficient, t.laminar);
            }
        }
        for (v, &u) in self.valves.iter().zip(spools) {
            let k = v.flow_constant * u.abs();
            if u >= 0.0 {
                self.orifice_flow(p, inputs, flows, v.pump, v.port_a, k, v.laminar);
                self.orifice_flow(p, inputs, flows, v.port_b, v.tank, k, v.laminar);
            } else {
                self.orifice_flow(p, inputs, flows, v.port_a, v.tank, k, v.laminar);
                self.orifice_flow(p, inputs, flows, v.pump, v.port_b, k, v.laminar);
            }
        }
        for (c, (s, f)) in self.cylinders.iter().zip(strokes.iter().zip(forces.iter_mut())) {
            // [Jaiswal2021, eq. 28]: Q_in = A_A s', Q_out = A_B s'.
            *f = Self::cylinder_force(c, p, s)?;
            flows[c.piston_side] -= c.area_piston * s.velocity;
            flows[c.rod_side] += c.area_rod * s.velocity;
        }
        if !self.compiled.plain {
            self.motor_and_component_flows(t, p, strokes, inputs, flows, forces);
        }
        // A flow another FMU delivers (the boundary of a split circuit).
        for (i, v) in self.volumes.iter().enumerate() {
            if let Some(k) = v.inflow {
                flows[i] += inputs[k];
            }
        }
        Ok(())
    }

    /// The motors' flows and torques, then the pressure valves', pumps' and lines' flows. Out
    /// of line, as every path of a component that most circuits lack, to keep the common
    /// evaluation's code as it is.
    #[inline(never)]
    fn motor_and_component_flows(
        &self,
        t: f64,
        p: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        flows: &mut [f64],
        forces: &mut [f64],
    ) {
        if !self.motors.is_empty() {
            let nc = self.cylinders.len();
            self.motor_flows(p, inputs, &strokes[nc..], flows, &mut forces[nc..]);
        }
        if !self.components.is_empty() {
            self.component_flows(t, p, inputs, flows);
        }
    }

    /// The motors' flows q from port A to port B into `flows` and their torques into
    /// `torques`, at the joints' rates in `strokes` (one per motor) ([`super::motor`]).
    #[inline]
    fn motor_flows(&self, p: &[f64], inputs: &[f64], strokes: &[Stroke], flows: &mut [f64], torques: &mut [f64]) {
        for ((m, s), torque) in self.motors.iter().zip(strokes).zip(torques) {
            let dp = self.pressure(p, inputs, m.port_a) - self.pressure(p, inputs, m.port_b);
            let q = m.flow(s.velocity, dp);
            if let Node::Volume(i) = m.port_a {
                flows[i] -= q;
            }
            if let Node::Volume(i) = m.port_b {
                flows[i] += q;
            }
            *torque = m.torque(s.velocity, dp);
        }
    }

    /// The motors' torques alone ([`super::motor`]), for [`Circuit::forces`].
    #[inline(never)]
    fn motor_torques(&self, p: &[f64], inputs: &[f64], strokes: &[Stroke], torques: &mut [f64]) {
        for ((m, s), torque) in self.motors.iter().zip(strokes).zip(torques) {
            let dp = self.pressure(p, inputs, m.port_a) - self.pressure(p, inputs, m.port_b);
            *torque = m.torque(s.velocity, dp);
        }
    }

    /// The force F_s of cylinder `c` (eq. 29), if its piston is inside the stroke.
    #[inline(always)]
    fn cylinder_force(c: &super::CylinderSpec, p: &[f64], s: &Stroke) -> Result<f64, CircuitError> {
        let (la, lb) = c.chambers(s.length);
        if !(la > 0.0 && lb > 0.0) {
            return Err(CircuitError::OutOfStroke {
                cylinder: c.name.clone(),
                length: s.length,
                min: c.closed,
                max: c.closed + c.stroke,
            });
        }
        Ok(c.force(p[c.piston_side], p[c.rod_side], s.velocity))
    }

    /// The cylinder forces F_s (eq. 29) alone, with the stroke check of [`Circuit::evaluate`]:
    /// what the power of a converged step needs (its pressure rates follow from the
    /// trapezoidal rule, so the flows are not formed).
    pub fn forces(&self, p: &[f64], strokes: &[Stroke], forces: &mut [f64]) -> Result<(), CircuitError> {
        self.forces_with(p, strokes, &[], forces)
    }

    /// [`Circuit::forces`] with the model's input values `inputs` (the pressures of sources
    /// that inputs give, at motor ports).
    pub fn forces_with(
        &self,
        p: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        forces: &mut [f64],
    ) -> Result<(), CircuitError> {
        for (c, (s, f)) in self.cylinders.iter().zip(strokes.iter().zip(forces.iter_mut())) {
            *f = Self::cylinder_force(c, p, s)?;
        }
        if !self.motors.is_empty() {
            let nc = self.cylinders.len();
            self.motor_torques(p, inputs, &strokes[nc..], &mut forces[nc..]);
        }
        if !forces.iter().all(|x| x.is_finite()) {
            return Err(CircuitError::NonFinite { what: "cylinder force".into() });
        }
        Ok(())
    }

    /// B_e / V of volume `i` (eqs. 22-23, 42) with the cylinder chambers as sub-volumes:
    /// 1/B_e = 1/B_oil + V_hose/(V B_hose) + sum V_chamber/(V B_wall), so
    /// B_e/V = 1/(V/B_oil + C) with the compliance C = V_hose/B_hose + sum V_chamber/B_wall.
    #[inline(always)]
    pub(super) fn stiffness(&self, i: usize, strokes: &[Stroke]) -> f64 {
        let (mut total, mut compliance) = (self.volumes[i].hose, self.compiled.hose_compliance[i]);
        for chamber in &self.compiled.chambers[i] {
            let c = &self.cylinders[chamber.cylinder];
            let (la, lb) = c.chambers(strokes[chamber.cylinder].length);
            let (area, l) = if chamber.piston { (c.area_piston, la) } else { (c.area_rod, lb) };
            total += area * l;
            compliance += area * l / c.wall_modulus;
        }
        1.0 / (total / self.oil_modulus + compliance)
    }

    /// Pressure rates p' ([Jaiswal2021, eqs. 22-28]; eq. 44 for the circuit of Sect. 5) into
    /// `rates` and cylinder forces F_s (eq. 29) into `forces`; `inputs` are the model's input
    /// values (source pressures and inflows that inputs give).
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &self,
        t: f64,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        rates: &mut [f64],
        forces: &mut [f64],
    ) -> Result<(), CircuitError> {
        self.flows(t, p, spools, strokes, inputs, rates, forces)?;
        let mut finite = true;
        for (i, r) in rates.iter_mut().enumerate().take(self.volumes.len()) {
            *r *= self.stiffness(i, strokes);
            finite &= r.is_finite();
        }
        if !self.compiled.plain {
            finite &= self.state_rates(p, inputs, rates);
        }
        if !(finite && forces.iter().all(|x| x.is_finite())) {
            return Err(CircuitError::NonFinite { what: "pressure rate or cylinder force".into() });
        }
        Ok(())
    }

    /// The rates of the states that are not volume pressures: the line faces' flows and the
    /// accumulators' volumes, after the volumes' in `rates`. False if one is not finite.
    #[inline(never)]
    fn state_rates(&self, p: &[f64], inputs: &[f64], rates: &mut [f64]) -> bool {
        let mut finite = true;
        if !self.components.faces.is_empty() {
            self.face_rates(p, inputs, rates);
            finite &= rates[self.volumes.len()..].iter().all(|r| r.is_finite());
        }
        if !self.components.accumulators.is_empty() {
            self.accumulator_rates(p, inputs, rates);
            finite &= rates[self.volumes.len()..].iter().all(|r| r.is_finite());
        }
        finite
    }

    /// The Jacobians of [`Circuit::evaluate`] in closed form (derivatives of the orifice law,
    /// of B_e/V in the chamber lengths and of the seal friction).
    #[allow(clippy::too_many_arguments)]
    pub fn jacobian(
        &self,
        t: f64,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        j.resize(self.n_pressures(), self.n_actuators());
        self.flows(t, p, spools, strokes, inputs, &mut j.rates, &mut j.forces)?;
        self.jacobian_from_flows(t, p, spools, strokes, inputs, false, j)
    }

    /// As [`Circuit::jacobian`] at a point where `rates` are [`Circuit::evaluate`]'s pressure
    /// rates (the net flows follow as rates / (B_e/V) instead of being evaluated again).
    #[allow(clippy::too_many_arguments)]
    pub fn jacobian_at_rates(
        &self,
        t: f64,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        rates: &[f64],
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        j.resize(self.n_pressures(), self.n_actuators());
        j.rates.copy_from_slice(rates);
        self.jacobian_from_flows(t, p, spools, strokes, inputs, true, j)
    }

    /// The Jacobians with the net flows of the point in `j.rates`, or the pressure rates
    /// (flows times B_e/V) if `scaled`.
    #[allow(clippy::too_many_arguments)]
    fn jacobian_from_flows(
        &self,
        t: f64,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        scaled: bool,
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        // nc cylinders of the stride of `volume_slope`, na actuators of the Jacobians'.
        let (np, nc, na) = (self.n_pressures(), self.n_cylinders(), self.n_actuators());
        j.dp_dp.fill(0.0);
        j.df_dp.fill(0.0);
        let dp_dp = &mut j.dp_dp;
        self.orifices(spools, strokes, |from, to, coefficient, laminar| {
            let slope = coefficient
                * laws::orifice_slope(self.pressure(p, inputs, from) - self.pressure(p, inputs, to), laminar);
            for (row, sign) in [(from, -1.0), (to, 1.0)] {
                let Node::Volume(i) = row else { continue };
                if let Node::Volume(a) = from {
                    dp_dp[i * np + a] += sign * slope;
                }
                if let Node::Volume(b) = to {
                    dp_dp[i * np + b] -= sign * slope;
                }
            }
        });
        if !self.compiled.plain {
            self.component_and_motor_slopes(t, p, inputs, np, nc, j);
        }
        let mut finite = true;
        for (c, cyl) in self.cylinders.iter().enumerate() {
            j.df_dp[c * np + cyl.piston_side] += cyl.area_piston;
            j.df_dp[c * np + cyl.rod_side] -= cyl.area_rod;
            j.df_ds[c] = 0.0;
            j.df_dv[c] = -cyl.friction.as_ref().map_or(0.0, |f| laws::seal_friction_slope(f, strokes[c].velocity));
            finite &= j.df_dv[c].is_finite();
        }
        let nv = self.volumes.len();
        for i in 0..nv {
            let k = self.stiffness(i, strokes);
            let flow = if scaled { j.rates[i] / k } else { j.rates[i] };
            for a in 0..np {
                let x = &mut j.dp_dp[i * np + a];
                *x *= k;
                finite &= x.is_finite();
            }
            // d(B_e/V)/d|s| = -(B_e/V)^2 dV/d|s| (1/B_oil + 1/B_wall), times the net flow;
            // the cylinder flows' coefficients A_A, A_B scaled by B_e/V.
            for c in 0..nc {
                let cyl = &self.cylinders[c];
                let mut area = 0.0;
                if cyl.piston_side == i {
                    area -= cyl.area_piston;
                }
                if cyl.rod_side == i {
                    area += cyl.area_rod;
                }
                let slope = self.compiled.volume_slope[i * nc + c];
                let ds = -k * k * slope * self.compiled.wall_factor[c] * flow;
                let dv = area * k;
                j.dp_ds[i * na + c] = ds;
                j.dp_dv[i * na + c] = dv;
                finite &= ds.is_finite() && dv.is_finite();
            }
        }
        if !self.compiled.plain {
            finite &= self.component_columns(p, strokes, inputs, j);
        }
        if !finite {
            return Err(CircuitError::NonFinite { what: "circuit Jacobian".into() });
        }
        Ok(())
    }

    /// The pressure valves', pumps', lines' and motors' terms of the closed-form Jacobians that
    /// come before the scaling by B_e/V: their flows' slopes in `j.dp_dp`, and the motors'
    /// torques' rows of `j.df_*`.
    #[inline(never)]
    fn component_and_motor_slopes(
        &self,
        t: f64,
        p: &[f64],
        inputs: &[f64],
        np: usize,
        nc: usize,
        j: &mut CircuitJacobian,
    ) {
        if !self.components.is_empty() {
            self.component_slopes(t, p, inputs, np, &mut j.dp_dp);
        }
        if !self.motors.is_empty() {
            self.motor_slopes(np, nc, &mut j.dp_dp, &mut j.df_dp, &mut j.df_ds, &mut j.df_dv);
        }
    }

    /// The closed-form Jacobians' terms after the volumes' scaling: the motors' columns, the
    /// rows of the lines' faces and accumulators (their rates do not depend on the strokes),
    /// the cushions' slopes in the strokes, and the faces' and accumulators' own slopes.
    /// False if a value is not finite.
    #[inline(never)]
    fn component_columns(&self, p: &[f64], strokes: &[Stroke], inputs: &[f64], j: &mut CircuitJacobian) -> bool {
        let (nv, np, nc, na) = (self.volumes.len(), self.n_pressures(), self.n_cylinders(), self.n_actuators());
        let mut finite = true;
        if !self.motors.is_empty() {
            finite &= self.motor_columns(strokes, nv, na, nc, j);
        }
        for i in nv..np {
            j.dp_ds[i * na..(i + 1) * na].fill(0.0);
            j.dp_dv[i * na..(i + 1) * na].fill(0.0);
        }
        if self.has_cushions() {
            self.cushion_slopes(p, inputs, strokes, j);
            finite &= j.dp_ds.iter().all(|x| x.is_finite());
        }
        self.face_slopes(np, &mut j.dp_dp);
        if !self.components.accumulators.is_empty() {
            self.accumulator_slopes(p, inputs, np, &mut j.dp_dp);
        }
        finite
    }

    /// The Jacobians by forward differences ([Jaiswal2021, eqs. 40-41]), to check [`Circuit::jacobian`]
    /// (over every actuator: the cylinders, then the motors).
    #[allow(clippy::too_many_arguments)]
    pub fn jacobian_fd(
        &self,
        t: f64,
        p: &[f64],
        spools: &[f64],
        strokes: &[Stroke],
        inputs: &[f64],
        j: &mut CircuitJacobian,
    ) -> Result<(), CircuitError> {
        let (np, nc) = (self.n_pressures(), self.n_actuators());
        j.resize(np, nc);
        j.p.clear();
        j.p.extend_from_slice(p);
        j.strokes.clear();
        j.strokes.extend_from_slice(strokes);
        self.evaluate(t, p, spools, strokes, inputs, &mut j.rates, &mut j.forces)?;
        for (k, &pk) in p.iter().enumerate().take(np) {
            let eps = super::increment(pk);
            j.p[k] = pk + eps;
            self.evaluate(t, &j.p, spools, strokes, inputs, &mut j.rates_plus, &mut j.forces_plus)?;
            j.p[k] = pk;
            for i in 0..np {
                j.dp_dp[i * np + k] = (j.rates_plus[i] - j.rates[i]) / eps;
            }
            for c in 0..nc {
                j.df_dp[c * np + k] = (j.forces_plus[c] - j.forces[c]) / eps;
            }
        }
        for c in 0..nc {
            for velocity in [false, true] {
                let x = if velocity { strokes[c].velocity } else { strokes[c].length };
                let eps = super::increment(x);
                if velocity {
                    j.strokes[c].velocity = x + eps;
                } else {
                    j.strokes[c].length = x + eps;
                }
                self.evaluate(t, p, spools, &j.strokes, inputs, &mut j.rates_plus, &mut j.forces_plus)?;
                j.strokes[c] = strokes[c];
                let (dp, df) = if velocity { (&mut j.dp_dv, &mut j.df_dv) } else { (&mut j.dp_ds, &mut j.df_ds) };
                for i in 0..np {
                    dp[i * nc + c] = (j.rates_plus[i] - j.rates[i]) / eps;
                }
                df[c] = (j.forces_plus[c] - j.forces[c]) / eps;
            }
        }
        Ok(())
    }
}

impl Circuit {
    /// The motors' terms of the closed-form Jacobians ([`super::motor`]): the leakage
    /// C_l (p_A - p_B) in the flows' slopes `dp_dp` (np x np, before the scaling by B_e/V),
    /// dT/dp_A = -dT/dp_B = eta_hm D_e in the torques' rows of `df_dp` (after the nc
    /// cylinders' rows), dT/d(angle) = 0 and dT/domega = -B.
    #[inline]
    fn motor_slopes(
        &self,
        np: usize,
        nc: usize,
        dp_dp: &mut [f64],
        df_dp: &mut [f64],
        df_ds: &mut [f64],
        df_dv: &mut [f64],
    ) {
        for (m, motor) in self.motors.iter().enumerate() {
            let (a, b) = (motor.port_a, motor.port_b);
            // The flow from A to B changes by C_l per unit of p_A and by -C_l per unit of p_B.
            for (row, sign) in [(a, -1.0), (b, 1.0)] {
                let Node::Volume(i) = row else { continue };
                if let Node::Volume(k) = a {
                    dp_dp[i * np + k] += sign * motor.leakage;
                }
                if let Node::Volume(k) = b {
                    dp_dp[i * np + k] -= sign * motor.leakage;
                }
            }
            let row = (nc + m) * np;
            if let Node::Volume(k) = a {
                df_dp[row + k] += motor.torque_by_drop();
            }
            if let Node::Volume(k) = b {
                df_dp[row + k] -= motor.torque_by_drop();
            }
            df_ds[nc + m] = 0.0;
            df_dv[nc + m] = -motor.viscous;
        }
    }
}

impl Circuit {
    /// The motors' columns of `j.dp_ds` and `j.dp_dv` (np x na) in the nv volumes' rows: a
    /// motor's flow q(omega) leaves port A and enters port B, scaled by the volume's B_e/V; its
    /// volume does not change with its angle. False if a value is not finite.
    #[inline]
    fn motor_columns(&self, strokes: &[Stroke], nv: usize, na: usize, nc: usize, j: &mut CircuitJacobian) -> bool {
        let mut finite = true;
        for i in 0..nv {
            let k = self.stiffness(i, strokes);
            for (m, motor) in self.motors.iter().enumerate() {
                let mut dq = 0.0;
                if motor.port_a == Node::Volume(i) {
                    dq -= motor.flow_by_speed();
                }
                if motor.port_b == Node::Volume(i) {
                    dq += motor.flow_by_speed();
                }
                j.dp_ds[i * na + nc + m] = 0.0;
                j.dp_dv[i * na + nc + m] = dq * k;
                finite &= j.dp_dv[i * na + nc + m].is_finite();
            }
        }
        finite
    }

    /// The pressure drop p_A - p_B across motor `m` at the states `p`, with the input values
    /// from `input` (sources whose pressure is an input).
    pub fn motor_drop(&self, m: usize, p: &[f64], input: &dyn Fn(usize) -> f64) -> f64 {
        let motor = &self.motors[m];
        self.pressure_with(p, input, motor.port_a) - self.pressure_with(p, input, motor.port_b)
    }
}
