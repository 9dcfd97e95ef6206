"""Runs on the Dask workers: parameter sets through FMPy's low-level co-simulation API, making
the calls the Rust command makes (crates/cli/src/sweep/run.rs and stepping.rs): instantiate,
switch on the logStatus* log categories, set the --set values then the parameters one by one,
(setup experiment and) enter and exit initialization with the tolerance, start and stop time,
read the outputs, then doStep over the communication grid, reading after every step."""

import hashlib
import io
import shutil
import tempfile
import threading
import zipfile
from ctypes import byref

from .experiment import Grid, display

# Unpacked archives of this worker process, by content hash.
_UNPACKED = {}
_UNPACK_LOCK = threading.Lock()
# One loaded FMU object per thread: its library is loaded once and instances are made from it.
_LOCAL = threading.local()


def _unpack(archive, digest):
    with _UNPACK_LOCK:
        if digest not in _UNPACKED:
            directory = tempfile.mkdtemp(prefix="mbfmu-sweep-")
            with zipfile.ZipFile(io.BytesIO(archive)) as z:
                z.extractall(directory)
            _UNPACKED[digest] = directory
        return _UNPACKED[digest]


def cleanup():
    """Removes the unpacked archives (at the end of a local run)."""
    with _UNPACK_LOCK:
        for directory in _UNPACKED.values():
            shutil.rmtree(directory, ignore_errors=True)
        _UNPACKED.clear()


def digest(archive):
    return hashlib.sha256(archive).hexdigest()


class _Loaded:
    """An FMPy slave object whose instances are created and freed without unloading the
    library (FMPy's freeInstance would unload it), and a list that collects what it logs."""

    def __init__(self, directory, spec):
        self.version = spec["version"]
        self.messages = []
        kwargs = dict(
            guid=spec["token"],
            unzipDirectory=directory,
            modelIdentifier=spec["identifier"],
            instanceName=spec["identifier"],
        )
        if self.version == 2:
            from fmpy import fmi2
            from fmpy.logging import addLoggerProxy

            self.fmu = fmi2.FMU2Slave(**kwargs)

            def logger(_component, instance, status, _category, message):
                self._log(status, instance, message)

            callbacks = fmi2.fmi2CallbackFunctions()
            callbacks.logger = fmi2.fmi2CallbackLoggerTYPE(logger)
            callbacks.allocateMemory = fmi2.fmi2CallbackAllocateMemoryTYPE(fmi2.calloc)
            callbacks.freeMemory = fmi2.fmi2CallbackFreeMemoryTYPE(fmi2.free)
            addLoggerProxy(byref(callbacks))
            self.callbacks = callbacks
        else:
            from fmpy import fmi3

            self.fmu = fmi3.FMU3Slave(**kwargs)

            def log_message(_environment, status, category, message):
                self._log(status, category, message)

            self.log_message = log_message

    def _log(self, status, source, message):
        """A log line as the Rust command's logger writes it (crates/cli/src/log.rs): the
        source is the instance name (FMI 2) or the category (FMI 3); the level follows the
        Rust importer's mapping, under which an FMI 3 Discard is a warning."""
        text = lambda b: b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)
        levels = {1: "warning", 2: "discard" if self.version == 2 else "warning", 3: "error", 4: "error"}
        self.messages.append(f"FMU {levels.get(status, 'info')} [{text(source)}]: {text(message)}")

    def instantiate(self, name):
        # The instance name that FMI 2 log lines carry, as the Rust command names its runs.
        self.fmu.instanceName = name
        if self.version == 2:
            self.fmu.instantiate(visible=False, callbacks=self.callbacks, loggingOn=False)
        else:
            self.fmu.instantiate(visible=False, loggingOn=False, logMessage=self.log_message)

    def free(self):
        if self.version == 2:
            self.fmu.fmi2FreeInstance(self.fmu.component)
        else:
            self.fmu.fmi3FreeInstance(self.fmu.component)


def _loaded(archive, spec):
    directory = _unpack(archive, spec["digest"])
    cache = getattr(_LOCAL, "loaded", None)
    if cache is None:
        cache = _LOCAL.loaded = {}
    if spec["digest"] not in cache:
        cache[spec["digest"]] = _Loaded(directory, spec)
    return cache[spec["digest"]]


# Setters and getters by variable type name (FMPy's names: FMI 2 Real/Integer, FMI 3 Float64, ...).
_SET2 = {
    "Real": "setReal",
    "Integer": "setInteger",
    "Enumeration": "setInteger",
    "Boolean": "setBoolean",
    "String": "setString",
}
_GET2 = {"Real": "getReal", "Integer": "getInteger", "Enumeration": "getInteger", "Boolean": "getBoolean"}


def _setter(version, type_name):
    if version == 2:
        return _SET2[type_name]
    return "setInt64" if type_name == "Enumeration" else "set" + type_name


def _getter(version, type_name):
    if version == 2:
        return _GET2[type_name]
    return "getInt64" if type_name == "Enumeration" else "get" + type_name


def _typed(type_name, x):
    if type_name == "String":
        return x
    if type_name in ("Real", "Float64", "Float32"):
        return x
    if type_name == "Boolean":
        return x != 0.0
    return int(x)


def _read(fmu, version, groups, row):
    for type_name, vrs, columns in groups:
        values = getattr(fmu, _getter(version, type_name))(vrs)
        for column, value in zip(columns, values):
            row[column] = 1.0 if value is True else 0.0 if value is False else float(value)


class _StepFailed(Exception):
    def __init__(self, status, why, terminated=False):
        super().__init__(why)
        self.status, self.terminated = status, terminated


