//! The FMU interface of a description: which numbers are parameters, which inputs there are
//! and which quantities are output.

use super::keyword::keyword;
use super::tagged::{tagged, Kinds};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The FMU interface of the model: exposed parameters, inputs and outputs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    /// Numbers of the description exposed as FMU parameters.
    #[serde(default)]
    pub parameters: Vec<ParameterSpec>,
    /// Continuous FMU inputs, referenced by drivers, forces and valves.
    #[serde(default)]
    pub inputs: Vec<InputSpec>,
    /// Groups of FMU outputs.
    #[serde(default)]
    pub outputs: Vec<OutputSpec>,
}

/// A fixed FMU parameter: either a numeric field of the description (`path`) or a named
/// value (`value`) that expressions (`"=name * 2"`) use anywhere a number is expected.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParameterSpec {
    /// FMU variable name (dot-separated C identifiers; a named parameter: one identifier).
    pub name: String,
    /// Path of the number in the description, e.g. `bodies.crank.mass` or `gravity.2`
    /// (give either `path` or `value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Value of a named parameter [in `unit`]; expressions `"=..."` elsewhere in the
    /// description use it by name (give either `path` or `value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// FMI unit of the number, e.g. `kg`, `N/m`, `kg.m2` (written to modelDescription.xml).
    #[serde(default)]
    pub unit: String,
    /// Description of the variable in modelDescription.xml.
    #[serde(default)]
    pub description: String,
    /// Smallest value a host may set [in `unit`].
    #[serde(default)]
    pub min: Option<f64>,
    /// Largest value a host may set [in `unit`].
    #[serde(default)]
    pub max: Option<f64>,
}

/// A continuous input referenced by drivers (`input_rate`), force elements (`input`) and
/// valves (`reference.input`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// FMU variable name (dot-separated C identifiers).
    pub name: String,
    /// FMI unit of the input, e.g. `N` (written to modelDescription.xml).
    #[serde(default)]
    pub unit: String,
    /// Value before the host sets one [in `unit`].
    #[serde(default)]
    pub start: f64,
    /// Description of the variable in modelDescription.xml.
    #[serde(default)]
    pub description: String,
    /// Smallest value a host may set [in `unit`].
    #[serde(default)]
    pub min: Option<f64>,
    /// Largest value a host may set [in `unit`].
    #[serde(default)]
    pub max: Option<f64>,
}

const OUTPUTS: Kinds = Kinds {
    what: "output",
    tag: None,
    words: &[
        "body",
        "joint",
        "driver",
        "force",
        "system",
        "node",
        "volume",
        "source",
        "valve",
        "cylinder",
        "motor",
        "accumulator",
        "animation",
    ],
    hint: |_| None,
};

