//! SVG drawings generated from a description: the mechanism in its initial configuration
//! (`mechanism.rs`, on the plane `projection.rs` chooses) and the hydraulic circuit as a
//! schematic (`circuit.rs`). The documentation page shows them with labels; the FMU icon
//! (`crate::icon`) rasterizes the same drawing without text.
//!
//! The SVG is written as text by [`Svg`]: the drawings use seven element types, and one number
//! formatter ([`num`]) is the single place that keeps non-finite values out of the output, so
//! no odd description can put a NaN into a page or an icon. Every element of the model is one
//! `<g>` with a class (`body`, `joint`, `force`, `beam`, `cylinder`; `hydraulic` plus its kind
//! in the circuit) and an id, which the tests count.

pub mod circuit;
pub mod mechanism;
pub mod projection;
mod symbols;

pub use mechanism::view_of;

use mbfmu_model::format::Description;
use std::fmt::Write as _;

/// The mechanism for the documentation page (labelled, sized to its aspect ratio) and how it
/// was projected; `None` without a mechanism.
pub fn mechanism_figure(d: &Description) -> Option<(String, String)> {
    let scene = mechanism::Scene::new(d)?;
    let frame = page_frame(aspect(scene.points()));
    Some((scene.svg(&frame, &format!("{}: initial configuration", d.name)), scene.view.describe()))
}

/// The hydraulic circuit for the documentation page; `None` without one.
pub fn circuit_figure(d: &Description) -> Option<String> {
    let circuit = circuit::Circuit::new(d.hydraulics.as_ref())?;
    Some(circuit.svg(true, None, &format!("{}: hydraulic circuit", d.name)))
}

/// Size of a picture in pixels and what it shows.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub width: f64,
    pub height: f64,
    /// Free border inside which the drawing is scaled to fit.
    pub margin: f64,
    /// Names of bodies, joints and components (the icon leaves them out: it has no fonts).
    pub labels: bool,
}

impl Frame {
    /// The icon: square, no labels.
    pub const ICON: Frame = Frame { width: 256.0, height: 256.0, margin: 22.0, labels: false };
}

/// A coordinate for the SVG text: rounded to 0.01 px, and 0 for anything non-finite.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    let s = format!("{:.2}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" || s.is_empty() {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Text for element content and attribute values.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An XML id from a prefix and a model name: names are free text in a description, ids allow
/// letters, digits, '-' and '_'; a running number keeps sanitized names unique.
pub fn id(prefix: &str, index: usize, name: &str) -> String {
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' }).collect();
    format!("{prefix}{index}-{clean}")
}

pub type P = (f64, f64);

/// Screen points and vectors.
pub fn add(a: P, b: P) -> P {
    (a.0 + b.0, a.1 + b.1)
}
pub fn diff(a: P, b: P) -> P {
    (a.0 - b.0, a.1 - b.1)
}
pub fn mul(a: P, s: f64) -> P {
    (a.0 * s, a.1 * s)
}
pub fn len(a: P) -> f64 {
    a.0.hypot(a.1)
}
/// `a` scaled to unit length, or `None` when it is (nearly) zero or not finite.
pub fn dir(a: P) -> Option<P> {
    let l = len(a);
    (l.is_finite() && l > 1e-9).then(|| mul(a, 1.0 / l))
}
/// `a` turned by +90 deg on screen (y down): (x, y) -> (y, -x) is the left normal.
pub fn normal(a: P) -> P {
    (a.1, -a.0)
}

/// An SVG document being written.
pub struct Svg {
    out: String,
}

impl Svg {
    pub fn new(frame: &Frame, class: &str, title: &str) -> Svg {
        Svg::with_display(frame, None, class, title)
    }

