//! Hydraulic motors (rotary actuators) on revolute joints: the ideal displacement machine of
//! [OpenHydraulics] `PartialPumpMotor` (q = D n, T = D dp / (2 pi)) with the laminar internal
//! leakage and the viscous shaft friction of [HopsanMotor] (q = D_me omega, D_me = D_m/(2 pi),
//! q_leak = C_lm dp, J omega' + B_m omega = D_me dp - T), and constant volumetric and
//! hydromechanical efficiencies as factors on the ideal flow and torque (the pump's
//! hydromechanical efficiency of this project, docs/modelling.md, applied to a motor). With
//! D_e = D / (2 pi) [m3/rad] and omega the joint's rate:
//!   q = D_e omega / eta_v + C_l (p_A - p_B)    drawn from port A into port B,
//!   T = eta_hm D_e (p_A - p_B) - B omega       on the joint (body2 +T, body1 -T about its axis).
//! Both laws are linear, also when the load overruns the motor (T omega < 0, the machine acts
//! as a pump): the efficiencies then still scale the ideal terms the same way (a pump's losses
//! would divide instead), which is stated in docs/modelling.md.
//!
//! A motor is an actuator of the circuit after the cylinders: its "stroke" is the joint's
//! angle and rate (the angle is not used), its "force" the torque, so the formulations couple
//! it through the same Jacobian blocks as a cylinder ([`super::CircuitJacobian`]), with a
//! joint-rate row in place of a line's.

use super::Node;

/// A compiled hydraulic motor.
#[derive(Clone, Debug)]
pub struct MotorSpec {
    pub name: String,
    pub port_a: Node,
    pub port_b: Node,
    /// The revolute joint (description numbering).
    pub joint: usize,
    /// D_e = D / (2 pi) [m3/rad].
    pub displacement: f64,
    /// C_l [m3/(s Pa)].
    pub leakage: f64,
    pub volumetric_efficiency: f64,
    pub hydromechanical_efficiency: f64,
    /// B [N m s/rad].
    pub viscous: f64,
}

impl MotorSpec {
    /// Compiles motor `m` of a validated description; `node` resolves a node name, `joint` a
    /// joint name.
    pub fn compile(m: &mbfmu_model::format::Motor, node: &dyn Fn(&str) -> Node, joint: usize) -> MotorSpec {
        MotorSpec {
            name: m.name.clone(),
            port_a: node(&m.port_a),
            port_b: node(&m.port_b),
            joint,
            displacement: m.displacement / std::f64::consts::TAU,
            leakage: m.leakage_coefficient,
            volumetric_efficiency: m.volumetric_efficiency,
            hydromechanical_efficiency: m.hydromechanical_efficiency,
            viscous: m.viscous_friction,
        }
    }

    /// Flow q from A to B at shaft speed `omega` and pressure drop `dp` = p_A - p_B:
    /// q = D_e omega / eta_v + C_l dp ([HopsanMotor, Sect. Theory]: ideal flow and laminar
    /// leakage; [OpenHydraulics] `PartialPumpMotor`: q = D n).
    #[inline]
    pub fn flow(&self, omega: f64, dp: f64) -> f64 {
        self.displacement * omega / self.volumetric_efficiency + self.leakage * dp
    }

    /// dq/domega = D_e / eta_v.
    #[inline]
    pub fn flow_by_speed(&self) -> f64 {
        self.displacement / self.volumetric_efficiency
    }

    /// Torque on the joint T = eta_hm D_e dp - B omega ([HopsanMotor, Sect. Theory]: the shaft
    /// equation's D_me dp - B_m omega; [OpenHydraulics] `PartialPumpMotor`: T = D dp / (2 pi)
    /// for the ideal machine).
    #[inline]
    pub fn torque(&self, omega: f64, dp: f64) -> f64 {
        self.hydromechanical_efficiency * self.displacement * dp - self.viscous * omega
    }

    /// dT/d(dp) = eta_hm D_e.
    #[inline]
    pub fn torque_by_drop(&self) -> f64 {
        self.hydromechanical_efficiency * self.displacement
    }
}