tagged! {
    /// A group of outputs, named by the key of the element it reads (`"body": "crank"`);
    /// expanded into scalar variables by the interface module.
    #[serde(untagged, deny_unknown_fields)]
    pub enum OutputSpec reads OutputTwin as "OutputSpec" (OUTPUTS) {
        /// Rigid-body outputs: of its centre of mass, or of a body-fixed `point` named `name`
        /// (a boom tip, a tool centre point).
        Body {
            /// A body of `bodies`.
            body: String,
            /// A point fixed to the body, global at the initial configuration \[m\]: its
            /// position, velocity and acceleration are output instead of the centre of
            /// mass's (`name` is then required).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            point: Option<[f64; 3]>,
            /// The point's name: its variables are `<body>.<name>.position.x` and so on.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            name: Option<String>,
            /// What is output.
            quantities: Vec<BodyQuantity>,
        },
        /// Joint outputs.
        Joint {
            /// A joint of `joints`.
            joint: String,
            /// What is output.
            quantities: Vec<JointQuantity>,
        },
        /// Driver outputs.
        Driver {
            /// A driver of `drivers`.
            driver: String,
            /// What is output.
            quantities: Vec<DriverQuantity>,
        },
        /// Force-element outputs.
        Force {
            /// A force element of `forces`.
            force: String,
            /// What is output.
            quantities: Vec<ForceQuantity>,
        },
        /// Whole-model outputs.
        System {
            /// What is output.
            system: Vec<SystemQuantity>,
        },
        /// A beam node (`<beam>.node<i>`): its motion and the section forces there.
        Node {
            /// A node: `<beam>.node<i>`, `<beam>.start` or `<beam>.end`.
            node: String,
            /// What is output.
            quantities: Vec<NodeQuantity>,
        },
        /// Hydraulic control volume.
        Volume {
            /// A volume of `hydraulics.volumes`.
            volume: String,
            /// What is output.
            quantities: Vec<VolumeQuantity>,
        },
        /// Hydraulic source (a node of given pressure).
        Source {
            /// A source of `hydraulics.sources`.
            source: String,
            /// What is output.
            quantities: Vec<SourceQuantity>,
        },
        /// Directional control valve.
        Valve {
            /// A directional valve of `hydraulics.valves`.
            valve: String,
            /// What is output.
            quantities: Vec<ValveQuantity>,
        },
        /// Hydraulic cylinder.
        Cylinder {
            /// A cylinder of `hydraulics.cylinders`.
            cylinder: String,
            /// What is output.
            quantities: Vec<CylinderQuantity>,
        },
        /// Hydraulic motor.
        Motor {
            /// A motor of `hydraulics.motors`.
            motor: String,
            /// What is output.
            quantities: Vec<MotorQuantity>,
        },
        /// Gas-loaded accumulator.
        Accumulator {
            /// An accumulator of `hydraulics.accumulators`.
            accumulator: String,
            /// What is output.
            quantities: Vec<AccumulatorQuantity>,
        },
        /// The outputs a 3D replay of the run is drawn from (`mbfmu simulate FMU --animate
        /// run.html`): ordinary output variables with the names the other groups give them,
        /// declared after every other group whatever this entry's place, each name once.
        Animation {
            /// The parts of the model drawn; each must be one the model has.
            animation: Vec<AnimationPart>,
        },
    }
}

keyword! {
    /// A part of the model an animation output group declares the outputs of.
    pub enum AnimationPart("animation part") {
        /// Every body: `<body>.position.x|y|z` (centre of mass) and `<body>.orientation.e0..e3`.
        Bodies = "bodies",
        /// Every beam node: `<beam>.node<i>.position.x|y|z` and `<beam>.node<i>.orientation.e0..e3`.
        Beams = "beams",
        /// Every hydraulic cylinder: the pressures of its piston-side and rod-side volumes
        /// (`<volume>.pressure`); every directional valve: `<valve>.spool` and `<valve>.reference`.
        Hydraulics = "hydraulics",
    }
}

keyword! {
    /// Outputs of a rigid body.
    pub enum BodyQuantity("body quantity") {
        /// Centre-of-mass position, global \[m\].
        Position = "position",
        /// Orientation as a unit quaternion (e0 >= 0) of A.
        Orientation = "orientation",
        /// Centre-of-mass velocity, global [m/s].
        Velocity = "velocity",
        /// Angular velocity, global components [rad/s].
        AngularVelocity = "angular_velocity",
        /// Centre-of-mass acceleration, global [m/s2].
        Acceleration = "acceleration",
    }
}

keyword! {
    /// Outputs of a beam node.
    pub enum NodeQuantity("node quantity") {
        /// Node position, global \[m\].
        Position = "position",
        /// Position minus the initial position, global \[m\].
        Displacement = "displacement",
        /// Rotation vector of the node's rotation relative to its initial orientation, global
        /// components \[rad\] (magnitude at most pi).
        Rotation = "rotation",
        /// Orientation of the node's section frame as a unit quaternion (e0 >= 0).
        Orientation = "orientation",
        /// Velocity, global [m/s].
        Velocity = "velocity",
        /// Angular velocity, global components [rad/s].
        AngularVelocity = "angular_velocity",
        /// Acceleration, global [m/s2].
        Acceleration = "acceleration",
        /// Angular acceleration, global components [rad/s2].
        AngularAcceleration = "angular_acceleration",
        /// Section force in the section frame at the node (`axial`, `shear2`, `shear3`): the
        /// mean of the adjacent elements' values \[N\].
        SectionForce = "section_force",
        /// Section moment in the section frame at the node (`torsion`, `bending2`, `bending3`)
        /// [N.m].
        SectionMoment = "section_moment",
    }
}

