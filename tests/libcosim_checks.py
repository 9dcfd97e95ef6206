#!/usr/bin/env python3
"""libcosim (through libcosimpy) against FMPy on the packaged FMI 2.0 FMUs (run by tests/libcosim.rs).

Usage:
  python3 tests/libcosim_checks.py catalog <dir>     every <dir>/fmi2/*.fmu
  python3 tests/libcosim_checks.py split <dir> <step_ns>...

catalog: for every FMU, its DefaultExperiment (from t = 0: libcosimpy 0.0.6 creates
executions at t = 0 only) is run
  1. by libcosim, one execution per FMU with a fixed step of stepSize in integer nanoseconds,
     reading every Real output after every step;
  2. by FMPy's FMU2Slave at libcosim's communication points: t_k = k * step_ns / 1e9 and
     h_k = t_(k+1) - t_k (libcosim keeps time in integer nanoseconds and converts each point to
     a double); required: bit-identical outputs at every step;
  3. by FMPy's simulate_fmu at the same step (its points are start + k * h); the largest
     difference relative to each output's range (at least 1 in the output's unit) is
     reported (the points differ by ulps).
  Prints one line per FMU: "ok <name> steps=<n> simulate_fmu_rel=<d> libcosim_s=<t> fmpy_s=<t>".

split: HydraulicFourBarMechanism and HydraulicFourBarDrive coupled by libcosim
(connect_real_variables) at each step (in ns) over the 10 s work cycle, against the monolithic
HydraulicFourBar run by libcosim at 0.04 s: prints "split <step_ns> <max |angle error|>".

Exit status: 0 all passed, 1 a check failed, 2 usage error, 3 a package is missing.
"""

import glob
import math
import os
import shutil
import struct
import sys
import time

try:
    from fmpy import read_model_description, extract, simulate_fmu
    from fmpy.fmi2 import FMU2Slave
    from libcosimpy import CosimConstants
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimSlave import CosimLocalSlave
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimLogging import log_output_level, CosimLogLevel
except ImportError as e:  # reported as such by tests/libcosim.rs
    print(f"a Python package is missing ({e}); .ci/run installs fmpy and libcosimpy into .venv", file=sys.stderr)
    sys.exit(3)

log_output_level(CosimLogLevel.ERROR)
ANGLES = ["O.angle", "C.angle", "D.angle"]


def real_outputs(md):
    return [v for v in md.modelVariables if v.causality == "output" and v.type == "Real"]


def quaternion_groups(outputs):
    """Indices of the first of every four consecutive outputs <x>.orientation.e0 .. e3."""
    names = [v.name for v in outputs]
    return [i for i, n in enumerate(names[:-3])
            if n.endswith(".orientation.e0")
            and names[i + 1:i + 4] == [n[:-1] + c for c in "123"]]


def libcosim_run(fmus, step_ns, steps, connections=(), sample_every=1, read=None):
    """Runs the FMUs ({instance name: path}) for `steps` steps of step_ns with the given
    connections ((out instance, out variable, in instance, in variable)); returns, after every
    `sample_every`-th step, the values of `read` ([(instance, variable)])."""
    # Step sizes are integers in nanoseconds (a float would make a broken execution).
    execution = CosimExecution.from_step_size(int(step_ns))
    index = {}
    for name, path in fmus.items():
        index[name] = execution.add_local_slave(CosimLocalSlave(fmu_path=path, instance_name=name))
        if index[name] < 0:
            raise AssertionError(f"libcosim cannot load {path}")
    refs = {name: {v.name.decode(): v.reference for v in execution.slave_variables(i)} for name, i in index.items()}
    for a, out, b, inp in connections:
        # Returns libcosimc's status code, not a Boolean.
        if execution.connect_real_variables(index[a], refs[a][out], index[b], refs[b][inp]) != CosimConstants.success:
            raise AssertionError(f"libcosim cannot connect {a}.{out} to {b}.{inp}")
    observer = CosimObserver.create_last_value()
    execution.add_observer(observer)
    groups = {}
    for name, variable in read:
        groups.setdefault(name, []).append(refs[name][variable])
    rows = []
    done = 0
    while done < steps:
        n = min(sample_every, steps - done)
        if not execution.step(n):
            raise AssertionError(f"libcosim step failed after {done} steps: {execution.status()}")
        done += n
        row = []
        for name, vrs in groups.items():
            row += observer.last_real_values(index[name], vrs)
        rows.append(row)
    return rows


def fmpy_at_libcosim_points(path, md, step_ns, steps, outputs):
    """FMU2Slave stepped at libcosim's double communication points."""
    unzipdir = extract(path)
    try:
        fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzipdir, modelIdentifier=md.coSimulation.modelIdentifier,
                        instanceName="fmpy")
        fmu.instantiate()
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        vrs = [v.valueReference for v in outputs]
        rows = []
        for k in range(steps):
            t, t_next = k * step_ns / 1e9, (k + 1) * step_ns / 1e9
            fmu.doStep(currentCommunicationPoint=t, communicationStepSize=t_next - t)
            rows.append(fmu.getReal(vrs))
        fmu.terminate()
        fmu.freeInstance()
        return rows
    finally:
        # extract() unpacks into a new temporary directory (10 MB a model) that is ours to remove.
        shutil.rmtree(unzipdir, ignore_errors=True)


