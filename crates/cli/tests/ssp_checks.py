#!/usr/bin/env python3
"""The packaged SSP archives read by two independent SSP readers (run by crates/cli/tests/ssp.rs).

Usage:
  python3 ssp_checks.py structure <system.ssp>
      FMPy's read_ssd with schema validation (the SSP 1.0 XSDs FMPy ships, checked with lxml),
      which also reads and validates the referenced parameter sets (.ssv); prints the system
      as JSON: components (name, source, connectors), connections, parameter values, units.
  python3 ssp_checks.py libcosim <system.ssp> <out.csv> <step_ns> <steps> <every> <component.variable>...
      libcosim's from_ssp_file (with its parameter bindings) run for <steps> steps of <step_ns>
      nanoseconds; writes a CSV (time, then the variables, repr precision) after every
      <every>-th step (a file: libcosim logs to standard output).
  python3 ssp_checks.py fmpy <system.ssp> <out.csv> <stop> <step> <component.variable>...
      FMPy's simulate_ssp from 0 to <stop> at communication step <step>; writes a CSV of
      every communication point (time, then the variables, repr precision).

FMPy's simulate_ssp starts every connector at 0.0 before the first step and ignores the SSD's
parameter bindings: it cannot run the force-exchanging split (a cylinder length of 0 m is
outside the drive's stroke, which the drive refuses), but it runs the split at the valve
ports, whose port pressures at 0 Pa make no flow through the closed valve.

Exit status: 0 done, 1 a check failed, 2 usage error, 3 a package is missing.
"""

import json
import sys

try:
    from fmpy.ssp.ssd import read_ssd
    from fmpy.ssp.simulation import simulate_ssp
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimLogging import log_output_level, CosimLogLevel
except ImportError as e:
    print(f"a Python package is missing ({e}); .ci/run installs fmpy and libcosimpy into .venv", file=sys.stderr)
    sys.exit(3)


def structure(path):
    ssd = read_ssd(path, validate=True)
    system = ssd.system
    out = {
        "name": ssd.name,
        "version": ssd.version,
        "components": [
            {
                "name": c.name,
                "source": c.source,
                "connectors": [[k.name, k.kind] for k in c.connectors],
                "parameters": {
                    p.name: [p.type, p.value, p.unit]
                    for b in c.parameterBindings for s in b.parameterValues for p in s.parameters
                },
                "binding_sources": [b.source for b in c.parameterBindings],
            }
            for c in system.elements
        ],
        "connections": [[c.startElement, c.startConnector, c.endElement, c.endConnector] for c in system.connections],
        "units": {u.name: [u.kg, u.m, u.s, u.A, u.K, u.mol, u.cd, u.rad] for u in ssd.units},
    }
    print(json.dumps(out))
    return 0


def libcosim(path, out, step_ns, steps, every, names):
    log_output_level(CosimLogLevel.ERROR)
    # Integer nanoseconds: a float step makes a broken execution.
    execution = CosimExecution.from_ssp_file(path, int(step_ns))
    index = {s.name.decode(): s.index for s in execution.slave_infos()}
    refs = {n: {v.name.decode(): v.reference for v in execution.slave_variables(i)} for n, i in index.items()}
    columns = [name.split(".", 1) for name in names]
    observer = CosimObserver.create_last_value()
    execution.add_observer(observer)
    lines = [",".join(["time"] + names)]
    done = 0
    while done < steps:
        n = min(every, steps - done)
        if not execution.step(n):
            print(f"libcosim step failed after {done} steps: {execution.status()}", file=sys.stderr)
            return 1
        done += n
        row = [observer.last_real_values(index[c], [refs[c][v]])[0] for c, v in columns]
        lines.append(",".join([repr(done * step_ns / 1e9)] + [repr(x) for x in row]))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


def fmpy(path, out, stop, step, names):
    result = simulate_ssp(path, stop_time=stop, step_size=step)
    lines = [",".join(["time"] + names)]
    for row in result:
        lines.append(",".join(repr(float(row[n])) for n in ["time"] + names))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "structure":
        return structure(sys.argv[2])
    if len(sys.argv) >= 8 and sys.argv[1] == "libcosim":
        return libcosim(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7:])
    if len(sys.argv) >= 7 and sys.argv[1] == "fmpy":
        return fmpy(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