keyword! {
    /// Outputs of a joint.
    pub enum JointQuantity("joint quantity") {
        /// Joint angle or displacement (revolute, translational; cylindrical: both).
        Coordinate = "coordinate",
        /// Its time derivative.
        Rate = "rate",
        /// Reaction force the joint exerts on body2, global \[N\].
        ReactionForce = "reaction_force",
        /// Reaction torque the joint exerts on body2 about its centre of mass, global [N.m].
        ReactionTorque = "reaction_torque",
        /// Coulomb friction force along the joint axis on body2 \[N\].
        FrictionForce = "friction_force",
    }
}

keyword! {
    /// Outputs of a driver.
    pub enum DriverQuantity("driver quantity") {
        /// Torque [N.m] or force \[N\] the driver applies to body2 along the joint axis.
        Effort = "effort",
        /// Prescribed coordinate f(t).
        Prescribed = "prescribed",
    }
}

keyword! {
    /// Outputs of a force element.
    pub enum ForceQuantity("force quantity") {
        /// TSDA/actuator length \[m\] or RSDA angle \[rad\].
        Length = "length",
        /// TSDA tension \[N\], actuator force \[N\] or RSDA torque [N.m].
        Force = "force",
        /// Rate of the TSDA/actuator length [m/s] or RSDA angle [rad/s].
        Rate = "rate",
    }
}

keyword! {
    /// Outputs of a hydraulic volume.
    pub enum VolumeQuantity("volume quantity") {
        /// Pressure \[Pa\] (Jaiswal et al. 2021 eq. 22).
        Pressure = "pressure",
    }
}

keyword! {
    /// Outputs of a hydraulic source.
    pub enum SourceQuantity("source quantity") {
        /// Net flow the valves and throttles deliver into the node [m3/s] (Jaiswal et al.
        /// 2021 eqs. 24, 26): what a volume at this node in another FMU receives.
        Flow = "flow",
    }
}

keyword! {
    /// Outputs of a directional valve.
    pub enum ValveQuantity("valve quantity") {
        /// Spool position U \[V\] (Jaiswal et al. 2021 eq. 27).
        Spool = "spool",
        /// Reference U_ref \[V\] held over the last internal step.
        Reference = "reference",
    }
}

keyword! {
    /// Outputs of a hydraulic cylinder.
    pub enum CylinderQuantity("cylinder quantity") {
        /// Actuator (pin-to-pin) length |s| \[m\].
        Length = "length",
        /// Its rate [m/s].
        Velocity = "velocity",
        /// Force F_s = p_A A_A - p_B A_B - F_mu \[N\] (Jaiswal et al. 2021 eq. 29), pushing the ends apart.
        Force = "force",
        /// Work of F_s on the mechanism since the start \[J\].
        Work = "work",
    }
}

keyword! {
    /// Outputs of a hydraulic motor.
    pub enum MotorQuantity("motor quantity") {
        /// Shaft speed omega, the rate of the motor's revolute joint [rad/s].
        Speed = "speed",
        /// Torque T = eta_hm D_e (p_A - p_B) - B omega on the joint (on body2, about the
        /// joint's axis) [N.m].
        Torque = "torque",
        /// Flow q = D_e omega / eta_v + C_l (p_A - p_B) drawn from port A into port B [m3/s].
        Flow = "flow",
    }
}

keyword! {
    /// Outputs of a gas-loaded accumulator.
    pub enum AccumulatorQuantity("accumulator quantity") {
        /// Gas pressure p_g \[Pa\] (p_g V_g^n = p0 V0^n).
        Pressure = "pressure",
        /// Liquid volume V_L [m3] (V0 minus the gas volume).
        LiquidVolume = "liquid_volume",
    }
}

keyword! {
    /// Whole-model outputs.
    pub enum SystemQuantity("system quantity") {
        /// Kinetic energy \[J\].
        KineticEnergy = "kinetic_energy",
        /// Potential energy \[J\].
        PotentialEnergy = "potential_energy",
        /// Kinetic plus potential energy \[J\].
        TotalEnergy = "total_energy",
        /// Work done on the system by applied torques/forces that are not potentials
        /// (actuators, inputs, dampers, friction), integrated over time \[J\].
        ExternalWork = "external_work",
        /// Total energy minus its initial value minus the external work (Zhang et al. 2022 eq. 23) \[J\].
        EnergyBalance = "energy_balance",
        /// Euclidean norm of the position constraints Phi [m or rad].
        ConstraintViolation = "constraint_violation",
        /// Newton iterations of the last internal step.
        NewtonIterations = "newton_iterations",
        /// Internal steps taken since the start.
        Steps = "steps",
    }
}
