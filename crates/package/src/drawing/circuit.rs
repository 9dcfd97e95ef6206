//! The hydraulic circuit as an ISO 1219-like schematic, laid out from the description: rows
//! from the bottom up (sources, directional valves, the volumes their ports feed, throttles
//! and the volumes behind them, cylinders on top), each component placed over the mean
//! position of the components below it that it connects to, and orthogonal lines between
//! ports. Symbol sizes are pixels; the icon scales the whole schematic down. The boundary of
//! a circuit split between FMUs is drawn as connection points: a source whose pressure is an
//! input, and the input flow that feeds a volume.
//!
//! Pumps driven by a shaft sit in the sources' row; relief, check and counterbalance valves,
//! long lines and hydraulic motors are placed like throttles; an accumulator stands one row
//! above its node. The pressure valves are drawn with their inlet on the
//! side their inlet node is on, so the arrow and the seat show the direction they act in, and
//! their outlet on the other side, the line going round the symbol when it has to.

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
    /// A throttle; `cushion`: an end cushion closes it with a cylinder's stroke.
    Throttle {
        cushion: bool,
    },
    Cylinder,
    /// A node whose pressure comes from another FMU (a source with `pressure_input`).
    Port,
    /// A flow from another FMU into a volume (`inflow_input`).
    Inflow,
    /// A pump driven by a shaft (`pumps`); variable with a pressure compensator.
    ShaftPump {
        variable: bool,
    },
    Relief,
    Check,
    Counterbalance,
    /// A long line (`lines`): a hose between two nodes.
    Hose,
    /// A hydraulic motor (`motors`) between its ports A and B.
    Motor,
    /// A gas-loaded accumulator (`accumulators`) on its node.
    Accumulator,
}

impl Kind {
    /// Width and height of the symbol [px] (labels excluded).
    fn size(self) -> P {
        match self {
            Kind::Pump => (32.0, 32.0),
            Kind::Tank => (34.0, 18.0),
            Kind::Volume => (56.0, 20.0),
            Kind::Directional => (112.0, 30.0),
            Kind::Throttle { .. } => (16.0, 28.0),
            Kind::Cylinder => (140.0, 24.0),
            Kind::Port | Kind::Inflow => (20.0, 20.0),
            // Widths include the shaft, springs, pilots and bypass beside the envelope.
            Kind::ShaftPump { .. } => (60.0, 32.0),
            Kind::Relief => (56.0, 40.0),
            Kind::Check => (20.0, 32.0),
            Kind::Counterbalance => (84.0, 44.0),
            Kind::Hose => (16.0, 44.0),
            Kind::Motor => (60.0, 44.0),
            Kind::Accumulator => (22.0, 48.0),
        }
    }
    fn class(self) -> &'static str {
        match self {
            Kind::Pump | Kind::Tank | Kind::Port => "hydraulic source",
            Kind::Inflow => "hydraulic feed",
            Kind::Volume => "hydraulic volume",
            Kind::Directional | Kind::Throttle { .. } | Kind::Relief | Kind::Check | Kind::Counterbalance => {
                "hydraulic valve"
            }
            Kind::Cylinder => "hydraulic cylinder",
            Kind::ShaftPump { .. } => "hydraulic pump",
            Kind::Hose => "hydraulic line",
            Kind::Motor => "hydraulic motor",
            Kind::Accumulator => "hydraulic accumulator",
        }
    }
}

struct Item {
    kind: Kind,
    name: String,
    level: i64,
    x: f64,
    /// The item whose side orients the symbol: the node a pressure valve or a line takes its
    /// flow from (`from`, or the load of a counterbalance valve), a pump's suction node, the
    /// pump a tank feeds.
    faces: Option<usize>,
}

/// A connection from a port of one item to another item: (item, port offset from its centre).
struct Line {
    from: (usize, P),
    to: usize,
    /// A pilot (control) line, drawn dashed.
    pilot: bool,
}

