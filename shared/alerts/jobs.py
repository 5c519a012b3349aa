"""Alert jobs: evaluate rules after a change, deliver due webhook events."""

from __future__ import annotations

import time
from typing import Any

from shared.alerts.delivery import dispatch_due
from shared.alerts.evaluate import evaluate_alerts
from shared.db import session_scope
from shared.events import QUEUES, TaskCall, enqueue_after_commit
from shared.settings import get_settings

EVALUATE = "alerts.evaluate"
DISPATCH_DUE = "alerts.dispatch_due"


def evaluate_call(gpu_ids: list[str] | None) -> TaskCall:
    return TaskCall(EVALUATE, (sorted(gpu_ids) if gpu_ids else None,), QUEUES["alerts"])


def dispatch_call() -> TaskCall:
    return TaskCall(DISPATCH_DUE, (), QUEUES["alerts"])


def evaluate_job(gpu_ids: list[str] | None = None) -> dict[str, Any]:
    with session_scope() as session:
        events = evaluate_alerts(session, gpu_ids)
        if events:
            # Deliver right away rather than at the next periodic sweep.
            enqueue_after_commit(session, dispatch_call())
    return {"events": len(events)}


def dispatch_due_job() -> dict[str, Any]:
    settings = get_settings()
    pause = _fault_pause(settings.fault_injection)
    after_post = (lambda: time.sleep(pause)) if pause else None
    return dispatch_due(None, settings, after_post=after_post)


def _fault_pause(spec: str) -> float:
    """`deliver-pause:N` sleeps between the POST and its record (fault tests only)."""
    for item in spec.split(","):
        key, _, arg = item.strip().partition(":")
        if key == "deliver-pause":
            return float(arg)
    return 0.0
