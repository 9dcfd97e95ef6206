//! The parameter sets of a sweep, from a CSV file, a full grid or random samples, each value
//! checked against the model description (settable, numeric, within min and max) before any
//! run starts.

use super::sampling::Draws;
use crate::args::SweepArgs;
use crate::error::{Context, Error, Result};
use crate::fmu::Value;
use crate::modeldesc::{ModelInfo, VarType, Variable};
use crate::simulate::{integer_range, parse_value, unknown_variable};
use std::path::Path;

/// More runs than this is almost certainly a mistake in --grid or --samples.
const MAX_RUNS: usize = 100_000_000;

/// The swept parameters and their values, one row per run.
pub struct Plan<'a> {
    pub variables: Vec<&'a Variable>,
    /// Row-major: run r's value of variable j is `values[r * variables.len() + j]`.
    values: Vec<f64>,
}

impl<'a> Plan<'a> {
    /// The plan that the options of `args` describe.
    pub fn from_args(args: &SweepArgs, info: &'a ModelInfo) -> Result<Plan<'a>> {
        if let Some(path) = &args.parameters {
            return Plan::from_csv_file(path, info);
        }
        if !args.grid.is_empty() {
            return Plan::grid(&args.grid, info);
        }
        if let Some(n) = args.samples {
            return Plan::samples(n, &args.uniform, &args.normal, args.seed, info);
        }
        Err(Error::msg("no parameter sets: give --parameters FILE.csv, --grid NAME=START:STOP:COUNT or --samples N"))
    }

    pub fn runs(&self) -> usize {
        self.values.len().checked_div(self.variables.len()).unwrap_or(0)
    }

    /// Run r's parameter values, in the order of `variables`.
    pub fn row(&self, r: usize) -> &[f64] {
        let n = self.variables.len();
        &self.values[r * n..(r + 1) * n]
    }

    /// The values of variable j over all runs.
    #[cfg(test)]
    pub fn column(&self, j: usize) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().skip(j).step_by(self.variables.len()).copied()
    }

