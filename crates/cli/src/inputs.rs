//! `simulate --input-file`: time-varying inputs from a CSV file whose first column is time and
//! whose other columns are input variables, as FMPy reads them. Real inputs are interpolated
//! linearly (or held, with `--input-interpolation step`); Integer, Boolean and Enumeration
//! inputs are always held. Before the first row the first value holds, after the last row
//! the last; two rows with the same time make a jump (the later row holds from that time on).
//! `sweep --input-file` plays the same table in every run.

use crate::args::InputArgs;
use crate::error::{Context, Error, Result};
use crate::fmu::{Slave, Value};
use crate::modeldesc::{Causality, ModelInfo, VarType, Variable};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Interpolation {
    /// Straight lines between rows (Real inputs)
    Linear,
    /// Each row's value holds until the next row
    Step,
}

/// The input table: times (non-decreasing) and one column of values per input.
#[derive(Debug)]
pub struct InputTable<'a> {
    times: Vec<f64>,
    columns: Vec<(&'a Variable, Vec<f64>)>,
    interpolation: Interpolation,
}

impl<'a> InputTable<'a> {
    /// The table of --input-file, if given, checked against the FMU's inputs.
    pub fn from_args(args: &InputArgs, info: &'a ModelInfo) -> Result<Option<InputTable<'a>>> {
        args.input_file.as_deref().map(|path| Self::read(path, info, args.input_interpolation)).transpose()
    }

    /// Reads and checks `path` against the FMU's inputs; errors name the file, line and column.
    pub fn read(path: &Path, info: &'a ModelInfo, interpolation: Interpolation) -> Result<InputTable<'a>> {
        let text = std::fs::read_to_string(path).context(format!("--input-file {}", path.display()))?;
        Self::parse(&text, &path.display().to_string(), info, interpolation)
    }

    pub fn parse(text: &str, file: &str, info: &'a ModelInfo, interpolation: Interpolation) -> Result<InputTable<'a>> {
        let fail = |line: u64, what: String| Error::msg(format!("--input-file {file}, line {line}: {what}"));
        let mut reader =
            ::csv::ReaderBuilder::new().trim(::csv::Trim::All).comment(Some(b'#')).from_reader(text.as_bytes());
        let header = reader.headers().map_err(|e| fail(1, e.to_string()))?.clone();
        let mut names = header.iter();
        match names.next() {
            Some(first) if first.eq_ignore_ascii_case("time") || first == info.time_name() => {}
            other => {
                return Err(fail(
                    1,
                    format!("the first column must be the time (named 'time'), found {:?}", other.unwrap_or("")),
                ))
            }
        }
        let mut columns: Vec<(&Variable, Vec<f64>)> = Vec::new();
        for name in names {
            let var = input_variable(info, name).map_err(|e| fail(1, e))?;
            if columns.iter().any(|(v, _)| v.vr == var.vr && v.ty == var.ty) {
                return Err(fail(1, format!("the input '{name}' has two columns")));
            }
            columns.push((var, Vec::new()));
        }
        if columns.is_empty() {
            return Err(fail(1, "no input columns after the time column".into()));
        }
        let mut times: Vec<f64> = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| fail(e.position().map_or(0, |p| p.line()), e.to_string()))?;
            let line = record.position().map_or(0, |p| p.line());
            let number = |i: usize, name: &str| -> Result<f64> {
                let cell = record.get(i).unwrap_or("");
                let value: f64 =
                    cell.parse().map_err(|_| fail(line, format!("column '{name}': '{cell}' is not a number")))?;
                if !value.is_finite() {
                    return Err(fail(line, format!("column '{name}': {cell} is not a finite number")));
                }
                Ok(value)
            };
            let t = number(0, "time")?;
            if let Some(&last) = times.last() {
                if t < last {
                    return Err(fail(
                        line,
                        format!("time {t} is before the previous row's {last}; times must not decrease"),
                    ));
                }
            }
            times.push(t);
            for (i, (var, values)) in columns.iter_mut().enumerate() {
                values.push(number(i + 1, &var.name)?);
            }
        }
        if times.is_empty() {
            return Err(fail(2, "no rows".into()));
        }
        Ok(InputTable { times, columns, interpolation })
    }

    pub fn variables(&self) -> impl Iterator<Item = &'a Variable> + '_ {
        self.columns.iter().map(|(v, _)| *v)
    }

    /// The first of `others` that the table gives too: an input cannot come from two places.
    pub fn also_given<'v>(&self, others: impl IntoIterator<Item = &'v Variable>) -> Option<&'v Variable> {
        others.into_iter().find(|o| self.variables().any(|v| v.vr == o.vr && v.ty == o.ty))
    }

    /// Sets every input to its value at `t`: before initialization at the start, and before
    /// the step from each communication point.
    pub fn apply(&self, slave: &mut dyn Slave, t: f64) -> Result<()> {
        for (var, value) in self.values_at(t) {
            slave.set(var, &value).map_err(|e| e.context(format!("--input-file: setting {} at t = {t}", var.name)))?;
        }
        Ok(())
    }

    /// Every input's value at `t`, converted to its type.
    pub fn values_at(&self, t: f64) -> impl Iterator<Item = (&'a Variable, Value)> + '_ {
        // Rows 0..k have times <= t.
        let k = self.times.partition_point(|&x| x <= t);
        self.columns.iter().map(move |(var, values)| {
            let real = matches!(var.ty, VarType::Float64 | VarType::Float32);
            let held = match k {
                0 => values[0],
                k => values[k - 1],
            };
            let x = if real && self.interpolation == Interpolation::Linear && k > 0 && k < self.times.len() {
                // times[k] > t >= times[k - 1]: a proper interval.
                let (t0, t1) = (self.times[k - 1], self.times[k]);
                held + (values[k] - held) * (t - t0) / (t1 - t0)
            } else {
                held
            };
            let value = match var.ty {
                VarType::Float64 | VarType::Float32 => Value::Real(x),
                VarType::Boolean => Value::Bool(x != 0.0),
                _ => Value::Int(x.round() as i64),
            };
            (*var, value)
        })
    }
}

