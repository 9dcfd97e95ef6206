//! The mechanism in its initial configuration: bodies as the convex outline of their centre of
//! mass and attachment points, beams as polylines through their nodes, joints, force elements
//! and attached hydraulic cylinders as symbols, projected on the view of `projection.rs` and
//! scaled to fit.
//!
//! Geometry is first collected in model units on the view plane ([`Scene`]); symbols have
//! sizes in pixels and are drawn only when the scene is fitted into a frame, so the page and
//! the icon share one scene.

use super::projection::{self, unit, View, V3};
use super::symbols::{draw_cylinder, draw_force, draw_joint, INK};
use super::{add, diff, mul, Fit, Frame, Svg, P};
use mbfmu_model::format::{Description, ForcePlace, JointKind, LineSymbol, GROUND};
use std::collections::HashMap;

const BODY: &str = "#3a6ea5";
const BEAM: &str = "#6a3d9a";

struct Body {
    name: String,
    com: P,
    outline: Vec<P>,
}

struct Beam {
    name: String,
    nodes: Vec<P>,
}

pub(super) struct Joint {
    pub(super) name: String,
    pub(super) kind: JointKind,
    pub(super) at: Option<P>,
    /// The two points of a distance constraint.
    pub(super) ends: Option<(P, P)>,
    /// Projected axis (translational, cylindrical), model units per unit length.
    pub(super) axis: Option<P>,
    pub(super) grounded: bool,
}

pub(super) enum ForceShape {
    /// Translational spring-damper between two points.
    Spring { a: P, b: P, stiffness: bool, damping: bool },
    /// A force along the line between two points (pushing them apart).
    Actuator { a: P, b: P },
    /// Rotational spring-damper at its joint.
    Rotational { at: Option<P> },
    /// A force at a point along a direction; `None`: the direction is (nearly) normal to the view.
    Load { at: Option<P>, direction: Option<P> },
    /// A torque about an axis at a body's centre of mass; the sign is the sense seen on screen.
    Torque { at: Option<P>, sense: f64 },
}

struct ForceElement {
    name: String,
    shape: ForceShape,
}

struct Cylinder {
    name: String,
    base: P,
    rod_end: P,
    /// Barrel length over pin-to-pin length.
    barrel: f64,
}

/// The projected mechanism, in model units on the view plane.
pub struct Scene {
    pub view: View,
    bodies: Vec<Body>,
    beams: Vec<Beam>,
    joints: Vec<Joint>,
    forces: Vec<ForceElement>,
    cylinders: Vec<Cylinder>,
}

fn finite(p: &V3) -> bool {
    p.iter().all(|x| x.is_finite())
}

/// Every global point the drawing uses, for the choice of the view.
pub(crate) fn all_points(d: &Description) -> Vec<V3> {
    let mut pts: Vec<V3> = d.bodies.iter().map(|b| b.position).collect();
    for j in &d.joints {
        pts.extend([j.point, j.point1, j.point2].into_iter().flatten());
    }
    for f in &d.forces {
        match f.place() {
            ForcePlace::Line { points, .. } => pts.extend([*points[0], *points[1]]),
            ForcePlace::Point { point, .. } => pts.extend(point.copied()),
            ForcePlace::JointRotation { .. } | ForcePlace::Torque { .. } => {}
        }
    }
    for b in &d.beams {
        pts.extend(b.node_positions());
    }
    for c in d.hydraulics.iter().flat_map(|h| &h.cylinders) {
        pts.extend([c.point1, c.point2].into_iter().flatten());
    }
    pts.retain(finite);
    pts
}

/// The view the drawings take of a description (the 3D replay starts from it too).
pub fn view_of(d: &Description) -> View {
    projection::choose(d, &all_points(d))
}

