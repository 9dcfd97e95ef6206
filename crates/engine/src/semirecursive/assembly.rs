//! Consistent start ([Jaiswal2021, Sect. 5]): the independent coordinates as given, dependent ones
//! from Phi(z) = 0, dependent rates from eq. (13); static cylinder forces F_s0 and the start
//! pressures p = (F_s0 + p_rod A_rod)/A_piston; accelerations and multipliers from
//!   [M' Phi_z^T; Phi_z 0] [z''; lambda] = [Q'; -Phi_z' z'].

use super::cuts::{g_dot_acc, jacobian_row, line};
use super::Semirecursive;
use crate::index3::AssemblyReport;
use crate::linalg::{full_pivoting, SmallLu};

impl Semirecursive {
    pub(super) fn assemble(&mut self) -> Result<(), String> {
        let n = self.tree.n_coordinates();
        let m = self.tree.n_constraints();
        let t = self.state.t;
        let mut report = AssemblyReport::default();
        let mut z0 = vec![0.0; n];
        let mut zd0 = vec![0.0; n];
        self.tree.initial_coordinates(&mut z0, &mut zd0);
        self.w.z.copy_from_slice(&z0);
        self.w.zd.copy_from_slice(&zd0);
        self.w.zdd.iter_mut().for_each(|x| *x = 0.0);
        self.w.positions(&self.tree);
        self.w.constraint_rows(&self.tree);
        if let Some((r, phi)) = self.w.phi.iter().enumerate().max_by(|a, b| a.1.abs().total_cmp(&b.1.abs())) {
            report.initial_violation = phi.abs();
            report.worst_constraint = self.tree.cuts[r].label.clone();
        }
        self.w.ind.clear();
        self.w.ind.extend(0..n);
        self.w.dep.clear();
        if m > 0 {
            let w = &mut self.w;
            w.scratch_phiz.copy_from_slice(&w.phiz);
            self.state.pivot_reference = full_pivoting(&mut w.scratch_phiz, m, n, &mut w.dep, &mut w.ind);
            if self.state.pivot_reference == 0.0 {
                return Err(format!(
                    "the cut-joint constraints are redundant or the configuration is singular (near {}); the double-step formulation needs independent constraints (Jaiswal et al. 2021, Sect. 2.2)",
                    report.worst_constraint
                ));
            }
            self.solve_positions(t).map_err(|e| {
                format!("the configuration cannot be assembled: {e} (check joint locations and initial coordinates)")
            })?;
            report.iterations = 1;
        }
        for (t_body, (z, z0)) in self.w.z.iter().zip(&z0).enumerate() {
            let change = (z - z0).abs();
            if self.tree.bodies[t_body].prismatic {
                report.max_translation = report.max_translation.max(change);
            } else {
                report.max_rotation = report.max_rotation.max(change);
            }
        }
        self.state.independent.clone_from(&self.w.ind);
        self.state.partitions = 1;
        // Rates: independent ones as given, dependent ones from eq. (13).
        self.dependent_rates();
        for (zd, zd0) in self.w.zd.iter().zip(&zd0) {
            report.max_velocity_change = report.max_velocity_change.max((zd - zd0).abs());
        }
        self.w.zdd.iter_mut().for_each(|x| *x = 0.0);
        self.tree.velocities(&self.w.zd, &mut self.w.kin);
        self.tree.accelerations(&self.w.zd, &self.w.zdd, &mut self.w.kin);

        // Spools and pressures (static start).
        if let Some(c) = &self.tree.circuit {
            for (k, v) in c.valves.iter().enumerate() {
                self.w.spools[k] = v.initial_spool;
                self.w.references[k] = c.reference(k, t, t, &self.inputs);
            }
        }
        self.static_forces = self.static_cylinder_forces()?;
        if let Some(c) = &self.tree.circuit {
            let p = c.initial_pressures(&self.static_forces);
            c.check_supply(&p)?;
            self.w.p.copy_from_slice(&p);
        }

        // Accelerations and multipliers.
        self.dynamics(t).map_err(|e| e.to_string())?;
        let w = &mut self.w;
        self.tree.mass_matrix(&w.kin, &mut w.inertias, &mut w.mass);
        for (r, cut) in self.tree.cuts.iter().enumerate() {
            let row = cut.evaluate(&w.kin);
            w.tmp_m[r] = -(g_dot_acc(&w.kin, &row) + row.kappa);
        }
        let mut kkt = SmallLu::new(n + m);
        let mut rhs = vec![0.0; n + m];
        let mut tmp = vec![0.0; n + m];
        for i in 0..n {
            for j in 0..n {
                *kkt.at(i, j) = w.mass[i * n + j];
            }
            for r in 0..m {
                *kkt.at(i, n + r) = w.phiz[r * n + i];
                *kkt.at(n + r, i) = w.phiz[r * n + i];
            }
        }
        // Q' = -R^T (M_bar Z'_0 - Q_bar) with z'' = 0.
        for (r, res) in rhs[..n].iter_mut().zip(&w.res) {
            *r = -res;
        }
        rhs[n..].copy_from_slice(&w.tmp_m[..m]);
        if !kkt.factor() {
            return Err("the mass matrix and constraint Jacobian are singular at the start".into());
        }
        kkt.solve(&mut rhs, &mut tmp);
        w.zdd.copy_from_slice(&rhs[..n]);
        w.lambda.copy_from_slice(&rhs[n..]);
        self.tree.accelerations(&w.zd, &w.zdd, &mut w.kin);
        let power = self.dynamics(t).map_err(|e| e.to_string())?;
        let w = &self.w;
        let st = &mut self.state;
        st.z.copy_from_slice(&w.z);
        st.zd.copy_from_slice(&w.zd);
        st.zdd.copy_from_slice(&w.zdd);
        st.lambda.copy_from_slice(&w.lambda);
        st.multipliers.forget();
        st.p.copy_from_slice(&w.p);
        st.pd.copy_from_slice(&w.h);
        st.spools.copy_from_slice(&w.spools);
        st.references.copy_from_slice(&w.references);
        st.work = 0.0;
        st.cylinder_work.iter_mut().for_each(|x| *x = 0.0);
        st.energy0 = self.tree.kinetic_energy(&w.kin) + self.tree.potential_energy(&w.kin, &w.z, &w.zd);
        if st.z.iter().chain(&st.zd).chain(&st.zdd).chain(&st.p).chain(&st.pd).any(|x| !x.is_finite()) {
            return Err("the initial conditions produced non-finite values".into());
        }
        self.assembly = report;
        self.store_cache(power);
        Ok(())
    }

