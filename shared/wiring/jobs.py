"""The background jobs, as plain functions of a Context: Celery tasks and the in-process
dispatcher call these same functions, by the task names in JOBS."""

from __future__ import annotations

import logging
import time
from typing import Any

from sqlalchemy.exc import OperationalError

from shared.alerts.jobs import (
    DISPATCH_DUE,
    EVALUATE,
    dispatch_due_job,
    evaluate_call,
    evaluate_job,
)
from shared.kit.context import Context
from shared.kit.events import (
    QUEUES,
    RECOMPUTE_SCORES,
    Job,
    TaskCall,
    enqueue_after_commit,
)
from shared.kit.faults import fault
from shared.kit.outbox import relay
from shared.quotes.jobs import RECOMPUTE_QUOTES, quotes_call, recompute_standard_quotes_job
from shared.scoring.compute import recompute_scores

log = logging.getLogger(__name__)

FULL_RECOMPUTE = "compute.full_recompute"
RESEND_UNSENT = "compute.resend_unsent"


class TransientJobError(RuntimeError):
    """A failure worth retrying (a dependency was briefly unavailable)."""


# Only failures that can pass are retried (by Celery and in-process alike); a bad GPU id
# (ValueError) fails at once.
TRANSIENT: tuple[type[BaseException], ...] = (
    TransientJobError,
    OperationalError,
    ConnectionError,
    TimeoutError,
)


def recompute_job(ctx: Context, gpu_ids: list[str] | None = None) -> dict[str, Any]:
    if fault(ctx.settings, "recompute-transient") is not None:
        raise TransientJobError("injected transient failure")
    pause = fault(ctx.settings, "recompute-pause")
    midway = (lambda: time.sleep(float(pause))) if pause else None
    with ctx.session() as session:
        result = recompute_scores(
            session, gpu_ids, model=ctx.model, settings=ctx.settings, midway=midway
        )
        # New prices and scores may make alert rules true, and move standard quotes.
        enqueue_after_commit(session, evaluate_call(gpu_ids))
        enqueue_after_commit(session, quotes_call(gpu_ids))
    log.info("recomputed %d rows for %d GPUs", result.rows, len(result.gpu_ids))
    return {"gpus": len(result.gpu_ids), "rows": result.rows, "revision": result.revision}


def full_recompute_job(ctx: Context) -> dict[str, Any]:
    return recompute_job(ctx, None)


def resend_unsent_job(ctx: Context) -> dict[str, Any]:
    """Relay the outbox: what a killed process committed but never relayed, and what a
    broker outage left (coalesced calls merged)."""
    return relay(ctx.engine, ctx.dispatcher.send, COALESCED)


def full_recompute_call() -> TaskCall:
    return TaskCall(FULL_RECOMPUTE, (), QUEUES["compute"])


def resend_call() -> TaskCall:
    return TaskCall(RESEND_UNSENT, (), QUEUES["compute"])


# Jobs of GPU ids (or all), and sweeps (one run does what several queued ones would):
# queued calls of one merge in the in-process dispatcher.
COALESCED = (
    RECOMPUTE_SCORES,
    FULL_RECOMPUTE,
    RECOMPUTE_QUOTES,
    EVALUATE,
    DISPATCH_DUE,
    RESEND_UNSENT,
)

JOBS: dict[str, Job] = {
    RECOMPUTE_SCORES: recompute_job,
    FULL_RECOMPUTE: full_recompute_job,
    RECOMPUTE_QUOTES: recompute_standard_quotes_job,
    RESEND_UNSENT: resend_unsent_job,
    EVALUATE: evaluate_job,
    DISPATCH_DUE: dispatch_due_job,
}
