#!/usr/bin/env python3
"""Input and output derivatives of the packaged FMUs through FMPy (run by tests/fmpy.rs).

Usage: python3 tests/fmpy_derivatives.py <dir>   (with <dir>/fmi2/*.fmu and <dir>/fmi3/*.fmu)

1. Output derivatives (FMU2Slave.getRealOutputDerivatives, FMU3Slave.getOutputDerivatives)
   of DoublePendulum (index-3), DoublePendulumStateSpace and HydraulicFourBar (semirecursive),
   both versions, against central differences of the same FMU's outputs at communication
   steps of one internal step: the largest difference, relative to the size of the output's
   derivative (per vector for vector components), must stay below 2 % for first and 6 % for
   second derivatives, for every output whose derivative is not negligible.
2. FMI 2 input interpolation (FMU2Slave.setRealInputDerivatives): SliderCrankFriction's
   load_force as a parabola given by value and derivatives at communication steps of ten
   internal steps equals, bit for bit except the input's work, a run that sets the exact input
   at every internal step as a communication point; zero-order hold differs.
3. FMI 3 intermediate update (FMU3Slave.instantiate with an intermediateUpdate callback):
   the callback sets load_force at every internal step; equal bit for bit to the run with a
   communication point per internal step.
Prints "ok <check>: <numbers>" per check. Exit status: 0 all passed, 1 a check failed,
2 usage error, 3 fmpy missing.
"""

import math
import os
import struct
import sys
import tempfile

try:
    from fmpy import read_model_description, extract
    from fmpy.fmi2 import FMU2Slave
    from fmpy.fmi3 import FMU3Slave
except ImportError as e:
    print(f"fmpy is not installed ({e})", file=sys.stderr)
    sys.exit(3)

STEPS = 40  # communication points of the difference checks
# Outputs without derivatives (FMI 3.0 Sect. 4.1.2: their derivatives are 0).
NO_DERIVATIVE = ("reaction_force", "reaction_torque", "effort", "friction_force", "constraint_violation")


class Fmu:
    def __init__(self, path):
        self.path = path
        self.md = read_model_description(path)
        self.version = 3 if self.md.fmiVersion.startswith("3") else 2
        # Removed with this object (at the latest at exit): the test runs leave no 10 MB copies.
        self.unzipped = tempfile.TemporaryDirectory(prefix="mbfmu-fmpy-")
        self.unzipdir = extract(path, self.unzipped.name)
        self.vars = {v.name: v for v in self.md.modelVariables}
        self.count = 0

    def instance(self, **kwargs):
        self.count += 1
        cls = FMU3Slave if self.version == 3 else FMU2Slave
        identifier = self.md.coSimulation.modelIdentifier
        fmu = cls(guid=self.md.guid, unzipDirectory=self.unzipdir, modelIdentifier=identifier,
                  instanceName=f"{identifier}_{self.count}")
        fmu.instantiate(**kwargs)
        return fmu

    def start(self, fmu, stop):
        start = float(self.md.defaultExperiment.startTime or 0.0)
        if self.version == 3:
            fmu.enterInitializationMode(startTime=start, stopTime=stop)
        else:
            fmu.setupExperiment(startTime=start, stopTime=stop)
            fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        return start

    def vr(self, name):
        return self.vars[name].valueReference

    def get(self, fmu, vrs):
        return fmu.getFloat64(vrs) if self.version == 3 else fmu.getReal(vrs)

    def set(self, fmu, vr, x):
        if self.version == 3:
            fmu.setFloat64([vr], [x])
        else:
            fmu.setReal([vr], [x])

    def derivatives(self, fmu, vrs, order):
        if self.version == 3:
            return fmu.getOutputDerivatives(vrs, [order] * len(vrs))
        return fmu.getRealOutputDerivatives(vrs, [order] * len(vrs))

    def step(self, fmu, t, h):
        fmu.doStep(t, h)


def solver_step(fmu):
    return float(fmu.vars["solver.stepSize"].start)


def vector_of(name):
    head, _, last = name.rpartition(".")
    return head if last in ("x", "y", "z", "e0", "e1", "e2", "e3") else name