/// The input variable `name`, or why a column of that name cannot drive it.
fn input_variable<'a>(info: &'a ModelInfo, name: &str) -> std::result::Result<&'a Variable, String> {
    let Some(var) = info.variable(name) else {
        let similar = info.similar_names(name, |v| v.causality == Causality::Input);
        let inputs: Vec<&str> =
            info.variables.iter().filter(|v| v.causality == Causality::Input).map(|v| v.name.as_str()).collect();
        let hint = match similar.as_slice() {
            [] => String::new(),
            s => format!("; did you mean {}?", s.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(" or ")),
        };
        let valid = if inputs.is_empty() {
            "it has no inputs".to_string()
        } else {
            format!("its inputs: {}", inputs.join(", "))
        };
        return Err(format!("{} has no variable '{name}'{hint} ({valid})", info.model_name));
    };
    if var.causality != Causality::Input {
        return Err(format!(
            "'{name}' is not an input (causality {:?}); only inputs can vary in time (use --set for parameters)",
            var.causality
        ));
    }
    if var.is_array || !(var.ty.is_numeric() || var.ty == VarType::Boolean) {
        return Err(format!(
            "'{name}' is a {} input; only numeric and Boolean scalars can be read from a file",
            var.ty.name()
        ));
    }
    Ok(var)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ModelInfo {
        let xml = r#"<?xml version="1.0"?>
<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="x">
  <CoSimulation modelIdentifier="M"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="torque" valueReference="1" causality="input" variability="continuous" start="0"/>
    <Int32 name="gear" valueReference="2" causality="input" variability="discrete" start="1"/>
    <Float64 name="mass" valueReference="3" causality="parameter" variability="fixed" start="1"/>
  </ModelVariables>
  <ModelStructure/>
</fmiModelDescription>"#;
        crate::modeldesc::parse(xml).unwrap()
    }

    fn real(v: &Value) -> f64 {
        match v {
            Value::Real(x) => *x,
            Value::Int(i) => *i as f64,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn linear_and_step_interpolation_with_a_jump() {
        let info = info();
        let text = "time,torque,gear\n0,0,1\n1,10,2\n1,20,3\n3,0,3\n";
        let at = |table: &InputTable, t: f64| table.values_at(t).map(|(_, v)| real(&v)).collect::<Vec<_>>();
        let linear = InputTable::parse(text, "in.csv", &info, Interpolation::Linear).unwrap();
        assert_eq!(at(&linear, -1.0), [0.0, 1.0]);
        assert_eq!(at(&linear, 0.5), [5.0, 1.0]);
        assert_eq!(at(&linear, 1.0), [20.0, 3.0], "the later of two rows at one time holds from it");
        assert_eq!(at(&linear, 2.0), [10.0, 3.0]);
        assert_eq!(at(&linear, 9.0), [0.0, 3.0]);
        let step = InputTable::parse(text, "in.csv", &info, Interpolation::Step).unwrap();
        assert_eq!(at(&step, 0.5), [0.0, 1.0]);
        assert_eq!(at(&step, 2.9), [20.0, 3.0]);
    }

    #[test]
    fn mistakes_name_file_line_and_column() {
        let info = info();
        let err = |text: &str| InputTable::parse(text, "in.csv", &info, Interpolation::Linear).unwrap_err().to_string();
        let e = err("time,torqe\n0,1\n");
        assert!(e.contains("in.csv, line 1") && e.contains("'torqe'") && e.contains("did you mean 'torque'"), "{e}");
        let e = err("time,mass\n0,1\n");
        assert!(e.contains("not an input") && e.contains("--set"), "{e}");
        let e = err("time,torque\n0,1\n1,x\n");
        assert!(e.contains("line 3") && e.contains("column 'torque'") && e.contains("'x' is not a number"), "{e}");
        let e = err("time,torque\n1,1\n0,1\n");
        assert!(e.contains("line 3") && e.contains("must not decrease"), "{e}");
        let e = err("t,torque\n0,1\n");
        assert!(e.contains("first column must be the time"), "{e}");
        let e = err("time,torque\n");
        assert!(e.contains("no rows"), "{e}");
        let e = err("time,torque,torque\n0,1,1\n");
        assert!(e.contains("two columns"), "{e}");
        let e = err("time,torque\n0,nan\n");
        assert!(e.contains("not a finite number"), "{e}");
    }
}
