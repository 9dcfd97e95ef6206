//! What the sweep tests share: the catalog packaged once, running `mbfmu`, and the results
//! tables read back (Parquet through the `parquet` crate's record reader, CSV as text).

#![allow(dead_code)]

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn mbfmu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbfmu")).args(args).output().expect("the mbfmu binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs mbfmu and requires success; returns stdout.
pub fn ok(args: &[&str]) -> String {
    let out = mbfmu(args);
    assert!(out.status.success(), "mbfmu {args:?} failed:\n{}{}", text(&out.stdout), text(&out.stderr));
    text(&out.stdout)
}

/// The catalog packaged once per test binary: <dir>/fmus/fmi{2,3}/<Model>.fmu.
pub fn packaged() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = crate::scratch::dir("sweep-catalog");
        let out = dir.join("fmus");
        let md = dir.join("modelDescription");
        ok(&["package", "--out", out.to_str().unwrap(), "--model-descriptions", md.to_str().unwrap()]);
        dir
    })
}

pub fn fmu(version: u32, model: &str) -> PathBuf {
    packaged().join(format!("fmus/fmi{version}/{model}.fmu"))
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A table read back: column names and rows of cells.
pub struct Table {
    pub names: Vec<String>,
    pub rows: Vec<Vec<Field>>,
}

impl Table {
    pub fn column(&self, name: &str) -> usize {
        self.names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no column {name} in {:?}", self.names))
    }

    pub fn real(&self, row: usize, name: &str) -> Option<f64> {
        match &self.rows[row][self.column(name)] {
            Field::Double(x) => Some(*x),
            Field::Null => None,
            other => panic!("{name}: not a double: {other:?}"),
        }
    }

    pub fn text(&self, row: usize, name: &str) -> String {
        match &self.rows[row][self.column(name)] {
            Field::Str(s) => s.clone(),
            other => panic!("{name}: not a string: {other:?}"),
        }
    }

    pub fn long(&self, row: usize, name: &str) -> i64 {
        match &self.rows[row][self.column(name)] {
            Field::Long(n) => *n,
            other => panic!("{name}: not an int64: {other:?}"),
        }
    }
}

pub fn read_parquet(path: &Path) -> Table {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let reader = SerializedFileReader::new(file).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let names =
        reader.metadata().file_metadata().schema_descr().columns().iter().map(|c| c.name().to_string()).collect();
    let rows = reader
        .get_row_iter(None)
        .unwrap()
        .map(|row| row.unwrap().get_column_iter().map(|(_, field)| field.clone()).collect())
        .collect();
    Table { names, rows }
}

/// Cells equal bit for bit (a NaN equals the same NaN; 0.0 and -0.0 differ).
pub fn same_cell(a: &Field, b: &Field) -> bool {
    match (a, b) {
        (Field::Double(x), Field::Double(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Asserts two tables equal bit for bit, naming the first difference.
pub fn assert_same_table(a: &Table, b: &Table, what: &str) {
    assert_eq!(a.names, b.names, "{what}: columns");
    assert_eq!(a.rows.len(), b.rows.len(), "{what}: rows");
    for (i, (ra, rb)) in a.rows.iter().zip(&b.rows).enumerate() {
        for (j, (x, y)) in ra.iter().zip(rb).enumerate() {
            assert!(same_cell(x, y), "{what}: row {i}, column {}: {x:?} != {y:?}", a.names[j]);
        }
    }
}
