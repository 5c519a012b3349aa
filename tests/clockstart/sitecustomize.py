"""Run at the start of every Python process the test suite starts (tests/clock.py puts
this directory first on their PYTHONPATH): the process runs on the suite's clock, the
real clock moved by the offset the suite hands down, ticking, as the suite itself does.

A Python without time-machine (not the project's virtual environment, so no product
code) keeps the real clock. A sitecustomize further along the path, which this one
hides, is run afterwards.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys

_offset = os.environ.get("TEST_CLOCK_OFFSET_NS")
if _offset:
    import time

    try:
        import time_machine
    except ImportError:
        pass
    else:
        time_machine.travel((time.time_ns() + int(_offset)) / 1e9, tick=True).start()

_here = os.path.dirname(os.path.abspath(__file__))
_rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
_spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
