//! Which plane a mechanism is drawn on: the description's plane, else the plane normal to
//! parallel joint axes, else the best-fit plane of its points, else an isometric view. The
//! screen axes are u (right) and v (up), with u x v = n pointing at the viewer.

use mbfmu_model::format::{Description, JointKind};

pub type V3 = [f64; 3];

pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// The unit vector along `a`, if `a` is finite and not (numerically) zero.
pub fn unit(a: V3) -> Option<V3> {
    let n = dot(a, a).sqrt();
    (n.is_finite() && n > 1e-12).then(|| scale(a, 1.0 / n))
}

/// `a` with its largest component positive: a normal and its opposite give one view, and
/// this picks the one looking from the positive side (x-y models are seen from +z).
fn canonical(a: V3) -> V3 {
    let k = (0..3).max_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs())).unwrap_or(2);
    if a[k] < 0.0 {
        scale(a, -1.0)
    } else {
        a
    }
}

/// How the view was chosen (for the figure's caption).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// The description's `plane`.
    Plane,
    /// Normal to the (parallel) rotation axes of the joints.
    JointAxes,
    /// Normal to the best-fit plane of the mechanism's points.
    BestFit,
    /// Isometric: the three global axes foreshortened equally.
    Isometric,
}

#[derive(Clone, Copy, Debug)]
pub struct View {
    pub u: V3,
    pub v: V3,
    pub n: V3,
    pub kind: ViewKind,
}

impl View {
    /// Screen coordinates (right, up) of a global point, in model units: the components along
    /// u and v (orthogonal projection along n).
    pub fn project(&self, p: V3) -> (f64, f64) {
        (dot(self.u, p), dot(self.v, p))
    }

    /// Words for the caption.
    pub fn describe(&self) -> String {
        // Components to three decimals; rounding first and adding +0 turns -0.0001 into 0, not -0.
        let component = |x: f64| {
            let r = (x * 1000.0).round() / 1000.0 + 0.0;
            format!("{r:.3}").trim_end_matches('0').trim_end_matches('.').to_string()
        };
        let n = |a: V3| format!("({})", a.map(component).join(", "));
        match self.kind {
            ViewKind::Plane => format!("projected on the plane of motion (normal {})", n(self.n)),
            ViewKind::JointAxes => format!("projected along the joints' rotation axis {}", n(self.n)),
            ViewKind::BestFit => format!("projected on the best-fit plane of its points (normal {})", n(self.n)),
            ViewKind::Isometric => "isometric view".to_string(),
        }
    }

    /// The view looking along -n, with "up" on screen the part of `up` (or, if that is
    /// parallel to n or zero, of the first of z, y, x that is not) normal to n.
    fn looking_along(n: V3, up: Option<V3>, kind: ViewKind) -> View {
        let candidates = up.into_iter().chain([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]);
        // Gram-Schmidt: v = up - (up . n) n, the in-plane part of up; some global axis has
        // |. n| <= 1/sqrt(3), so a candidate always qualifies.
        let v = candidates
            .filter(|c| dot(*c, n).abs() < 0.95)
            .find_map(|c| unit(sub(c, scale(n, dot(c, n)))))
            .unwrap_or([0.0, 1.0, 0.0]);
        // u = v x n makes (u, v, n) right-handed: x right and y up when n = +z.
        let u = cross(v, n);
        // Of the two sides of a plane, look from the one where "right" runs along a positive
        // global axis (a shaft along x is drawn from left to right); isometric views are fixed.
        if kind != ViewKind::Isometric && canonical(u) != u {
            return View { u: scale(u, -1.0), v, n: scale(n, -1.0), kind };
        }
        View { u, v, n, kind }
    }
}

/// "Up" for the drawing: against gravity, if the model has gravity.
fn up_of(d: &Description) -> Option<V3> {
    unit(scale(d.gravity, -1.0))
}

/// The common normal of the joints' rotation axes when they are parallel (within 10 deg),
/// no joint allows rotation about other axes (spherical, universal) and sliding axes lie in
/// the plane: the motion is then planar, normal to that axis.
fn joint_axes_normal(d: &Description) -> Option<V3> {
    let tolerance = 10f64.to_radians();
    let mut rotation = Vec::new();
    let mut sliding = Vec::new();
    for j in &d.joints {
        match j.kind {
            JointKind::Revolute | JointKind::Cylindrical => rotation.extend(j.axis.and_then(unit)),
            JointKind::Spherical | JointKind::Universal => return None,
            JointKind::Translational => sliding.extend(j.axis.and_then(unit)),
            JointKind::Fixed | JointKind::Distance => {}
        }
    }
    let first = *rotation.first()?;
    if rotation.iter().any(|a| dot(*a, first).abs() < tolerance.cos()) {
        return None;
    }
    // Mean direction with the signs aligned to the first axis (an axis and its opposite are one axis).
    let sum = rotation.iter().fold([0.0; 3], |s, a| {
        let a = scale(*a, dot(*a, first).signum());
        [s[0] + a[0], s[1] + a[1], s[2] + a[2]]
    });
    let n = unit(sum)?;
    sliding.iter().all(|t| dot(*t, n).abs() <= tolerance.sin()).then_some(n)
}

