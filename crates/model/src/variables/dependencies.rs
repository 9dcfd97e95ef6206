//! Which knowns each output and state derivative depends on, for `<ModelStructure>`'s
//! `dependencies` and `dependenciesKind` (FMI 2.0.4 Sect. 2.2.8, FMI 3.0 Sect. 2.4.8): the
//! knowns are the continuous states, the inputs and time (Model Exchange) or the inputs
//! alone (co-simulation, where an output depends on an input at a communication point only
//! through direct feed-through). A declared dependency may be zero at some points; one that
//! is left out is zero everywhere (tests check both against the FMUs' partial derivatives).
//!
//! Co-simulation (every formulation): a force element's value is its law plus its input; a
//! cylinder fed by inputs reports its length and velocity inputs, and its force follows the
//! velocity input through the seal friction (Jaiswal et al. 2021 eq. 29); the rest of an
//! output is the state reached by the last step.
//!
//! Model Exchange, by what an output is a function of: positions (independent coordinates,
//! and for the state-space formulation time and the inputs of input-rate drivers, which
//! drivers integrate), velocities (also the independent velocities), accelerations (also the
//! pressures that push attached cylinders and the inputs of force elements, or every input
//! in the state-space formulation), and the circuit's own states.

use super::StateLayout;
use crate::format::{Description, Force, Motion, Quantity, Valve};

/// What a partial derivative is taken with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Known {
    /// Continuous state `index` of the Model Exchange ODE.
    State(usize),
    /// Input `index` (the description's input order).
    Input(usize),
    Time,
}

/// `dependenciesKind`: how the known enters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// No particular structure.
    Dependent,
    /// A constant factor (known before initialization).
    Constant,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Dependent => "dependent",
            Kind::Constant => "constant",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependency {
    pub known: Known,
    pub kind: Kind,
}

/// An unknown of `<ModelStructure>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {
    Output(Quantity),
    /// The derivative of continuous state `index`.
    Derivative(usize),
}

/// The dependencies of `unknown` in a model with Model Exchange states `layout` (None:
/// co-simulation only), sorted by known (states, inputs, time).
pub fn dependencies(d: &Description, layout: Option<&StateLayout>, unknown: Unknown) -> Vec<Dependency> {
    let mut deps = match layout {
        None => match unknown {
            Unknown::Output(q) => feedthrough(d, q),
            Unknown::Derivative(_) => Vec::new(),
        },
        Some(l) => {
            let m = Me { d, l, semirecursive: d.solver.formulation.is_semirecursive() };
            match unknown {
                Unknown::Output(q) => m.output(q),
                Unknown::Derivative(k) => m.derivative(k),
            }
        }
    };
    deps.sort_by_key(|dep| dep.known);
    // One entry per known: the most general kind wins.
    deps.dedup_by(|later, first| {
        let same = later.known == first.known;
        if same && later.kind == Kind::Dependent {
            first.kind = Kind::Dependent;
        }
        same
    });
    deps
}

fn dependent(known: Known) -> Dependency {
    Dependency { known, kind: Kind::Dependent }
}

fn constant(known: Known) -> Dependency {
    Dependency { known, kind: Kind::Constant }
}

/// The input of force element `f`.
fn force_input(d: &Description, f: usize) -> Option<usize> {
    d.forces.get(f).and_then(Force::input).and_then(|name| d.input_index(name))
}

/// (length input, velocity input) of a cylinder fed by inputs; None for an attached one.
fn fed_inputs(d: &Description, c: usize) -> Option<(usize, usize)> {
    let cyl = d.hydraulics.as_ref()?.cylinders.get(c)?;
    Some((d.input_index(cyl.length_input.as_deref()?)?, d.input_index(cyl.velocity_input.as_deref()?)?))
}