impl Scene {
    /// The scene of a description; `None` when there is no mechanism to draw (a purely
    /// hydraulic model).
    pub fn new(d: &Description) -> Option<Scene> {
        let attached_cylinders = d.hydraulics.iter().flat_map(|h| &h.cylinders).filter(|c| c.attached()).count();
        if d.bodies.is_empty()
            && d.beams.is_empty()
            && d.joints.is_empty()
            && d.forces.is_empty()
            && attached_cylinders == 0
        {
            return None;
        }
        let view = projection::choose(d, &all_points(d));
        let pr = |p: V3| view.project(p);
        let pr_opt = |p: Option<V3>| p.filter(finite).map(pr);

        // Attachment points of each body, global (joints, force elements, cylinders).
        let mut attached: HashMap<String, Vec<V3>> = HashMap::new();
        let mut attach = |body: &str, p: Option<V3>| {
            if let Some(p) = p.filter(finite) {
                attached.entry(body.to_string()).or_default().push(p);
            }
        };
        for j in &d.joints {
            if j.kind == JointKind::Distance {
                attach(&j.body1, j.point1);
                attach(&j.body2, j.point2);
            } else {
                attach(&j.body1, j.point);
                attach(&j.body2, j.point);
            }
        }
        for f in &d.forces {
            match f.place() {
                ForcePlace::Line { bodies, points } => {
                    attach(bodies[0], Some(*points[0]));
                    attach(bodies[1], Some(*points[1]));
                }
                ForcePlace::Point { body, point, .. } => attach(body, point.copied()),
                ForcePlace::JointRotation { .. } | ForcePlace::Torque { .. } => {}
            }
        }
        for c in d.hydraulics.iter().flat_map(|h| &h.cylinders) {
            if let (Some(b1), Some(b2)) = (&c.body1, &c.body2) {
                attach(b1, c.point1);
                attach(b2, c.point2);
            }
        }
        // A body attached to a beam node without a joint is drawn reaching to its node.
        for b in &d.bodies {
            if let Some(node) = &b.attached_to {
                attach(&b.name, Some(d.node_position(node)));
            }
        }

        let bodies = d
            .bodies
            .iter()
            .map(|b| {
                let com = if finite(&b.position) { b.position } else { [0.0; 3] };
                let at: Vec<P> = attached.get(&b.name).into_iter().flatten().map(|p| pr(*p)).collect();
                let c = pr(com);
                let mut outline = super::convex_hull(at.clone());
                // A centre of mass beyond the attachments (a pendulum bar hanging from one end,
                // a boom beyond its pivots) means the body reaches beyond them: assume it
                // symmetric about its centre of mass and add the mirrored points 2 c - a.
                if reaches_beyond(c, &outline) {
                    outline.extend(at.iter().map(|a| diff(mul(c, 2.0), *a)));
                }
                outline.push(c);
                Body { name: b.name.clone(), com: pr(com), outline: super::convex_hull(outline) }
            })
            .collect();

        let beams = d
            .beams
            .iter()
            .map(|b| Beam {
                name: b.name.clone(),
                nodes: b.node_positions().into_iter().filter(finite).map(pr).collect(),
            })
            .collect();

        let joints = d
            .joints
            .iter()
            .map(|j| Joint {
                name: j.name.clone(),
                kind: j.kind,
                at: pr_opt(j.point),
                ends: pr_opt(j.point1).zip(pr_opt(j.point2)),
                axis: j.axis.and_then(unit).map(|a| view.project(a)),
                grounded: j.body1 == GROUND || j.body2 == GROUND,
            })
            .collect();

        let com_of = |body: &str| d.bodies.iter().find(|b| b.name == body).map(|b| b.position).filter(finite).map(pr);
        let joint_at = |joint: &str| d.joints.iter().find(|j| j.name == joint).and_then(|j| pr_opt(j.point));
        let forces = d
            .forces
            .iter()
            .map(|f| {
                let shape = match f.place() {
                    ForcePlace::Line { points, .. } => {
                        let (a, b) = (pr(*points[0]), pr(*points[1]));
                        match f.line_symbol() {
                            LineSymbol::SpringDamper { spring, damper } => {
                                ForceShape::Spring { a, b, stiffness: spring, damping: damper }
                            }
                            LineSymbol::Actuator => ForceShape::Actuator { a, b },
                        }
                    }
                    ForcePlace::JointRotation { joint } => ForceShape::Rotational { at: joint_at(joint) },
                    ForcePlace::Point { body, direction, point } => {
                        let at = pr_opt(point.copied()).or_else(|| com_of(body));
                        // In the picture when its projection keeps a fifth of its length.
                        let direction = unit(*direction).map(|u| view.project(u)).filter(|p| super::len(*p) > 0.2);
                        ForceShape::Load { at, direction }
                    }
                    ForcePlace::Torque { body, axis } => {
                        let sense = unit(*axis).map_or(1.0, |a| projection::dot(a, view.n).signum());
                        ForceShape::Torque { at: com_of(body), sense }
                    }
                };
                ForceElement { name: f.name().to_string(), shape }
            })
            .collect();

        let cylinders = d
            .hydraulics
            .iter()
            .flat_map(|h| &h.cylinders)
            .filter_map(|c| {
                let (p1, p2) = (c.point1.filter(finite)?, c.point2.filter(finite)?);
                let length = projection::dot(projection::sub(p2, p1), projection::sub(p2, p1)).sqrt();
                // The barrel is about as long as the closed cylinder (pin to pin at l_A = 0).
                let barrel = if length > 0.0 { (c.closed() / length).clamp(0.3, 0.85) } else { 0.5 };
                Some(Cylinder {
                    name: c.name.clone(),
                    base: pr(p1),
                    rod_end: pr(p2),
                    barrel: if barrel.is_finite() { barrel } else { 0.5 },
                })
            })
            .collect();

        Some(Scene { view, bodies, beams, joints, forces, cylinders })
    }