/// Diagonal of the bounding box of the points as seen in a view (2D) or in space (3D).
fn extent(points: &[V3], view: Option<&View>) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in points {
        let q = match view {
            Some(v) => {
                let (x, y) = v.project(*p);
                [x, y, 0.0]
            }
            None => *p,
        };
        for k in 0..3 {
            lo[k] = lo[k].min(q[k]);
            hi[k] = hi[k].max(q[k]);
        }
    }
    let d = sub(hi, lo);
    let e = dot(d, d).sqrt();
    if e.is_finite() {
        e
    } else {
        0.0
    }
}

/// The normal of the best-fit plane of the points (principal component of least variance),
/// if the points are close to a plane or a line; `None` for a genuinely spatial cloud.
fn best_fit_normal(points: &[V3], up: Option<V3>) -> Option<V3> {
    if points.is_empty() {
        return None;
    }
    let count = points.len() as f64;
    let c = points.iter().fold([0.0; 3], |s, p| [s[0] + p[0], s[1] + p[1], s[2] + p[2]]);
    let c = scale(c, 1.0 / count);
    // Covariance sum_i (p_i - c)(p_i - c)^T: its eigenvectors are the principal directions.
    let mut m = nalgebra::Matrix3::<f64>::zeros();
    for p in points {
        let d = nalgebra::Vector3::from(sub(*p, c));
        m += d * d.transpose();
    }
    if !m.iter().all(|x| x.is_finite()) {
        return None;
    }
    let eig = nalgebra::SymmetricEigen::new(m);
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| eig.eigenvalues[i].total_cmp(&eig.eigenvalues[j]));
    let [l0, l1, l2] = order.map(|i| eig.eigenvalues[i].max(0.0));
    let axis = |i: usize| -> V3 { eig.eigenvectors.column(order[i]).into_owned().into() };
    if l2 <= 0.0 {
        return None; // a single point: any view will do
    }
    if l1 <= 1e-6 * l2 {
        // Points on a line: look at it from the side, keeping "up" in the picture.
        let line = axis(2);
        return up.and_then(|up| unit(cross(line, up))).or_else(|| unit(axis(0)));
    }
    // Nearly planar: the least variance is small against the in-plane spread (std. dev. ratio 0.2).
    (l0 <= 0.04 * l1).then(|| axis(0))
}

/// The view of a mechanism whose drawing points (centres of mass, joint and force points,
/// beam nodes) are `points`.
pub fn choose(d: &Description, points: &[V3]) -> View {
    let up = up_of(d);
    let spatial = extent(points, None);
    // A view along a planar axis can still hide the mechanism (a shaft seen end-on): keep it
    // only if the picture keeps a third of the spatial extent.
    let shows_enough = |view: &View| spatial <= 0.0 || extent(points, Some(view)) >= spatial / 3.0;
    if let Some(n) = d.plane.as_ref().and_then(|p| unit(p.normal)) {
        let view = View::looking_along(canonical(n), up, ViewKind::Plane);
        if shows_enough(&view) {
            return view;
        }
    }
    if let Some(n) = joint_axes_normal(d) {
        let view = View::looking_along(canonical(n), up, ViewKind::JointAxes);
        if shows_enough(&view) {
            return view;
        }
    }
    if let Some(n) = best_fit_normal(points, up) {
        return View::looking_along(canonical(n), up, ViewKind::BestFit);
    }
    // Isometric: the viewing direction (1, 1, 1)/sqrt 3 makes equal angles with the axes.
    let n = [1.0 / 3f64.sqrt(); 3];
    View::looking_along(n, up.or(Some([0.0, 0.0, 1.0])), ViewKind::Isometric)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view_of(json: &str) -> View {
        let d: Description = serde_json::from_str(json).unwrap();
        choose(&d, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    }

    #[test]
    fn planar_models_are_seen_from_plus_z_with_x_right_and_y_up() {
        let v = view_of(
            r#"{"name":"m","plane":{"normal":[0,0,-1]},"gravity":[0,-9.81,0],"bodies":[],"experiment":{"stop":1,"step":0.1}}"#,
        );
        assert_eq!(v.kind, ViewKind::Plane);
        assert_eq!(v.project([1.0, 2.0, 3.0]), (1.0, 2.0));
        assert_eq!(v.describe(), "projected on the plane of motion (normal (0, 0, 1))");
        let tilted = View { n: [-1e-9, -1.0, 0.0015], ..v };
        assert_eq!(tilted.describe(), "projected on the plane of motion (normal (0, -1, 0.002))");
    }

    #[test]
    fn a_spatial_cloud_gets_an_isometric_view_and_no_input_a_nan() {
        let d: Description =
            serde_json::from_str(r#"{"name":"m","bodies":[],"experiment":{"stop":1,"step":0.1}}"#).unwrap();
        let cube = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 1.0]];
        let v = choose(&d, &cube);
        assert_eq!(v.kind, ViewKind::Isometric);
        for view in [v, choose(&d, &[]), choose(&d, &[[f64::NAN, 0.0, 0.0]])] {
            assert!(view.u.iter().chain(&view.v).chain(&view.n).all(|x| x.is_finite()));
            assert!((dot(view.u, view.v)).abs() < 1e-12 && (dot(cross(view.u, view.v), view.n) - 1.0).abs() < 1e-12);
        }
    }
}