/// The input that gives the pressure of the hydraulic source named `name`.
fn pressure_input(d: &Description, name: &str) -> Option<usize> {
    let h = d.hydraulics.as_ref()?;
    d.input_index(h.sources.iter().find(|s| s.name == name)?.pressure_input.as_deref()?)
}

/// The pressure inputs of the nodes that share an orifice (a throttle or a directional
/// valve) with the node named `node`, itself included: the flows at that node (Jaiswal et al.
/// 2021 eqs. 24, 26) are functions of the pressures at both ends.
fn pressure_inputs_next_to(d: &Description, node: &str) -> Vec<usize> {
    let Some(h) = &d.hydraulics else { return Vec::new() };
    let mut inputs = Vec::new();
    for v in &h.valves {
        let nodes = v.nodes();
        if nodes.contains(&node) {
            inputs.extend(nodes.iter().filter_map(|n| pressure_input(d, n)));
        }
    }
    inputs
}

/// [`pressure_inputs_next_to`] hydraulic source `source`.
fn source_flow_inputs(d: &Description, source: usize) -> Vec<usize> {
    match d.hydraulics.as_ref().and_then(|h| h.sources.get(source)) {
        Some(s) => pressure_inputs_next_to(d, &s.name),
        None => Vec::new(),
    }
}

/// Co-simulation: the direct feed-through of inputs at a communication point.
fn feedthrough(d: &Description, q: Quantity) -> Vec<Dependency> {
    let semirecursive = d.solver.formulation.is_semirecursive();
    match q {
        Quantity::ForceValue { force } => {
            force_input(d, force).map(|i| constant(Known::Input(i))).into_iter().collect()
        }
        Quantity::CylinderLength { cylinder } if semirecursive => {
            fed_inputs(d, cylinder).map(|(l, _)| constant(Known::Input(l))).into_iter().collect()
        }
        Quantity::CylinderVelocity { cylinder } if semirecursive => {
            fed_inputs(d, cylinder).map(|(_, v)| constant(Known::Input(v))).into_iter().collect()
        }
        Quantity::CylinderForce { cylinder } if semirecursive => {
            fed_inputs(d, cylinder).map(|(_, v)| dependent(Known::Input(v))).into_iter().collect()
        }
        // The orifices' flows at the node follow the pressure inputs at once.
        Quantity::SourceFlow { source } => {
            source_flow_inputs(d, source).into_iter().map(|i| dependent(Known::Input(i))).collect()
        }
        _ => Vec::new(),
    }
}

/// Model Exchange of a model with states `l`.
struct Me<'a> {
    d: &'a Description,
    l: &'a StateLayout,
    semirecursive: bool,
}

