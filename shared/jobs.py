"""The background jobs, as plain functions: Celery tasks and the in-process runner call
these same functions."""

from __future__ import annotations

import logging
import time
from typing import Any

from shared.alerts.jobs import (
    DISPATCH_DUE,
    EVALUATE,
    dispatch_due_job,
    evaluate_call,
    evaluate_job,
)
from shared.db import get_engine, session_scope
from shared.events import (
    QUEUES,
    RECOMPUTE_SCORES,
    TaskCall,
    enqueue_after_commit,
    get_dispatcher,
    register_job,
    resend_unsent,
)
from shared.quotes.jobs import recompute_standard_quotes_job
from shared.scoring.compute import recompute_scores
from shared.settings import get_settings

log = logging.getLogger(__name__)

FULL_RECOMPUTE = "compute.full_recompute"
RECOMPUTE_QUOTES = "compute.recompute_standard_quotes"
RESEND_UNSENT = "compute.resend_unsent"


class TransientJobError(RuntimeError):
    """A failure worth retrying (a dependency was briefly unavailable)."""


def _fault(name: str) -> str | None:
    """The argument of an injected fault `name[:arg]`, if configured (fault tests only)."""
    for spec in get_settings().fault_injection.split(","):
        key, _, arg = spec.strip().partition(":")
        if key == name:
            return arg
    return None


def recompute_job(gpu_ids: list[str] | None = None) -> dict[str, Any]:
    if _fault("recompute-transient") is not None:
        raise TransientJobError("injected transient failure")
    pause = _fault("recompute-pause")
    midway = (lambda: time.sleep(float(pause))) if pause else None
    with session_scope() as session:
        result = recompute_scores(session, gpu_ids, midway=midway)
        # New prices and scores may make alert rules true, and move standard quotes.
        enqueue_after_commit(session, evaluate_call(gpu_ids))
        enqueue_after_commit(session, quotes_call(gpu_ids))
    log.info("recomputed %d rows for %d GPUs", result.rows, len(result.gpu_ids))
    return {"gpus": len(result.gpu_ids), "rows": result.rows, "revision": result.revision}


def quotes_call(gpu_ids: list[str] | None) -> TaskCall:
    return TaskCall(RECOMPUTE_QUOTES, (sorted(gpu_ids) if gpu_ids else None,), QUEUES["compute"])


def full_recompute_job() -> dict[str, Any]:
    return recompute_job(None)


def resend_unsent_job() -> dict[str, Any]:
    return resend_unsent(get_engine(), get_dispatcher())


def register_all() -> None:
    register_job(RECOMPUTE_SCORES, recompute_job)
    register_job(FULL_RECOMPUTE, full_recompute_job)
    register_job(RECOMPUTE_QUOTES, recompute_standard_quotes_job)
    register_job(RESEND_UNSENT, resend_unsent_job)
    register_job(EVALUATE, evaluate_job)
    register_job(DISPATCH_DUE, dispatch_due_job)
