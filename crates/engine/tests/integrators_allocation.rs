//! No hidden allocation in the per-step hot loop (docs/architecture.md#numerics-and-allocation
//! 9): after the first steps, stepping allocates nothing, for every method of the suite.
//! One test in this binary, so the global counter sees only this thread's work.

use mbfmu_engine::integrators::{DaeSystem, Integrator, NewtonSettings, StepError};
use mbfmu_engine::Simulation;
use mbfmu_model::format::{self, ConstraintForm, Method};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// A nonlinear pendulum theta'' = -sin(theta) as y = (theta, omega): allocation-free itself.
struct Pendulum {
    b0: f64,
    c: f64,
}

#[derive(Clone, Debug)]
struct State {
    t: f64,
    y: [f64; 2],
    yp: [f64; 2],
}

impl DaeSystem for Pendulum {
    type State = State;
    fn n_diff(&self) -> usize {
        2
    }
    fn n_alg(&self) -> usize {
        0
    }
    fn chart(&self, _b: &State, s: &State, y: &mut [f64], yp: &mut [f64], _l: &mut [f64]) {
        y.copy_from_slice(&s.y);
        yp.copy_from_slice(&s.yp);
    }
    fn lift(&self, _b: &State, t: f64, y: &[f64], yp: &[f64], _l: &[f64], out: &mut State) {
        out.t = t;
        out.y.copy_from_slice(y);
        out.yp.copy_from_slice(yp);
    }
    fn residual(
        &mut self,
        _b: &State,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        _l: &[f64],
        r: &mut [f64],
    ) -> Result<(), StepError> {
        r[0] = yp[0] - y[1];
        r[1] = yp[1] + y[0].sin();
        Ok(())
    }
    fn factor(&mut self, _b: &State, _t: f64, b0: f64, y: &[f64], _yp: &[f64], _l: &[f64]) -> Result<(), StepError> {
        self.b0 = b0;
        self.c = y[0].cos();
        Ok(())
    }
    fn solve(&mut self, r: &[f64], dyp: &mut [f64], _dl: &mut [f64]) -> Result<(), StepError> {
        // [[1, -b0], [b0 cos, 1]]
        let (b0, c) = (self.b0, self.c);
        let det = 1.0 + b0 * b0 * c;
        dyp[0] = (-r[0] - b0 * r[1]) / det;
        dyp[1] = (-r[1] + b0 * c * r[0]) / det;
        Ok(())
    }
    fn correction_norm(&self, b0: f64, dyp: &[f64], _dl: &[f64]) -> f64 {
        b0 * dyp[0].abs().max(dyp[1].abs())
    }
    fn time(&self, s: &State) -> f64 {
        s.t
    }
}

#[test]
fn stepping_allocates_nothing() {
    let newton = NewtonSettings { tolerance: 1e-12, max_iterations: 20 };
    let methods: Vec<Method> = Method::INDEX3.iter().copied().filter(|&m| m != Method::HalfImplicit).collect();
    for &m in &methods {
        let mut sys = Pendulum { b0: 0.0, c: 0.0 };
        let start = State { t: 0.0, y: [1.0, 0.0], yp: [0.0, -(1f64).sin()] };
        let mut it = Integrator::new(&sys, m, 0.6, start).unwrap();
        let h = 0.01;
        for k in 1..=5 {
            it.step_to(&mut sys, k as f64 * h, &newton).unwrap();
        }
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        for k in 6..=60 {
            it.step_to(&mut sys, k as f64 * h, &newton).unwrap();
        }
        it.shift_to(&mut sys, 0.6 + 1e-12).unwrap();
        let n = ALLOCATIONS.load(Ordering::Relaxed) - before;
        assert_eq!(n, 0, "{}: {n} allocations in 55 steps", m.item_name());
    }
    // Through a Simulation of the index-3 double pendulum: the suite and its wiring add
    // nothing; what remains is the formulation's Mechanism::force_jacobians, which allocates
    // three work vectors per call, i.e. per factorization (one per implicit stage).
    let mut d = format::parse(mbfmu_model::catalog::find("DoublePendulum").unwrap().json).unwrap();
    // The trapezoidal rule stays in the suite as the multistep methods' start-up step (above),
    // but an index-3 description refuses it as its method.
    // Both constraint forms: the stabilized index-2 form's work arrays are allocated once.
    let forms = [ConstraintForm::Index3, ConstraintForm::Ggl];
    let runs =
        methods.iter().filter(|m| m.refusal(d.solver.formulation).is_none()).flat_map(|&m| forms.map(|f| (m, f)));
    for (m, form) in runs.filter(|&(m, f)| f.refusal(d.solver.formulation, m).is_none()) {
        d.solver.method = m;
        d.solver.constraint_form = form;
        d.solver.step_size = 1e-3;
        d.solver.tolerance = 1e-10;
        d.solver.max_iterations = 50;
        d.solver.rho_inf = 0.6;
        let mut sim = Simulation::new(&d).unwrap();
        sim.advance_to(0.005).unwrap();
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        sim.advance_to(0.05).unwrap();
        let n = ALLOCATIONS.load(Ordering::Relaxed) - before;
        let factorizations = 45 * m.implicit_stages() as usize;
        assert!(n <= 3 * factorizations, "{} ({form:?}): {n} allocations in 45 steps", m.item_name());
    }
    // The half-implicit method (its own step, outside the suite) allocates nothing at all:
    // on the double pendulum (planar kernels) and on a beam whose loaded node carries a body
    // off the node, pinned there (spatial kernels, the node's coupled mass in the Schur
    // complement).
    let offset = r#"{
  "name": "OffsetMass",
  "gravity": [0, 0, -9.81],
  "bodies": [{ "name": "lump", "mass": 2.0, "inertia": [0.01, 0.02, 0.015],
               "position": [0.6, 0.05, 0.08], "attached_to": "beam.end" }],
  "beams": [{
    "name": "beam", "points": [[0, 0, 0], [0.5, 0, 0]], "elements": 2, "axis2": [0, 1, 0],
    "section": { "axial_stiffness": 1e5, "shear_stiffness": [5e4, 5e4], "torsional_stiffness": 1e3,
                 "bending_stiffness": [1e3, 8e2], "mass_per_length": 1.0, "inertia_per_length": [0.02, 0.01, 0.01] }
  }],
  "joints": [{ "name": "pin", "type": "spherical", "body1": "ground", "body2": "beam.end", "point": [0.5, 0, 0] }],
  "forces": [{ "type": "torque", "name": "spin", "body": "lump", "axis": [0, 0, 1], "value": 2.0 }],
  "experiment": { "stop": 0.1, "step": 0.01 },
  "solver": { "method": "half_implicit", "step_size": 1e-4, "tolerance": 1e-10 }
}"#;
    let mut pendulum = d.clone();
    pendulum.solver.method = Method::HalfImplicit;
    pendulum.solver.constraint_form = ConstraintForm::Index3;
    for (name, d) in [("DoublePendulum", pendulum), ("OffsetMass", format::parse(offset).unwrap())] {
        let mut sim = Simulation::new(&d).unwrap();
        sim.advance_to(0.005).unwrap();
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        sim.advance_to(0.05).unwrap();
        let n = ALLOCATIONS.load(Ordering::Relaxed) - before;
        assert_eq!(n, 0, "halfImplicit on {name}: {n} allocations");
    }
}
