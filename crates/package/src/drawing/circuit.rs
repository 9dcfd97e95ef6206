//! The hydraulic circuit as an ISO 1219-like schematic, laid out from the description: rows
//! from the bottom up (sources, directional valves, the volumes their ports feed, throttles
//! and the volumes behind them, cylinders on top), each component placed over the mean
//! position of the components below it that it connects to, and orthogonal lines between
//! ports. Symbol sizes are pixels; the icon scales the whole schematic down. The boundary of
//! a circuit split between FMUs is drawn as connection points: a source whose pressure is an
//! input, and the input flow that feeds a volume.

use super::{add, Frame, PathCommand, Svg, P};
use mbfmu_model::format::{Hydraulics, Valve};
use std::collections::HashMap;

const LINE: &str = "#1f4e79";
const INK: &str = "#222222";
/// Vertical distance between rows [px].
const ROW: f64 = 66.0;
/// Free space between neighbours in a row [px].
const GAP: f64 = 30.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Pump,
    Tank,
    Volume,
    Directional,
    Throttle,
    Cylinder,
    /// A node whose pressure comes from another FMU (a source with `pressure_input`).
    Port,
    /// A flow from another FMU into a volume (`inflow_input`).
    Inflow,
}

impl Kind {
    /// Width and height of the symbol [px] (labels excluded).
    fn size(self) -> P {
        match self {
            Kind::Pump => (32.0, 32.0),
            Kind::Tank => (34.0, 18.0),
            Kind::Volume => (56.0, 20.0),
            Kind::Directional => (112.0, 30.0),
            Kind::Throttle => (16.0, 28.0),
            Kind::Cylinder => (140.0, 24.0),
            Kind::Port | Kind::Inflow => (20.0, 20.0),
        }
    }
    fn class(self) -> &'static str {
        match self {
            Kind::Pump | Kind::Tank | Kind::Port => "hydraulic source",
            Kind::Inflow => "hydraulic feed",
            Kind::Volume => "hydraulic volume",
            Kind::Directional | Kind::Throttle => "hydraulic valve",
            Kind::Cylinder => "hydraulic cylinder",
        }
    }
}

struct Item {
    kind: Kind,
    name: String,
    level: i64,
    x: f64,
}

/// A connection from a port of one item to another item: (item, port offset from its centre).
struct Line {
    from: (usize, P),
    to: usize,
}

/// The laid-out circuit in pixels (before centring in a frame).
pub struct Circuit {
    items: Vec<Item>,
    lines: Vec<Line>,
    top: i64,
}

