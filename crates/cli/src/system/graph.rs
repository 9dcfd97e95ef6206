//! The system's graphs: the Gauss-Seidel order of the components (by their connections) and
//! loops of direct feed-through (an output that depends on an input at the same instant,
//! from `<ModelStructure>`; FMI 2.0.4 Sect. 2.2.8, FMI 3.0 Sect. 2.4.8), which form algebraic
//! loops this master does not solve.

use super::resolve::{Component, Link};
use crate::error::{Error, Result};

/// Components in Gauss-Seidel order: each after the components that feed it, except inside
/// a loop of connections (every physical coupling is one), whose members keep their order in
/// the SSD. Deterministic: among the components that may go next, the first in the SSD.
pub fn gauss_seidel_order(n: usize, links: &[Link]) -> Vec<usize> {
    // reach[i][j]: j depends on i through connections (transitive closure, n is small).
    let mut reach = vec![vec![false; n]; n];
    for l in links {
        reach[l.from.0][l.to.0] = true;
    }
    for k in 0..n {
        let through = reach[k].clone();
        for row in reach.iter_mut().filter(|row| row[k]) {
            for (r, t) in row.iter_mut().zip(&through) {
                *r |= t;
            }
        }
    }
    let same_loop = |i: usize, j: usize| i == j || (reach[i][j] && reach[j][i]);
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        // A component is ready when everything that feeds it from outside its loop is placed.
        let ready = (0..n)
            .find(|&j| !placed[j] && (0..n).all(|i| placed[i] || same_loop(i, j) || !reach[i][j]))
            .expect("the loops of a graph form a DAG");
        for j in (0..n).filter(|&j| same_loop(ready, j)) {
            placed[j] = true;
            order.push(j);
        }
    }
    order
}

/// Whether output `output` of `component` depends directly on input `input`: Some(true/false)
/// when declared, None when the FMU does not say (which the standards read as "it may").
fn depends(component: &Component, output: usize, input: usize) -> Option<bool> {
    let entry = component.info.output_dependencies.iter().find(|d| d.output == output)?;
    entry.dependencies.as_ref().map(|d| d.contains(&input))
}

/// A cycle among links where link a precedes link b when b's source output depends directly
/// on a's target input; `assumed`: count undeclared dependencies as present.
fn cycle(components: &[Component], links: &[Link], assumed: bool) -> Option<Vec<usize>> {
    let next = |a: usize| -> Vec<usize> {
        (0..links.len())
            .filter(|&b| {
                links[a].to.0 == links[b].from.0
                    && match depends(&components[links[b].from.0], links[b].from.1, links[a].to.1) {
                        Some(d) => d,
                        None => assumed,
                    }
            })
            .collect()
    };
    // Depth-first search with colours: 0 new, 1 on the path, 2 done.
    fn visit(
        a: usize,
        next: &dyn Fn(usize) -> Vec<usize>,
        colour: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        colour[a] = 1;
        path.push(a);
        for b in next(a) {
            if colour[b] == 1 {
                let start = path.iter().position(|&p| p == b).expect("on the path");
                return Some(path[start..].to_vec());
            }
            if colour[b] == 0 {
                if let Some(c) = visit(b, next, colour, path) {
                    return Some(c);
                }
            }
        }
        path.pop();
        colour[a] = 2;
        None
    }
    let mut colour = vec![0u8; links.len()];
    (0..links.len()).find_map(|a| if colour[a] == 0 { visit(a, &next, &mut colour, &mut Vec::new()) } else { None })
}

/// Refuses a loop of declared direct feed-through. Returns a note when the FMUs declare no
/// dependencies and the connections would close such a loop if they had feed-through.
pub fn check_feedthrough(components: &[Component], links: &[Link]) -> Result<Option<String>> {
    let describe = |c: &[usize]| c.iter().map(|&l| links[l].label.as_str()).collect::<Vec<_>>().join(", then ");
    if let Some(c) = cycle(components, links, false) {
        return Err(Error::msg(format!(
            "the connections {} form an algebraic loop: each output depends directly on the input before it (ModelStructure dependencies); mbfmu's master does not solve algebraic loops",
            describe(&c)
        )));
    }
    Ok(cycle(components, links, true).map(|c| {
        // The components whose dependency in the loop is assumed, not declared.
        let mut silent: Vec<&str> = Vec::new();
        for (i, &b) in c.iter().enumerate() {
            let a = c[(i + c.len() - 1) % c.len()];
            let source = &components[links[b].from.0];
            if depends(source, links[b].from.1, links[a].to.1).is_none() && !silent.contains(&source.name.as_str()) {
                silent.push(&source.name);
            }
        }
        format!(
            "the loop {} would be algebraic if its outputs depended directly on its inputs; {} {} no such dependency (ModelStructure), and the master takes each output as its component's state at the communication point",
            describe(&c),
            silent.join(" and "),
            if silent.len() == 1 { "declares" } else { "declare" }
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::resolve::Class;

    fn link(from: usize, to: usize) -> Link {
        Link {
            from: (from, 0),
            to: (to, 0),
            class: Class::Real,
            factor: 1.0,
            offset: 0.0,
            label: format!("{from}->{to}"),
        }
    }

    #[test]
    fn sources_go_first_and_loops_keep_their_order() {
        // 2 feeds the loop 0 <-> 3, which feeds 1.
        let links = [link(2, 0), link(0, 3), link(3, 0), link(3, 1)];
        assert_eq!(gauss_seidel_order(4, &links), [2, 0, 3, 1]);
        assert_eq!(gauss_seidel_order(3, &[]), [0, 1, 2]);
        assert_eq!(gauss_seidel_order(2, &[link(1, 0)]), [1, 0]);
    }
}