/// A shaft pump's ports: the outlet on top (where its triangle points), the inlet below or,
/// towards a node in its own row, at the side.
const PUMP_OUTLET: P = (0.0, -16.0);
const PUMP_INLET: P = (0.0, 16.0);
/// The pilot port of a counterbalance valve: left of its envelope.
const PILOT: P = (-22.0, 0.0);
/// An accumulator's port: below its shell.
const ACCUMULATOR_PORT: P = (0.0, 24.0);

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
        // A source the description names as a valve's tank, a pump's inlet or where a relief
        // valve relieves to is drawn as a tank; any other constant-pressure node as a pressure
        // supply (pump).
        let tanks: Vec<&str> = h
            .valves
            .iter()
            .filter_map(|v| match v {
                Valve::Directional { tank, .. } => Some(tank.as_str()),
                Valve::Relief { to, .. } => Some(to.as_str()),
                _ => None,
            })
            .chain(h.pumps.iter().map(|p| p.inlet.as_str()))
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
            items.push(Item { kind, name: s.name.clone(), level, x: f64::NAN, faces: None });
        }
        for v in &h.volumes {
            nodes.entry(&v.name).or_insert(items.len());
            items.push(Item { kind: Kind::Volume, name: v.name.clone(), level: -1, x: f64::NAN, faces: None });
        }
        // Inflows from other FMUs, in the row of the sources, each with a line to its volume.
        let mut inflow_lines = Vec::new();
        for v in &h.volumes {
            if let Some(input) = &v.inflow_input {
                inflow_lines.push(Line { from: (items.len(), (0.0, 0.0)), to: nodes[v.name.as_str()], pilot: false });
                items.push(Item { kind: Kind::Inflow, name: input.clone(), level: 0, x: f64::NAN, faces: None });
            }
        }
        let first_pump = items.len();
        for p in &h.pumps {
            let kind = Kind::ShaftPump { variable: p.compensator.is_some() };
            let inlet = nodes.get(p.inlet.as_str()).copied();
            if let Some(n) = inlet.filter(|&n| items[n].kind == Kind::Tank && items[n].faces.is_none()) {
                items[n].faces = Some(items.len());
            }
            items.push(Item { kind, name: p.name.clone(), level: 0, x: f64::NAN, faces: inlet });
        }
        let first_valve = items.len();
        for v in &h.valves {
            let (kind, inlet) = match v {
                Valve::Directional { .. } => (Kind::Directional, None),
                Valve::Throttle { cushion, .. } => (Kind::Throttle { cushion: cushion.is_some() }, None),
                Valve::Relief { from, .. } => (Kind::Relief, Some(from)),
                Valve::Check { from, .. } => (Kind::Check, Some(from)),
                Valve::Counterbalance { load, .. } => (Kind::Counterbalance, Some(load)),
            };
            let inlet = inlet.and_then(|n| nodes.get(n.as_str()).copied());
            items.push(Item { kind, name: v.name().to_string(), level: -1, x: f64::NAN, faces: inlet });
        }
        let first_line = items.len();
        for l in &h.lines {
            let from = nodes.get(l.from.as_str()).copied();
            items.push(Item { kind: Kind::Hose, name: l.name.clone(), level: -1, x: f64::NAN, faces: from });
        }
        let first_motor = items.len();
        for m in &h.motors {
            let inlet = nodes.get(m.port_a.as_str()).copied();
            items.push(Item { kind: Kind::Motor, name: m.name.clone(), level: -1, x: f64::NAN, faces: inlet });
        }
        let first_accumulator = items.len();
        for a in &h.accumulators {
            items.push(Item { kind: Kind::Accumulator, name: a.name.clone(), level: -1, x: f64::NAN, faces: None });
        }
        let first_cylinder = items.len();
        for c in &h.cylinders {
            items.push(Item { kind: Kind::Cylinder, name: c.name.clone(), level: -1, x: f64::NAN, faces: None });
        }

        // Ports, as offsets from the symbol's centre (pixels, y down).
        let (p, t, a, b) = ((-8.0, 15.0), (8.0, 15.0), (-8.0, -15.0), (8.0, -15.0));
        let (piston, rod) = ((-50.0, 12.0), (10.0, 12.0));
        let mut lines = inflow_lines;
        for (k, pump) in h.pumps.iter().enumerate() {
            for (node, offset) in [(&pump.outlet, PUMP_OUTLET), (&pump.inlet, PUMP_INLET)] {
                if let Some(&n) = nodes.get(node.as_str()) {
                    lines.push(Line { from: (first_pump + k, offset), to: n, pilot: false });
                }
            }
        }
        for (k, v) in h.valves.iter().enumerate() {
            let me = first_valve + k;
            let ends: Vec<(&str, P, bool)> = match v {
                Valve::Directional { pump, tank, port_a, port_b, .. } => vec![
                    (pump.as_str(), p, false),
                    (tank.as_str(), t, false),
                    (port_a.as_str(), a, false),
                    (port_b.as_str(), b, false),
                ],
                Valve::Counterbalance { load, back, pilot, .. } => {
                    vec![
                        (load.as_str(), (0.0, 0.0), false),
                        (back.as_str(), (0.0, 0.0), false),
                        (pilot.as_str(), PILOT, true),
                    ]
                }
                // Which end of a two-port valve a line leaves from is decided when drawing.
                _ => v.nodes().into_iter().map(|n| (n, (0.0, 0.0), false)).collect(),
            };
            for (node, offset, pilot) in ends {
                if let Some(&n) = nodes.get(node) {
                    lines.push(Line { from: (me, offset), to: n, pilot });
                }
            }
        }
        for (k, l) in h.lines.iter().enumerate() {
            for node in [&l.from, &l.to] {
                if let Some(&n) = nodes.get(node.as_str()) {
                    lines.push(Line { from: (first_line + k, (0.0, 0.0)), to: n, pilot: false });
                }
            }
        }
        for (k, m) in h.motors.iter().enumerate() {
            for node in [&m.port_a, &m.port_b] {
                if let Some(&n) = nodes.get(node.as_str()) {
                    lines.push(Line { from: (first_motor + k, (0.0, 0.0)), to: n, pilot: false });
                }
            }
        }
        for (k, a) in h.accumulators.iter().enumerate() {
            if let Some(&n) = nodes.get(a.node.as_str()) {
                lines.push(Line { from: (first_accumulator + k, ACCUMULATOR_PORT), to: n, pilot: false });
            }
        }
        for (k, c) in h.cylinders.iter().enumerate() {
            for (node, offset) in [(&c.piston_side, piston), (&c.rod_side, rod)] {
                if let Some(&n) = nodes.get(node.as_str()) {
                    lines.push(Line { from: (first_cylinder + k, offset), to: n, pilot: false });
                }
            }
        }

        // Rows: sources 0; a directional valve one above its supply and its ports one above
        // it; a throttle between its ends and the far end one row further; repeated until
        // nothing changes (at most one pass per component). A pump's outlet is one row above the
        // sources, and a long line links its ends like a throttle.
        for pump in &h.pumps {
            if let Some(&n) = nodes.get(pump.outlet.as_str()) {
                if items[n].level < 0 {
                    items[n].level = 1;
                }
            }
        }
        let two_port_ends: Vec<(&str, &str)> = h
            .lines
            .iter()
            .map(|l| (l.from.as_str(), l.to.as_str()))
            .chain(h.motors.iter().map(|m| (m.port_a.as_str(), m.port_b.as_str())))
            .collect();
        for _ in 0..=items.len() {
            let mut changed = false;
            for &(from, to) in &two_port_ends {
                let level = |name: &str, items: &[Item]| nodes.get(name).map(|&n| items[n].level).filter(|l| *l >= 0);
                for (known, other) in [(level(from, &items), to), (level(to, &items), from)] {
                    if let (Some(l), Some(&n)) = (known, nodes.get(other)) {
                        if items[n].level < 0 {
                            items[n].level = l + 2;
                            changed = true;
                        }
                    }
                }
            }
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
        // Two-port items between their ends when they are rows apart, else above both; a
        // counterbalance valve between its load and its back (the pilot is a control line).
        let mut between: Vec<(usize, &str, &str)> = h
            .valves
            .iter()
            .enumerate()
            .filter_map(|(k, v)| match v {
                Valve::Throttle { from, to, .. } | Valve::Relief { from, to, .. } | Valve::Check { from, to, .. } => {
                    Some((first_valve + k, from.as_str(), to.as_str()))
                }
                Valve::Counterbalance { load, back, .. } => Some((first_valve + k, load.as_str(), back.as_str())),
                Valve::Directional { .. } => None,
            })
            .collect();
        // The lines, then the motors (the two-port ends' order).
        let two_port_items = (first_line..first_line + h.lines.len()).chain(first_motor..first_motor + h.motors.len());
        between.extend(two_port_items.zip(&two_port_ends).map(|(me, &(from, to))| (me, from, to)));
        for (me, from, to) in between {
            let level = |name: &str| nodes.get(name).map_or(0, |&n| items[n].level);
            let (l1, l2) = (level(from), level(to));
            items[me].level = if (l1 - l2).abs() >= 2 { (l1 + l2) / 2 } else { l1.max(l2) + 1 };
        }
        // An accumulator one row above its node, its port below.
        for (k, a) in h.accumulators.iter().enumerate() {
            items[first_accumulator + k].level = nodes.get(a.node.as_str()).map_or(0, |&n| items[n].level) + 1;
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
                    Kind::Port | Kind::Inflow | Kind::ShaftPump { .. } | Kind::Motor => {
                        7.0 * item.name.chars().count() as f64
                    }
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
            if let Some(route) = self.two_port_route(l, ca, cb) {
                svg.polyline(&route, &format!("class=\"line\" stroke=\"{LINE}\" stroke-width=\"1.6\""));
                continue;
            }
            let start = add(ca, self.port(a, offset, ca, cb));
            let end = add(cb, self.port(l.to, (0.0, 0.0), cb, start));
            // Orthogonal route: from the upper port straight down half a row (or half the
            // distance), across, and down to the lower port.
            let (upper, lower) = if start.1 <= end.1 { (start, end) } else { (end, start) };
            let bend = upper.1 + (ROW / 2.0).min((lower.1 - upper.1) / 2.0);
            let style = if l.pilot {
                format!("class=\"line pilot\" stroke=\"{LINE}\" stroke-width=\"1.3\" stroke-dasharray=\"5 3\"")
            } else {
                format!("class=\"line\" stroke=\"{LINE}\" stroke-width=\"1.6\"")
            };
            svg.polyline(&[upper, (upper.0, bend), (lower.0, bend), lower], &style);
        }
        svg.close();
        for (i, item) in self.items.iter().enumerate() {
            svg.open(item.kind.class(), &super::id("hydraulic", i, &item.name), &item.name);
            symbol(&mut svg, &frame, item.kind, at(i), &item.name, self.facing(i));
            svg.close();
        }
        svg.finish()
    }

    /// Which side item `i`'s `faces` item is on (x: left -1 / right 1, y: below 1 / above -1);
    /// (-1, 1) without one.
    fn facing(&self, i: usize) -> P {
        self.items[i].faces.map_or((-1.0, 1.0), |n| {
            let (me, other) = (self.centre(i), self.centre(n));
            (if other.0 <= me.0 { -1.0 } else { 1.0 }, if other.1 >= me.1 { 1.0 } else { -1.0 })
        })
    }

    /// The route of a line of a pressure valve or a long line (`ca`, `cb`: centres of its item
    /// and of the node), `None` for other lines: the inlet takes the port on its node's side
    /// and the outlet the opposite port, so the flow passes through the symbol; an outlet
    /// whose node is on the inlet's side too goes round the left of the symbol (the labels
    /// are on the right).
    fn two_port_route(&self, l: &Line, ca: P, cb: P) -> Option<Vec<P>> {
        let (a, offset) = l.from;
        let item = &self.items[a];
        let inlet = item.faces?;
        if offset != (0.0, 0.0)
            || l.to == inlet
            || !matches!(item.kind, Kind::Relief | Kind::Check | Kind::Counterbalance | Kind::Hose | Kind::Motor)
        {
            return None;
        }
        let s = self.facing(a).1;
        let (w, h) = item.kind.size();
        let start = add(ca, (0.0, -s * h / 2.0));
        if (cb.1 - ca.1) * s <= 0.0 {
            let end = add(cb, self.port(l.to, (0.0, 0.0), cb, start));
            let bend = start.1 + (end.1 - start.1) / 2.0;
            return Some(vec![start, (start.0, bend), (end.0, bend), end]);
        }
        let (clear, side) = (start.1 - s * 8.0, ca.0 - w / 2.0 - 6.0);
        let end = add(cb, self.port(l.to, (0.0, 0.0), cb, (side, ca.1 + s * ROW)));
        let bend = end.1 - s * (ROW / 2.0).min((end.1 - ca.1).abs() / 2.0);
        Some(vec![start, (start.0, clear), (side, clear), (side, bend), (end.0, bend), end])
    }

    /// Where a line to `towards` meets item `i` centred at `c`: the given port, or for volumes
    /// and throttles the top or the bottom of the symbol, whichever faces the other end; sources
    /// take their lines on top (the circuit is above them).
    fn port(&self, i: usize, offset: P, c: P, towards: P) -> P {
        let kind = self.items[i].kind;
        let half = kind.size().1 / 2.0;
        let beside = (towards.1 - c.1).abs() < half;
        let facing = if towards.0 < c.0 { -1.0 } else { 1.0 };
        // A pump's suction line from a tank in its row runs straight across between their sides.
        if beside && matches!(kind, Kind::ShaftPump { .. }) && offset == PUMP_INLET {
            return (facing * 16.0, 0.0);
        }
        if beside && kind == Kind::Tank {
            return (facing * 17.0, 0.0);
        }
        if offset != (0.0, 0.0) || matches!(kind, Kind::Directional | Kind::Cylinder) {
            return offset;
        }
        if let (Some(n), Kind::Relief | Kind::Check | Kind::Counterbalance | Kind::Hose | Kind::Motor) =
            (self.items[i].faces, kind)
        {
            // A pressure valve's or line's inlet port, on the side its symbol is drawn for.
            let inlet_below = self.centre(n).1 >= self.centre(i).1;
            if (towards.1 > c.1) == inlet_below {
                return (0.0, if inlet_below { half } else { -half });
            }
        }
        let below = towards.1 > c.1
            && matches!(
                kind,
                Kind::Volume
                    | Kind::Throttle { .. }
                    | Kind::Port
                    | Kind::Relief
                    | Kind::Check
                    | Kind::Counterbalance
                    | Kind::Hose
                    | Kind::Motor
            );
        (0.0, if below { half } else { -half })
    }
}

