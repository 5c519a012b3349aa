"""The suite's clock: every test runs on TEST_TODAY, the day its data was current.

The bundled data (used prices to 2026-09-30, cloud offers to 2026-10-05) and many tests'
fixed dates (make_observation's 2026-11-01) were current on TEST_TODAY. The product judges
freshness against the clock, as it must (2026 prices are stale in 2027), so on a later
machine date the same tests would see stale prices and no current cloud offers. Rather
than make the product or the data move with the calendar, the tests' clock is moved:
tests/conftest.py travels to TEST_TODAY with time-machine, ticking, before collection
and for the whole run (session fixtures and module constants included).

time-machine patches one process (time.time, datetime.now, date.today and the like;
not the monotonic clock that asyncio, timeouts and waits use). The Python processes
the tests start (servers, workers, CLI commands) are put on the same clock through
their environment: tests/clockstart/sitecustomize.py applies the offset handed down.
Other programs (redis-server, PostgreSQL, the browser) keep the real clock; the
product uses only durations with them (Redis TTLs, timeouts), never their dates.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import time_machine

# A day the bundled data and the tests' dates were current on: the suite passed on the
# real clock on 2026-12-03. Moving it means checking those dates again.
TEST_TODAY = datetime(2026, 12, 2, 12, tzinfo=UTC)

# Nanoseconds from the real clock to the suite's, for the processes the tests start.
OFFSET_ENV = "TEST_CLOCK_OFFSET_NS"
# Holds the sitecustomize.py that applies OFFSET_ENV when a Python process starts.
STARTUP_DIR = Path(__file__).resolve().parent / "clockstart"

_travel: time_machine.travel | None = None
_saved_env: dict[str, str | None] = {}


def pin() -> None:
    """Travel to TEST_TODAY, and hand the clock to the processes started from now on.
    A process started on the suite's clock already (an xdist worker) keeps it."""
    global _travel
    if time_machine.escape_hatch.is_travelling():
        return
    _travel = time_machine.travel(TEST_TODAY, tick=True)
    _travel.start()
    offset = time.time_ns() - time_machine.escape_hatch.time.time_ns()
    path = os.environ.get("PYTHONPATH")
    env = {
        OFFSET_ENV: str(offset),
        "PYTHONPATH": os.pathsep.join(p for p in (str(STARTUP_DIR), path) if p),
    }
    for name, value in env.items():
        _saved_env[name] = os.environ.get(name)
        os.environ[name] = value


def unpin() -> None:
    global _travel
    if _travel is None:
        return
    _travel.stop()
    _travel = None
    for name, value in _saved_env.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _saved_env.clear()