def check_output_derivatives(fmu):
    """Derivatives against central differences; returns (worst first, worst second)."""
    outputs = [v for v in fmu.md.modelVariables
               if v.causality == "output" and v.variability == "continuous" and v.type in ("Real", "Float64")]
    vrs = [v.valueReference for v in outputs]
    h = solver_step(fmu)
    inst = fmu.instance()
    t = fmu.start(inst, 1e3)
    # Where the models move: the hydraulic work cycle opens the valve at 1 s.
    while t < (1.3 if "Hydraulic" in fmu.md.modelName else 0.3) - 1e-12:
        fmu.step(inst, t, h)
        t += h
    rows = []
    for k in range(STEPS):
        rows.append((fmu.get(inst, vrs), fmu.derivatives(inst, vrs, 1), fmu.derivatives(inst, vrs, 2)))
        fmu.step(inst, t, h)
        t += h
    inst.terminate()
    inst.freeInstance()
    n = len(vrs)
    scale = [[0.0] * n, [0.0] * n]
    error = [[0.0] * n, [0.0] * n]
    for k in range(2, STEPS - 1):
        (m, _, _), (z, d1, d2), (p, _, _) = rows[k - 1], rows[k], rows[k + 1]
        for j in range(n):
            fd = ((p[j] - m[j]) / (2 * h), (p[j] - 2 * z[j] + m[j]) / (h * h))
            for o, d in enumerate((d1[j], d2[j])):
                scale[o][j] = max(scale[o][j], abs(fd[o]), abs(d))
                error[o][j] = max(error[o][j], abs(fd[o] - d))
    worst = [(0.0, ""), (0.0, "")]
    provided = 0
    for j, v in enumerate(outputs):
        group = [i for i, w in enumerate(outputs) if vector_of(w.name) == vector_of(v.name)]
        for o, limit in ((0, 2e-2), (1, 6e-2)):
            if any(rows[k][1 + o][j] != 0.0 for k in range(STEPS)):
                provided += 1
            else:
                continue  # documented as not provided (order lower than o + 1)
            s = max(scale[o][i] for i in group)
            values = max(abs(r[0][j]) for r in rows)
            if s < 1e-8 or s < 1e-6 * (values if o == 0 else max(scale[0][i] for i in group)) / h:
                continue
            if v.name.endswith(("total_energy", "energy_balance")):
                continue  # constant up to the integration error
            rel = error[o][j] / s
            if rel > limit:
                raise AssertionError(f"{v.name}: derivative {o + 1} differs from central differences by {rel:.2e}")
            if rel > worst[o][0]:
                worst[o] = (rel, v.name)
    for v in outputs:
        j = outputs.index(v)
        if v.name.endswith(NO_DERIVATIVE) and any(rows[k][1][j] != 0.0 for k in range(STEPS)):
            raise AssertionError(f"{v.name} has no derivative, but {rows[0][1][j]} was returned")
    if provided < len(outputs) // 2:
        raise AssertionError(f"only {provided} derivatives of {len(outputs)} outputs are nonzero")
    return worst


def parabola(tc, t):
    """load_force = 50 + 300 t - 100 t^2 as the FMU forms it from value and derivatives at tc."""
    u, du, ddu = 50.0 + tc * (300.0 + tc * -100.0), 300.0 + 2.0 * -100.0 * tc, 2.0 * -100.0
    dt = t - tc
    return u + dt * (du + 0.5 * dt * ddu)


def grid(t, end, n):
    return [end if i == n else t + (end - t) * (i / n) for i in range(n + 1)]


def outputs_of(fmu, inst):
    vrs = [v.valueReference for v in fmu.md.modelVariables
           if v.causality == "output" and v.type in ("Real", "Float64")]
    return fmu.get(inst, vrs)


