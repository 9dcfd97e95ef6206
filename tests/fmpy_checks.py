#!/usr/bin/env python3
"""Checks every packaged FMU with FMPy, an independent importer (run by tests/fmpy.rs).

Usage: python3 tests/fmpy_checks.py <dir>   (with <dir>/fmi2/*.fmu and <dir>/fmi3/*.fmu)

For every FMU, both FMI versions:
  1. fmpy.validation.validate_fmu reports no problem;
  2. fmpy.simulate_fmu runs the DefaultExperiment;
  3. get state -> step -> set state -> re-step gives bit-identical outputs;
  4. serialize -> deserialize into a fresh instance -> step is bit-identical;
  5. two instances of one loaded library stepped interleaved (one lagging, the first freed
     early) equal one instance alone;
  6. a doStep of 1e6 s with solver.maxStepsPerCall = 500 returns at the budget: FMI 2 with
     Discard and fmi2LastSuccessfulTime, FMI 3 with earlyReturn (early return allowed) or
     Discard (not allowed); stepping goes on from there;
  7. FMUs with a <ModelExchange> element (state-space and semirecursive formulations):
     simulate_fmu with fmi_type="ModelExchange" and FMPy's CVode solver agrees with the
     co-simulation run (for the semirecursive models' fixed-step trapezoidal rule at a fine
     step, 5e-5 s, where its second-order error is small).
Exit status: 0 all passed, 1 a check failed, 2 usage error, 3 fmpy missing.
"""

import glob
import math
import os
import shutil
import struct
import sys
import tempfile
import time

try:
    import fmpy
    from fmpy import read_model_description, extract, simulate_fmu
    from fmpy.fmi2 import FMU2Slave
    from fmpy.fmi3 import FMU3Slave
    from fmpy.validation import validate_fmu
except ImportError as e:  # reported as such by tests/fmpy.rs
    print(f"fmpy is not installed ({e}); install it in a virtual environment: python3 -m venv .venv && .venv/bin/pip install fmpy, then run with .venv/bin first on PATH", file=sys.stderr)
    sys.exit(3)

# Steps used by the state and instance checks (the whole run is covered by simulate_fmu).
STEPS = 60


class Fmu:
    """One unpacked FMU: its description, outputs and a way to drive instances of it."""

    def __init__(self, path, unzipdir):
        self.path = path
        self.md = read_model_description(path)
        self.version = 3 if self.md.fmiVersion.startswith("3") else 2
        self.unzipdir = unzipdir
        de = self.md.defaultExperiment
        self.start = float(de.startTime or 0.0)
        self.stop = float(de.stopTime)
        self.h = float(de.stepSize)
        self.outputs = [v for v in self.md.modelVariables if v.causality == "output"]
        self.count = 0

    def instance(self):
        self.count += 1
        cls = FMU3Slave if self.version == 3 else FMU2Slave
        identifier = self.md.coSimulation.modelIdentifier
        fmu = cls(guid=self.md.guid, unzipDirectory=self.unzipdir, modelIdentifier=identifier,
                  instanceName=f"{identifier}_{self.count}")
        fmu.instantiate()
        return fmu

    def initialize(self, fmu):
        if self.version == 3:
            fmu.enterInitializationMode(startTime=self.start, stopTime=self.stop)
        else:
            fmu.setupExperiment(startTime=self.start, stopTime=self.stop)
            fmu.enterInitializationMode()
        fmu.exitInitializationMode()

    def t(self, k):
        return self.start + k * self.h

    def step(self, fmu, k):
        """Steps from communication point k to k + 1."""
        if self.version == 3:
            event, terminate, early, last = fmu.doStep(self.t(k), self.h)
            if event or terminate or early:
                raise AssertionError(f"doStep {k}: unexpected flags {event, terminate, early}")
            if last != self.t(k) + self.h:
                raise AssertionError(f"doStep {k}: lastSuccessfulTime {last} != {self.t(k) + self.h}")
        else:
            fmu.doStep(self.t(k), self.h)

    def read(self, fmu):
        """All outputs as one bytes string (bit-exact comparison)."""
        values = []
        for v in self.outputs:
            vr = [v.valueReference]
            if v.type in ("Real", "Float64"):
                x = fmu.getReal(vr)[0] if self.version == 2 else fmu.getFloat64(vr)[0]
            elif v.type in ("Integer", "Int32") or (v.type == "Enumeration" and self.version == 2):
                x = fmu.getInteger(vr)[0] if self.version == 2 else fmu.getInt32(vr)[0]
            elif v.type == "Enumeration":
                x = fmu.getInt64(vr)[0]
            else:
                raise AssertionError(f"output {v.name} of unexpected type {v.type}")
            values.append(float(x))
        return struct.pack(f"<{len(values)}d", *values)

    def run(self, fmu, first, last):
        """Steps k = first .. last - 1 and returns the outputs after each."""
        rows = []
        for k in range(first, last):
            self.step(fmu, k)
            rows.append(self.read(fmu))
        return rows

    def free(self, fmu):
        fmu.terminate()
        fmu.freeInstance()