    /// F_s0 of every cylinder with a static start: the forces that make the generalized
    /// forces along the independent coordinates vanish with the mechanism at rest,
    /// R_z^T (Q' + sum J_c F_c) = 0 (least squares if there are fewer cylinders than degrees
    /// of freedom); `initial_force` where given. Friction is ignored ([Jaiswal2021, Sect. 5]).
    fn static_cylinder_forces(&mut self) -> Result<Vec<Option<f64>>, String> {
        // The cylinders' line rows at the start configuration (for their wrenches below).
        self.cylinder_strokes(self.state.t);
        let Some(circuit) = &self.tree.circuit else { return Ok(Vec::new()) };
        let n = self.tree.n_coordinates();
        let m = self.tree.n_constraints();
        let mut forces: Vec<Option<f64>> = circuit.cylinders.iter().map(|c| c.initial_force).collect();
        let statics: Vec<usize> = (0..circuit.n_cylinders()).filter(|&c| circuit.cylinders[c].static_start).collect();
        if statics.is_empty() {
            return Ok(forces);
        }
        if self.w.zd.iter().any(|&v| v != 0.0) {
            return Err("a static start needs the mechanism at rest (all joint rates zero)".into());
        }
        // Generalized forces without the static cylinders (zero force here); the others push
        // with their start pressures.
        let pre = circuit.initial_pressures(&forces);
        let w = &mut self.w;
        self.inputs.values_at(self.state.t, &mut w.u);
        for (f, c) in w.forces.iter_mut().zip(&circuit.cylinders) {
            *f = if c.static_start { 0.0 } else { c.force(pre[c.piston_side], pre[c.rod_side], 0.0) };
        }
        // Motors hold with their start pressures' torques (at rest).
        let nc = circuit.n_cylinders();
        for (k, (f, motor)) in w.forces[nc..].iter_mut().zip(&circuit.motors).enumerate() {
            let u = &w.u;
            *f = motor.torque(0.0, circuit.motor_drop(k, &pre, &|i| u[i]));
        }
        self.tree.loads(&w.kin, &w.z, &w.zd, &w.u, &w.forces, &w.cylinder_rows, &w.strokes, true, &mut w.wrenches);
        self.tree.generalized_residual(&w.kin, &w.wrenches, &mut w.sums, &mut w.res);
        // Project onto the independent coordinates: g = R_z^T v (eq. 14).
        let project = |w: &mut super::Work, v: &[f64], out: &mut [f64]| {
            for (k, &j) in w.dep.iter().enumerate() {
                w.tmp_m[k] = v[j];
            }
            if m > 0 {
                w.lu_dep.solve_transpose(&mut w.tmp_m, &mut w.tmp_m2);
            }
            for (k, &j) in w.ind.iter().enumerate() {
                out[k] = v[j] - (0..m).map(|r| w.phiz[r * n + j] * w.tmp_m[r]).sum::<f64>();
            }
        };
        let f = w.ind.len();
        let res = w.res.clone();
        let mut b = vec![0.0; f];
        project(w, &res, &mut b);
        let mut a = vec![vec![0.0; f]; statics.len()];
        for (col, &c) in statics.iter().enumerate() {
            let ends = self.tree.cylinder_ends[c].as_ref().expect("static start needs an attached cylinder");
            let row = line(&w.kin, ends).0;
            let mut js = vec![0.0; n];
            jacobian_row(&self.tree, &w.kin, &row, &mut js);
            project(w, &js, &mut a[col]);
        }
        // Least squares: (A^T A) F = A^T b, with A the projected length Jacobians as columns
        // (M' z'' - Q' = res - sum J_c F_c = 0 along the independent coordinates).
        let ns = statics.len();
        let mut normal = SmallLu::new(ns);
        let mut rhs = vec![0.0; ns];
        let mut tmp = vec![0.0; ns];
        for i in 0..ns {
            for j in 0..ns {
                *normal.at(i, j) = (0..f).map(|k| a[i][k] * a[j][k]).sum();
            }
            rhs[i] = (0..f).map(|k| a[i][k] * b[k]).sum();
        }
        if !normal.factor() {
            return Err("the static cylinder forces are not determined: a cylinder cannot move the mechanism (its length does not change with the independent coordinates)".into());
        }
        normal.solve(&mut rhs, &mut tmp);
        for (col, &c) in statics.iter().enumerate() {
            forces[c] = Some(rhs[col]);
        }
        Ok(forces)
    }
}
