"""Parameter sets, as the Rust command makes them (crates/cli/src/sweep/plan.rs and
sampling.rs): a CSV file, a full grid (the first axis varying slowest) or seeded random samples
(SplitMix64 words, 53-bit uniforms, Box-Muller normals), every value checked against the model
description before any run starts."""

import csv
import itertools
import math

MAX_RUNS = 100_000_000
MASK64 = (1 << 64) - 1
FLOAT_TYPES = ("Real", "Float64", "Float32")
INTEGER_RANGES = {
    "Int8": (-(2**7), 2**7 - 1),
    "Int16": (-(2**15), 2**15 - 1),
    "Int32": (-(2**31), 2**31 - 1),
    "Integer": (-(2**31), 2**31 - 1),
    "Int64": (-(2**63), 2**63 - 1),
    "UInt8": (0, 2**8 - 1),
    "UInt16": (0, 2**16 - 1),
    "UInt32": (0, 2**32 - 1),
    "UInt64": (0, 2**63 - 1),
}


class PlanError(ValueError):
    """A mistake in the options, found before any run starts."""


class Draws:
    """SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
    OOPSLA 2014, DOI 10.1145/2660193.2660195) from state `seed`."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def word(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def unit(self):
        """Uniform on [0, 1): the top 53 bits of the next word times 2^-53."""
        return (self.word() >> 11) * (1.0 / float(1 << 53))

    def uniform(self, low, high):
        return low + (high - low) * self.unit()

    def normal(self, mean, sd):
        """Box and Muller, "A note on the generation of random normal deviates", Ann. Math.
        Statist. 29(2), 1958, DOI 10.1214/aoms/1177706645: sqrt(-2 ln u1) cos(2 pi u2)."""
        u1 = 1.0 - self.unit()
        u2 = self.unit()
        return mean + sd * (math.sqrt(-2.0 * math.log(u1)) * math.cos(math.tau * u2))


def _settable(var):
    if var.variability == "constant":
        return "it is a constant"
    if var.causality in ("parameter", "structuralParameter", "input"):
        return None
    if var.causality in ("output", "local") and var.initial in ("exact", "approx"):
        return None
    return f"its causality is {var.causality}"


def _items(var):
    declared = var.declaredType
    return {item.name: int(item.value) for item in getattr(declared, "items", None) or []}


def _bound(var, attribute):
    text = getattr(var, attribute, None)
    if text is None and var.declaredType is not None:
        text = getattr(var.declaredType, attribute, None)
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def variable(model, name, option, settable=True):
    """The model variable `name` (a numeric scalar, settable unless settable=False)."""
    var = next((v for v in model.modelVariables if v.name == name), None)
    if var is None:
        raise PlanError(f"unknown variable '{name}' in {option}: {model.modelName} has no such variable")
    if settable:
        why = _settable(var)
        if why:
            raise PlanError(f"{option} {name}: cannot set '{name}' before a run: {why}")
    if getattr(var, "dimensions", None) or var.type in ("String", "Binary", "Clock"):
        raise PlanError(f"{option} {name}: only numeric scalar variables can be used")
    return var


def parse_cell(var, text, origin):
    """A value given as text, as a number for the table: numbers, true/false, item names."""
    cell = text.strip()
    if var.type == "Boolean":
        lowered = cell.lower()
        if lowered in ("true", "1"):
            return 1.0
        if lowered in ("false", "0"):
            return 0.0
        raise PlanError(f"{origin} {var.name}={text}: {var.name} expects true, false, 1 or 0")
    if var.type == "Enumeration":
        items = _items(var)
        if cell in items:
            return float(items[cell])
        folded = [v for k, v in items.items() if k.lower() == cell.lower()]
        if len(folded) == 1:
            return float(folded[0])
    try:
        return float(int(cell)) if var.type not in FLOAT_TYPES else float(cell)
    except ValueError:
        expected = "a number" if var.type in FLOAT_TYPES else "an integer"
        raise PlanError(f"{origin} {var.name}={text}: {var.name} expects {expected}") from None


def check_value(var, x):
    """Why x is not a value of var, or None."""
    if not math.isfinite(x):
        return "is not a finite number"
    if var.type == "Boolean" and x not in (0.0, 1.0):
        return "a Boolean takes 0 or 1"
    if var.type == "Enumeration" and _items(var) and x not in [float(v) for v in _items(var).values()]:
        return "is not an item of the enumeration"
    if var.type not in FLOAT_TYPES + ("Boolean",) and (x != math.floor(x) or abs(x) > 2.0**53):
        return f"a {var.type} takes whole numbers (up to 2^53)"
    low, high = INTEGER_RANGES.get(var.type, (None, None))
    if low is not None and not low <= x <= high:
        return f"is out of range for {var.type}"
    low, high = _bound(var, "min"), _bound(var, "max")
    if low is not None and x < low:
        return f"is below the minimum of {var.name} ({low})"
    if high is not None and x > high:
        return f"is above the maximum of {var.name} ({high})"
    return None


def _checked(var, x, context):
    why = check_value(var, x)
    if why:
        raise PlanError(f"{context}: {x}: {why}")
    return x


class Plan:
    """The swept variables and one row of values (floats) per run."""

    def __init__(self, variables, rows):
        names = [v.name for v in variables]
        for j, name in enumerate(names):
            if name in names[:j]:
                raise PlanError(f"the parameter '{name}' is given twice")
        self.variables = variables
        self.rows = rows


def from_csv(model, path):
    with open(path, newline="") as f:
        lines = [line for line in f if not line.lstrip().startswith("#")]
    reader = csv.reader(lines)
    header = [h.strip() for h in next(reader, [])]
    variables = [variable(model, name, "--parameters") for name in header]
    rows = []
    for number, record in enumerate(reader, start=2):
        if not record:
            continue
        if len(record) != len(variables):
            raise PlanError(f"--parameters {path}, row {number}: {len(record)} cells for {len(variables)} columns")
        origin = f"--parameters {path}, row {number}:"
        rows.append([_checked(v, parse_cell(v, cell, origin), origin) for v, cell in zip(variables, record)])
    if not rows:
        raise PlanError(f"--parameters {path}: no rows (one row of values per run)")
    return Plan(variables, rows)


def grid_values(spec):
    """START:STOP:COUNT -> START + i (STOP - START) / (COUNT - 1), the last exactly STOP."""
    try:
        start, stop, count = spec.split(":")
        start, stop, count = float(start), float(stop), int(count)
    except ValueError:
        raise PlanError("expected START:STOP:COUNT (two numbers and a whole count, e.g. 1e9:2e9:5)") from None
    if not (math.isfinite(start) and math.isfinite(stop)):
        raise PlanError("START and STOP must be finite numbers")
    if count < 1:
        raise PlanError("COUNT must be at least 1")
    if count == 1:
        if start != stop:
            raise PlanError("one value between two different ends is ambiguous: COUNT >= 2, or START = STOP")
        return [start]
    step = (stop - start) / float(count - 1)
    return [stop if i == count - 1 else start + float(i) * step for i in range(count)]


def from_grid(model, axes):
    variables, points = [], []
    for name, spec in axes:
        var = variable(model, name, "--grid")
        try:
            values = grid_values(spec)
        except PlanError as e:
            raise PlanError(f"--grid {name}={spec}: {e}") from None
        variables.append(var)
        points.append([_checked(var, x, f"--grid {name}={spec}") for x in values])
    if math.prod(len(p) for p in points) > MAX_RUNS:
        raise PlanError(f"the --grid has more than {MAX_RUNS} combinations")
    return Plan(variables, [list(row) for row in itertools.product(*points)])


def _pair(spec, context):
    try:
        a, b = (float(x) for x in spec.split(":"))
    except ValueError:
        raise PlanError(f"{context}: expected two finite numbers separated by ':'") from None
    if not (math.isfinite(a) and math.isfinite(b)):
        raise PlanError(f"{context}: expected two finite numbers separated by ':'")
    return a, b


def from_samples(model, n, uniform, normal, seed):
    """n sets: the --uniform parameters first, then the --normal ones, drawn in that order."""
    if not 1 <= n <= MAX_RUNS:
        raise PlanError(f"--samples {n}: give between 1 and {MAX_RUNS} samples")
    laws = []
    for option, pairs, is_uniform in (("--uniform", uniform, True), ("--normal", normal, False)):
        for name, spec in pairs:
            var = variable(model, name, option)
            if var.type not in FLOAT_TYPES:
                raise PlanError(f"{option} {name}: only Float parameters can be drawn at random")
            a, b = _pair(spec, f"{option} {name}={spec}")
            if is_uniform:
                if a > b:
                    raise PlanError(f"{option} {name}={spec}: LOW must not be greater than HIGH")
                _checked(var, a, f"{option} {name}={spec}")
                _checked(var, b, f"{option} {name}={spec}")
            elif b < 0.0:
                raise PlanError(f"{option} {name}={spec}: the standard deviation SD must not be negative")
            laws.append((var, option, is_uniform, a, b))
    if not laws:
        raise PlanError("--samples needs at least one --uniform NAME=LOW:HIGH or --normal NAME=MEAN:SD")
    draws, rows = Draws(seed), []
    for r in range(n):
        row = []
        for var, option, is_uniform, a, b in laws:
            x = draws.uniform(a, b) if is_uniform else draws.normal(a, b)
            _checked(var, x, f"{option} {var.name}: sample {r} (seed {seed})")
            row.append(x)
        rows.append(row)
    return Plan([law[0] for law in laws], rows)
