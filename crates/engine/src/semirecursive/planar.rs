//! Kernels of a planar tree ([`Tree::planar`]: every joint turns about e_z or slides in the
//! x-y plane). The recursions are those of `kinematics.rs` and `dynamics.rs` (\[Jaiswal2021\]
//! eqs. 2-3 and 9-12); here every b_j = [P x u; u] has only the components (x, y; z) of
//! [s'; w], so the Newton-Euler residuals and inertias are needed only in those three
//! components: the others meet zeros of b in every projection R^T (eqs. 11-12). Rotations are
//! about e_z, so the global inertia about e_z is the body's J_bar_zz and w x J w has no z
//! component. Each kernel fills the same `BodyKin` quantities as its spatial counterpart
//! (equal to round-off), so every other part of the formulation reads them unchanged.

use super::dynamics::Inertia;
use super::kinematics::BodyKin;
use super::tree::Tree;
use nalgebra::{Matrix3, Vector3, Vector6};

/// c a + s e_z x a for the in-plane part of `a` (z kept): rotation about e_z by (s, c).
#[inline(always)]
fn turn(c: f64, s: f64, a: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(c * a.x - s * a.y, s * a.x + c * a.y, a.z)
}

/// [s'; w] or its rate with only the in-plane components s_x, s_y and w_z.
#[inline(always)]
fn planar6(x: f64, y: f64, wz: f64) -> Vector6<f64> {
    Vector6::new(x, y, 0.0, 0.0, 0.0, wz)
}

/// The components x, y and w_z of [s'; w] or its rate.
#[inline(always)]
fn in_plane(v: &Vector6<f64>) -> [f64; 3] {
    [v[0], v[1], v[5]]
}

