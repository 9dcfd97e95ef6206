"""The communication grid of a run, computed exactly as the Rust command computes it
(crates/cli/src/stepping.rs): t_i = start + i * step rounded to the decimals of start and step,
the last point exactly at the stop time. Same inputs, same doubles, so the FMU sees the same
communication points from both masters."""

import math
from decimal import Decimal

# More communication steps than this is almost certainly a typo in --step.
MAX_STEPS = 1e9


def round_half_away(x):
    """Rust's f64::round: halves away from zero (Python's round() rounds them to even)."""
    a = abs(x)
    whole = math.floor(a)
    if a - whole >= 0.5:
        whole += 1
    return math.copysign(float(whole), x)


def display(x):
    """A float as Rust's `{}` prints it: the shortest digits that read back as x, never in
    exponent form (0.01, 8, 0.0000001), so that messages match the Rust command's."""
    if x != x:
        return "NaN"
    if x in (math.inf, -math.inf):
        return "inf" if x > 0 else "-inf"
    text = format(Decimal(repr(x)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def decimal_places(x):
    """Decimal places of x's shortest representation (None if more than 15): 0.01 -> 2, 8.0 -> 0."""
    exponent = Decimal(repr(x)).normalize().as_tuple().exponent
    places = max(0, -exponent)
    return places if places <= 15 else None


class Grid:
    def __init__(self, start, stop, step):
        for name, v in (("start time", start), ("stop time", stop), ("step", step)):
            if not math.isfinite(v):
                raise ValueError(f"the {name} must be a finite number, got {v}")
        if stop <= start:
            raise ValueError(f"the stop time ({stop}) must be greater than the start time ({start})")
        if step <= 0.0:
            raise ValueError(f"the communication step must be positive, got {step}")
        ratio = (stop - start) / step
        if ratio > MAX_STEPS:
            raise ValueError(f"{ratio:.3e} communication steps of {step} from {start} to {stop} are too many")
        # A ratio within rounding of an integer is that integer: 8 / 0.01 is 800 steps, not 801.
        nearest = round_half_away(ratio)
        steps = nearest if abs(ratio - nearest) <= 1e-9 * max(nearest, 1.0) else float(math.ceil(ratio))
        self.start, self.stop, self.step = start, stop, step
        self.steps = int(max(steps, 1.0))
        a, b = decimal_places(start), decimal_places(step)
        self.decimals = None if a is None or b is None else max(a, b)

    def time(self, i):
        """Communication point i."""
        if i >= self.steps:
            return self.stop
        t = self.start + float(i) * self.step
        if self.decimals is None:
            return t
        scale = 10.0**self.decimals
        scaled = t * scale
        return round_half_away(scaled) / scale if abs(scaled) < 2.0**52 else t


def resolve(default_experiment, start=None, stop=None, step=None, tolerance=None):
    """(grid, tolerance): the options, else the FMU's DefaultExperiment, else 0 .. start + 1 in 500 steps."""

    def given(value, attribute):
        if value is not None:
            return value
        text = getattr(default_experiment, attribute, None) if default_experiment is not None else None
        return float(text) if text is not None else None

    start = given(start, "startTime")
    start = 0.0 if start is None else start
    stop = given(stop, "stopTime")
    stop = start + 1.0 if stop is None else stop
    step = given(step, "stepSize")
    step = (stop - start) / 500.0 if step is None else step
    return Grid(start, stop, step), given(tolerance, "tolerance")