def same(label, a, b):
    if a != b:
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                raise AssertionError(f"{label}: outputs differ at row {k}")
        raise AssertionError(f"{label}: {len(a)} rows vs {len(b)}")


def check_validation(fmu):
    problems = validate_fmu(fmu.path)
    if problems:
        raise AssertionError("validate_fmu: " + "; ".join(problems))


def check_simulation(fmu):
    # The DefaultExperiment's step, passed explicitly: FMPy coarsens its default output
    # interval on long runs.
    result = simulate_fmu(fmu.path, fmi_type="CoSimulation", output_interval=fmu.h)
    times = result["time"]
    n = int(round((fmu.stop - fmu.start) / fmu.h))
    if len(times) != n + 1 or not math.isclose(times[-1], fmu.stop, rel_tol=1e-9, abs_tol=1e-12):
        raise AssertionError(f"simulate_fmu: {len(times)} rows ending at {times[-1]}, expected {n + 1} ending at {fmu.stop}")
    for name in result.dtype.names:
        if not all(math.isfinite(float(x)) for x in result[name]):
            raise AssertionError(f"simulate_fmu: non-finite values in {name}")


def check_state_restore(fmu):
    inst = fmu.instance()
    fmu.initialize(inst)
    fmu.run(inst, 0, STEPS // 3)
    state = inst.getFMUState() if fmu.version == 3 else inst.getFMUstate()
    first = fmu.run(inst, STEPS // 3, STEPS)
    if fmu.version == 3:
        inst.setFMUState(state)
    else:
        inst.setFMUstate(state)
    again = fmu.run(inst, STEPS // 3, STEPS)
    same("get state -> step -> set state -> re-step", first, again)
    # Serialize, then deserialize into a fresh, uninitialized instance.
    if fmu.version == 3:
        data = inst.serializeFMUState(state)
        inst.freeFMUState(state)
    else:
        data = inst.serializeFMUstate(state)
        inst.freeFMUstate(state)
    fresh = fmu.instance()
    if fmu.version == 3:
        copy = fresh.deserializeFMUState(data)
        fresh.setFMUState(copy)
        fresh.freeFMUState(copy)
    else:
        copy = fresh.deSerializeFMUstate(data)
        fresh.setFMUstate(copy)
        fresh.freeFMUstate(copy)
    restored = fmu.run(fresh, STEPS // 3, STEPS)
    same("serialize -> deserialize in a fresh instance -> step", first, restored)
    fmu.free(fresh)
    fmu.free(inst)


def check_two_instances(fmu):
    alone = fmu.instance()
    fmu.initialize(alone)
    expected = fmu.run(alone, 0, STEPS)
    fmu.free(alone)
    a, b = fmu.instance(), fmu.instance()
    fmu.initialize(a)
    fmu.initialize(b)
    rows_a, rows_b = [], []
    lag = 5
    rows_a += fmu.run(a, 0, lag)
    for k in range(lag, STEPS):
        rows_a += fmu.run(a, k, k + 1)
        rows_b += fmu.run(b, k - lag, k - lag + 1)
        if k == STEPS - 1:
            fmu.free(a)  # the first is freed while the second still has steps to go
    rows_b += fmu.run(b, STEPS - lag, STEPS)
    fmu.free(b)
    same("instance A interleaved", expected, rows_a)
    same("instance B interleaved, lagging", expected, rows_b)


BUDGET = 500


def check_step_budget(fmu):
    """A host's typo, doStep(start, 1e6 s), returns after solver.maxStepsPerCall internal steps
    with the state of the last one, and the run goes on from there."""
    vr = next(v.valueReference for v in fmu.md.modelVariables if v.name == "solver.maxStepsPerCall")
    step = float(next(v.start for v in fmu.md.modelVariables if v.name == "solver.stepSize"))
    limit = fmu.start + BUDGET * step * (1 + 1e-9)
    if fmu.version == 2:
        inst = fmu.instance()
        inst.setInteger([vr], [BUDGET])
        inst.setupExperiment(startTime=fmu.start)
        inst.enterInitializationMode()
        inst.exitInitializationMode()
        try:
            inst.doStep(fmu.start, 1e6)
            raise AssertionError("doStep(1e6 s) returned OK")
        except fmpy.fmi1.FMICallException as e:
            if "status 2" not in str(e):
                raise
        last = inst.getRealStatus(2)  # fmi2LastSuccessfulTime
        if not fmu.start < last <= limit:
            raise AssertionError(f"fmi2LastSuccessfulTime {last} outside ({fmu.start}, {limit}]")
        state = inst.getFMUstate()
        inst.setFMUstate(state)
        inst.freeFMUstate(state)
        inst.doStep(last, 0.1 * (last - fmu.start))
        fmu.free(inst)
        return f"Discard at {last:.6g} s"
    notes = []
    for allowed in (True, False):
        fmu.count += 1
        inst = FMU3Slave(guid=fmu.md.guid, unzipDirectory=fmu.unzipdir,
                         modelIdentifier=fmu.md.coSimulation.modelIdentifier, instanceName=f"budget_{fmu.count}")
        inst.instantiate(earlyReturnAllowed=allowed)
        inst.setInt32([vr], [BUDGET])
        inst.enterInitializationMode(startTime=fmu.start)
        inst.exitInitializationMode()
        if allowed:
            event, terminate, early, last = inst.doStep(fmu.start, 1e6)
            if event or terminate or not early or not fmu.start < last <= limit:
                raise AssertionError(f"early return expected: {event, terminate, early, last}")
            notes.append(f"early return at {last:.6g} s")
        else:
            try:
                inst.doStep(fmu.start, 1e6)
                raise AssertionError("doStep(1e6 s) returned OK without early return allowed")
            except fmpy.fmi1.FMICallException as e:
                if "status 2" not in str(e):
                    raise
            last = fmu.start
            notes.append("Discard")
        event, terminate, early, _ = inst.doStep(last, 1e-3 * step)
        if event or terminate or early:
            raise AssertionError(f"the step after the budget: flags {event, terminate, early}")
        fmu.free(inst)
    return ", ".join(notes)


# Outputs the Model Exchange comparison uses: kinematic quantities and the circuit's states
# (reactions and work are more sensitive to the solvers' step choices).
KINEMATIC = (".position.", ".velocity.", ".angular_velocity.", ".angle", ".angle_rate", ".pressure", ".spool")

# Co-simulation step of the semirecursive models (fixed-step trapezoidal rule) in the
# comparison with Model Exchange.
FINE_STEP = 5e-5


# Explicit methods with step-size control (solver.method items).
VARIABLE_STEP = ("dopri5", "dop853", "auto")


def default_item(fmu, name):
    """The item name of an Enumeration variable's start value (None: no such variable)."""
    v = next((v for v in fmu.md.modelVariables if v.name == name), None)
    if v is None or v.declaredType is None:
        return None
    return next((i.name for i in v.declaredType.items if int(i.value) == int(v.start)), None)


def check_model_exchange(fmu):
    """CVode on the ODE (tight tolerance) against the FMU's own co-simulation run: both solve
    the same equations, so kinematic outputs and pressures agree to the solvers' accuracy."""
    names = [v.name for v in fmu.outputs if any(k in v.name for k in KINEMATIC)]
    # The semirecursive models (a solver.pressureTolerance or solver.formulation parameter)
    # step with the trapezoidal rule at solver.stepSize unless their default method is an
    # explicit one under error control: a fine step for the reference.
    semirecursive = any(v.name in ("solver.pressureTolerance", "solver.formulation") for v in fmu.md.modelVariables)
    fixed_step = semirecursive and default_item(fmu, "solver.method") not in VARIABLE_STEP
    start = {"solver.stepSize": FINE_STEP} if fixed_step else {}
    cs = simulate_fmu(fmu.path, fmi_type="CoSimulation", output_interval=fmu.h, output=names, start_values=start)
    # Step events (a new coordinate partition) are not recorded: only the regular grid.
    me = simulate_fmu(fmu.path, fmi_type="ModelExchange", solver="CVode", relative_tolerance=1e-8,
                      output_interval=fmu.h, output=names, record_events=False)
    if len(me["time"]) != len(cs["time"]) or max(abs(a - b) for a, b in zip(me["time"], cs["time"])) > 1e-9:
        raise AssertionError(f"model exchange sampled {len(me['time'])} points, co-simulation {len(cs['time'])}")
    worst = (0.0, "")
    for name in names:
        scale = 1.0 + max(abs(float(x)) for x in cs[name])
        diff = max(abs(float(a) - float(b)) for a, b in zip(me[name], cs[name])) / scale
        if not math.isfinite(diff):
            raise AssertionError(f"model exchange: non-finite values in {name}")
        worst = max(worst, (diff, name))
    # The semirecursive models at the fine step: the trapezoidal rule's error is about 1e-5 of
    # a pressure's range (2e-5 measured); the variable-step methods at their default
    # tolerances (the 32-bar chain's DOP853 at 1e-8: 1.3e-4, which is CVode's error at 1e-8 on
    # that chaotic motion: 1.6e-5 at 1e-9, 3.9e-6 at 1e-10).
    limit = 1e-4 if fixed_step else 1e-3
    if worst[0] > limit:
        raise AssertionError(f"model exchange (CVode) and co-simulation differ by {worst[0]:.2e} (relative) in {worst[1]}")
    return f"largest relative difference {worst[0]:.1e} ({worst[1] or 'no kinematic outputs'})"


CHECKS = [
    ("validate_fmu", check_validation),
    ("simulate_fmu", check_simulation),
    ("state get/set and serialization", check_state_restore),
    ("two interleaved instances", check_two_instances),
    ("bounded work per doStep", check_step_budget),
    ("model exchange with CVode", check_model_exchange),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    paths = sorted(glob.glob(os.path.join(sys.argv[1], "fmi2", "*.fmu")) + glob.glob(os.path.join(sys.argv[1], "fmi3", "*.fmu")))
    if not paths:
        print(f"no FMUs under {sys.argv[1]}/fmi2 or /fmi3", file=sys.stderr)
        return 2
    print(f"fmpy {fmpy.__version__}, {len(paths)} FMUs")
    failures = 0
    for path in paths:
        unzipdir = tempfile.mkdtemp(prefix="mbfmu-fmpy-")
        try:
            extract(path, unzipdir)
            fmu = Fmu(path, unzipdir)
            for name, check in CHECKS:
                if check is check_model_exchange and fmu.md.modelExchange is None:
                    continue
                began = time.monotonic()
                try:
                    note = check(fmu)
                    note = f"; {note}" if note else ""
                    print(f"ok    FMI {fmu.version} {fmu.md.modelName}: {name} ({time.monotonic() - began:.2f} s{note})")
                except Exception as e:  # report every failing check, not just the first
                    failures += 1
                    print(f"FAIL  FMI {fmu.version} {fmu.md.modelName}: {name}: {type(e).__name__}: {e}")
        finally:
            shutil.rmtree(unzipdir, ignore_errors=True)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
