"""Alert jobs: evaluate rules after a change, deliver due webhook events."""

from __future__ import annotations

import time
from typing import Any

from shared.alerts.delivery import dispatch_due
from shared.alerts.evaluate import evaluate_alerts
from shared.kit.context import Context
from shared.kit.events import QUEUES, TaskCall, enqueue_after_commit
from shared.kit.faults import fault

EVALUATE = "alerts.evaluate"
DISPATCH_DUE = "alerts.dispatch_due"


def evaluate_call(gpu_ids: list[str] | None) -> TaskCall:
    return TaskCall(EVALUATE, (sorted(gpu_ids) if gpu_ids else None,), QUEUES["alerts"])


def dispatch_call() -> TaskCall:
    return TaskCall(DISPATCH_DUE, (), QUEUES["alerts"])


def evaluate_job(ctx: Context, gpu_ids: list[str] | None = None) -> dict[str, Any]:
    with ctx.session() as session:
        events = evaluate_alerts(session, ctx.settings, gpu_ids)
        if events:
            # Deliver right away rather than at the next periodic sweep.
            enqueue_after_commit(session, dispatch_call())
    return {"events": len(events)}


def dispatch_due_job(ctx: Context) -> dict[str, Any]:
    # `deliver-pause:N` sleeps between the POST and its record (fault tests only).
    pause = float(fault(ctx.settings, "deliver-pause") or 0)
    after_post = (lambda: time.sleep(pause)) if pause else None
    return dispatch_due(ctx.engine, ctx.settings, after_post=after_post)