/// The symbol of one component, centred at `c`.
fn symbol(svg: &mut Svg, frame: &Frame, kind: Kind, c: P, name: &str, inlet: P) {
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
            // The name away from a pump's suction line at its side.
            if inlet.0 > 0.0 {
                svg.text(frame, (x - 22.0, y + 4.0), "end", name);
            } else {
                svg.text(frame, (x + 22.0, y + 4.0), "start", name);
            }
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
        Kind::Throttle { cushion } => {
            // Fixed restrictor: the line pinched between two arcs.
            svg.line((x, y - 14.0), (x, y + 14.0), &format!("stroke=\"{LINE}\" stroke-width=\"1.6\""));
            // Each arc bulges towards the line: sweep 1 (clockwise on screen) bends the left one right.
            for (side, sweep) in [(-7.0, true), (7.0, false)] {
                let arc = PathCommand::Arc { radius: 14.0, large: false, sweep, to: (x + side, y + 10.0) };
                svg.path(&[PathCommand::Move((x + side, y - 10.0)), arc], &format!("fill=\"none\" {ink}"));
            }
            if cushion {
                // End cushion: the cushion's spear (a small filled block, as in the ISO 1219
                // cushioned cylinder) left of the restrictor, the restriction closing with
                // the stroke.
                svg.rect((x - 15.0, y - 4.0), 5.0, 8.0, &format!("class=\"cushion\" fill=\"{INK}\""));
                svg.text(frame, (x + 12.0, y + 4.0), "start", &format!("{name} (cushion)"));
            } else {
                svg.text(frame, (x + 12.0, y + 4.0), "start", name);
            }
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
        Kind::ShaftPump { variable } => {
            // Circle with a filled triangle pointing at the outlet; the drive shaft as a double
            // stub on the side away from the inlet; the diagonal arrow of variable displacement.
            let class = if variable { "symbol pump variable" } else { "symbol pump" };
            svg.circle(c, 16.0, &format!("class=\"{class}\" {body}"));
            svg.polygon(&[(x, y - 16.0), (x - 7.0, y - 4.0), (x + 7.0, y - 4.0)], &format!("fill=\"{INK}\""));
            let side = -inlet.0;
            for dy in [-2.0, 2.0] {
                svg.line((x + side * 16.0, y + dy), (x + side * 28.0, y + dy), &ink);
            }
            if variable {
                let thin = format!("class=\"compensator\" stroke=\"{INK}\" stroke-width=\"1.3\"");
                svg.line((x - 15.0, y + 15.0), (x + 15.0, y - 15.0), &thin);
                svg.arrowhead((x + 19.0, y - 19.0), (1.0, -1.0), 7.0, INK);
            }
            let anchor = if side > 0.0 { "start" } else { "end" };
            svg.text(frame, (x + side * 34.0, y + 4.0), anchor, name);
        }
        Kind::Relief => {
            // Square envelope, ports on its axis, the arrow offset from them (closed at rest); the
            // spring on one side and the inlet's pressure as a dashed pilot on the other.
            let s = inlet.1;
            svg.line((x, y - 20.0), (x, y - 14.0), &ink);
            svg.line((x, y + 14.0), (x, y + 20.0), &ink);
            svg.rect((x - 14.0, y - 14.0), 28.0, 28.0, &format!("class=\"symbol relief-valve\" {body}"));
            offset_arrow(svg, (x + 6.0, y), s);
            spring(svg, (x + 14.0, y));
            let pilot = format!("stroke=\"{INK}\" stroke-width=\"1.2\" stroke-dasharray=\"4 2\"");
            svg.polyline(&[(x, y + s * 17.0), (x - 22.0, y + s * 17.0), (x - 22.0, y), (x - 14.0, y)], &pilot);
            svg.text(frame, (x + 32.0, y + 4.0), "start", name);
        }
        Kind::Check => {
            let s = inlet.1;
            check_valve(svg, c, s, 16.0, "class=\"symbol check-valve\"");
            svg.text(frame, (x + 14.0, y + 4.0), "start", name);
        }
        Kind::Counterbalance => {
            // A relief stage from the load (inlet side) to the back, opened by the external pilot
            // on its left, with the check stage beside it passing free flow back to the load.
            let s = inlet.1;
            svg.line((x, y - 22.0), (x, y - 14.0), &ink);
            svg.line((x, y + 14.0), (x, y + 22.0), &ink);
            svg.rect((x - 14.0, y - 14.0), 28.0, 28.0, &format!("class=\"symbol counterbalance-valve\" {body}"));
            offset_arrow(svg, (x + 6.0, y), s);
            spring(svg, (x + 14.0, y));
            let pilot = format!("stroke=\"{INK}\" stroke-width=\"1.2\" stroke-dasharray=\"4 2\"");
            svg.line((x + PILOT.0, y), (x - 14.0, y), &pilot);
            for dy in [-18.0, 18.0] {
                svg.line((x, y + dy), (x + 34.0, y + dy), &ink);
                svg.circle((x, y + dy), 2.2, &format!("fill=\"{INK}\""));
            }
            check_valve(svg, (x + 34.0, y), -s, 18.0, "");
            svg.text(frame, (x + 46.0, y + 4.0), "start", name);
        }
        Kind::Hose => {
            // A flexible line: a wave between two end fittings.
            let blue = format!("stroke=\"{LINE}\" stroke-width=\"1.6\"");
            svg.line((x, y - 22.0), (x, y - 15.0), &blue);
            svg.line((x, y + 15.0), (x, y + 22.0), &blue);
            let wave: Vec<P> = (0..=24)
                .map(|k| {
                    let t = f64::from(k) / 24.0;
                    (x + 4.0 * (3.0 * std::f64::consts::PI * t).sin(), y - 15.0 + 30.0 * t)
                })
                .collect();
            svg.polyline(&wave, &format!("class=\"symbol hose\" {blue}"));
            for dy in [-15.0, 15.0] {
                svg.line((x - 4.0, y + dy), (x + 4.0, y + dy), &ink);
            }
            svg.text(frame, (x + 12.0, y + 4.0), "start", name);
        }
        Kind::Motor => {
            motor(svg, c, inlet.1);
            svg.text(frame, (x + 34.0, y + 4.0), "start", name);
        }
        Kind::Accumulator => {
            // ISO 1219 gas-loaded accumulator: a vertical oval shell divided by the separator
            // (a horizontal line), gas above, the port below.
            svg.line((x, y + 20.0), (x, y + 24.0), &ink);
            svg.rect((x - 11.0, y - 20.0), 22.0, 40.0, &format!("class=\"symbol accumulator\" rx=\"11\" {body}"));
            svg.line((x - 11.0, y), (x + 11.0, y), &format!("class=\"separator\" {ink}"));
            svg.text(frame, (x + 16.0, y + 4.0), "start", name);
        }
    }
}