impl Circuit {
    /// The layout of a circuit; `None` for a model without one.
    pub fn new(h: Option<&Hydraulics>) -> Option<Circuit> {
        let h = h?;
        let mut items = Vec::new();
        let mut nodes: HashMap<&str, usize> = HashMap::new();
        // A source the description names as a valve's tank is drawn as a tank; any other
        // constant-pressure node as a pressure supply (pump).
        let tanks: Vec<&str> = h
            .valves
            .iter()
            .filter_map(|v| if let Valve::Directional { tank, .. } = v { Some(tank.as_str()) } else { None })
            .collect();
        for s in &h.sources {
            let kind = if s.pressure_input.is_some() {
                Kind::Port
            } else if tanks.contains(&s.name.as_str()) {
                Kind::Tank
            } else {
                Kind::Pump
            };
            nodes.insert(&s.name, items.len());
            // A port sits where a volume at a valve's port would (placed with the valves).
            let level = if kind == Kind::Port { -1 } else { 0 };
            items.push(Item { kind, name: s.name.clone(), level, x: f64::NAN });
        }
        for v in &h.volumes {
            nodes.entry(&v.name).or_insert(items.len());
            items.push(Item { kind: Kind::Volume, name: v.name.clone(), level: -1, x: f64::NAN });
        }
        // Inflows from other FMUs, in the row of the sources, each with a line to its volume.
        let mut inflow_lines = Vec::new();
        for v in &h.volumes {
            if let Some(input) = &v.inflow_input {
                inflow_lines.push(Line { from: (items.len(), (0.0, 0.0)), to: nodes[v.name.as_str()] });
                items.push(Item { kind: Kind::Inflow, name: input.clone(), level: 0, x: f64::NAN });
            }
        }
        let first_valve = items.len();
        for v in &h.valves {
            let kind = if matches!(v, Valve::Directional { .. }) { Kind::Directional } else { Kind::Throttle };
            items.push(Item { kind, name: v.name().to_string(), level: -1, x: f64::NAN });
        }
        let first_cylinder = items.len();
        for c in &h.cylinders {
            items.push(Item { kind: Kind::Cylinder, name: c.name.clone(), level: -1, x: f64::NAN });
        }

        // Ports, as offsets from the symbol's centre (pixels, y down).
        let (p, t, a, b) = ((-8.0, 15.0), (8.0, 15.0), (-8.0, -15.0), (8.0, -15.0));
        let (piston, rod) = ((-50.0, 12.0), (10.0, 12.0));
        let mut lines = inflow_lines;
        for (k, v) in h.valves.iter().enumerate() {
            let me = first_valve + k;
            let ends: Vec<(&str, P)> = match v {
                Valve::Directional { pump, tank, port_a, port_b, .. } => {
                    vec![(pump.as_str(), p), (tank.as_str(), t), (port_a.as_str(), a), (port_b.as_str(), b)]
                }
                // Which end of a two-port valve a line leaves from is decided when drawing.
                _ => v.nodes().into_iter().map(|n| (n, (0.0, 0.0))).collect(),
            };
            for (node, offset) in ends {
                if let Some(&n) = nodes.get(node) {
                    lines.push(Line { from: (me, offset), to: n });
                }
            }
        }
        for (k, c) in h.cylinders.iter().enumerate() {
            for (node, offset) in [(&c.piston_side, piston), (&c.rod_side, rod)] {
                if let Some(&n) = nodes.get(node.as_str()) {
                    lines.push(Line { from: (first_cylinder + k, offset), to: n });
                }
            }
        }

        // Rows: sources 0; a directional valve one above its supply and its ports one above
        // it; a throttle between its ends and the far end one row further; repeated until
        // nothing changes (at most one pass per component).
        for _ in 0..=items.len() {
            let mut changed = false;
            for (k, v) in h.valves.iter().enumerate() {
                let me = first_valve + k;
                let level = |name: &str, items: &[Item]| nodes.get(name).map(|&n| items[n].level).filter(|l| *l >= 0);
                match v {
                    Valve::Directional { pump, tank, port_a, port_b, .. } => {
                        let supply = level(pump, &items).into_iter().chain(level(tank, &items)).max().unwrap_or(0);
                        if items[me].level != supply + 1 {
                            items[me].level = supply + 1;
                            changed = true;
                        }
                        for port in [port_a, port_b] {
                            if let Some(&n) = nodes.get(port.as_str()) {
                                if items[n].level < 0 {
                                    items[n].level = supply + 2;
                                    changed = true;
                                }
                            }
                        }
                    }
                    _ => {
                        let ends = v.nodes();
                        let (from, to) = (ends[0], ends[1]);
                        let (lf, lt) = (level(from, &items), level(to, &items));
                        for (known, other) in [(lf, to), (lt, from)] {
                            if let (Some(l), Some(&n)) = (known, nodes.get(other)) {
                                if items[n].level < 0 {
                                    items[n].level = l + 2;
                                    changed = true;
                                }
                            }
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        for item in items.iter_mut().filter(|i| i.level < 0) {
            // Not reachable from a source: volumes above the sources' row, ports in it.
            item.level = if item.kind == Kind::Volume { 2 } else { 0 };
        }
        for (k, v) in h.valves.iter().enumerate() {
            if let Valve::Throttle { from, to, .. } = v {
                let level = |name: &str| nodes.get(name).map_or(0, |&n| items[n].level);
                let (l1, l2) = (level(from), level(to));
                // Between its ends when they are rows apart, else above both.
                items[first_valve + k].level = if (l1 - l2).abs() >= 2 { (l1 + l2) / 2 } else { l1.max(l2) + 1 };
            }
        }
        let top = items.iter().map(|i| i.level).max().unwrap_or(0) + 1;
        for item in &mut items[first_cylinder..] {
            item.level = top;
        }

        let mut circuit = Circuit { items, lines, top };
        circuit.place();
        Some(circuit)
    }

    /// Horizontal positions, row by row from the bottom: each item wants to be over the mean
    /// of the (port) positions of the items below it that it connects to; a row keeps that
    /// order and pushes neighbours apart to their symbol widths plus a gap.
    fn place(&mut self) {
        for level in 0..=self.top {
            let mut row: Vec<(usize, f64)> = Vec::new();
            for i in (0..self.items.len()).filter(|&i| self.items[i].level == level) {
                let mut targets = Vec::new();
                for l in &self.lines {
                    let (a, offset) = l.from;
                    let (me_port, other, other_port) = if a == i {
                        (offset.0, l.to, 0.0)
                    } else if l.to == i {
                        (0.0, a, offset.0)
                    } else {
                        continue;
                    };
                    let o = &self.items[other];
                    if o.level < level && o.x.is_finite() {
                        targets.push(o.x + other_port - me_port);
                    }
                }
                let target =
                    if targets.is_empty() { f64::NAN } else { targets.iter().sum::<f64>() / targets.len() as f64 };
                row.push((i, target));
            }
            // Items with a target in its order, the others after them in description order.
            row.sort_by(|x, y| match (x.1.is_finite(), y.1.is_finite()) {
                (true, true) => x.1.total_cmp(&y.1),
                (a, b) => b.cmp(&a),
            });
            let mut previous: Option<(f64, f64)> = None; // (x, half width)
            for (i, target) in row {
                let item = &self.items[i];
                // Connection points keep room for their labels beside them.
                let label = match item.kind {
                    Kind::Port | Kind::Inflow => 7.0 * item.name.chars().count() as f64,
                    _ => 0.0,
                };
                let half = item.kind.size().0 / 2.0 + label;
                let min = previous.map_or(f64::NEG_INFINITY, |(x, h)| x + h + GAP + half);
                let x = if target.is_finite() {
                    target.max(min)
                } else if min.is_finite() {
                    min
                } else {
                    0.0
                };
                self.items[i].x = x;
                previous = Some((x, half));
            }
        }
    }

    /// Centre of an item in pixels before centring (row 0 at y = 0, rows upwards).
    fn centre(&self, i: usize) -> P {
        (self.items[i].x, -(self.items[i].level as f64) * ROW)
    }

    /// Bounding box of the symbols, with room for the labels beside them.
    fn bounds(&self) -> (P, P) {
        let (mut lo, mut hi) = ((0.0f64, 0.0f64), (0.0f64, 0.0f64));
        for (i, item) in self.items.iter().enumerate() {
            let (c, (w, h)) = (self.centre(i), item.kind.size());
            let label = 8.0 * item.name.chars().count() as f64 + 12.0;
            lo = (lo.0.min(c.0 - w / 2.0 - label), lo.1.min(c.1 - h / 2.0 - 18.0));
            hi = (hi.0.max(c.0 + w / 2.0 + label), hi.1.max(c.1 + h / 2.0 + 8.0));
        }
        (lo, hi)
    }

    /// Size of the schematic at its natural scale \[px\].
    pub fn natural_frame(&self, labels: bool) -> Frame {
        let (lo, hi) = self.bounds();
        Frame { width: hi.0 - lo.0 + 24.0, height: hi.1 - lo.1 + 24.0, margin: 12.0, labels }
    }

    /// Counts of the drawn groups: components and lines.
    pub fn counts(&self) -> (usize, usize) {
        (self.items.len(), self.lines.len())
    }

    /// The SVG: the schematic at its natural size, shown in `display` pixels (the icon) or at
    /// its own size.
    pub fn svg(&self, labels: bool, display: Option<(f64, f64)>, title: &str) -> String {
        let frame = self.natural_frame(labels);
        let (lo, _) = self.bounds();
        let shift = (frame.margin - lo.0, frame.margin - lo.1);
        let at = |i: usize| add(self.centre(i), shift);
        let mut svg = Svg::with_display(&frame, display, "circuit", title);
        svg.open("lines", "lines", "");
        for l in &self.lines {
            let (a, offset) = l.from;
            let (ca, cb) = (at(a), at(l.to));
            let start = add(ca, self.port(a, offset, ca, cb));
            let end = add(cb, self.port(l.to, (0.0, 0.0), cb, start));
            // Orthogonal route: from the upper port straight down half a row (or half the
            // distance), across, and down to the lower port.
            let (upper, lower) = if start.1 <= end.1 { (start, end) } else { (end, start) };
            let bend = upper.1 + (ROW / 2.0).min((lower.1 - upper.1) / 2.0);
            svg.polyline(
                &[upper, (upper.0, bend), (lower.0, bend), lower],
                &format!("class=\"line\" stroke=\"{LINE}\" stroke-width=\"1.6\""),
            );
        }
        svg.close();
        for (i, item) in self.items.iter().enumerate() {
            svg.open(item.kind.class(), &super::id("hydraulic", i, &item.name), &item.name);
            symbol(&mut svg, &frame, item.kind, at(i), &item.name);
            svg.close();
        }
        svg.finish()
    }

    /// Where a line to `towards` meets item `i` centred at `c`: the given port, or for volumes
    /// and throttles the top or the bottom of the symbol, whichever faces the other end; sources
    /// take their lines on top (the circuit is above them).
    fn port(&self, i: usize, offset: P, c: P, towards: P) -> P {
        let kind = self.items[i].kind;
        if offset != (0.0, 0.0) || matches!(kind, Kind::Directional | Kind::Cylinder) {
            return offset;
        }
        let half = kind.size().1 / 2.0;
        let below = towards.1 > c.1 && matches!(kind, Kind::Volume | Kind::Throttle | Kind::Port);
        (0.0, if below { half } else { -half })
    }
}

/// The symbol of one component, centred at `c`.
fn symbol(svg: &mut Svg, frame: &Frame, kind: Kind, c: P, name: &str) {
    let ink = format!("stroke=\"{INK}\" stroke-width=\"1.6\"");
    let body = format!("fill=\"#ffffff\" {ink}");
    let (x, y) = c;
    match kind {
        Kind::Pump => {
            // Circle with a filled triangle pointing at the outlet (ISO 1219 pump/supply).
            svg.circle(c, 16.0, &body);
            svg.polygon(&[(x, y - 16.0), (x - 7.0, y - 4.0), (x + 7.0, y - 4.0)], &format!("fill=\"{INK}\""));
            svg.text(frame, (x - 22.0, y + 4.0), "end", name);
        }
        Kind::Tank => {
            // Open-topped reservoir with the return line reaching below the surface.
            svg.polyline(&[(x - 17.0, y - 9.0), (x - 17.0, y + 9.0), (x + 17.0, y + 9.0), (x + 17.0, y - 9.0)], &ink);
            svg.line((x, y - 9.0), (x, y + 3.0), &format!("stroke=\"{LINE}\" stroke-width=\"1.6\""));
            svg.text(frame, (x + 22.0, y + 4.0), "start", name);
        }
        Kind::Volume => {
            svg.rect(
                (x - 28.0, y - 10.0),
                56.0,
                20.0,
                &format!("rx=\"10\" fill=\"#eaf2fa\" stroke=\"{LINE}\" stroke-width=\"1.6\""),
            );
            svg.text(frame, (x, y + 4.0), "middle", name);
        }
        Kind::Throttle => {
            // Fixed restrictor: the line pinched between two arcs.
            svg.line((x, y - 14.0), (x, y + 14.0), &format!("stroke=\"{LINE}\" stroke-width=\"1.6\""));
            // Each arc bulges towards the line: sweep 1 (clockwise on screen) bends the left one right.
            for (side, sweep) in [(-7.0, true), (7.0, false)] {
                let arc = PathCommand::Arc { radius: 14.0, large: false, sweep, to: (x + side, y + 10.0) };
                svg.path(&[PathCommand::Move((x + side, y - 10.0)), arc], &format!("fill=\"none\" {ink}"));
            }
            svg.text(frame, (x + 12.0, y + 4.0), "start", name);
        }
        Kind::Directional => {
            // 4/3 valve: three positions, closed centre; left U > 0 (P-A, B-T), right U < 0
            // (P-B, A-T); solenoids at both ends.
            for k in -1..=1 {
                svg.rect((x - 15.0 + 30.0 * f64::from(k), y - 15.0), 30.0, 30.0, &body);
            }
            let thin = format!("stroke=\"{INK}\" stroke-width=\"1.3\"");
            for (px, top) in [(-8.0, false), (8.0, false), (-8.0, true), (8.0, true)] {
                let (edge, stub) = if top { (y - 15.0, y - 7.0) } else { (y + 15.0, y + 7.0) };
                svg.line((x + px, edge), (x + px, stub), &thin);
                svg.line((x + px - 3.0, stub), (x + px + 3.0, stub), &thin);
            }
            let arrow = |svg: &mut Svg, from: P, to: P| {
                svg.line(from, to, &thin);
                svg.arrowhead(to, (to.0 - from.0, to.1 - from.1), 6.0, INK);
            };
            let l = x - 30.0;
            arrow(svg, (l - 8.0, y + 15.0), (l - 8.0, y - 15.0));
            arrow(svg, (l + 8.0, y - 15.0), (l + 8.0, y + 15.0));
            let r = x + 30.0;
            arrow(svg, (r - 8.0, y + 15.0), (r + 8.0, y - 15.0));
            arrow(svg, (r - 8.0, y - 15.0), (r + 8.0, y + 15.0));
            for side in [-1.0, 1.0] {
                let sx = x + side * 50.0;
                svg.rect((sx - 5.0, y - 8.0), 10.0, 16.0, &body);
                svg.line((sx - 5.0, y + 8.0), (sx + 5.0, y - 8.0), &thin);
            }
            svg.text(frame, (x + 60.0, y + 4.0), "start", name);
        }
        Kind::Cylinder => {
            // Double-acting cylinder: barrel, piston, rod; ports at the two chambers.
            svg.rect((x - 60.0, y - 12.0), 90.0, 24.0, &body);
            svg.line((x - 25.0, y - 12.0), (x - 25.0, y + 12.0), &format!("stroke=\"{INK}\" stroke-width=\"3\""));
            svg.line((x - 25.0, y), (x + 70.0, y), &format!("stroke=\"{INK}\" stroke-width=\"4\""));
            svg.text(frame, (x, y - 18.0), "middle", name);
        }
        Kind::Port => {
            // Connection point to another FMU's volume: a ring around the node.
            svg.circle(c, 10.0, &body);
            svg.circle(c, 4.0, &format!("fill=\"{LINE}\""));
            svg.text(frame, (x - 16.0, y + 4.0), "end", name);
        }
        Kind::Inflow => {
            // A flow from another FMU: a ring with an arrow towards the volume above.
            svg.circle(c, 10.0, &body);
            let thin = format!("stroke=\"{INK}\" stroke-width=\"1.3\"");
            svg.line((x, y + 6.0), (x, y - 2.0), &thin);
            svg.arrowhead((x, y - 7.0), (0.0, -1.0), 6.0, INK);
            svg.text(frame, (x + 16.0, y + 4.0), "start", name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_or_dangling_circuit_draws_without_panicking() {
        let h: Hydraulics = serde_json::from_str(
            r#"{"oil":{"bulk_modulus":1e9,"density":850},"volumes":[],"valves":[{"type":"throttle","name":"t","from":"a","to":"b","discharge_coefficient":0.7,"diameter":0.001}]}"#,
        )
        .unwrap();
        let c = Circuit::new(Some(&h)).unwrap();
        assert_eq!(c.counts(), (1, 0));
        let svg = c.svg(true, None, "t");
        assert!(!svg.contains("NaN") && svg.contains("hydraulic valve"), "{svg}");
        assert!(Circuit::new(None).is_none());
    }
}