impl Tree {
    /// [`Tree::positions`] for a planar tree: the relative rotation is about e_z by
    /// `angle0 + turn q`, so composing with the parent is one product of (cos, sin) pairs.
    pub(super) fn positions_planar(&self, z: &[f64], kin: &mut [BodyKin]) {
        for (t, b) in self.bodies.iter().enumerate() {
            let joint = b.planar.expect("a planar tree has planar joints");
            let q = b.sign * (z[t] - b.z0);
            let (sr, cr) = if b.prismatic { joint.sin_cos0 } else { (joint.angle0 + joint.turn * q).sin_cos() };
            // The parent's rotation (cos, sin) and centre of mass; ground: identity, origin.
            let (c0, s0, origin) = match b.parent {
                Some(p) => (kin[p].rot[(0, 0)], kin[p].rot[(1, 0)], kin[p].r),
                None => (1.0, 0.0, Vector3::zeros()),
            };
            let (c, s) = (c0 * cr - s0 * sr, s0 * cr + c0 * sr);
            let (point, axis) = if b.prismatic {
                let local = b.point_parent + b.axis_parent * q;
                (origin + turn(c0, s0, &local), turn(c0, s0, &b.axis_parent))
            } else {
                (origin + turn(c0, s0, &b.point_parent), Vector3::new(0.0, 0.0, joint.turn))
            };
            let k = &mut kin[t];
            k.r = point - turn(c, s, &b.point_child);
            k.rot = Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0);
            k.point = point;
            k.axis = axis;
            k.planar = true;
            // b = [P x u; u] with u = (0, 0, turn), or [u; 0].
            k.b = if b.prismatic {
                Vector6::new(axis.x, axis.y, 0.0, 0.0, 0.0, 0.0)
            } else {
                Vector6::new(point.y * joint.turn, -point.x * joint.turn, 0.0, 0.0, 0.0, joint.turn)
            } * b.sign;
        }
    }

    /// [`Tree::accelerations`] for a planar tree: u' = w_p x u vanishes for a revolute
    /// joint (u along e_z), so b' = [P' x u; 0]; for a prismatic one b' = [w_p x u; 0].
    pub(super) fn accelerations_planar(&self, zd: &[f64], zdd: &[f64], kin: &mut [BodyKin]) {
        for (t, b) in self.bodies.iter().enumerate() {
            // Only the parent's in-plane components are read (copying its whole Z and Z'
            // cost more than the rest of the body's update).
            let ([ax, ay, aw], [vx, vy, pw]) = match b.parent {
                Some(p) => (in_plane(&kin[p].acc), in_plane(&kin[p].vel)),
                None => ([0.0; 3], [0.0; 3]),
            };
            let k = &mut kin[t];
            k.bdot = if b.prismatic {
                Vector6::new(-pw * k.axis.y, pw * k.axis.x, 0.0, 0.0, 0.0, 0.0)
            } else {
                // P' = s'_p + w_p x P; P' x (0, 0, u_z) = u_z (P'_y, -P'_x, 0).
                let (px, py) = (vx - pw * k.point.y, vy + pw * k.point.x);
                Vector6::new(py * k.axis.z, -px * k.axis.z, 0.0, 0.0, 0.0, 0.0)
            } * b.sign;
            let (b, bd, x, xd) = (&k.b, &k.bdot, zdd[t], zd[t]);
            k.acc = planar6(ax + b[0] * x + bd[0] * xd, ay + b[1] * x + bd[1] * xd, aw + b[5] * x + bd[5] * xd);
        }
    }

    /// [`Tree::add_accelerations`] for a planar tree: b and the sums have only the in-plane
    /// components (the others of Z' stay zero).
    pub(super) fn add_accelerations_planar(&self, dzdd: &[f64], kin: &mut [BodyKin], deltas: &mut [Vector6<f64>]) {
        for (t, b) in self.bodies.iter().enumerate() {
            let [px, py, pw] = b.parent.map_or([0.0; 3], |p| in_plane(&deltas[p]));
            let k = &mut kin[t];
            let x = dzdd[t];
            let (dx, dy, dw) = (px + k.b[0] * x, py + k.b[1] * x, pw + k.b[5] * x);
            deltas[t] = planar6(dx, dy, dw);
            k.acc[0] += dx;
            k.acc[1] += dy;
            k.acc[5] += dw;
        }
    }

    /// [`Tree::velocities`] for a planar tree (in-plane components only).
    pub(super) fn velocities_planar(&self, zd: &[f64], kin: &mut [BodyKin]) {
        for (t, body) in self.bodies.iter().enumerate() {
            let [vx, vy, vw] = body.parent.map_or([0.0; 3], |p| in_plane(&kin[p].vel));
            let k = &mut kin[t];
            let (b, x) = (&k.b, zd[t]);
            k.vel = planar6(vx + b[0] * x, vy + b[1] * x, vw + b[5] * x);
        }
    }

    /// [`Tree::generalized_residual`] for a planar tree: the body residuals and their subtree
    /// sums in the components x, y and n_z.
    pub(super) fn generalized_residual_planar(
        &self,
        kin: &[BodyKin],
        loads: &[Vector6<f64>],
        acc: &mut [Vector6<f64>],
        out: &mut [f64],
    ) {
        for (((a, b), k), load) in acc.iter_mut().zip(&self.bodies).zip(kin).zip(loads) {
            *a = Self::body_residual_planar(b, k, load);
        }
        for t in (0..self.bodies.len()).rev() {
            let [cx, cy, cw] = in_plane(&acc[t]);
            if let Some(p) = self.bodies[t].parent {
                let a = &mut acc[p];
                a[0] += cx;
                a[1] += cy;
                a[5] += cw;
            }
            let b = &kin[t].b;
            out[t] = b[0] * cx + b[1] * cy + b[5] * cw;
        }
    }

    /// The Newton-Euler residual about the origin of body `b` (see
    /// [`Tree::generalized_residual`]) in its planar components [f_x, f_y, 0; 0, 0, n_z],
    /// with the loads' wrench `load`.
    #[inline(always)]
    fn body_residual_planar(b: &super::tree::TreeBody, k: &BodyKin, load: &Vector6<f64>) -> Vector6<f64> {
        let (w, wd) = (k.vel[5], k.acc[5]);
        let (gx, gy) = (k.r.x, k.r.y);
        // g' = s' + w x g, g'' = s'' + w' x g + w x g' (eq. 6 and its rate).
        let (vx, vy) = (k.vel[0] - w * gy, k.vel[1] + w * gx);
        let (ax, ay) = (k.acc[0] - wd * gy - w * vy, k.acc[1] + wd * gx + w * vx);
        let (fx, fy) = (b.mass * ax, b.mass * ay);
        let nz = gx * fy - gy * fx + b.inertia[(2, 2)] * wd;
        Vector6::new(fx - load[0], fy - load[1], 0.0, 0.0, 0.0, nz - load[5])
    }

    /// [`Tree::mass_matrix`] for a planar tree: a composite inertia about the origin needs only
    /// its mass m, first moment (m g_x, m g_y) and moment of inertia about the z axis,
    /// I_O = J_bar_zz + m (g_x^2 + g_y^2) per body (kept in the `Inertia` fields `mass`,
    /// `moment` and `rotational[(2, 2)]`), and M_bar b has the components
    /// (m b_x - m g_y b_w, m b_y + m g_x b_w; m g_x b_y - m g_y b_x + I_O b_w).
    pub(super) fn mass_matrix_planar(&self, kin: &[BodyKin], acc: &mut [Inertia], out: &mut [f64]) {
        let n = self.bodies.len();
        for (t, b) in self.bodies.iter().enumerate() {
            let g = &kin[t].r;
            let a = &mut acc[t];
            a.mass = b.mass;
            a.moment = Vector3::new(b.mass * g.x, b.mass * g.y, 0.0);
            a.rotational[(2, 2)] = b.inertia[(2, 2)] + b.mass * (g.x * g.x + g.y * g.y);
        }
        for t in (0..n).rev() {
            if let Some(p) = self.bodies[t].parent {
                let (m, (mx, my), io) = (acc[t].mass, (acc[t].moment.x, acc[t].moment.y), acc[t].rotational[(2, 2)]);
                let a = &mut acc[p];
                a.mass += m;
                a.moment.x += mx;
                a.moment.y += my;
                a.rotational[(2, 2)] += io;
            }
        }
        out[..n * n].fill(0.0);
        for j in 0..n {
            let (a, b) = (&acc[j], &kin[j].b);
            let (m, mx, my, io) = (a.mass, a.moment.x, a.moment.y, a.rotational[(2, 2)]);
            let (fx, fy) = (m * b[0] - my * b[5], m * b[1] + mx * b[5]);
            let nz = mx * b[1] - my * b[0] + io * b[5];
            for &i in &self.bodies[j].path {
                let bi = &kin[i].b;
                let mij = bi[0] * fx + bi[1] * fy + bi[5] * nz;
                out[i * n + j] = mij;
                out[j * n + i] = mij;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbfmu_model::catalog::CATALOG;

    /// The planar catalog mechanisms the semirecursive formulation compiles, as trees, and the
    /// quick-return mechanism with its slider joint J in the tree (revolute I cut instead):
    /// a prismatic tree joint.
    fn planar_trees() -> Vec<(String, Tree)> {
        let mut trees: Vec<(String, Tree)> = CATALOG
            .iter()
            .filter_map(|e| {
                let d = mbfmu_model::format::parse(e.json).ok()?;
                Some((e.name.to_string(), Tree::from_description(&d).ok()?))
            })
            .filter(|(_, t)| t.planar)
            .collect();
        let mut d =
            mbfmu_model::format::parse(mbfmu_model::catalog::find("HydraulicQuickReturn").expect("catalog").json)
                .expect("parses");
        for j in &mut d.joints {
            j.cut = match j.name.as_str() {
                "J" => false,
                "I" => true,
                _ => j.cut,
            };
        }
        trees.push(("HydraulicQuickReturn (slider in the tree)".into(), Tree::from_description(&d).expect("compiles")));
        trees
    }

    /// Kinematics, generalized residual and mass matrix of `tree` at an arbitrary state, with
    /// loads that also have out-of-plane components; then the cut rows' kappa and the
    /// kinematics after adding accelerations ([`Tree::add_accelerations`]).
    fn evaluate(tree: &Tree) -> Evaluated {
        let n = tree.n_coordinates();
        let z: Vec<f64> = tree.bodies.iter().enumerate().map(|(t, b)| b.z0 + 0.3 * (t as f64 + 1.0).sin()).collect();
        let zd: Vec<f64> = (0..n).map(|t| 1.7 * (t as f64 + 0.5).cos()).collect();
        let zdd: Vec<f64> = (0..n).map(|t| -2.3 + 0.9 * t as f64).collect();
        let mut kin = vec![BodyKin::default(); n];
        tree.positions(&z, &mut kin);
        tree.velocities(&zd, &mut kin);
        tree.accelerations(&zd, &zdd, &mut kin);
        let loads: Vec<Vector6<f64>> =
            (0..n).map(|t| Vector6::from_fn(|i, _| (i as f64 + 1.0) * (t as f64 - 1.5))).collect();
        let (mut sums, mut residual) = (vec![Vector6::zeros(); n], vec![0.0; n]);
        tree.generalized_residual(&kin, &loads, &mut sums, &mut residual);
        let (mut inertias, mut mass) = (vec![Inertia::default(); n], vec![0.0; n * n]);
        tree.mass_matrix(&kin, &mut inertias, &mut mass);
        let kappas = tree.cuts.iter().map(|c| c.kappa(&kin)).collect();
        let (mut added, mut deltas) = (kin.clone(), vec![Vector6::zeros(); n]);
        let dzdd: Vec<f64> = (0..n).map(|t| 0.4 - 0.7 * t as f64).collect();
        tree.add_accelerations(&dzdd, &mut added, &mut deltas);
        Evaluated { kin, residual, mass, kappas, added }
    }

    /// What [`evaluate`] computes.
    struct Evaluated {
        kin: Vec<BodyKin>,
        residual: Vec<f64>,
        mass: Vec<f64>,
        kappas: Vec<f64>,
        added: Vec<BodyKin>,
    }

    fn assert_close(what: &str, a: &[f64], b: &[f64]) {
        let scale = b.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-12 * scale, "{what}: planar {a:?} vs spatial {b:?}");
        }
    }

    #[test]
    fn the_planar_kernels_agree_with_the_spatial_ones() {
        let trees = planar_trees();
        assert!(trees.len() >= 6, "the planar catalog mechanisms compile");
        assert!(trees.iter().all(|(_, t)| t.planar), "and are planar");
        assert!(trees.iter().any(|(_, t)| t.bodies.iter().any(|b| b.prismatic)), "a prismatic tree joint is covered");
        let slide = |t: &Tree| t.cuts.iter().any(|c| matches!(c.kind, super::super::cuts::CutKind::Slide { .. }));
        assert!(trees.iter().any(|(_, t)| slide(t)), "a prismatic cut joint is covered");
        for (name, tree) in trees {
            let mut spatial = tree.clone();
            spatial.planar = false;
            let Evaluated { kin: kp, residual: rp, mass: mp, kappas: cp, added: ap } = evaluate(&tree);
            let Evaluated { kin: ks, residual: rs, mass: ms, kappas: cs, added: as_ } = evaluate(&spatial);
            for (t, (p, s)) in kp.iter().zip(&ks).enumerate() {
                let what = format!("{name} body {t}");
                assert_close(&format!("{what} r"), p.r.as_slice(), s.r.as_slice());
                assert_close(&format!("{what} rot"), p.rot.as_slice(), s.rot.as_slice());
                assert_close(&format!("{what} point"), p.point.as_slice(), s.point.as_slice());
                assert_close(&format!("{what} axis"), p.axis.as_slice(), s.axis.as_slice());
                assert_close(&format!("{what} b"), p.b.as_slice(), s.b.as_slice());
                assert_close(&format!("{what} b'"), p.bdot.as_slice(), s.bdot.as_slice());
                assert_close(&format!("{what} Z"), p.vel.as_slice(), s.vel.as_slice());
                assert_close(&format!("{what} Z'"), p.acc.as_slice(), s.acc.as_slice());
            }
            for (t, (p, s)) in ap.iter().zip(&as_).enumerate() {
                assert_close(
                    &format!("{name} body {t} Z' after adding accelerations"),
                    p.acc.as_slice(),
                    s.acc.as_slice(),
                );
            }
            assert_close(&format!("{name} kappa of the cut rows"), &cp, &cs);
            assert_close(&format!("{name} residual"), &rp, &rs);
            assert_close(&format!("{name} mass matrix"), &mp, &ms);
        }
    }

    #[test]
    fn a_joint_axis_out_of_the_plane_makes_the_tree_spatial() {
        let entry = mbfmu_model::catalog::find("StiffDoublePendulum").expect("catalog model");
        let mut d = mbfmu_model::format::parse(entry.json).expect("parses");
        assert!(Tree::from_description(&d).expect("compiles").planar);
        d.plane = None;
        d.joints[1].axis = Some([1.0, 0.0, 1.0]);
        let tree = Tree::from_description(&d).expect("compiles");
        assert!(!tree.planar, "a tilted axis is not planar");
        assert!(tree.bodies[0].planar.is_some() && tree.bodies[1].planar.is_none());
    }
}
