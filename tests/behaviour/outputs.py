#!/usr/bin/env python3
"""Records every packaged FMU's outputs through FMPy and compares two such recordings.

A refactoring must not change behaviour: record before, record after, compare.

    python3 tests/behaviour/outputs.py record fmus /tmp/before     # fmus/fmi2, fmus/fmi3
    python3 tests/behaviour/outputs.py record fmus /tmp/after
    python3 tests/behaviour/outputs.py compare /tmp/before /tmp/after

Runs, for each archive of both FMI versions:
- the default experiment (co-simulation, communication step = the DefaultExperiment step);
- every other item of each enumeration parameter `solver.method` and `solver.formulation`
  (each formulation's non-default methods) over the first second of the experiment;
- Model Exchange, where the archive offers it, with FMPy's CVode over the first second.
Every value is written with repr(), so equal files mean bit-identical results. A run that
fails records FMPy's error message instead of the missing rows (a failure must fail alike).
"""

import csv
import os
import sys

import fmpy

SWEEP_SECONDS = 1.0


def enumeration_items(md, name):
    """Codes of the enumeration parameter `name`, or [] (FMI 2 and 3 alike)."""
    var = next((v for v in md.modelVariables if v.name == name), None)
    if var is None or var.declaredType is None:
        return var, []
    return var, [item.value for item in var.declaredType.items]


def runs(path):
    """(label, simulate_fmu keyword arguments) of every run of one archive."""
    md = fmpy.read_model_description(path)
    ex = md.defaultExperiment
    start = float(ex.startTime or 0.0)
    stop = float(ex.stopTime)
    step = float(ex.stepSize or (stop - start) / 500)
    base = dict(start_time=start, output_interval=step)
    yield "default", dict(base, stop_time=stop)
    short = min(stop, start + SWEEP_SECONDS)
    for name in ("solver.method", "solver.formulation"):
        var, items = enumeration_items(md, name)
        default = int(var.start) if var is not None else None
        for code in items:
            if int(code) != default:
                yield f"{name}={code}", dict(base, stop_time=short, start_values={name: int(code)})
    if md.modelExchange is not None:
        yield "model_exchange", dict(base, stop_time=short, fmi_type="ModelExchange")


def record(fmu_root, out_root):
    for version in ("fmi2", "fmi3"):
        folder = os.path.join(fmu_root, version)
        os.makedirs(os.path.join(out_root, version), exist_ok=True)
        for archive in sorted(os.listdir(folder)):
            if not archive.endswith(".fmu"):
                continue
            path = os.path.join(folder, archive)
            model = archive[:-4]
            for label, kwargs in runs(path):
                target = os.path.join(out_root, version, f"{model}.{label}.csv")
                try:
                    result, error = fmpy.simulate_fmu(path, **kwargs), None
                except Exception as e:  # noqa: BLE001 - a failure is a result to compare
                    result, error = None, f"{type(e).__name__}: {e}"
                with open(target, "w", newline="") as f:
                    w = csv.writer(f)
                    if error is not None:
                        w.writerow(["error", error])
                        continue
                    names = result.dtype.names
                    w.writerow(names)
                    for row in result:
                        w.writerow([repr(float(x)) for x in row])
                print(f"{version}/{model} {label}: {'error' if error else len(result)}", flush=True)


def compare(before, after):
    """Exit status 1 if any recording differs; prints the largest difference of each."""
    differing = 0
    files = 0
    for version in ("fmi2", "fmi3"):
        names_a = set(os.listdir(os.path.join(before, version)))
        names_b = set(os.listdir(os.path.join(after, version)))
        for missing in sorted(names_a ^ names_b):
            print(f"{version}/{missing}: only in one recording")
            differing += 1
        for name in sorted(names_a & names_b):
            files += 1
            with open(os.path.join(before, version, name)) as f:
                a = list(csv.reader(f))
            with open(os.path.join(after, version, name)) as f:
                b = list(csv.reader(f))
            if a == b:
                continue
            differing += 1
            if a[0] != b[0] or len(a) != len(b):
                print(f"{version}/{name}: header or length differs: {a[0][:3]} ({len(a)} rows) vs {b[0][:3]} ({len(b)} rows)")
                continue
            worst = (0.0, "", 0.0)
            for ra, rb in zip(a[1:], b[1:]):
                for col, xa, xb in zip(a[0], ra, rb):
                    d = abs(float(xa) - float(xb))
                    if d > worst[0] or (d != d):
                        worst = (d, col, float(xa))
            print(f"{version}/{name}: max |difference| {worst[0]:.3e} in {worst[1]} (value {worst[2]:.6e})")
    print(f"{files} recordings compared, {differing} differ")
    return 1 if differing else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