def interpolation_runs(fmu, mode, stop=0.5, n=10):
    """mode: 'derivatives' (coarse, value and derivatives), 'held' (coarse, value only),
    'exact' (a communication point per internal step), 'intermediate' (FMI 3: coarse, the
    callback sets the exact input at every internal step)."""
    h = solver_step(fmu)
    coarse = n * h
    u = fmu.vr("load_force")
    rows = []
    if mode == "intermediate":
        box = {}

        def update(env, time, set_requested, get_allowed, finished, can_return_early, early, early_time):
            if set_requested:
                box["fmu"].setFloat64([u], [50.0 + time * (300.0 + time * -100.0)])

        inst = fmu.instance(intermediateUpdate=update, requiredIntermediateVariables=[u])
        box["fmu"] = inst
    else:
        inst = fmu.instance()
    t = fmu.start(inst, stop)
    rows.append(outputs_of(fmu, inst))
    while t < stop - 0.5 * coarse:
        end = t + coarse
        if mode == "exact":
            for a, b in zip(grid(t, end, n)[:-1], grid(t, end, n)[1:]):
                value = parabola(t, a) if fmu.version == 2 else 50.0 + a * (300.0 + a * -100.0)
                fmu.set(inst, u, value)
                fmu.step(inst, a, b - a)
        else:
            fmu.set(inst, u, 50.0 + t * (300.0 + t * -100.0))
            if mode == "derivatives":
                inst.setRealInputDerivatives([u, u], [1, 2], [300.0 + 2.0 * -100.0 * t, 2.0 * -100.0])
            fmu.step(inst, t, coarse)
        t = end
        rows.append(outputs_of(fmu, inst))
    inst.terminate()
    inst.freeInstance()
    return rows


def compare(fmu, a, b, integrals=("external_work",)):
    """Bit-identical rows except the integrals; returns the largest relative difference of a
    and b over all outputs but the solver's health."""
    names = [v.name for v in fmu.md.modelVariables if v.causality == "output" and v.type in ("Real", "Float64")]
    worst = 0.0
    for j, name in enumerate(names):
        s = max(abs(r[j]) for r in b) or 1.0
        for k, (x, y) in enumerate(zip(a, b)):
            if name not in integrals and struct.pack("<d", x[j]) != struct.pack("<d", y[j]):
                return None, f"{name} at point {k}: {x[j]!r} vs {y[j]!r}"
            if name not in ("constraint_violation",):
                worst = max(worst, abs(x[j] - y[j]) / s)
    return worst, None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    root = sys.argv[1]
    failed = False
    for version in (2, 3):
        for name in ("DoublePendulum", "DoublePendulumStateSpace", "HydraulicFourBar"):
            path = os.path.join(root, f"fmi{version}", f"{name}.fmu")
            try:
                (w1, n1), (w2, n2) = check_output_derivatives(Fmu(path))
                print(f"ok output derivatives fmi{version} {name}: worst {w1:.1e} ({n1}, first), "
                      f"{w2:.1e} ({n2}, second)")
            except Exception as e:
                failed = True
                print(f"FAILED output derivatives fmi{version} {name}: {e}")
    fmu2 = Fmu(os.path.join(root, "fmi2", "SliderCrankFriction.fmu"))
    try:
        exact = interpolation_runs(fmu2, "exact")
        interpolated = interpolation_runs(fmu2, "derivatives")
        held = interpolation_runs(fmu2, "held")
        work, problem = compare(fmu2, interpolated, exact)
        if problem:
            raise AssertionError(problem)
        off, _ = compare(fmu2, held, exact, integrals=tuple(v.name for v in fmu2.md.modelVariables))
        if off < 1e-4:
            raise AssertionError(f"zero-order hold differs by only {off:.1e}")
        print(f"ok input interpolation fmi2 SliderCrankFriction: bit-identical to the exact input at every "
              f"internal step (work within {work:.1e}); zero-order hold differs by {off:.1e}")
    except Exception as e:
        failed = True
        print(f"FAILED input interpolation fmi2: {e}")
    fmu3 = Fmu(os.path.join(root, "fmi3", "SliderCrankFriction.fmu"))
    try:
        exact = interpolation_runs(fmu3, "exact")
        updated = interpolation_runs(fmu3, "intermediate")
        _, problem = compare(fmu3, updated, exact, integrals=())
        if problem:
            raise AssertionError(problem)
        print(f"ok intermediate update fmi3 SliderCrankFriction: {len(exact)} points bit-identical to a "
              f"communication point per internal step")
    except Exception as e:
        failed = True
        print(f"FAILED intermediate update fmi3: {e}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
