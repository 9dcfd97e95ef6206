//! What the CLI asks of a read model description: lookups by name and causality, whether a
//! variable may be set, enumeration items, and "did you mean" suggestions for unknown names.

use super::{Causality, EnumItem, ModelInfo, Variable};

impl Variable {
    /// May the CLI set it before initialization (FMI 2.0.4 Sect. 4.2.4, FMI 3.0 Sect. 2.3.3)?
    pub fn settable(&self) -> std::result::Result<(), &'static str> {
        if self.variability == "constant" {
            return Err("it is a constant");
        }
        match self.causality {
            Causality::Parameter | Causality::StructuralParameter | Causality::Input => Ok(()),
            Causality::Independent => Err("it is the independent variable (time)"),
            Causality::CalculatedParameter => Err("it is a calculated parameter"),
            Causality::Output | Causality::Local => match self.initial.as_deref() {
                Some("exact") | Some("approx") => Ok(()),
                _ => Err("it is computed by the FMU (an output or local variable without a start value)"),
            },
        }
    }
}

impl ModelInfo {
    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|v| v.name == name)
    }

    pub fn outputs(&self) -> impl Iterator<Item = &Variable> {
        self.variables.iter().filter(|v| v.causality == Causality::Output)
    }

    /// Name of the independent variable (the CSV's first column).
    pub fn time_name(&self) -> &str {
        self.variables.iter().find(|v| v.causality == Causality::Independent).map_or("time", |v| v.name.as_str())
    }

    pub fn enum_items(&self, var: &Variable) -> &[EnumItem] {
        var.declared_type.as_ref().and_then(|t| self.types.get(t)).map_or(&[], |t| t.items.as_slice())
    }

    /// Names for a "did you mean" hint: those within a few typos of `name`, else those in the
    /// same structured-name group (`pivot.coordinate` -> `pivot.angle`, `pivot.angle_rate`).
    pub fn similar_names(&self, name: &str, filter: impl Fn(&Variable) -> bool) -> Vec<&str> {
        let candidates: Vec<&Variable> = self.variables.iter().filter(|v| filter(v)).collect();
        let mut scored: Vec<(usize, &str)> = candidates
            .iter()
            .map(|v| (edit_distance(&v.name.to_lowercase(), &name.to_lowercase()), v.name.as_str()))
            .filter(|(d, n)| *d <= n.len().max(name.len()) / 3)
            .collect();
        scored.sort();
        if !scored.is_empty() {
            return scored.into_iter().take(3).map(|(_, n)| n).collect();
        }
        match name.split_once('.') {
            Some((group, _)) => candidates
                .iter()
                .filter(|v| v.name.strip_prefix(group).is_some_and(|rest| rest.starts_with('.')))
                .take(5)
                .map(|v| v.name.as_str())
                .collect(),
            None => Vec::new(),
        }
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}
