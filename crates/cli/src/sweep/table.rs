//! The sweep's tables: the results (one row per run) and the optional time series (one row
//! per run and communication point), written as Parquet or CSV by the file's extension. The
//! files are created before the runs start, so that an unwritable path fails at once.

use super::plan::Plan;
use super::run::RunResult;
use crate::csv::format_float;
use crate::error::{Context, Error, Result};
use crate::modeldesc::Variable;
use std::fs::File;
use std::path::{Path, PathBuf};

/// A column; `Real` cells may be missing (a failed run has no statistics).
pub enum Column {
    Int(Vec<i64>),
    Real { values: Vec<f64>, present: Option<Vec<bool>> },
    Text(Vec<String>),
}

impl Column {
    fn real(values: Vec<f64>) -> Column {
        Column::Real { values, present: None }
    }
}

pub struct Table {
    pub names: Vec<String>,
    pub columns: Vec<Column>,
    pub rows: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Parquet,
    Csv,
}

/// A table file, created (empty) and waiting for its table.
pub struct Sink {
    path: PathBuf,
    format: Format,
    file: File,
}

impl Sink {
    /// Checks the extension and creates the file (and its folder).
    pub fn create(path: &Path, option: &str) -> Result<Sink> {
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let format = match extension.as_deref() {
            Some("parquet") => Format::Parquet,
            Some("csv") => Format::Csv,
            _ => {
                return Err(Error::msg(format!(
                    "{option} {}: the file name must end in .parquet or .csv (the table's format)",
                    path.display()
                )))
            }
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).context(format!("{option}: cannot create {}", dir.display()))?;
        }
        let file = File::create(path).context(format!("{option}: cannot create {}", path.display()))?;
        Ok(Sink { path: path.to_path_buf(), format, file })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn write(self, table: &Table) -> Result<()> {
        let written = match self.format {
            Format::Parquet => super::parquet::write(self.file, table),
            Format::Csv => write_csv(self.file, table),
        };
        written.map_err(|e| e.context(format!("cannot write {}", self.path.display())))
    }
}

/// run, the parameters, status, message, end_time, then per output min, max, mean, final.
pub fn results(plan: &Plan, outputs: &[&Variable], results: &[RunResult]) -> Table {
    let mut names = vec!["run".to_string()];
    let mut columns = vec![Column::Int(results.iter().map(|r| r.index as i64).collect())];
    for (j, var) in plan.variables.iter().enumerate() {
        names.push(var.name.clone());
        columns.push(Column::real(results.iter().map(|r| plan.row(r.index)[j]).collect()));
    }
    names.extend(["status", "message", "end_time"].map(String::from));
    columns.push(Column::Text(results.iter().map(|r| r.status.label().to_string()).collect()));
    columns.push(Column::Text(results.iter().map(|r| r.message.clone()).collect()));
    columns.push(Column::real(results.iter().map(|r| r.end_time).collect()));
    let present: Vec<bool> = results.iter().map(|r| r.stats.is_some()).collect();
    for (k, var) in outputs.iter().enumerate() {
        type Pick = fn(&super::run::Stats) -> f64;
        let picks: [(&str, Pick); 4] =
            [("min", |s| s.min), ("max", |s| s.max), ("mean", |s| s.mean()), ("final", |s| s.last)];
        for (suffix, pick) in picks {
            names.push(format!("{}:{suffix}", var.name));
            let values = results.iter().map(|r| r.stats.as_ref().map_or(f64::NAN, |s| pick(&s[k]))).collect();
            columns.push(Column::Real { values, present: Some(present.clone()) });
        }
    }
    Table { names, columns, rows: results.len() }
}

/// run, time, then the outputs: the series of every run, in run order.
pub fn series(time_name: &str, outputs: &[&Variable], results: &[RunResult]) -> Table {
    let width = outputs.len() + 1;
    let rows: usize = results.iter().map(|r| r.series.len() / width).sum();
    let mut run = Vec::with_capacity(rows);
    let mut columns: Vec<Vec<f64>> = vec![Vec::with_capacity(rows); width];
    for r in results {
        for point in r.series.chunks_exact(width) {
            run.push(r.index as i64);
            for (column, &x) in columns.iter_mut().zip(point) {
                column.push(x);
            }
        }
    }
    let mut names = vec!["run".to_string(), time_name.to_string()];
    names.extend(outputs.iter().map(|v| v.name.clone()));
    let mut all = vec![Column::Int(run)];
    all.extend(columns.into_iter().map(Column::real));
    Table { names, columns: all, rows }
}

/// The shortest text that reads back as x, with the sign of a negative zero kept (a value of
/// -0.0 is the FMU's, and the CSV table holds the same bits as the Parquet one).
fn number(x: f64) -> String {
    if x == 0.0 && x.is_sign_negative() {
        "-0".to_string()
    } else {
        format_float(x)
    }
}

/// RFC 4180 CSV with a header; floats in their shortest round-trip form, missing cells empty.
fn write_csv(file: File, table: &Table) -> Result<()> {
    let mut out = ::csv::Writer::from_writer(std::io::BufWriter::new(file));
    out.write_record(&table.names).context("CSV")?;
    let mut cells: Vec<String> = Vec::with_capacity(table.columns.len());
    for i in 0..table.rows {
        cells.clear();
        cells.extend(table.columns.iter().map(|column| match column {
            Column::Int(v) => v[i].to_string(),
            Column::Real { present: Some(p), .. } if !p[i] => String::new(),
            Column::Real { values, .. } => number(values[i]),
            Column::Text(v) => v[i].clone(),
        }));
        out.write_record(&cells).context("CSV")?;
    }
    out.flush().context("CSV")
}
