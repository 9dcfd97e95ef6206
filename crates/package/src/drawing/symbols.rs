//! The symbols of the mechanism drawing, in pixels: joints (with a ground base when they
//! hold a body to ground), springs, dampers, actuators, loads, torques and hydraulic
//! cylinders.

use super::mechanism::{ForceShape, Joint};
use super::{add, diff, dir, mul, normal, Fit, PathCommand, Svg, P};
use mbfmu_model::format::JointKind;

pub(super) const INK: &str = "#222222";
const SPRING: &str = "#b85c00";
const LOAD: &str = "#c0392b";

/// A ground symbol under a point: a short post and a hatched base.
fn ground(svg: &mut Svg, at: P) {
    let style = format!("stroke=\"{INK}\" stroke-width=\"1.5\"");
    let base = at.1 + 12.0;
    svg.line((at.0, at.1 + 5.0), (at.0, base), &style);
    svg.line((at.0 - 10.0, base), (at.0 + 10.0, base), &style);
    for k in 0..4 {
        let x = at.0 - 9.0 + 6.0 * f64::from(k);
        svg.line((x, base), (x - 4.0, base + 5.0), &style);
    }
}

/// Draws a joint; returns where its label goes.
pub(super) fn draw_joint(svg: &mut Svg, j: &Joint, fit: &Fit) -> Option<P> {
    let stroke = format!("stroke=\"{INK}\" stroke-width=\"2\"");
    let open = format!("fill=\"#ffffff\" {stroke}");
    if j.kind == JointKind::Distance {
        let (a, b) = j.ends?;
        let (a, b) = (fit.px(a), fit.px(b));
        svg.line(a, b, &format!("{stroke} stroke-dasharray=\"5 3\""));
        svg.circle(a, 3.5, &open);
        svg.circle(b, 3.5, &open);
        return Some(mul(add(a, b), 0.5));
    }
    let at = fit.px(j.at?);
    if j.grounded {
        ground(svg, at);
    }
    let axis = j.axis.and_then(dir).map(|a| (a.0, -a.1)); // screen y points down
    match j.kind {
        JointKind::Revolute => svg.circle(at, 5.5, &open),
        JointKind::Spherical => {
            svg.circle(at, 5.5, &open);
            svg.circle(at, 2.0, &format!("fill=\"{INK}\""));
        }
        JointKind::Universal => {
            svg.circle(at, 5.5, &open);
            svg.line(add(at, (-3.9, -3.9)), add(at, (3.9, 3.9)), &stroke);
            svg.line(add(at, (-3.9, 3.9)), add(at, (3.9, -3.9)), &stroke);
        }
        JointKind::Translational | JointKind::Cylindrical => {
            // A slider block on its guide, both along the projected axis.
            let a = axis.unwrap_or((1.0, 0.0));
            let n = normal(a);
            svg.line(add(at, mul(a, -22.0)), add(at, mul(a, 22.0)), &format!("stroke=\"{INK}\" stroke-width=\"1.5\""));
            let (l, w) = (mul(a, 9.0), mul(n, 5.0));
            let block = [add(add(at, l), w), add(diff(at, l), w), diff(diff(at, l), w), diff(add(at, l), w)];
            svg.polygon(&block, &open);
            if j.kind == JointKind::Cylindrical {
                svg.circle(at, 2.5, &format!("fill=\"{INK}\""));
            }
        }
        JointKind::Fixed => svg.rect(add(at, (-4.5, -4.5)), 9.0, 9.0, &format!("fill=\"{INK}\"")),
        JointKind::Distance => {}
    }
    Some(at)
}

/// Points of a zigzag spring from `a` to `b` (pixels): straight leads of a fifth at each end
/// and eight strokes of `amplitude` across the line between.
fn zigzag(a: P, b: P, amplitude: f64) -> Vec<P> {
    let Some(d) = dir(diff(b, a)) else { return vec![a, b] };
    let n = normal(d);
    let length = super::len(diff(b, a));
    let (start, end) = (add(a, mul(d, 0.2 * length)), add(a, mul(d, 0.8 * length)));
    let mut pts = vec![a, start];
    let strokes = 8;
    for k in 0..strokes {
        // Tips at odd quarter-periods: t = (k + 1/2)/strokes along the coiled part.
        let t = (f64::from(k) + 0.5) / f64::from(strokes);
        let side = if k % 2 == 0 { amplitude } else { -amplitude };
        pts.push(add(add(start, mul(diff(end, start), t)), mul(n, side)));
    }
    pts.extend([end, b]);
    pts
}

/// A dashpot from `a` to `b` (pixels): rod, cup and piston plate in the middle.
fn dashpot(svg: &mut Svg, a: P, b: P, style: &str) {
    let Some(d) = dir(diff(b, a)) else { return };
    let n = normal(d);
    let mid = mul(add(a, b), 0.5);
    let (cup_bottom, cup_top) = (add(mid, mul(d, -6.0)), add(mid, mul(d, 6.0)));
    svg.line(a, cup_bottom, style);
    svg.polyline(
        &[
            add(cup_top, mul(n, 6.0)),
            add(cup_bottom, mul(n, 6.0)),
            add(cup_bottom, mul(n, -6.0)),
            add(cup_top, mul(n, -6.0)),
        ],
        style,
    );
    let plate = add(mid, mul(d, 1.0));
    svg.line(add(plate, mul(n, 4.0)), add(plate, mul(n, -4.0)), style);
    svg.line(plate, b, style);
}

