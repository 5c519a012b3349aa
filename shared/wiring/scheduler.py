"""Periodic work without a broker: what Celery beat sends in a deployment, run by a
daemon thread of the API process in the embedded default."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from shared.alerts.jobs import dispatch_call
from shared.kit.context import Context
from shared.kit.events import TaskCall
from shared.wiring.jobs import full_recompute_call, resend_call

log = logging.getLogger(__name__)
DAY_S = 86400.0


@dataclass
class Periodic:
    name: str
    action: Callable[[], None]
    every_s: float
    next_at: float


class InProcessScheduler:
    def __init__(self, ctx: Context) -> None:
        now = time.monotonic()
        settings = ctx.settings
        self._dispatcher = dispatcher = ctx.dispatcher
        self._jobs = [
            self._sends(dispatch_call(), settings.alert_dispatch_interval_s, now),
            # Daily; the first at start unless turned off (queued work survives a kill in
            # the job table, so this is a safety net, not the catch-up).
            self._sends(
                full_recompute_call(),
                DAY_S,
                now if settings.full_recompute_on_start else now + DAY_S,
            ),
            # Work another process parked in the database (it could not reach its
            # dispatcher) is sent here, as beat's resend-unsent does with a broker.
            self._sends(resend_call(), settings.unsent_resend_interval_s, now),
            # Queued rows other processes left (a CLI command's, a killed process's).
            Periodic("resume-queued", dispatcher.wake, settings.job_resume_interval_s, now),
        ]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gpu-advisor-scheduler", daemon=True)

    def _sends(self, call: TaskCall, every_s: float, first_at: float) -> Periodic:
        return Periodic(call.name, lambda: self._dispatcher.send(call), every_s, first_at)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            now = time.monotonic()
            for job in self._jobs:
                if now >= job.next_at:
                    job.next_at = now + job.every_s
                    try:
                        job.action()
                    except Exception:
                        log.exception("periodic %s failed to start", job.name)
