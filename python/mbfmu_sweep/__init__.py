"""The parameter sweeps of `mbfmu sweep` on a Dask cluster, with FMPy on the workers.

The modules mirror the Rust command's: experiment (the communication grid), plan (the parameter
sets), worker (one run through FMPy's low-level API), table (the results table) and cli (the
options and the Dask client).
"""

__version__ = "0.1.0"
