"""Health of each scraped source: last success and failure, parse failures, blocks,
staleness.

The scraper writes one row per source after every run (in the same transaction as the
prices it stored, or alone when the run failed); the API reads them for GET /sources and
to tell which market prices come from a source that stopped answering.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Final, Literal

from sqlalchemy import Column
from sqlmodel import Field, Session, SQLModel, col, select

from shared.models import UTCDateTime

# A source is stale once it has gone this many scrape intervals without a success: one
# missed run is noise (a transient outage, a slow worker); two is a pattern.
STALE_AFTER_INTERVALS = 2
MAX_ERROR_CHARS = 1024

# The outcome of a source's latest run (GET /sources `status`).
RunState = Literal["ok", "failed", "parse_failure", "blocked", "never_run"]
OK: Final = "ok"
FAILED: Final = "failed"
PARSE_FAILURE: Final = "parse_failure"
# The site answered with a bot-check page: it is refusing us. Never "0 listings".
BLOCKED: Final = "blocked"
NEVER_RUN: Final = "never_run"
# A blocked run's error starts with this (the runner's errors start with the exception's
# class name, and the block is `Blocked`): the state is kept in `last_error` rather than
# in a column of its own, since only the latest run's state is ever asked for.
BLOCKED_MARK = "Blocked: "


def _optional_tz() -> Column[datetime]:
    return Column(UTCDateTime(), nullable=True)


class SourceStatus(SQLModel, table=True):
    __tablename__ = "source_status"

    name: str = Field(primary_key=True, max_length=64)
    interval_s: int
    last_run_at: datetime | None = Field(default=None, sa_column=_optional_tz())
    last_success_at: datetime | None = Field(default=None, sa_column=_optional_tz())
    last_error_at: datetime | None = Field(default=None, sa_column=_optional_tz())
    last_error: str | None = Field(default=None, max_length=MAX_ERROR_CHARS)
    consecutive_failures: int = 0
    last_parse_failure_at: datetime | None = Field(default=None, sa_column=_optional_tz())
    # JSON counters of the last run (pages, listings, stored, rejected by reason).
    last_summary: str | None = Field(default=None, max_length=4096)
    stale: bool = False


def status_for(session: Session, name: str, interval_s: int) -> SourceStatus:
    """The source's row, created on first use; `interval_s` follows the configuration."""
    status = session.get(SourceStatus, name)
    if status is None:
        status = SourceStatus(name=name, interval_s=interval_s)
    status.interval_s = interval_s
    session.add(status)
    return status


def record_success(status: SourceStatus, now: datetime, summary: str) -> None:
    status.last_run_at = now
    status.last_success_at = now
    status.consecutive_failures = 0
    status.last_summary = summary[:4096]
    status.stale = False


def record_failure(
    status: SourceStatus,
    now: datetime,
    error: str,
    *,
    parse_failure: bool = False,
    blocked: bool = False,
) -> None:
    """A failed run: counted and kept visible; the stored prices are left alone.
    `blocked`: the site refused us with a bot-check page."""
    if blocked and not error.startswith(BLOCKED_MARK):
        error = BLOCKED_MARK + error
    status.last_run_at = now
    status.last_error_at = now
    status.last_error = error[:MAX_ERROR_CHARS]
    status.consecutive_failures += 1
    if parse_failure:
        status.last_parse_failure_at = now
    status.stale = is_stale(status, now)


def latest_run_state(status: SourceStatus) -> RunState:
    """How the source's latest run ended: ok, failed, parse_failure or blocked (never_run
    for a row no run has recorded yet)."""
    if status.last_run_at is None:
        return NEVER_RUN
    if status.last_parse_failure_at == status.last_run_at:
        return PARSE_FAILURE
    if status.last_error_at != status.last_run_at:
        return OK
    if (status.last_error or "").startswith(BLOCKED_MARK):
        return BLOCKED
    return FAILED


def is_stale(status: SourceStatus, now: datetime) -> bool:
    limit = timedelta(seconds=status.interval_s * STALE_AFTER_INTERVALS)
    if status.last_success_at is None:
        # Never succeeded: it has no prices of its own, but it is failing as a pattern.
        return status.consecutive_failures >= STALE_AFTER_INTERVALS
    return now - status.last_success_at > limit


def staleness_sweep(session: Session, now: datetime) -> list[str]:
    """Set or clear every source's stale flag; returns the names whose flag changed."""
    changed: list[str] = []
    for status in session.exec(select(SourceStatus)).all():
        stale = is_stale(status, now)
        if stale != status.stale:
            status.stale = stale
            session.add(status)
            changed.append(status.name)
    session.flush()
    return sorted(changed)


def all_statuses(session: Session) -> list[SourceStatus]:
    return list(session.exec(select(SourceStatus).order_by(col(SourceStatus.name))))


def stale_source_names(session: Session) -> frozenset[str]:
    query = select(SourceStatus.name).where(SourceStatus.stale == True)  # noqa: E712
    return frozenset(session.exec(query))


def last_successes(session: Session) -> dict[str, datetime]:
    """Each source's last successful run that saw every page of its searches: listings it
    no longer shows vanished before it. A run stopped at its page cap is left out, since
    listings past the cap were not looked for."""
    query = select(SourceStatus.name, SourceStatus.last_success_at, SourceStatus.last_summary)
    return {
        name: when
        for name, when, summary in session.exec(query)
        if when is not None and not _capped(summary)
    }


def _capped(summary: str | None) -> bool:
    try:
        return bool(json.loads(summary or "{}").get("capped", False))
    except (ValueError, AttributeError):
        return False