/// The ISO 1219 symbol of a fixed-displacement hydraulic motor centred at `c`: a circle with a
/// filled triangle on its rim at the inlet (port A, on the side `s`: below 1, above -1)
/// pointing inward, the ports on the vertical axis and the output shaft as a double stub on
/// the right.
fn motor(svg: &mut Svg, c: P, s: f64) {
    let (x, y) = c;
    let ink = format!("stroke=\"{INK}\" stroke-width=\"1.6\"");
    svg.line((x, y - 22.0), (x, y - 16.0), &ink);
    svg.line((x, y + 16.0), (x, y + 22.0), &ink);
    svg.circle(c, 16.0, &format!("class=\"symbol motor\" fill=\"#ffffff\" {ink}"));
    // Base corners on the rim at the inlet (7^2 + 14^2 < 16^2), apex towards the centre.
    let base = y + s * 14.0;
    svg.polygon(&[(x, y + s * 3.0), (x - 7.0, base), (x + 7.0, base)], &format!("class=\"inward\" fill=\"{INK}\""));
    for dy in [-2.0, 2.0] {
        svg.line((x + 16.0, y + dy), (x + 28.0, y + dy), &ink);
    }
}

/// The arrow of a normally closed pressure valve at `at`, offset from its ports, pointing away
/// from the inlet side `s` (1: inlet below).
fn offset_arrow(svg: &mut Svg, at: P, s: f64) {
    let (x, y) = at;
    svg.line((x, y + s * 9.0), (x, y - s * 4.0), &format!("stroke=\"{INK}\" stroke-width=\"1.3\""));
    svg.arrowhead((x, y - s * 10.0), (0.0, -s), 6.0, INK);
}