def catalog(root):
    paths = sorted(glob.glob(os.path.join(root, "fmi2", "*.fmu")))
    if not paths:
        print(f"no FMUs under {root}/fmi2", file=sys.stderr)
        return 2
    failed = 0
    for path in paths:
        md = read_model_description(path)
        name = md.modelName
        de = md.defaultExperiment
        # libcosim's steps are whole nanoseconds; a step that is not (FlexibleFourBar's period
        # fraction) is rounded, and all three runs take the rounded one.
        step_ns = round(float(de.stepSize) * 1e9)
        rounded = " (step rounded to whole ns)" if step_ns / 1e9 != float(de.stepSize) else ""
        stop = float(de.stopTime)
        steps = round(stop * 1e9) // step_ns
        outputs = real_outputs(md)
        try:
            started = time.perf_counter()
            cosim = libcosim_run({name: path}, step_ns, steps, read=[(name, v.name) for v in outputs])
            libcosim_s = time.perf_counter() - started
            started = time.perf_counter()
            fmpy = fmpy_at_libcosim_points(path, md, step_ns, steps, outputs)
            fmpy_s = time.perf_counter() - started
            for k, (a, b) in enumerate(zip(cosim, fmpy)):
                if struct.pack(f"<{len(a)}d", *a) != struct.pack(f"<{len(b)}d", *b):
                    bad = next(i for i, (x, y) in enumerate(zip(a, b)) if struct.pack("<d", x) != struct.pack("<d", y))
                    raise AssertionError(f"step {k + 1}: {outputs[bad].name} is {a[bad]!r} in libcosim, {b[bad]!r} in FMPy")
            # FMPy's own loop: points start + k * h; the largest difference relative to the range.
            result = simulate_fmu(path, start_time=0.0, stop_time=stop, output_interval=step_ns / 1e9,
                                  output=[v.name for v in outputs])
            count = min(len(cosim), len(result) - 1)
            theirs_rows = [[result[v.name][k + 1] for v in outputs] for k in range(count)]
            # q and -q are one orientation: a quaternion output (e0 >= 0) near e0 = 0 may come
            # out with either sign from runs that differ by round-off; compare it up to sign.
            for k, row in enumerate(theirs_rows):
                for first in quaternion_groups(outputs):
                    group = range(first, first + 4)
                    if sum(cosim[k][i] * row[i] for i in group) < 0.0:
                        for i in group:
                            row[i] = -row[i]
            rel = 0.0
            for i, v in enumerate(outputs):
                ours = [row[i] for row in cosim[:count]]
                theirs = [row[i] for row in theirs_rows]
                span = max(max(ours) - min(ours), 1.0)
                rel = max(rel, max(abs(x - y) for x, y in zip(ours, theirs)) / span)
            print(f"ok {name} steps={steps} simulate_fmu_rel={rel:.3e} libcosim_s={libcosim_s:.2f} fmpy_s={fmpy_s:.2f}{rounded}")
        except Exception as e:  # one line per failure, then go on
            print(f"FAIL {name}: {type(e).__name__}: {e}")
            failed += 1
    return 1 if failed else 0


def split(root, steps_ns):
    fmi2 = os.path.join(root, "fmi2")
    mono = os.path.join(fmi2, "HydraulicFourBar.fmu")
    sample_ns, stop_ns = 40_000_000, 10_000_000_000
    reference = libcosim_run({"mono": mono}, sample_ns, stop_ns // sample_ns, read=[("mono", a) for a in ANGLES])
    for step_ns in steps_ns:
        fmus = {"mechanism": os.path.join(fmi2, "HydraulicFourBarMechanism.fmu"),
                "drive": os.path.join(fmi2, "HydraulicFourBarDrive.fmu")}
        connections = [("mechanism", "cylinder.length", "drive", "cylinder_length"),
                       ("mechanism", "cylinder.rate", "drive", "cylinder_velocity"),
                       ("drive", "cylinder.force", "mechanism", "cylinder_force")]
        per_sample = sample_ns // step_ns
        started = time.perf_counter()
        rows = libcosim_run(fmus, step_ns, stop_ns // step_ns, connections, per_sample,
                            read=[("mechanism", a) for a in ANGLES])
        error = max(abs(x - y) for a, b in zip(rows, reference) for x, y in zip(a, b))
        if len(rows) != len(reference) or not math.isfinite(error):
            print(f"FAIL split {step_ns}: {len(rows)} samples, error {error}")
            return 1
        print(f"split {step_ns} {error!r} {time.perf_counter() - started:.2f}")
    return 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "catalog":
        return catalog(sys.argv[2])
    if len(sys.argv) >= 4 and sys.argv[1] == "split":
        return split(sys.argv[2], [int(s) for s in sys.argv[3:]])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
