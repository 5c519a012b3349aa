"""Periodic work without a broker: what Celery beat sends in a deployment, run by a
daemon thread of the API process in the embedded default."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from shared.alerts.jobs import dispatch_call
from shared.kit.context import Context
from shared.kit.events import TaskCall
from shared.wiring.jobs import full_recompute_call, resend_call

log = logging.getLogger(__name__)
DAY_S = 86400.0


@dataclass
class Periodic:
    call: TaskCall
    every_s: float
    next_at: float


class InProcessScheduler:
    def __init__(self, ctx: Context) -> None:
        now = time.monotonic()
        self._dispatcher = ctx.dispatcher
        self._jobs = [
            Periodic(dispatch_call(), ctx.settings.alert_dispatch_interval_s, now),
            # The first at start: in-process work a killed process had queued (a recompute,
            # its alert evaluation and standard quotes) is redone from the stored prices.
            Periodic(full_recompute_call(), DAY_S, now),
            # Work another process parked in the database (it could not reach its
            # dispatcher) is sent here, as beat's resend-unsent does with a broker.
            Periodic(resend_call(), ctx.settings.unsent_resend_interval_s, now),
        ]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gpu-advisor-scheduler", daemon=True)

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
                        self._dispatcher.send(job.call)
                    except Exception:
                        log.exception("periodic %s failed to start", job.call.name)
