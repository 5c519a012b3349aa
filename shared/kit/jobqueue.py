"""The embedded default's job queue: rows of `queued_job`, written in the transaction that
caused the work (an outbox), claimed by one process at a time, deleted once the job ran.

At-least-once: a process killed after a job committed its work but before the row was
deleted runs it again on the next start (every job is safe to repeat). Calls of a
coalesced job (one argument: GPU ids, or None for all) are merged when claimed, so a
burst of writes costs one run.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from shared.kit.events import TaskCall, error_text
from shared.models import QueuedJob


def process_owner() -> str:
    """Who claims a row: host, pid, the process's start time (a reused pid is not the
    same process) and a random token."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid)}:{secrets.token_hex(4)}"


def _start_ticks(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            # Field 22 (starttime); the command name (field 2) may hold spaces.
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "?"


def owner_dead(owner: str, host: str) -> bool:
    """True when `owner` ran on this host and that process is gone; other hosts' owners
    are never judged dead here (their claims expire with the lease)."""
    parts = owner.split(":")
    if len(parts) != 4 or parts[0] != host or not parts[1].isdigit():
        return False
    pid, ticks = int(parts[1]), parts[2]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # alive, another user's
    return ticks != "?" and _start_ticks(pid) not in (ticks, "?")


def stage(session: Session, call: TaskCall, now: datetime | None = None) -> None:
    """Queue `call` in `session`'s transaction: it exists only if the session commits."""
    at = now or datetime.now(UTC)
    session.add(
        QueuedJob(
            name=call.name,
            args=json.dumps(list(call.args)),
            queue=call.queue,
            created_at=at,
            not_before=at,
        )
    )


def add(engine: Engine, call: TaskCall) -> None:
    with Session(engine) as session:
        stage(session, call)
        session.commit()


@dataclass(frozen=True, slots=True)
class Claimed:
    ids: tuple[int, ...]
    call: TaskCall
    attempts: int  # failed runs so far, the most of the merged rows


def claim(
    engine: Engine, owner: str, coalesce: Collection[str], now: datetime | None = None
) -> Claimed | None:
    """Claim the oldest runnable job (with every waiting call of it, if it coalesces)."""
    at = now or datetime.now(UTC)
    runnable = (
        col(QueuedJob.claimed_by).is_(None),
        col(QueuedJob.failed_at).is_(None),
        col(QueuedJob.not_before) <= at,
    )
    with Session(engine) as session:
        first = session.exec(
            select(QueuedJob).where(*runnable).order_by(col(QueuedJob.id)).limit(1)
        ).first()
        if first is None or first.id is None:
            return None
        if first.name in coalesce:
            ids = session.exec(
                select(QueuedJob.id).where(*runnable, QueuedJob.name == first.name)
            ).all()
        else:
            ids = [first.id]
        # Conditional: a row another process claimed meanwhile is not taken twice.
        session.execute(
            update(QueuedJob)
            .where(col(QueuedJob.id).in_(ids), col(QueuedJob.claimed_by).is_(None))
            .values(claimed_by=owner, claimed_at=at)
        )
        session.commit()
        rows = session.exec(
            select(QueuedJob).where(col(QueuedJob.id).in_(ids), col(QueuedJob.claimed_by) == owner)
        ).all()
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: r.id or 0)
    args = merge_args([tuple(json.loads(r.args)) for r in rows], first.name in coalesce)
    return Claimed(
        ids=tuple(r.id for r in rows if r.id is not None),
        call=TaskCall(rows[0].name, args, rows[0].queue),
        attempts=max(r.attempts for r in rows),
    )


def merge_args(calls: Sequence[tuple[Any, ...]], coalesced: bool) -> tuple[Any, ...]:
    """One call's arguments for several: GPU ids merged, None (every GPU) absorbing."""
    if not coalesced or len(calls) == 1:
        return calls[0]
    if not calls[0]:
        return ()
    merged: set[str] = set()
    for args in calls:
        ids = args[0] if args else None
        if ids is None:
            return (None,)
        merged.update(ids)
    return (sorted(merged),)


def finish(engine: Engine, claimed: Claimed, owner: str) -> None:
    with Session(engine) as session:
        session.execute(
            delete(QueuedJob).where(
                col(QueuedJob.id).in_(claimed.ids), col(QueuedJob.claimed_by) == owner
            )
        )
        session.commit()


def fail(
    engine: Engine,
    claimed: Claimed,
    owner: str,
    error: BaseException,
    retry_in_s: float | None,
    now: datetime | None = None,
) -> None:
    """Release the rows for a retry in `retry_in_s`, or give them up (None): kept, with
    the error, and never run again."""
    at = now or datetime.now(UTC)
    values: dict[str, Any] = {
        "attempts": claimed.attempts + 1,
        "last_error": error_text(error),
        "claimed_by": None,
        "claimed_at": None,
    }
    if retry_in_s is None:
        values["failed_at"] = at
    else:
        values["not_before"] = at + timedelta(seconds=retry_in_s)
    with Session(engine) as session:
        session.execute(
            update(QueuedJob)
            .where(col(QueuedJob.id).in_(claimed.ids), col(QueuedJob.claimed_by) == owner)
            .values(**values)
        )
        session.commit()


def release_stale(engine: Engine, owner: str, lease_s: float, now: datetime | None = None) -> int:
    """Return to the queue the rows of processes that died (on this host) or that have held
    them longer than the lease, and `owner`'s own (its caller runs nothing now: a claim it
    still holds was left by a finish or retry that could not be written); the count."""
    at = now or datetime.now(UTC)
    host = socket.gethostname()
    released = 0
    with Session(engine) as session:
        owners = session.exec(
            select(QueuedJob.claimed_by).where(col(QueuedJob.claimed_by).is_not(None)).distinct()
        ).all()
        for other in owners:
            if other is None:
                continue
            query = update(QueuedJob).where(col(QueuedJob.claimed_by) == other)
            if other != owner and not owner_dead(other, host):
                query = query.where(col(QueuedJob.claimed_at) < at - timedelta(seconds=lease_s))
            result = session.execute(query.values(claimed_by=None, claimed_at=None))
            released += int(getattr(result, "rowcount", 0) or 0)
        session.commit()
    return released


def next_due(engine: Engine) -> datetime | None:
    """When the earliest waiting row may run (a retry's backoff)."""
    with Session(engine) as session:
        due: datetime | None = session.exec(
            select(func.min(QueuedJob.not_before)).where(
                col(QueuedJob.claimed_by).is_(None), col(QueuedJob.failed_at).is_(None)
            )
        ).one()
    return due


def counts(session: Session) -> dict[str, int]:
    """Rows waiting, running (claimed) and given up."""
    rows = session.exec(
        select(
            func.count(),
            func.count(col(QueuedJob.claimed_by)),
            func.count(col(QueuedJob.failed_at)),
        ).select_from(QueuedJob)
    ).one()
    total, running, failed = (int(v) for v in rows)
    return {"waiting": total - running - failed, "running": running, "failed": failed}
