//! A check of the start against the supplies: a pump line whose relief valve opens below the
//! pressure that a static-start cylinder fed from that line needs to hold its load. The pump's
//! flow would leave over the relief before the load moves, which a user means as an error
//! (a relief set too low, or the load too heavy for the circuit), not as a run.

use super::{Circuit, Node};

impl Circuit {
    /// Err naming the relief valve, the pump, the cylinder and the pressures if a relief valve
    /// on a pump's outlet cracks below the start pressure `p` of the piston side of a
    /// static-start cylinder that the pump's line reaches through the circuit's volumes
    /// (throttles, directional valves' metering edges, lines, check and counterbalance valves).
    pub fn check_supply(&self, p: &[f64]) -> Result<(), String> {
        let held: Vec<_> = self.cylinders.iter().filter(|c| c.static_start).collect();
        if held.is_empty() {
            return Ok(());
        }
        let groups = self.connected_volumes();
        for relief in self.components.valves.iter().filter(|v| v.relief) {
            let Node::Volume(line) = relief.from else { continue };
            let Some(pump) = self.components.pumps.iter().find(|q| q.outlet == relief.from) else { continue };
            for c in &held {
                let need = p[c.piston_side];
                if groups[line] == groups[c.piston_side] && need >= relief.cracking_pressure() {
                    return Err(format!(
                        "valve '{}' (relief): cracking_pressure {:.6e} Pa is below the {:.6e} Pa that cylinder '{}' needs on its piston side ('{}') to hold its load at the start, so pump '{}' cannot lift it (its flow would leave over the relief valve): raise the relief setting or lighten the load",
                        relief.name, relief.cracking_pressure(), need, c.name, self.volumes[c.piston_side].name, pump.name
                    ));
                }
            }
        }
        Ok(())
    }

    /// For every volume, the smallest volume index joined to it through the circuit's
    /// elements between two volumes (sources, the tank among them, join nothing).
    fn connected_volumes(&self) -> Vec<usize> {
        let mut root: Vec<usize> = (0..self.volumes.len()).collect();
        fn find(root: &mut [usize], mut k: usize) -> usize {
            while root[k] != k {
                root[k] = root[root[k]];
                k = root[k];
            }
            k
        }
        let mut join = |a: Node, b: Node| {
            if let (Node::Volume(a), Node::Volume(b)) = (a, b) {
                let (ra, rb) = (find(&mut root, a), find(&mut root, b));
                root[ra.max(rb)] = ra.min(rb);
            }
        };
        for t in &self.throttles {
            join(t.from, t.to);
        }
        for v in &self.valves {
            join(v.pump, v.port_a);
            join(v.pump, v.port_b);
        }
        for v in &self.components.valves {
            join(v.from, v.to);
        }
        for f in &self.components.faces {
            join(f.a, f.b);
        }
        (0..root.len()).map(|k| find(&mut root, k)).collect()
    }
}