/// An adjustable-looking spring pressing on an envelope's side at `at`, extending right.
fn spring(svg: &mut Svg, at: P) {
    let (x, y) = at;
    let mut pts = vec![at];
    pts.extend((0..4).map(|k| (x + 2.0 + 3.0 * f64::from(k), if k % 2 == 0 { y - 4.0 } else { y + 4.0 })));
    pts.push((x + 14.0, y));
    svg.polyline(&pts, &format!("stroke=\"{INK}\" stroke-width=\"1.2\""));
}

/// A check valve centred at `c` with lines reaching `reach` up and down: a ball against a V
/// seat whose apex faces the inlet side `s` (1: inlet below); flow lifts the ball off the seat.
fn check_valve(svg: &mut Svg, c: P, s: f64, reach: f64, class: &str) {
    let (x, y) = c;
    let ink = format!("stroke=\"{INK}\" stroke-width=\"1.6\"");
    let (apex, r) = (y + s * 5.0, 5.0);
    // Touching both 45 degree arms puts the ball's centre r sqrt 2 from the apex.
    let ball = apex - s * r * std::f64::consts::SQRT_2;
    svg.line((x, y + s * reach), (x, apex), &ink);
    svg.polyline(&[(x - 8.0, apex - s * 8.0), (x, apex), (x + 8.0, apex - s * 8.0)], &format!("{class} {ink}"));
    svg.circle((x, ball), r, &format!("fill=\"#ffffff\" {ink}"));
    svg.line((x, ball - s * r), (x, y - s * reach), &ink);
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
