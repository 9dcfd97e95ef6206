"""python -m mbfmu_sweep: the options of `mbfmu sweep`, run on a Dask cluster.

Dask rather than Ray: it is pure Python and pip-installable in seconds, starts a local cluster of
worker processes or joins any existing deployment (SSH, HPC job queues, Kubernetes, cloud) with the
same Client, and futures map directly onto independent runs. Ray would bring a large native
runtime and its own object store that a sweep of small independent tasks does not need.
"""

import argparse
import os
import sys
import time

from . import experiment, plan, table, worker


def _assignment(text):
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f'expected NAME=VALUE, got "{text}"')
    return name.strip(), value


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m mbfmu_sweep",
        description="Run `mbfmu sweep`'s parameter sweep on a Dask cluster, with FMPy on the workers.",
    )
    p.add_argument("fmu", help="the .fmu archive (FMI 2.0 or 3.0 co-simulation)")
    p.add_argument("--start-time", type=float)
    p.add_argument("--stop-time", type=float)
    p.add_argument("--step", type=float)
    p.add_argument("--tolerance", type=float)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--parameters", metavar="FILE.csv", help="parameter sets, one row per run")
    source.add_argument("--grid", action="append", type=_assignment, metavar="NAME=START:STOP:COUNT")
    source.add_argument("--samples", type=int, metavar="N")
    p.add_argument("--uniform", action="append", type=_assignment, default=[], metavar="NAME=LOW:HIGH")
    p.add_argument("--normal", action="append", type=_assignment, default=[], metavar="NAME=MEAN:SD")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--set", action="append", type=_assignment, default=[], metavar="NAME=VALUE")
    p.add_argument("--outputs", action="append", default=[], metavar="A,B,...")
    p.add_argument("-o", "--output", action="append", default=[], metavar="FILE")
    p.add_argument("--series", metavar="FILE")
    cluster = p.add_mutually_exclusive_group()
    cluster.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask scheduler, e.g. tcp://head:8786")
    cluster.add_argument("--local-workers", type=int, metavar="N", help="start a local cluster of N worker processes")
    p.add_argument("--chunk-size", type=int, metavar="K", help="runs per task (default: about 8 tasks per worker)")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)
    if (args.uniform or args.normal) and args.samples is None:
        p.error("--uniform and --normal need --samples")
    return args


def _outputs(model, names):
    if not names:
        return [
            v
            for v in model.modelVariables
            if v.causality == "output" and v.type not in ("String", "Binary", "Clock") and not v.dimensions
        ]
    listed = [n.strip() for group in names for n in group.split(",") if n.strip()]
    return [plan.variable(model, n, "--outputs", settable=False) for n in listed]


def _groups(variables):
    """(type, value references, columns): one getter call per type, as the Rust command reads."""
    groups = []
    for column, var in enumerate(variables):
        group = next((g for g in groups if g[0] == var.type), None)
        if group is None:
            groups.append((var.type, [var.valueReference], [column]))
        else:
            group[1].append(var.valueReference)
            group[2].append(column)
    return groups


def build(args):
    """(model description, plan, spec for the workers, output variables) from the options."""
    from fmpy import read_model_description

    model = read_model_description(args.fmu)
    if model.coSimulation is None:
        raise plan.PlanError(f"{args.fmu} is not a co-simulation FMU")
    grid, tolerance = experiment.resolve(
        model.defaultExperiment, args.start_time, args.stop_time, args.step, args.tolerance
    )
    if args.parameters:
        the_plan = plan.from_csv(model, args.parameters)
    elif args.grid:
        the_plan = plan.from_grid(model, args.grid)
    else:
        the_plan = plan.from_samples(model, args.samples, args.uniform, args.normal, args.seed)
    fixed_vars, fixed_values = [], []
    for name, text in args.set:
        var = plan.variable(model, name, "--set")
        if var in the_plan.variables:
            raise plan.PlanError(f"'{name}' is both swept and given by --set; keep one")
        fixed_vars.append(var)
        fixed_values.append(plan.parse_cell(var, text, "--set"))
    outputs = _outputs(model, args.outputs)
    categories = [c.name for c in model.logCategories if c.name.startswith("logStatus")]
    with open(args.fmu, "rb") as f:
        archive = f.read()
    spec = {
        "version": int(model.fmiVersion[0]),
        "token": model.guid,
        "identifier": model.coSimulation.modelIdentifier,
        "digest": worker.digest(archive),
        "grid": (grid.start, grid.stop, grid.step),
        "tolerance": tolerance,
        "categories": categories,
        "fixed_vars": [(v.valueReference, v.type) for v in fixed_vars],
        "fixed_values": fixed_values,
        "params": [(v.valueReference, v.type) for v in the_plan.variables],
        "outputs": len(outputs),
        "groups": _groups(outputs),
        "keep_series": args.series is not None,
    }
    return model, the_plan, spec, outputs, archive, grid


def run_on_dask(client, archive, spec, the_plan, chunk_size, quiet):
    """Submits the runs in chunks; returns (finished results, interrupted)."""
    from dask.distributed import as_completed

    runs = len(the_plan.rows)
    workers = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))
    size = chunk_size or max(1, -(-runs // (8 * workers)))
    shared = client.scatter(archive, broadcast=True)
    futures = [
        client.submit(
            worker.run_chunk,
            shared,
            spec,
            [(r, the_plan.rows[r]) for r in range(first, min(first + size, runs))],
            pure=False,
        )
        for first in range(0, runs, size)
    ]
    results, last_line = [], time.monotonic()
    try:
        for future in as_completed(futures):
            results.extend(future.result())
            if not quiet and time.monotonic() - last_line >= 10.0:
                last_line = time.monotonic()
                print(f"sweep: {len(results)} of {runs} runs done", file=sys.stderr)
        return results, False
    except KeyboardInterrupt:
        client.cancel(futures)
        return results, True


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        model, the_plan, spec, outputs, archive, grid = build(args)
        paths = args.output or [f"{model.modelName}_sweep.parquet"]
        for path in paths:
            table.check_path(path, "--output")
        if args.series:
            table.check_path(args.series, "--series")
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1

    from dask.distributed import Client, LocalCluster

    started = time.monotonic()
    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        workers = args.local_workers or os.cpu_count() or 1
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    try:
        setup = time.monotonic() - started
        started = time.monotonic()
        results, interrupted = run_on_dask(client, archive, spec, the_plan, args.chunk_size, args.quiet)
        seconds = time.monotonic() - started
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

    names = [v.name for v in outputs]
    for path in paths:
        table.write(table.results_table(the_plan, names, results), path)
    if args.series:
        time_name = next((v.name for v in model.modelVariables if v.causality == "independent"), "time")
        table.write(table.series_table(time_name, names, results), args.series)
    failed = sum(r["status"] not in ("ok", "terminated") for r in results)
    if not args.quiet or interrupted:
        print(
            f"{len(results)} of {len(the_plan.rows)} runs done in {seconds:.2f} s on Dask "
            f"({len(results) / max(seconds, 1e-9):.1f} runs/s; cluster start {setup:.2f} s), {failed} failed; "
            f"wrote {', '.join(paths + ([args.series] if args.series else []))}"
        )
    return 130 if interrupted else 0