impl Me<'_> {
    /// Time and the inputs that drivers integrate (state-space formulation: the constraints
    /// of drivers are rheonomic).
    fn rheonomic(&self) -> Vec<Dependency> {
        if self.semirecursive || self.d.drivers.is_empty() {
            return Vec::new();
        }
        let mut deps = vec![dependent(Known::Time)];
        for driver in &self.d.drivers {
            if let Motion::InputRate { input, .. } = &driver.motion {
                deps.extend(self.d.input_index(input).map(|i| dependent(Known::Input(i))));
            }
        }
        deps
    }

    fn positions(&self) -> Vec<Dependency> {
        let mut deps: Vec<Dependency> = (0..self.l.dof).map(|k| dependent(Known::State(k))).collect();
        deps.extend(self.rheonomic());
        deps
    }

    fn velocities(&self) -> Vec<Dependency> {
        let mut deps = self.positions();
        deps.extend((0..self.l.dof).map(|k| dependent(Known::State(self.l.velocity(k)))));
        deps
    }

    /// Volumes holding a chamber of cylinder `c`.
    fn chambers(&self, c: usize) -> Vec<usize> {
        let Some(h) = &self.d.hydraulics else { return Vec::new() };
        let volume = |name: &str| h.volumes.iter().position(|v| v.name == name);
        let cyl = &h.cylinders[c];
        [volume(&cyl.piston_side), volume(&cyl.rod_side)].into_iter().flatten().collect()
    }

    /// Volumes at the ports of every motor (their torques' pressures).
    fn motor_ports(&self) -> Vec<usize> {
        let Some(h) = &self.d.hydraulics else { return Vec::new() };
        let volume = |name: &str| h.volumes.iter().position(|v| v.name == name);
        h.motors.iter().flat_map(|m| [volume(&m.port_a), volume(&m.port_b)]).flatten().collect()
    }

    fn accelerations(&self) -> Vec<Dependency> {
        let mut deps = self.velocities();
        if self.semirecursive {
            for c in 0..self.l.cylinders {
                if fed_inputs(self.d, c).is_none() {
                    deps.extend(self.chambers(c).into_iter().map(|v| dependent(Known::State(self.l.pressure(v)))));
                }
            }
            deps.extend(self.motor_ports().into_iter().map(|v| dependent(Known::State(self.l.pressure(v)))));
            deps.extend(
                (0..self.d.forces.len()).filter_map(|f| force_input(self.d, f)).map(|i| dependent(Known::Input(i))),
            );
        } else {
            deps.extend((0..self.d.interface.inputs.len()).map(|i| dependent(Known::Input(i))));
        }
        deps
    }

    /// Spool index of valve `valve` (description order of all valves).
    fn spool(&self, valve: usize) -> Option<usize> {
        let h = self.d.hydraulics.as_ref()?;
        matches!(h.valves.get(valve)?, Valve::Directional { .. })
            .then(|| h.valves[..valve].iter().filter(|v| matches!(v, Valve::Directional { .. })).count())
    }

    /// The input of valve `valve`'s reference.
    fn reference_input(&self, valve: usize) -> Option<usize> {
        match self.d.hydraulics.as_ref()?.valves.get(valve)? {
            Valve::Directional { reference, .. } => reference.input.as_deref().and_then(|i| self.d.input_index(i)),
            _ => None,
        }
    }

    /// A cylinder's stroke velocity: the mechanism's velocities or the velocity input.
    fn stroke_velocity(&self, c: usize) -> Vec<Dependency> {
        match fed_inputs(self.d, c) {
            Some((_, v)) => vec![dependent(Known::Input(v))],
            None => self.velocities(),
        }
    }

    /// The state of accumulator `a`: after the volumes', cells' and faces' (the last of the
    /// circuit's pressure states).
    fn accumulator(&self, a: usize) -> usize {
        let n = self.d.hydraulics.as_ref().map_or(0, |h| h.accumulators.len());
        self.l.pressure(self.l.pressures - n + a)
    }

    fn output(&self, q: Quantity) -> Vec<Dependency> {
        let l = self.l;
        match q {
            Quantity::BodyPosition { .. }
            | Quantity::BodyOrientation { .. }
            | Quantity::PointPosition { .. }
            | Quantity::NodePosition { .. }
            | Quantity::NodeDisplacement { .. }
            | Quantity::NodeRotation { .. }
            | Quantity::NodeOrientation { .. }
            | Quantity::JointAngle { .. }
            | Quantity::JointPosition { .. }
            | Quantity::ForceLength { .. }
            | Quantity::PotentialEnergy
            | Quantity::ConstraintViolation => self.positions(),
            Quantity::BodyVelocity { .. }
            | Quantity::BodyAngularVelocity { .. }
            | Quantity::PointVelocity { .. }
            | Quantity::NodeVelocity { .. }
            | Quantity::NodeAngularVelocity { .. }
            | Quantity::JointAngleRate { .. }
            | Quantity::JointVelocity { .. }
            | Quantity::ForceRate { .. }
            | Quantity::KineticEnergy
            | Quantity::TotalEnergy => self.velocities(),
            Quantity::BodyAcceleration { .. }
            | Quantity::PointAcceleration { .. }
            | Quantity::NodeAcceleration { .. }
            | Quantity::NodeAngularAcceleration { .. }
            | Quantity::SectionForce { .. }
            | Quantity::SectionMoment { .. }
            | Quantity::JointReactionForce { .. }
            | Quantity::JointReactionTorque { .. }
            | Quantity::JointFrictionForce { .. }
            | Quantity::DriverEffort { .. } => self.accelerations(),
            Quantity::DriverPrescribed { .. } => self.rheonomic(),
            Quantity::ForceValue { force } => {
                let mut deps = self.velocities();
                deps.extend(force_input(self.d, force).map(|i| constant(Known::Input(i))));
                deps
            }
            Quantity::VolumePressure { volume } => vec![constant(Known::State(l.pressure(volume)))],
            // V_L is the state times V0/p0; p_g a function of it.
            Quantity::AccumulatorVolume { accumulator } => vec![constant(Known::State(self.accumulator(accumulator)))],
            Quantity::AccumulatorPressure { accumulator } => {
                vec![dependent(Known::State(self.accumulator(accumulator)))]
            }
            Quantity::SourceFlow { source } => {
                let mut deps = self.source_neighbours(source);
                deps.extend(source_flow_inputs(self.d, source).into_iter().map(|i| dependent(Known::Input(i))));
                deps
            }
            Quantity::ValveSpool { valve } => {
                self.spool(valve).map(|k| constant(Known::State(l.spool(k)))).into_iter().collect()
            }
            Quantity::ValveReference { valve } => {
                self.reference_input(valve).map(|i| constant(Known::Input(i))).into_iter().collect()
            }
            Quantity::CylinderLength { cylinder } => match fed_inputs(self.d, cylinder) {
                Some((length, _)) => vec![constant(Known::Input(length))],
                None => self.positions(),
            },
            Quantity::CylinderVelocity { cylinder } => match fed_inputs(self.d, cylinder) {
                Some((_, velocity)) => vec![constant(Known::Input(velocity))],
                None => self.velocities(),
            },
            Quantity::CylinderForce { cylinder } => {
                let mut deps: Vec<Dependency> =
                    self.chambers(cylinder).into_iter().map(|v| dependent(Known::State(l.pressure(v)))).collect();
                let friction = self.d.hydraulics.as_ref().is_some_and(|h| h.cylinders[cylinder].friction.is_some());
                if friction {
                    deps.extend(self.stroke_velocity(cylinder));
                }
                deps
            }
            Quantity::CylinderWork { cylinder } => vec![constant(Known::State(l.cylinder_work(cylinder)))],
            Quantity::MotorSpeed { .. } => self.velocities(),
            Quantity::MotorTorque { .. } | Quantity::MotorFlow { .. } => {
                let mut deps = self.velocities();
                deps.extend(self.motor_ports().into_iter().map(|v| dependent(Known::State(l.pressure(v)))));
                deps
            }
            Quantity::ExternalWork | Quantity::EnergyBalance if self.semirecursive => {
                let mut deps = match l.work_state() {
                    Some(w) => vec![constant(Known::State(w))],
                    None => Vec::new(),
                };
                if q == Quantity::EnergyBalance {
                    deps.extend(self.velocities());
                }
                deps
            }
            // The state-space formulation integrates the work from the last completed step to
            // the current point (trapezoidal rule over the loads).
            Quantity::ExternalWork | Quantity::EnergyBalance => self.accelerations(),
            Quantity::NewtonIterations | Quantity::Steps => Vec::new(),
        }
    }

    /// The cylinders whose end cushions throttle a flow into or out of volume `volume`.
    fn cushions_at(&self, volume: usize) -> Vec<usize> {
        let Some(h) = &self.d.hydraulics else { return Vec::new() };
        let Some(name) = h.volumes.get(volume).map(|v| v.name.as_str()) else { return Vec::new() };
        h.valves
            .iter()
            .filter_map(|v| match v {
                Valve::Throttle { from, to, cushion: Some(c), .. } if from == name || to == name => {
                    h.cylinders.iter().position(|x| x.name == c.cylinder)
                }
                _ => None,
            })
            .collect()
    }

    /// The volumes and spools an orifice law connects to volume `volume`.
    fn circuit_neighbours(&self, volume: usize) -> (Vec<usize>, Vec<usize>) {
        let Some(h) = &self.d.hydraulics else { return (Vec::new(), Vec::new()) };
        let node = |name: &str| h.volumes.iter().position(|v| v.name == name);
        let (mut volumes, mut spools) = (vec![volume], Vec::new());
        let pair = |a: Option<usize>, b: Option<usize>, volumes: &mut Vec<usize>| {
            if a == Some(volume) {
                volumes.extend(b);
            }
            if b == Some(volume) {
                volumes.extend(a);
            }
        };
        let mut spool = 0;
        for v in &h.valves {
            match v {
                Valve::Throttle { from, to, .. } => pair(node(from), node(to), &mut volumes),
                Valve::Relief { .. } | Valve::Check { .. } | Valve::Counterbalance { .. } => {
                    // Pressure-controlled: every node's pressure moves every port's flow.
                    let nodes: Vec<Option<usize>> = v.nodes().into_iter().map(node).collect();
                    if nodes.contains(&Some(volume)) {
                        volumes.extend(nodes.iter().flatten());
                    }
                }
                Valve::Directional { pump, tank, port_a, port_b, .. } => {
                    let nodes = [node(pump), node(tank), node(port_a), node(port_b)];
                    if nodes.contains(&Some(volume)) {
                        spools.push(spool);
                    }
                    for (_, from, to) in super::states::VALVE_CONNECTIONS {
                        pair(nodes[from], nodes[to], &mut volumes);
                    }
                    spool += 1;
                }
            }
        }
        (volumes, spools)
    }

    /// The input of an external inflow into volume `volume` (Jaiswal et al. 2021 eq. 22).
    fn inflow_input(&self, volume: usize) -> Option<usize> {
        let h = self.d.hydraulics.as_ref()?;
        self.d.input_index(h.volumes.get(volume)?.inflow_input.as_deref()?)
    }

    /// The volume pressures and spools the orifices at source `source` depend on.
    fn source_neighbours(&self, source: usize) -> Vec<Dependency> {
        let Some(h) = &self.d.hydraulics else { return Vec::new() };
        let name = h.sources[source].name.as_str();
        let volume = |n: &str| h.volumes.iter().position(|v| v.name == n);
        let mut deps = Vec::new();
        let mut spool = 0;
        for v in &h.valves {
            match v {
                Valve::Throttle { .. } | Valve::Relief { .. } | Valve::Check { .. } | Valve::Counterbalance { .. } => {
                    let nodes = v.nodes();
                    if nodes.contains(&name) {
                        deps.extend(
                            nodes.iter().filter_map(|n| volume(n)).map(|i| dependent(Known::State(self.l.pressure(i)))),
                        );
                    }
                }
                Valve::Directional { pump, tank, port_a, port_b, .. } => {
                    let nodes = [pump, tank, port_a, port_b];
                    if nodes.iter().any(|n| *n == name) {
                        deps.push(dependent(Known::State(self.l.spool(spool))));
                        deps.extend(
                            nodes.iter().filter_map(|n| volume(n)).map(|i| dependent(Known::State(self.l.pressure(i)))),
                        );
                    }
                    spool += 1;
                }
            }
        }
        // An accumulator at the node: its inlet flow follows its liquid volume.
        for (a, acc) in h.accumulators.iter().enumerate() {
            if acc.node == name {
                deps.push(dependent(Known::State(self.accumulator(a))));
            }
        }
        deps
    }

    fn derivative(&self, k: usize) -> Vec<Dependency> {
        let l = self.l;
        if k < l.dof {
            return vec![constant(Known::State(l.velocity(k)))];
        }
        if k < 2 * l.dof {
            return self.accelerations();
        }
        let h = self.d.hydraulics.as_ref();
        let mut deps = Vec::new();
        let pumps_or_lines = h.is_some_and(|h| {
            !h.pumps.is_empty() || !h.lines.is_empty() || !h.motors.is_empty() || !h.accumulators.is_empty()
        });
        if (l.pressure(0)..l.pressure(l.pressures)).contains(&k) && pumps_or_lines {
            // Pumps (speed inputs), lines (cell and flow states), motors (the joints' rates)
            // and accumulators (liquid volume states) couple the circuit more widely than its
            // orifices: every state, input and velocity, a superset.
            deps.extend((l.pressure(0)..l.pressure(l.pressures)).map(|j| dependent(Known::State(j))));
            deps.extend((0..l.spools).map(|s| dependent(Known::State(l.spool(s)))));
            deps.extend((0..self.d.interface.inputs.len()).map(|i| dependent(Known::Input(i))));
            deps.extend(self.velocities());
        } else if (l.pressure(0)..l.pressure(l.pressures)).contains(&k) {
            let volume = k - l.pressure(0);
            let (volumes, spools) = self.circuit_neighbours(volume);
            deps.extend(volumes.into_iter().map(|v| dependent(Known::State(l.pressure(v)))));
            deps.extend(spools.into_iter().map(|s| dependent(Known::State(l.spool(s)))));
            let name = self.d.hydraulics.as_ref().map_or("", |h| h.volumes[volume].name.as_str());
            deps.extend(pressure_inputs_next_to(self.d, name).into_iter().map(|i| dependent(Known::Input(i))));
            if let Some(i) = self.inflow_input(volume) {
                deps.push(dependent(Known::Input(i)));
            }
            // A cushioned throttle at the volume: its flow follows its cylinder's length.
            for c in self.cushions_at(volume) {
                match fed_inputs(self.d, c) {
                    Some((length, _)) => deps.push(dependent(Known::Input(length))),
                    None => deps.extend(self.positions()),
                }
            }
            for c in 0..l.cylinders {
                if self.chambers(c).contains(&volume) {
                    match fed_inputs(self.d, c) {
                        Some((length, velocity)) => {
                            deps.extend([dependent(Known::Input(length)), dependent(Known::Input(velocity))])
                        }
                        None => deps.extend(self.velocities()),
                    }
                }
            }
        } else if (l.spool(0)..l.spool(l.spools)).contains(&k) {
            let spool = k - l.spool(0);
            deps.push(dependent(Known::State(k)));
            let valve = h.map_or(0, |h| {
                h.valves
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| matches!(v, Valve::Directional { .. }))
                    .nth(spool)
                    .map_or(0, |(i, _)| i)
            });
            deps.extend(self.reference_input(valve).map(|i| dependent(Known::Input(i))));
        } else if Some(k) == l.work_state() {
            deps.extend(self.velocities());
            for c in 0..l.cylinders {
                if fed_inputs(self.d, c).is_none() {
                    deps.extend(self.chambers(c).into_iter().map(|v| dependent(Known::State(l.pressure(v)))));
                }
            }
            deps.extend(self.motor_ports().into_iter().map(|v| dependent(Known::State(l.pressure(v)))));
            deps.extend(
                (0..self.d.forces.len()).filter_map(|f| force_input(self.d, f)).map(|i| dependent(Known::Input(i))),
            );
        } else if k >= l.cylinder_work(0) && k < l.len() {
            let c = k - l.cylinder_work(0);
            deps.extend(self.chambers(c).into_iter().map(|v| dependent(Known::State(l.pressure(v)))));
            deps.extend(self.stroke_velocity(c));
        }
        deps
    }
}
