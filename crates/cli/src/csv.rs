//! CSV output: a header row of variable names, then one row per communication point.
//! Floats are written in their shortest round-trip form, so the file holds exactly the
//! values the FMU returned.

use crate::error::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub struct CsvWriter {
    out: BufWriter<File>,
    path: PathBuf,
    /// Columns written as integers (Integer, Boolean, Enumeration variables).
    integer: Vec<bool>,
    pub rows: usize,
}

impl CsvWriter {
    /// `header` includes the time column; `integer` flags the data columns after it.
    pub fn create(path: &Path, header: &[&str], integer: Vec<bool>) -> Result<CsvWriter> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).context(format!("cannot create {}", dir.display()))?;
        }
        let file = File::create(path).context(format!("cannot create {}", path.display()))?;
        let mut writer = CsvWriter { out: BufWriter::new(file), path: path.to_path_buf(), integer, rows: 0 };
        let line: Vec<String> = header.iter().map(|h| quote(h)).collect();
        writer.line(&line.join(","))?;
        Ok(writer)
    }

    pub fn row(&mut self, time: f64, values: &[f64]) -> Result<()> {
        let mut line = format_float(time);
        for (value, &integer) in values.iter().zip(&self.integer) {
            line.push(',');
            if integer && value.is_finite() {
                line.push_str(&(*value as i64).to_string());
            } else {
                line.push_str(&format_float(*value));
            }
        }
        self.line(&line)?;
        self.rows += 1;
        Ok(())
    }

    pub fn finish(mut self) -> Result<()> {
        self.out.flush().context(format!("cannot write {}", self.path.display()))
    }

    fn line(&mut self, line: &str) -> Result<()> {
        writeln!(self.out, "{line}").context(format!("cannot write {}", self.path.display()))
    }
}

/// Shortest representation that parses back to the same f64; exponent form only for very
/// large or small magnitudes (Rust's `{}` would print 1e300 with 300 digits).
pub fn format_float(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 {
        "0".to_string()
    } else if !x.is_finite() || (1e-5..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// RFC 4180 quoting for names that contain a comma, quote or line break.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_round_trip_in_short_form() {
        for x in [0.1, 0.07, 1.0 / 3.0, -2.5e-7, 6.02e23, 123456.789, f64::MIN_POSITIVE] {
            let s = format_float(x);
            assert_eq!(s.parse::<f64>().unwrap(), x, "{s}");
            assert!(s.len() < 26, "{s}");
        }
        assert_eq!(format_float(0.07), "0.07");
        assert_eq!(format_float(8.0), "8");
        assert_eq!(format_float(1e-10), "1e-10");
        assert_eq!(format_float(f64::NAN), "NaN");
    }

    #[test]
    fn writes_header_and_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        let mut w = CsvWriter::create(&path, &["time", "x[1,2]", "n"], vec![false, true]).unwrap();
        w.row(0.5, &[1.25, 3.0]).unwrap();
        w.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "time,\"x[1,2]\",n\n0.5,1.25,3\n");
    }
}