    /// Every point of the scene (for fitting it into a frame).
    pub fn points(&self) -> Vec<P> {
        let mut pts: Vec<P> = Vec::new();
        for b in &self.bodies {
            pts.extend(b.outline.iter().copied());
            pts.push(b.com);
        }
        for b in &self.beams {
            pts.extend(b.nodes.iter().copied());
        }
        for j in &self.joints {
            pts.extend(j.at);
            pts.extend(j.ends.iter().flat_map(|(a, b)| [*a, *b]));
        }
        for f in &self.forces {
            match f.shape {
                ForceShape::Spring { a, b, .. } | ForceShape::Actuator { a, b } => pts.extend([a, b]),
                ForceShape::Rotational { at } | ForceShape::Load { at, .. } | ForceShape::Torque { at, .. } => {
                    pts.extend(at)
                }
            }
        }
        for c in &self.cylinders {
            pts.extend([c.base, c.rod_end]);
        }
        pts.retain(|p| p.0.is_finite() && p.1.is_finite());
        pts
    }

    /// Counts of the drawn groups: bodies, joints, force elements, beams, cylinders.
    pub fn counts(&self) -> [usize; 5] {
        [self.bodies.len(), self.joints.len(), self.forces.len(), self.beams.len(), self.cylinders.len()]
    }

    /// The SVG of the scene fitted into `frame`.
    pub fn svg(&self, frame: &Frame, title: &str) -> String {
        let fit = Fit::new(self.points(), frame);
        let mut svg = Svg::new(frame, "mechanism", title);
        for (i, b) in self.bodies.iter().enumerate() {
            svg.open("body", &super::id("body", i, &b.name), &b.name);
            let outline: Vec<P> = b.outline.iter().map(|p| fit.px(*p)).collect();
            let com = fit.px(b.com);
            if outline.len() >= 2 {
                let style = format!("fill=\"#d6e4f0\" stroke=\"{BODY}\" stroke-width=\"7\" stroke-linejoin=\"round\" stroke-linecap=\"round\"");
                svg.polygon(&outline, &style);
            } else {
                svg.circle(com, 9.0, &format!("fill=\"#d6e4f0\" stroke=\"{BODY}\" stroke-width=\"3\""));
            }
            svg.circle(com, 2.5, &format!("fill=\"#ffffff\" stroke=\"{INK}\" stroke-width=\"1\""));
            svg.text(frame, add(com, (6.0, -8.0)), "start", &b.name);
            svg.close();
        }
        for (i, b) in self.beams.iter().enumerate() {
            svg.open("beam", &super::id("beam", i, &b.name), &b.name);
            let nodes: Vec<P> = b.nodes.iter().map(|p| fit.px(*p)).collect();
            svg.polyline(
                &nodes,
                &format!("stroke=\"{BEAM}\" stroke-width=\"4\" stroke-linejoin=\"round\" stroke-linecap=\"round\""),
            );
            for n in &nodes {
                svg.circle(*n, 2.0, &format!("fill=\"{BEAM}\""));
            }
            if let (Some(first), Some(last)) = (nodes.first(), nodes.last()) {
                let mid = mul(add(*first, *last), 0.5);
                svg.text(frame, add(mid, (6.0, 16.0)), "start", &b.name);
            }
            svg.close();
        }
        for (i, c) in self.cylinders.iter().enumerate() {
            svg.open("cylinder", &super::id("cylinder", i, &c.name), &c.name);
            draw_cylinder(&mut svg, fit.px(c.base), fit.px(c.rod_end), c.barrel);
            svg.text(frame, add(mul(add(fit.px(c.base), fit.px(c.rod_end)), 0.5), (10.0, 4.0)), "start", &c.name);
            svg.close();
        }
        for (i, f) in self.forces.iter().enumerate() {
            svg.open("force", &super::id("force", i, &f.name), &f.name);
            if let Some(at) = draw_force(&mut svg, &f.shape, &fit) {
                svg.text(frame, add(at, (8.0, -6.0)), "start", &f.name);
            }
            svg.close();
        }
        for (i, j) in self.joints.iter().enumerate() {
            svg.open("joint", &super::id("joint", i, &j.name), &j.name);
            if let Some(at) = draw_joint(&mut svg, j, &fit) {
                svg.text(frame, add(at, (8.0, 14.0)), "start", &j.name);
            }
            svg.close();
        }
        svg.finish()
    }
}

/// True if a body whose attachment points have the convex outline `hull` and whose centre of
/// mass is `c` reaches beyond its attachments: it hangs from a single point away from `c`, or
/// its attachments lie on a line and `c` lies on that line (within a tenth of their spread)
/// but more than a tenth of it past their ends. A plate (outline of three or more points), or
/// a bar with its centre of mass off its axis, is drawn as its outline with `c`.
fn reaches_beyond(c: P, hull: &[P]) -> bool {
    match hull {
        [a] => super::len(diff(c, *a)) > 1e-12,
        [a, b] => {
            let ab = diff(*b, *a);
            let length = super::len(ab);
            // Position of c along a-b (t, in lengths) and its distance from the line.
            let t = ((c.0 - a.0) * ab.0 + (c.1 - a.1) * ab.1) / (length * length);
            let off = ((c.0 - a.0) * ab.1 - (c.1 - a.1) * ab.0).abs() / length;
            length > 1e-12 && off <= 0.1 * length && !(-0.1..=1.1).contains(&t)
        }
        _ => false,
    }
}
