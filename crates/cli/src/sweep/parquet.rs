//! Parquet output through the `parquet` crate's file layer: a flat schema of INT64, DOUBLE
//! and UTF-8 columns (DOUBLE optional where a cell may be missing), uncompressed, written in
//! row groups of at most ROW_GROUP rows. pandas, polars and pyarrow read it as it is.

use super::table::{Column, Table};
use crate::error::{Error, Result};
use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::fs::File;
use std::sync::Arc;

/// Rows per row group: bounds the writer's memory for long time series.
const ROW_GROUP: usize = 1 << 20;

fn error(e: parquet::errors::ParquetError) -> Error {
    Error::msg(format!("Parquet: {e}"))
}

fn schema(table: &Table) -> Result<Type> {
    let fields = table
        .names
        .iter()
        .zip(&table.columns)
        .map(|(name, column)| {
            let (physical, repetition, logical) = match column {
                Column::Int(_) => (Physical::INT64, Repetition::REQUIRED, None),
                Column::Real { present: None, .. } => (Physical::DOUBLE, Repetition::REQUIRED, None),
                Column::Real { present: Some(_), .. } => (Physical::DOUBLE, Repetition::OPTIONAL, None),
                Column::Text(_) => (Physical::BYTE_ARRAY, Repetition::REQUIRED, Some(LogicalType::String)),
            };
            Type::primitive_type_builder(name, physical)
                .with_repetition(repetition)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
                .map_err(error)
        })
        .collect::<Result<Vec<_>>>()?;
    Type::group_type_builder("sweep").with_fields(fields).build().map_err(error)
}

pub fn write(file: File, table: &Table) -> Result<()> {
    let properties = Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(file, Arc::new(schema(table)?), properties).map_err(error)?;
    let mut first = 0;
    // An empty table still gets its schema (and no row group).
    while first < table.rows {
        let rows = first..(first + ROW_GROUP).min(table.rows);
        let mut group = writer.next_row_group().map_err(error)?;
        let mut columns = table.columns.iter();
        while let Some(mut out) = group.next_column().map_err(error)? {
            let column = columns.next().expect("one writer per schema column");
            match column {
                Column::Int(v) => out.typed::<Int64Type>().write_batch(&v[rows.clone()], None, None),
                Column::Real { values, present: None } => {
                    out.typed::<DoubleType>().write_batch(&values[rows.clone()], None, None)
                }
                Column::Real { values, present: Some(present) } => {
                    // Definition level 1: the cell is there; only present values are written.
                    let levels: Vec<i16> = present[rows.clone()].iter().map(|&p| i16::from(p)).collect();
                    let kept: Vec<f64> = rows.clone().filter(|&i| present[i]).map(|i| values[i]).collect();
                    out.typed::<DoubleType>().write_batch(&kept, Some(&levels), None)
                }
                Column::Text(v) => {
                    let bytes: Vec<ByteArray> = v[rows.clone()].iter().map(|s| ByteArray::from(s.as_str())).collect();
                    out.typed::<ByteArrayType>().write_batch(&bytes, None, None)
                }
            }
            .map_err(error)?;
            out.close().map_err(error)?;
        }
        group.close().map_err(error)?;
        first = rows.end;
    }
    writer.close().map_err(error)?;
    Ok(())
}