    /// A drawing of the frame's size shown at `display` pixels (scaled uniformly, centred).
    pub fn with_display(frame: &Frame, display: Option<P>, class: &str, title: &str) -> Svg {
        let (w, h) = (num(frame.width), num(frame.height));
        let (dw, dh) = display.map_or((w.clone(), h.clone()), |(dw, dh)| (num(dw), num(dh)));
        let mut out = String::new();
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"{class}\" width=\"{dw}\" height=\"{dh}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\"><title>{}</title><rect class=\"background\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>",
            escape(title),
        );
        Svg { out }
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }

    /// Opens a group of one model element.
    pub fn open(&mut self, class: &str, id: &str, name: &str) {
        let _ = write!(self.out, "<g class=\"{class}\" id=\"{id}\" data-name=\"{}\">", escape(name));
    }

    pub fn close(&mut self) {
        self.out.push_str("</g>");
    }

    fn points(points: &[P]) -> String {
        points.iter().map(|p| format!("{},{}", num(p.0), num(p.1))).collect::<Vec<_>>().join(" ")
    }

    /// A polyline; `style` holds the presentation attributes (stroke, fill, widths).
    pub fn polyline(&mut self, points: &[P], style: &str) {
        let _ = write!(self.out, "<polyline points=\"{}\" fill=\"none\" {style}/>", Self::points(points));
    }

    pub fn polygon(&mut self, points: &[P], style: &str) {
        let _ = write!(self.out, "<polygon points=\"{}\" {style}/>", Self::points(points));
    }

    pub fn line(&mut self, a: P, b: P, style: &str) {
        self.polyline(&[a, b], style);
    }

    pub fn circle(&mut self, c: P, r: f64, style: &str) {
        let _ = write!(self.out, "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {style}/>", num(c.0), num(c.1), num(r));
    }

    pub fn rect(&mut self, corner: P, w: f64, h: f64, style: &str) {
        let _ = write!(
            self.out,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {style}/>",
            num(corner.0),
            num(corner.1),
            num(w),
            num(h)
        );
    }

    /// A path from absolute move/line/arc commands, numbers formatted here.
    pub fn path(&mut self, commands: &[PathCommand], style: &str) {
        let mut d = String::new();
        for c in commands {
            match *c {
                PathCommand::Move(p) => {
                    let _ = write!(d, "M{} {} ", num(p.0), num(p.1));
                }
                PathCommand::Line(p) => {
                    let _ = write!(d, "L{} {} ", num(p.0), num(p.1));
                }
                PathCommand::Arc { radius, large, sweep, to } => {
                    let _ = write!(
                        d,
                        "A{r} {r} 0 {} {} {} {} ",
                        u8::from(large),
                        u8::from(sweep),
                        num(to.0),
                        num(to.1),
                        r = num(radius)
                    );
                }
            }
        }
        let _ = write!(self.out, "<path d=\"{}\" {style}/>", d.trim_end());
    }

    /// A label; nothing when the frame has no labels.
    pub fn text(&mut self, frame: &Frame, at: P, anchor: &str, text: &str) {
        // A label that would run past the right edge (about 6.5 px per character at 11 px)
        // goes to the left of its point instead.
        let (at, anchor) = if anchor == "start" && at.0 + 6.5 * text.chars().count() as f64 > frame.width - 2.0 {
            ((at.0 - 14.0, at.1), "end")
        } else {
            (at, anchor)
        };
        if frame.labels {
            let _ = write!(
                self.out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" fill=\"#222222\">{}</text>",
                num(at.0),
                num(at.1),
                escape(text)
            );
        }
    }

    /// A filled arrowhead with its tip at `tip`, pointing along `direction` (screen).
    pub fn arrowhead(&mut self, tip: P, direction: P, size: f64, colour: &str) {
        if let Some(d) = dir(direction) {
            let back = add(tip, mul(d, -size));
            let side = mul(normal(d), size * 0.45);
            self.polygon(&[tip, add(back, side), diff(back, side)], &format!("fill=\"{colour}\""));
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum PathCommand {
    Move(P),
    Line(P),
    Arc { radius: f64, large: bool, sweep: bool, to: P },
}

/// The affine map from model-plane coordinates (x right, y up, any unit) to the pixels of a
/// frame: uniform scale to fit the bounding box inside the margins, centred, y flipped.
#[derive(Clone, Copy, Debug)]
pub struct Fit {
    scale: f64,
    min: P,
    max_y: f64,
    offset: P,
}

impl Fit {
    pub fn new(points: impl IntoIterator<Item = P>, frame: &Frame) -> Fit {
        let (mut lo, mut hi) = ((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY));
        for p in points.into_iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
            lo = (lo.0.min(p.0), lo.1.min(p.1));
            hi = (hi.0.max(p.0), hi.1.max(p.1));
        }
        if !(lo.0 <= hi.0 && lo.1 <= hi.1) {
            (lo, hi) = ((0.0, 0.0), (0.0, 0.0)); // nothing to fit
        }
        let (w, h) = (hi.0 - lo.0, hi.1 - lo.1);
        let room = (frame.width - 2.0 * frame.margin, frame.height - 2.0 * frame.margin);
        // Largest scale that fits both directions; a zero extent does not limit it, and a
        // single point (both zero) is drawn at 1 px per unit in the middle.
        let limit = |room: f64, extent: f64| {
            if extent > 1e-12 * (w + h) && extent > 0.0 {
                room / extent
            } else {
                f64::INFINITY
            }
        };
        let mut scale = limit(room.0, w).min(limit(room.1, h));
        if !scale.is_finite() || scale <= 0.0 {
            scale = 1.0;
        }
        // Centre the scaled box in the frame.
        let offset = ((frame.width - w * scale) / 2.0, (frame.height - h * scale) / 2.0);
        Fit { scale, min: lo, max_y: hi.1, offset }
    }

    /// Pixel position of a model-plane point.
    pub fn px(&self, p: P) -> P {
        (self.offset.0 + (p.0 - self.min.0) * self.scale, self.offset.1 + (self.max_y - p.1) * self.scale)
    }
}

/// A frame for the documentation page whose height follows the drawing's aspect ratio
/// (`aspect` = height / width of its bounding box), between a strip and a near square.
pub fn page_frame(aspect: f64) -> Frame {
    let (width, margin) = (640.0, 40.0);
    let height =
        if aspect.is_finite() { (aspect * (width - 2.0 * margin) + 2.0 * margin).clamp(200.0, 520.0) } else { 360.0 };
    Frame { width, height, margin, labels: true }
}

/// Height over width of the bounding box of some points (infinite for a vertical line, NaN
/// for a point).
pub fn aspect(points: impl IntoIterator<Item = P>) -> f64 {
    let (mut lo, mut hi) = ((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY));
    for p in points {
        lo = (lo.0.min(p.0), lo.1.min(p.1));
        hi = (hi.0.max(p.0), hi.1.max(p.1));
    }
    (hi.1 - lo.1) / (hi.0 - lo.0)
}

/// Convex hull of screen points (Andrew's monotone chain), counter-clockwise; collinear and
/// repeated points collapse, so a bar gives its two ends and a point gives one.
pub fn convex_hull(mut points: Vec<P>) -> Vec<P> {
    points.retain(|p| p.0.is_finite() && p.1.is_finite());
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    points.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-6 && (a.1 - b.1).abs() < 1e-6);
    if points.len() < 3 {
        return points;
    }
    // z-component of (a - o) x (b - o): positive for a left turn o -> a -> b.
    let turn = |o: P, a: P, b: P| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut hull: Vec<P> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &P>> =
            if pass == 0 { Box::new(points.iter()) } else { Box::new(points.iter().rev()) };
        for &p in iter {
            while hull.len() >= start + 2 && turn(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 1e-9 {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop(); // the last point of each chain starts the other
    }
    hull
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_finite_and_short() {
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(f64::INFINITY), "0");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(3.0), "3");
    }

    #[test]
    fn hulls_of_bars_points_and_plates() {
        assert_eq!(convex_hull(vec![(0.0, 0.0), (1.0, 1.0), (2.0, 2.0)]), vec![(0.0, 0.0), (2.0, 2.0)]);
        assert_eq!(convex_hull(vec![(1.0, 1.0), (1.0, 1.0)]), vec![(1.0, 1.0)]);
        let square = convex_hull(vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.5, 0.5)]);
        assert_eq!(square.len(), 4);
    }

    #[test]
    fn fitting_nothing_or_one_point_stays_finite() {
        for points in [vec![], vec![(3.0, 4.0)], vec![(f64::NAN, 1.0)], vec![(0.0, 0.0), (0.0, 5.0)]] {
            let fit = Fit::new(points.clone(), &Frame::ICON);
            for p in points.iter().chain([&(0.0, 0.0)]) {
                let q = fit.px(*p);
                assert!(q.0.is_finite() || p.0.is_nan(), "{points:?} -> {q:?}");
            }
        }
        let fit = Fit::new([(0.0, 0.0), (0.0, 5.0)], &Frame::ICON);
        assert_eq!(fit.px((0.0, 0.0)), (128.0, 234.0));
    }
}