def _step(loaded, t, t_next):
    """One doStep; raises _StepFailed as the Rust master classifies the outcome."""
    from fmpy.fmi1 import FMICallException

    fmu, h = loaded.fmu, t_next - t
    labels = {2: "Discard", 3: "Error", 4: "Fatal", 5: "Pending"}
    if loaded.version == 2:
        try:
            fmu.doStep(t, h, True)
            return
        except FMICallException as e:
            status, last = e.status, None
            if status == 2:
                from fmpy.fmi2 import fmi2LastSuccessfulTime, fmi2Terminated

                try:
                    last = fmu.getRealStatus(fmi2LastSuccessfulTime)
                except FMICallException:
                    last = None
                try:
                    terminated = fmu.getBooleanStatus(fmi2Terminated)
                except FMICallException:
                    terminated = False
                if terminated:
                    raise _StepFailed("terminated", last, terminated=True) from None
    else:
        from fmpy.fmi3 import fmi3Boolean, fmi3Float64

        event, terminate, early, last_time = fmi3Boolean(), fmi3Boolean(), fmi3Boolean(), fmi3Float64(t)
        try:
            fmu.fmi3DoStep(
                fmu.component, t, h, fmi3Boolean(True), byref(event), byref(terminate), byref(early), byref(last_time)
            )
            if terminate.value:
                raise _StepFailed("terminated", last_time.value, terminated=True)
            return
        except FMICallException as e:
            status = e.status
            if status == 2 and terminate.value:
                raise _StepFailed("terminated", last_time.value, terminated=True) from None
            last = last_time.value if status == 2 else None
    label = labels.get(status, "Error")
    reached = f"; the FMU reached t = {display(last)} (its last successful time)" if last is not None else ""
    kind = {"Discard": "discard", "Fatal": "fatal"}.get(label, "error")
    raise _StepFailed(kind, f"the FMU returned {label} in the communication step from t = {display(t)} to {display(t_next)}{reached}")


def run_one(loaded, spec, grid, index, values):
    """One parameter set; a dict with the run's status, message, end time, stats and series."""
    version, fmu = loaded.version, loaded.fmu
    loaded.messages = []
    result = {"run": index, "status": "ok", "message": "", "end_time": grid.start, "stats": None, "series": []}
    outputs = spec["outputs"]
    keep = spec["keep_series"]

    def fail(status, why):
        result["status"] = status
        logged = loaded.messages
        result["message"] = f"{why}; the FMU logged: {' | '.join(logged)}" if logged else why
        result["stats"] = None
        return result

    instantiated = False
    try:
        loaded.instantiate(f"run{index}")
        instantiated = True
        if spec["categories"]:
            fmu.setDebugLogging(True, spec["categories"])
        for (vr, type_name), x in zip(spec["fixed_vars"] + spec["params"], spec["fixed_values"] + list(values)):
            getattr(fmu, _setter(version, type_name))([vr], [_typed(type_name, x)])
        if version == 2:
            fmu.setupExperiment(tolerance=spec["tolerance"], startTime=grid.start, stopTime=grid.stop)
            fmu.enterInitializationMode()
        else:
            fmu.enterInitializationMode(tolerance=spec["tolerance"], startTime=grid.start, stopTime=grid.stop)
        fmu.exitInitializationMode()
        row = [0.0] * outputs
        _read(fmu, version, spec["groups"], row)
    except Exception as e:  # noqa: BLE001 - any failure before stepping is this run's error
        if instantiated:
            loaded.free()
        return fail("error", str(e))

    mins, maxs, sums, count, last = list(row), list(row), list(row), 1, list(row)
    if keep:
        result["series"].extend([grid.start] + row)
    status, why = "ok", ""
    for i in range(grid.steps):
        t, t_next = grid.time(i), grid.time(i + 1)
        try:
            _step(loaded, t, t_next)
            _read(fmu, version, spec["groups"], row)
        except _StepFailed as e:
            if e.terminated:
                at = "" if e.args[0] is None else f", last successful time {display(e.args[0])}"
                status, t_text = "terminated", display(t)
                why = (
                    f"the FMU ended the simulation during the step from t = {t_text} "
                    f"(terminateSimulation{at}); results end at t = {t_text}"
                )
                break
            loaded.free()
            fail(e.status, str(e))
            # The statistics cover the communication points reached, up to end_time.
            result["stats"] = [(mins[k], maxs[k], sums[k] / float(count), last[k]) for k in range(outputs)]
            return result
        except Exception as e:  # noqa: BLE001
            loaded.free()
            return fail("error", f"after the step to t = {display(t_next)}: {e}")
        # min and max become NaN at a NaN and stay so; the mean is the running sum over the count.
        for k, x in enumerate(row):
            if x != x or x < mins[k]:
                mins[k] = x
            if x != x or x > maxs[k]:
                maxs[k] = x
            sums[k] += x
        count += 1
        last = list(row)
        if keep:
            result["series"].extend([t_next] + row)
        result["end_time"] = t_next
    try:
        fmu.terminate()
    except Exception as e:  # noqa: BLE001
        loaded.free()
        return fail("error", str(e))
    loaded.free()
    result["status"], result["message"] = status, why
    result["stats"] = [(mins[k], maxs[k], sums[k] / float(count), last[k]) for k in range(outputs)]
    return result


def run_chunk(archive, spec, chunk):
    """The task the Dask workers run: a list of (run index, parameter values)."""
    loaded = _loaded(archive, spec)
    grid = Grid(*spec["grid"])
    return [run_one(loaded, spec, grid, index, values) for index, values in chunk]
