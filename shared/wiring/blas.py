"""One BLAS thread per process, set where every entry point builds its Context.

The numeric work on request paths (the index fit's solves, the model's small matrices)
is hundreds of unknowns at most: OpenBLAS's threads only add hand-offs, and with one
pool per BLAS library (numpy's and scipy's each load one) times every request thread
they outnumber the cores many times over. Ten /tco requests after a new price, each
fitting the index on a 2-core machine, took 170 s with the default threads against 0.7 s
for one request (bench/index_burst.py); issue 39 measured the same burst at 1.0 s with
one thread. threadpoolctl sets the limit in the loaded libraries (the environment
variables work only before a library loads); the limit is process-wide, not per thread,
so it is set once here rather than around each fit, where one request restoring the
old value would undo another's limit mid-fit.
"""

from __future__ import annotations

import os

from threadpoolctl import threadpool_limits


def one_blas_thread() -> None:
    """Limit every loaded BLAS library to one thread; libraries loaded later, and child
    processes (uvicorn's and Celery's workers), read the environment variable."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Loads numpy's and scipy's OpenBLAS (the fit's solves use both) so the limit reaches them.
    import numpy  # noqa: F401
    import scipy.sparse.linalg  # noqa: F401

    threadpool_limits(limits=1, user_api="blas")