    fn from_csv_file(path: &Path, info: &'a ModelInfo) -> Result<Plan<'a>> {
        let text = std::fs::read_to_string(path).context(format!("--parameters {}", path.display()))?;
        Plan::from_csv(&text, &path.display().to_string(), info)
    }

    /// A header of variable names, then one row of values per run.
    pub fn from_csv(text: &str, file: &str, info: &'a ModelInfo) -> Result<Plan<'a>> {
        let fail = |line: u64, what: String| Error::msg(format!("--parameters {file}, line {line}: {what}"));
        let mut reader =
            ::csv::ReaderBuilder::new().trim(::csv::Trim::All).comment(Some(b'#')).from_reader(text.as_bytes());
        let header = reader.headers().map_err(|e| fail(1, e.to_string()))?.clone();
        let variables = header
            .iter()
            .map(|name| parameter(info, name, "--parameters").map_err(|e| fail(1, e.to_string())))
            .collect::<Result<Vec<_>>>()?;
        let mut plan = Plan::new(variables, "--parameters").map_err(|e| fail(1, e.to_string()))?;
        for record in reader.records() {
            let record = record.map_err(|e| fail(e.position().map_or(0, |p| p.line()), e.to_string()))?;
            let line = record.position().map_or(0, |p| p.line());
            for (j, cell) in record.iter().enumerate() {
                let var = plan.variables[j];
                let origin = format!("--parameters {file}, line {line}:");
                let value = number(&parse_value(info, var, cell, &origin)?);
                check_value(info, var, value).map_err(|why| fail(line, format!("{} = {cell}: {why}", var.name)))?;
                plan.values.push(value);
            }
        }
        if plan.runs() == 0 {
            return Err(fail(2, "no rows (one row of values per run)".into()));
        }
        Ok(plan)
    }

    /// Every combination of the --grid axes, the first varying slowest.
    pub fn grid(axes: &[(String, String)], info: &'a ModelInfo) -> Result<Plan<'a>> {
        let mut variables = Vec::new();
        let mut points: Vec<Vec<f64>> = Vec::new();
        for (name, spec) in axes {
            let var = parameter(info, name, "--grid")?;
            let values = grid_values(spec).map_err(|why| Error::msg(format!("--grid {name}={spec}: {why}")))?;
            for &x in &values {
                check_value(info, var, x).map_err(|why| Error::msg(format!("--grid {name}={spec}: {x}: {why}")))?;
            }
            variables.push(var);
            points.push(values);
        }
        let runs = points.iter().try_fold(1usize, |n, p| n.checked_mul(p.len()).filter(|n| *n <= MAX_RUNS));
        let runs = runs.ok_or_else(|| Error::msg(format!("the --grid has more than {MAX_RUNS} combinations")))?;
        let mut plan = Plan::new(variables, "--grid")?;
        plan.values.reserve(runs * points.len());
        for r in 0..runs {
            // Mixed-radix digits of r, the last axis fastest.
            let mut rest = r;
            let mut row = vec![0.0; points.len()];
            for (j, axis) in points.iter().enumerate().rev() {
                row[j] = axis[rest % axis.len()];
                rest /= axis.len();
            }
            plan.values.extend(row);
        }
        Ok(plan)
    }

    /// `n` sets drawn with seed `seed`: --uniform parameters first, then --normal ones.
    pub fn samples(
        n: usize,
        uniform: &[(String, String)],
        normal: &[(String, String)],
        seed: u64,
        info: &'a ModelInfo,
    ) -> Result<Plan<'a>> {
        if n == 0 || n > MAX_RUNS {
            return Err(Error::msg(format!("--samples {n}: give between 1 and {MAX_RUNS} samples")));
        }
        let mut laws = Vec::new();
        for (option, list, uniform) in [("--uniform", uniform, true), ("--normal", normal, false)] {
            for (name, spec) in list {
                let var = parameter(info, name, option)?;
                if !matches!(var.ty, VarType::Float64 | VarType::Float32) {
                    return Err(Error::msg(format!(
                        "{option} {name}: only Float parameters can be drawn at random; {name} is {}",
                        var.ty.name()
                    )));
                }
                let bad = |why: &str| Error::msg(format!("{option} {name}={spec}: {why}"));
                let [a, b] = numbers(spec).map_err(|why| bad(&why))?;
                if uniform {
                    if a > b {
                        return Err(bad("LOW must not be greater than HIGH"));
                    }
                    for x in [a, b] {
                        check_value(info, var, x).map_err(|why| bad(&format!("{x}: {why}")))?;
                    }
                } else if b < 0.0 {
                    return Err(bad("the standard deviation SD must not be negative"));
                }
                laws.push((var, option, uniform, a, b));
            }
        }
        if laws.is_empty() {
            return Err(Error::msg("--samples needs at least one --uniform NAME=LOW:HIGH or --normal NAME=MEAN:SD"));
        }
        let mut plan = Plan::new(laws.iter().map(|l| l.0).collect(), "--uniform/--normal")?;
        let mut draws = Draws::new(seed);
        for r in 0..n {
            for &(var, option, uniform, a, b) in &laws {
                let x = if uniform { draws.uniform(a, b) } else { draws.normal(a, b) };
                check_value(info, var, x).map_err(|why| {
                    Error::msg(format!(
                        "{option} {}: sample {r} (seed {seed}) is {x}, which {why}; narrow the distribution",
                        var.name
                    ))
                })?;
                plan.values.push(x);
            }
        }
        Ok(plan)
    }

    fn new(variables: Vec<&'a Variable>, option: &str) -> Result<Plan<'a>> {
        for (j, var) in variables.iter().enumerate() {
            if variables[..j].iter().any(|v| v.vr == var.vr && v.ty == var.ty) {
                return Err(Error::msg(format!("{option}: the parameter '{}' is given twice", var.name)));
            }
        }
        Ok(Plan { variables, values: Vec::new() })
    }
}

/// The variable `name`, if a sweep can set it: a settable numeric scalar.
fn parameter<'a>(info: &'a ModelInfo, name: &str, option: &str) -> Result<&'a Variable> {
    let var = info.variable(name).ok_or_else(|| unknown_variable(info, name, option, |v| v.settable().is_ok()))?;
    var.settable().map_err(|why| Error::msg(format!("{option} {name}: cannot set '{name}' before a run: {why}")))?;
    if var.is_array || !var.ty.is_numeric() {
        return Err(Error::msg(format!(
            "{option} {name}: only numeric scalar variables can be swept; {name} is {}{}",
            var.ty.name(),
            if var.is_array { " array" } else { "" }
        )));
    }
    Ok(var)
}

/// Why `x` is not a value of `var`: not finite, not whole for an integer type, not an
/// enumeration item, or outside min/max.
fn check_value(info: &ModelInfo, var: &Variable, x: f64) -> std::result::Result<(), String> {
    if !x.is_finite() {
        return Err("is not a finite number".into());
    }
    let items = info.enum_items(var);
    match var.ty {
        VarType::Float64 | VarType::Float32 => {}
        VarType::Boolean if x != 0.0 && x != 1.0 => return Err("a Boolean takes 0 or 1".into()),
        VarType::Enumeration if !items.is_empty() && !items.iter().any(|i| i.value as f64 == x) => {
            let listing: Vec<String> = items.iter().map(|i| format!("{} ({})", i.name, i.value)).collect();
            return Err(format!("is not an item of the enumeration; items: {}", listing.join(", ")));
        }
        VarType::Enumeration if !items.is_empty() => {}
        // Whole numbers up to 2^53 are exact in the table's Float64 columns.
        _ if x.fract() != 0.0 || x.abs() > 2f64.powi(53) => {
            return Err(format!("a {} takes whole numbers (up to 2^53)", var.ty.name()))
        }
        ty => {
            let (lo, hi) = integer_range(ty);
            if x < lo as f64 || x > hi as f64 {
                return Err(format!("is out of range for {} ({lo} .. {hi})", ty.name()));
            }
        }
    }
    if let Some(min) = var.min.filter(|min| x < *min) {
        return Err(format!("is below the minimum of {} ({min})", var.name));
    }
    if let Some(max) = var.max.filter(|max| x > *max) {
        return Err(format!("is above the maximum of {} ({max})", var.name));
    }
    Ok(())
}

/// A checked plan value as the variable's kind.
pub fn value_of(var: &Variable, x: f64) -> Value {
    match var.ty {
        VarType::Float64 | VarType::Float32 => Value::Real(x),
        VarType::Boolean => Value::Bool(x != 0.0),
        _ => Value::Int(x as i64),
    }
}

/// A --set or CSV value as a table number (strings never get here: they are not swept).
fn number(value: &Value) -> f64 {
    match value {
        Value::Real(x) => *x,
        Value::Int(n) => *n as f64,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Str(_) => f64::NAN,
    }
}

/// "A:B" -> [A, B].
fn numbers(spec: &str) -> std::result::Result<[f64; 2], String> {
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let parsed: Vec<f64> = parts.iter().filter_map(|p| p.parse().ok()).collect();
    match parsed.as_slice() {
        [a, b] if parts.len() == 2 && a.is_finite() && b.is_finite() => Ok([*a, *b]),
        _ => Err("expected two finite numbers separated by ':'".into()),
    }
}

/// "START:STOP:COUNT" -> COUNT evenly spaced values, START + i (STOP - START) / (COUNT - 1),
/// the last exactly STOP.
fn grid_values(spec: &str) -> std::result::Result<Vec<f64>, String> {
    let malformed = || "expected START:STOP:COUNT (two numbers and a whole count, e.g. 1e9:2e9:5)".to_string();
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let [start, stop, count] = parts.as_slice() else { return Err(malformed()) };
    let (start, stop): (f64, f64) = (start.parse().map_err(|_| malformed())?, stop.parse().map_err(|_| malformed())?);
    let count: usize = count.parse().map_err(|_| malformed())?;
    if !start.is_finite() || !stop.is_finite() {
        return Err("START and STOP must be finite numbers".into());
    }
    match count {
        0 => Err("COUNT must be at least 1".into()),
        1 if start != stop => {
            Err("one value between two different ends is ambiguous: COUNT >= 2, or START = STOP".into())
        }
        1 => Ok(vec![start]),
        _ if count > MAX_RUNS => Err(format!("COUNT must be at most {MAX_RUNS}")),
        _ => {
            let step = (stop - start) / (count - 1) as f64;
            Ok((0..count).map(|i| if i == count - 1 { stop } else { start + i as f64 * step }).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ModelInfo {
        let xml = r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="x">
  <CoSimulation modelIdentifier="M"/>
  <TypeDefinitions><EnumerationType name="E"><Item name="a" value="1"/><Item name="b" value="3"/></EnumerationType></TypeDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="k" valueReference="1" causality="parameter" variability="fixed" start="1" min="0.5" max="4"/>
    <Int32 name="n" valueReference="2" causality="parameter" variability="fixed" start="2" min="1"/>
    <Enumeration name="e" valueReference="3" causality="parameter" variability="fixed" declaredType="E" start="1"/>
    <Float64 name="y" valueReference="4" causality="output" variability="continuous"/>
    <Float64 name="c" valueReference="5" causality="parameter" variability="constant" start="1"/>
  </ModelVariables>
</fmiModelDescription>"#;
        crate::modeldesc::parse(xml).unwrap()
    }

    fn rows(plan: &Plan) -> Vec<Vec<f64>> {
        (0..plan.runs()).map(|r| plan.row(r).to_vec()).collect()
    }

    fn axes(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn grid_is_every_combination_with_exact_ends() {
        let info = info();
        let plan = Plan::grid(&axes(&[("k", "1:2:3"), ("n", "1:2:2")]), &info).unwrap();
        assert_eq!(rows(&plan), [[1.0, 1.0], [1.0, 2.0], [1.5, 1.0], [1.5, 2.0], [2.0, 1.0], [2.0, 2.0]]);
        assert_eq!(plan.column(1).collect::<Vec<_>>(), [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
        // 0.1 + 2 * (0.3 - 0.1) / 2 would be 0.30000000000000004; the last value is STOP.
        assert_eq!(grid_values("0.1:0.3:3").unwrap()[2], 0.3);
        assert_eq!(grid_values("2:2:1").unwrap(), [2.0]);
    }

    #[test]
    fn bad_grids_fail_with_the_reason() {
        let info = info();
        let err = |list: &[(&str, &str)]| Plan::grid(&axes(list), &info).err().unwrap().to_string();
        assert!(err(&[("k", "1:2")]).contains("expected START:STOP:COUNT"));
        assert!(err(&[("k", "1:2:x")]).contains("expected START:STOP:COUNT"));
        assert!(err(&[("k", "1:2:0")]).contains("at least 1"));
        assert!(err(&[("k", "1:2:1")]).contains("ambiguous"));
        let e = err(&[("k", "0.1:2:3")]);
        assert!(e.contains("below the minimum of k (0.5)"), "{e}");
        assert!(err(&[("k", "1:5:2")]).contains("above the maximum"));
        assert!(err(&[("n", "1:2:3")]).contains("whole numbers"), "1.5 is not an Int32");
        let e = err(&[("kk", "1:2:2")]);
        assert!(e.contains("unknown variable 'kk' in --grid"), "{e}");
        assert!(err(&[("y", "1:2:2")]).contains("cannot set 'y'"));
        assert!(err(&[("c", "1:2:2")]).contains("constant"));
        assert!(err(&[("k", "1:2:2"), ("k", "1:3:2")]).contains("given twice"));
        assert!(err(&[("e", "1:3:3")]).contains("not an item"), "2 is not an item of E");
        assert!(err(&[("n", "1:3e9:2")]).contains("out of range for Int32"), "3e9 is not an Int32");
    }

    #[test]
    fn csv_rows_take_numbers_and_item_names() {
        let info = info();
        let plan = Plan::from_csv("k, e\n# comment\n1.5, b\n2, 1\n", "p.csv", &info).unwrap();
        assert_eq!(rows(&plan), [[1.5, 3.0], [2.0, 1.0]]);
        let err = |text: &str| Plan::from_csv(text, "p.csv", &info).err().unwrap().to_string();
        let e = err("k\n0.1\n");
        assert!(e.contains("p.csv, line 2") && e.contains("below the minimum"), "{e}");
        let e = err("k,n\n1,x\n");
        assert!(e.contains("line 2") && e.contains("n expects an integer"), "{e}");
        assert!(err("k,n\n1\n").contains("line 2"), "a short row");
        assert!(err("k\n").contains("no rows"));
        assert!(err("q\n1\n").contains("unknown variable 'q'"));
    }

    #[test]
    fn samples_follow_the_seed_and_stay_within_bounds() {
        let info = info();
        let uniform = axes(&[("k", "1:3")]);
        let a = Plan::samples(50, &uniform, &[], 3, &info).unwrap();
        let b = Plan::samples(10, &uniform, &[], 3, &info).unwrap();
        assert_eq!(rows(&a)[..10], rows(&b)[..], "a prefix of a longer sample is the shorter sample");
        assert!(a.column(0).all(|x| (1.0..=3.0).contains(&x)));
        assert_ne!(rows(&a), rows(&Plan::samples(50, &uniform, &[], 4, &info).unwrap()));
        let e = Plan::samples(1000, &[], &axes(&[("k", "1:2")]), 1, &info).err().unwrap().to_string();
        assert!(e.contains("--normal k: sample") && e.contains("narrow the distribution"), "{e}");
        let e = Plan::samples(5, &axes(&[("k", "0:1")]), &[], 1, &info).err().unwrap().to_string();
        assert!(e.contains("below the minimum"), "{e}");
        let e = Plan::samples(5, &axes(&[("n", "1:3")]), &[], 1, &info).err().unwrap().to_string();
        assert!(e.contains("only Float parameters"), "{e}");
        assert!(Plan::samples(5, &[], &[], 1, &info).is_err());
        assert!(Plan::samples(0, &uniform, &[], 1, &info).is_err());
        assert!(Plan::samples(5, &axes(&[("k", "2:1")]), &[], 1, &info).is_err());
    }
}