/// Draws a force element; returns where its label goes.
pub(super) fn draw_force(svg: &mut Svg, shape: &ForceShape, fit: &Fit) -> Option<P> {
    let style = format!("stroke=\"{SPRING}\" stroke-width=\"1.8\" stroke-linejoin=\"round\"");
    match *shape {
        ForceShape::Spring { a, b, stiffness, damping } => {
            let (a, b) = (fit.px(a), fit.px(b));
            // Spring and damper side by side (offset across the line) when both act.
            let offset = if stiffness && damping {
                dir(diff(b, a)).map_or((0.0, 0.0), |d| mul(normal(d), 7.0))
            } else {
                (0.0, 0.0)
            };
            if stiffness {
                svg.polyline(&zigzag(add(a, offset), add(b, offset), 5.0), &style);
            }
            if damping {
                dashpot(svg, diff(a, offset), diff(b, offset), &style);
            }
            if stiffness && damping {
                svg.line(add(a, offset), diff(a, offset), &style);
                svg.line(add(b, offset), diff(b, offset), &style);
            }
            svg.circle(a, 2.5, &format!("fill=\"{SPRING}\""));
            svg.circle(b, 2.5, &format!("fill=\"{SPRING}\""));
            Some(mul(add(a, b), 0.5))
        }
        ForceShape::Actuator { a, b } => {
            let (a, b) = (fit.px(a), fit.px(b));
            let colour = "#2a7f2a";
            svg.line(a, b, &format!("stroke=\"{colour}\" stroke-width=\"2\" stroke-dasharray=\"6 3\""));
            // Pushes the ends apart: arrowheads at both ends, pointing outwards.
            if let Some(d) = dir(diff(b, a)) {
                svg.arrowhead(b, d, 9.0, colour);
                svg.arrowhead(a, mul(d, -1.0), 9.0, colour);
            }
            Some(mul(add(a, b), 0.5))
        }
        ForceShape::Rotational { at } => {
            let at = fit.px(at?);
            // A spiral spring: radius from 8 to 15 px over one and a half turns.
            let pts: Vec<P> = (0..=36)
                .map(|k| {
                    let t = f64::from(k) / 36.0;
                    let (angle, r) = (t * 3.0 * std::f64::consts::PI, 8.0 + 7.0 * t);
                    add(at, (r * angle.cos(), -r * angle.sin()))
                })
                .collect();
            svg.polyline(&pts, &style);
            Some(add(at, (8.0, -10.0)))
        }
        ForceShape::Load { at, direction } => {
            let at = fit.px(at?);
            match direction {
                Some(d) => {
                    // An arrow of 34 px ending at the point of application.
                    let d = dir((d.0, -d.1)).unwrap_or((1.0, 0.0));
                    let tail = add(at, mul(d, -34.0));
                    svg.line(tail, add(at, mul(d, -8.0)), &format!("stroke=\"{LOAD}\" stroke-width=\"2.2\""));
                    svg.arrowhead(at, d, 10.0, LOAD);
                    Some(tail)
                }
                None => {
                    // Along the line of sight: a circled cross.
                    svg.circle(at, 7.0, &format!("fill=\"none\" stroke=\"{LOAD}\" stroke-width=\"2\""));
                    svg.line(
                        add(at, (-5.0, -5.0)),
                        add(at, (5.0, 5.0)),
                        &format!("stroke=\"{LOAD}\" stroke-width=\"2\""),
                    );
                    svg.line(
                        add(at, (-5.0, 5.0)),
                        add(at, (5.0, -5.0)),
                        &format!("stroke=\"{LOAD}\" stroke-width=\"2\""),
                    );
                    Some(at)
                }
            }
        }
        ForceShape::Torque { at, sense } => {
            let at = fit.px(at?);
            // Three quarters of a circle of 16 px with an arrowhead; counter-clockwise on
            // screen for a torque along +n (towards the viewer).
            let r = 16.0;
            let (start, end) = (add(at, (r, 0.0)), add(at, (0.0, if sense >= 0.0 { r } else { -r })));
            svg.path(
                &[PathCommand::Move(start), PathCommand::Arc { radius: r, large: true, sweep: sense < 0.0, to: end }],
                &format!("fill=\"none\" stroke=\"{LOAD}\" stroke-width=\"2\""),
            );
            // Either way the arc ends moving right: at the bottom going counter-clockwise, at the top clockwise.
            svg.arrowhead(end, (1.0, 0.0), 8.0, LOAD);
            Some(add(at, (r, -r)))
        }
    }
}

/// A hydraulic cylinder from its base to its rod end (pixels): barrel over `barrel` of the
/// length, rod beyond it.
pub(super) fn draw_cylinder(svg: &mut Svg, base: P, rod_end: P, barrel: f64) {
    let Some(d) = dir(diff(rod_end, base)) else {
        svg.rect(add(base, (-6.0, -6.0)), 12.0, 12.0, "fill=\"#e6e6e6\" stroke=\"#444444\" stroke-width=\"1.5\"");
        return;
    };
    let n = mul(normal(d), 6.5);
    let end = add(base, mul(diff(rod_end, base), barrel));
    svg.line(end, rod_end, "stroke=\"#555555\" stroke-width=\"3.5\" stroke-linecap=\"round\"");
    svg.polygon(
        &[add(base, n), add(end, n), diff(end, n), diff(base, n)],
        "fill=\"#e6e6e6\" stroke=\"#444444\" stroke-width=\"1.5\"",
    );
    // The piston at the barrel's end.
    let piston = add(end, mul(d, -3.0));
    svg.line(add(piston, n), diff(piston, n), "stroke=\"#444444\" stroke-width=\"2\"");
    svg.circle(base, 3.0, "fill=\"#ffffff\" stroke=\"#444444\" stroke-width=\"1.5\"");
    svg.circle(rod_end, 3.0, "fill=\"#ffffff\" stroke=\"#444444\" stroke-width=\"1.5\"");
}
