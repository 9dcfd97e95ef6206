//! Output kernels of a planar mechanism stepped in its in-plane unknowns (`planar_step.rs`).
//!
//! The planar step keeps every body turning about n (w_bar = n_bar omega, `planar.rs`), so
//! the rate of a joint angle about n (atan2(g1 . f2, f1 . f2), `Measure::angle`) is
//! sigma (omega2 - omega1), sigma = +1 if the joint axis points along n and -1 against it:
//! theta' = (c s' - s c') / (s^2 + c^2) with f' = omega n x f for each vector (\[Fang2023\]
//! Sect. 2.1: (A s)' = A (w_bar x s)). It agrees with the spatial kernel to round-off (the
//! unit test below compares them on every planar catalog model); [`Mechanism::quantity`]
//! keeps the spatial kernel. The reactions keep the spatial rows: their out-of-plane rows
//! have zero multipliers and are skipped (`outputs.rs`), which leaves little to save.

use super::planar::PlanarModel;
use super::{MechState, Mechanism};
use nalgebra::Vector3;

/// What the planar output kernels need of a planar mechanism.
#[derive(Debug)]
pub(crate) struct PlanarOutputs {
    /// Per body, the plane's normal n in body coordinates.
    n_bar: Vec<Vector3<f64>>,
    /// Per joint: sigma of its angle if the angle is about n (see the module documentation).
    angle_sign: Vec<Option<f64>>,
}

impl PlanarOutputs {
    /// The planar outputs of `m`, whose planar form at `state` is `model`.
    pub(super) fn new(m: &Mechanism, model: PlanarModel, state: &MechState) -> PlanarOutputs {
        let n = model.plane.n;
        let angle_sign = m
            .joints
            .iter()
            .enumerate()
            .map(|(j, joint)| {
                let angle = joint.angle.as_ref().filter(|_| model.has_planar_angle(j))?;
                // g1 = axis x f1 with f1 perpendicular to the axis: f1 x g1 is the axis.
                let pair = m.pair(&state.bodies, &joint.pair);
                let (f1, g1) = (angle.vectors()[0].value(&pair), angle.vectors()[1].value(&pair));
                Some(f1.cross(&g1).dot(&n).signum())
            })
            .collect();
        PlanarOutputs { n_bar: model.bodies.iter().map(|b| b.n_bar).collect(), angle_sign }
    }

    /// Rate of joint `j`'s angle, if it is about n.
    #[inline(always)]
    pub fn angle_rate(&self, m: &Mechanism, j: usize, state: &MechState) -> Option<f64> {
        let sign = self.angle_sign[j]?;
        let omega = |b: Option<usize>| b.map_or(0.0, |b| self.n_bar[b].dot(&state.bodies[b].w));
        let pair = m.joints[j].pair;
        Some(sign * (omega(pair[1]) - omega(pair[0])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Simulation;
    use mbfmu_model::catalog::CATALOG;
    use mbfmu_model::format::{Method, Quantity};
    use mbfmu_model::Model;

    /// Every planar catalog model stepped by the planar half-implicit method: the planar
    /// kernels agree with the spatial ones (`Mechanism::quantity`) to 1e-12 relative to the
    /// rate's size over the run, from the assembled start over 400 steps.
    #[test]
    fn planar_kernels_match_the_spatial_ones_on_every_planar_catalog_model() {
        let mut checked = Vec::new();
        for entry in CATALOG {
            let model = Model::from_catalog(entry).expect("catalog models build");
            let mut d = model.description.clone();
            if d.solver.formulation.name() != "index3" {
                continue;
            }
            d.solver.method = Method::HalfImplicit;
            let Ok(mut sim) = Simulation::new(&d) else { continue };
            let Some(mech) = sim.mechanism().cloned() else { continue };
            if PlanarModel::detect(&mech, sim.state()).is_none() {
                continue;
            }
            let quantities: Vec<Quantity> =
                (0..mech.joints.len()).map(|joint| Quantity::JointAngleRate { joint }).collect();
            let (mut batch, mut size) = (vec![0.0; quantities.len()], vec![0.0f64; quantities.len()]);
            let mut worst = 0.0f64;
            let h = d.solver.step_size;
            for step in 0..=400 {
                if step > 0 {
                    sim.advance_within(d.experiment.start + step as f64 * h, crate::Budget::UNLIMITED).expect("steps");
                }
                sim.quantities(&quantities, &mut batch);
                let mech = sim.mechanism().expect("index-3");
                for (k, q) in quantities.iter().enumerate() {
                    let spatial = mech.quantity(*q, sim.state());
                    size[k] = size[k].max(spatial.abs());
                    // Relative to the rate's size over the run so far.
                    worst = worst.max((batch[k] - spatial).abs() / size[k].max(1e-300));
                }
            }
            assert!(worst <= 1e-12, "{}: planar and spatial outputs differ by {worst:e}", entry.name);
            checked.push(entry.name);
        }
        assert!(checked.contains(&"DoublePendulum") && checked.contains(&"AndrewsSqueezer"), "{checked:?}");
    }
}
