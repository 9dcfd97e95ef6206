import sys

from .cli import main

# The guard matters: Dask starts its local worker processes by spawning, which imports this module.
if __name__ == "__main__":
    sys.exit(main())
