"""The results and series tables in the Rust command's format (crates/cli/src/sweep/table.rs):
run (int64), the parameters (double), status and message (string), end_time (double), then
<output>:min, :max, :mean, :final (double, null for a failed run); the series: run, time and the
outputs. Parquet through pyarrow, or CSV with floats written as the Rust command writes them."""

import csv
import os
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

STATS = ("min", "max", "mean", "final")


def format_float(x):
    """The shortest representation that reads back as x, positional from 1e-5 to 1e16 and in
    exponent form outside (0, -0, 8, 0.07, 1e-10, 6.02e23), like the Rust command's CSV."""
    if x == 0.0:
        return "-0" if str(x).startswith("-") else "0"
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    if 1e-5 <= abs(x) < 1e16:
        text = format(Decimal(repr(x)), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa, _, exponent = f"{Decimal(repr(x)).normalize():E}".partition("E")
    return f"{mantissa.lower()}e{int(exponent)}"


def results_table(plan, output_names, results):
    """One row per finished run, in plan order."""
    results = sorted(results, key=lambda r: r["run"])
    fields, columns = [pa.field("run", pa.int64(), nullable=False)], [[r["run"] for r in results]]
    for j, var in enumerate(plan.variables):
        fields.append(pa.field(var.name, pa.float64(), nullable=False))
        columns.append([plan.rows[r["run"]][j] for r in results])
    fields += [
        pa.field("status", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
        pa.field("end_time", pa.float64(), nullable=False),
    ]
    columns += [[r["status"] for r in results], [r["message"] for r in results], [r["end_time"] for r in results]]
    for k, name in enumerate(output_names):
        for s, suffix in enumerate(STATS):
            fields.append(pa.field(f"{name}:{suffix}", pa.float64(), nullable=True))
            columns.append([None if r["stats"] is None else r["stats"][k][s] for r in results])
    schema = pa.schema(fields)
    return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(columns, fields)], schema=schema)


def series_table(time_name, output_names, results):
    """run, time, then the outputs: every run's communication points, in run order."""
    width = len(output_names) + 1
    run, columns = [], [[] for _ in range(width)]
    for r in sorted(results, key=lambda r: r["run"]):
        series = r["series"]
        for start in range(0, len(series), width):
            run.append(r["run"])
            for c in range(width):
                columns[c].append(series[start + c])
    fields = [pa.field("run", pa.int64(), nullable=False), pa.field(time_name, pa.float64(), nullable=False)]
    fields += [pa.field(name, pa.float64(), nullable=False) for name in output_names]
    arrays = [pa.array(run, type=pa.int64())] + [pa.array(c, type=pa.float64()) for c in columns]
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def check_path(path, option):
    """Fails before any run if the table cannot be written there (and creates the file)."""
    extension = os.path.splitext(path)[1].lower()
    if extension not in (".parquet", ".csv"):
        raise ValueError(f"{option} {path}: the file name must end in .parquet or .csv (the table's format)")
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb"):
        pass


def write(table, path):
    if path.lower().endswith(".parquet"):
        pq.write_table(table, path, compression="none")
        return
    with open(path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(table.column_names)
        columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
        types = [field.type for field in table.schema]
        for i in range(table.num_rows):
            row = []
            for column, kind in zip(columns, types):
                x = column[i]
                row.append("" if x is None else format_float(x) if pa.types.is_floating(kind) else str(x))
            out.writerow(row)
