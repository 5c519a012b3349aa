"""Visible records of background task executions (table task_run)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from sqlalchemy.engine import Engine
from sqlmodel import select

from shared.kit.db import session_scope
from shared.models import TaskRun

log = logging.getLogger(__name__)
MAX_TEXT = 4000


def record(
    engine: Engine,
    task_id: str,
    name: str,
    status: str,
    *,
    args: str = "",
    attempts: int = 1,
    error: str | None = None,
) -> None:
    """Upsert the run by task id; never raises (bookkeeping must not fail the task)."""
    try:
        with session_scope(engine) as session:
            run = session.exec(select(TaskRun).where(TaskRun.task_id == task_id)).first()
            now = datetime.now(UTC)
            if run is None:
                run = TaskRun(
                    task_id=task_id, name=name, args=args[:MAX_TEXT], started_at=now, status=status
                )
            run.status = status
            run.attempts = max(run.attempts, attempts)
            run.error = error[:MAX_TEXT] if error else run.error
            run.finished_at = now if status in {"success", "failed"} else None
            session.add(run)
    except Exception:
        log.exception("could not record task run %s (%s)", task_id, status)
