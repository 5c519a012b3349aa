"""One API process per data directory in the embedded default (no broker).

Without a broker each API process runs its own scheduler, in-process job worker and
in-memory rate limits: two of them on one data directory send webhooks twice and let
twice the rate limit through. `gpu-advisor serve --workers 2` refuses that before it
starts; `uvicorn --workers 2` run directly does not know, so each process takes an
exclusive lock on the data directory at start, and one that cannot get it fails its
start-up with the reason (uvicorn then stops the whole server: a worker that fails to
start stops its parent). With a broker the shared state is in Redis and no lock is taken;
nor when the in-process scheduler is off (tests that build several apps on one directory
in one process, each driving its own jobs).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

LOCK_NAME = "api.lock"


class AnotherApiProcess(RuntimeError):
    """Another API process already serves this data directory without a broker."""


def hold(data_dir: Path) -> IO[str]:
    """The open, locked lock file (keep it open while serving; `release` closes it)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    handle = path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise AnotherApiProcess(
            f"{holder} already serves {data_dir.resolve()} without a broker: one API process "
            "per data directory in the embedded default (its scheduler, jobs and rate limits "
            "are in-process). Run one process, or set GPU_ADVISOR_BROKER_URL (Redis) and run "
            "Celery workers to serve with several"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"API process {os.getpid()}\n")
    handle.flush()
    return handle


def release(handle: IO[str]) -> None:
    fcntl.flock(handle, fcntl.LOCK_UN)
    handle.close()
