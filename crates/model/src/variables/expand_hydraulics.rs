//! Outputs of the hydraulic circuit: volumes, sources, valves, cylinders, motors and
//! accumulators, each expanded into scalar variables.

use super::expand::{missing, Builder, InterfaceError};
use super::Quantity;
use crate::format::{
    AccumulatorQuantity, CylinderQuantity, Description, MotorQuantity, SourceQuantity, Valve, ValveQuantity,
    VolumeQuantity,
};

/// Pressure in a hydraulic volume.
pub(super) fn volume_outputs(
    d: &Description,
    volume: &str,
    quantities: &[VolumeQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.volume_index(volume).ok_or_else(|| missing("volume", volume))?;
    for q in quantities {
        match q {
            VolumeQuantity::Pressure => b.output(
                format!("{volume}.pressure"),
                "Pa",
                format!("Pressure in hydraulic volume {volume} (Jaiswal et al. 2021, eq. 22)"),
                Quantity::VolumePressure { volume: i },
            )?,
        }
    }
    Ok(())
}

/// Net flow into a pressure source's node.
pub(super) fn source_outputs(
    d: &Description,
    source: &str,
    quantities: &[SourceQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.source_index(source).ok_or_else(|| missing("hydraulic source", source))?;
    for q in quantities {
        match q {
            SourceQuantity::Flow => b.output(
                format!("{source}.flow"),
                "m3/s",
                format!("Net flow the valves deliver into node {source} (Jaiswal et al. 2021, eqs. 24 and 26)"),
                Quantity::SourceFlow { source: i },
            )?,
        }
    }
    Ok(())
}

/// Spool position and reference of a directional valve.
pub(super) fn valve_outputs(
    d: &Description,
    valve: &str,
    quantities: &[ValveQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.valve_index(valve).ok_or_else(|| missing("valve", valve))?;
    let h = d.hydraulics.as_ref().expect("a valve implies a circuit");
    if !matches!(h.valves[i], Valve::Directional { .. }) {
        return Err(InterfaceError(format!("valve '{valve}' has no spool to output (a throttle)")));
    }
    for q in quantities {
        let (name, text, q) = match q {
            ValveQuantity::Spool => {
                ("spool", "Spool position U (Jaiswal et al. 2021, eq. 27)", Quantity::ValveSpool { valve: i })
            }
            ValveQuantity::Reference => (
                "reference",
                "Spool reference U_ref held over the last internal step (input plus work cycle)",
                Quantity::ValveReference { valve: i },
            ),
        };
        b.output(format!("{valve}.{name}"), "V", format!("{text} of valve {valve}"), q)?;
    }
    Ok(())
}

/// Length, velocity, force and work of a hydraulic cylinder.
pub(super) fn cylinder_outputs(
    d: &Description,
    cylinder: &str,
    quantities: &[CylinderQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.cylinder_index(cylinder).ok_or_else(|| missing("cylinder", cylinder))?;
    for q in quantities {
        let (name, unit, text, q) = match q {
            CylinderQuantity::Length => {
                ("length", "m", "Actuator length |s|", Quantity::CylinderLength { cylinder: i })
            }
            CylinderQuantity::Velocity => (
                "velocity",
                "m/s",
                "Actuator velocity (Jaiswal et al. 2021, eq. 45)",
                Quantity::CylinderVelocity { cylinder: i },
            ),
            CylinderQuantity::Force => (
                "force",
                "N",
                "Cylinder force F_s = p_A A_A - p_B A_B - F_mu, pushing the ends apart (Jaiswal et al. 2021, eq. 29)",
                Quantity::CylinderForce { cylinder: i },
            ),
            CylinderQuantity::Work => (
                "work",
                "J",
                "Work of the cylinder force on the mechanism since the start",
                Quantity::CylinderWork { cylinder: i },
            ),
        };
        b.output(format!("{cylinder}.{name}"), unit, format!("{text} of cylinder {cylinder}"), q)?;
    }
    Ok(())
}

/// Speed, torque and flow of a hydraulic motor.
pub(super) fn motor_outputs(
    d: &Description,
    motor: &str,
    quantities: &[MotorQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.motor_index(motor).ok_or_else(|| missing("motor", motor))?;
    for q in quantities {
        let (name, unit, text, q) = match q {
            MotorQuantity::Speed => {
                ("speed", "rad/s", "Shaft speed omega (the joint's rate)", Quantity::MotorSpeed { motor: i })
            }
            MotorQuantity::Torque => (
                "torque",
                "N.m",
                "Torque T = eta_hm D (p_A - p_B) / (2 pi) - B omega on the joint",
                Quantity::MotorTorque { motor: i },
            ),
            MotorQuantity::Flow => (
                "flow",
                "m3/s",
                "Flow q = D omega / (2 pi eta_v) + C_l (p_A - p_B) from port A to port B",
                Quantity::MotorFlow { motor: i },
            ),
        };
        b.output(format!("{motor}.{name}"), unit, format!("{text} of motor {motor}"), q)?;
    }
    Ok(())
}

/// Gas pressure and liquid volume of an accumulator.
pub(super) fn accumulator_outputs(
    d: &Description,
    accumulator: &str,
    quantities: &[AccumulatorQuantity],
    b: &mut Builder,
) -> Result<(), InterfaceError> {
    let i = d.accumulator_index(accumulator).ok_or_else(|| missing("accumulator", accumulator))?;
    for q in quantities {
        let (name, unit, text, q) = match q {
            AccumulatorQuantity::Pressure => (
                "pressure",
                "Pa",
                "Gas pressure p_g (p_g V_g^n = p0 V0^n)",
                Quantity::AccumulatorPressure { accumulator: i },
            ),
            AccumulatorQuantity::LiquidVolume => {
                ("liquid_volume", "m3", "Liquid volume V_L = V0 - V_g", Quantity::AccumulatorVolume { accumulator: i })
            }
        };
        b.output(format!("{accumulator}.{name}"), unit, format!("{text} of accumulator {accumulator}"), q)?;
    }
    Ok(())
}
