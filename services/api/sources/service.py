"""Source health as the scraper recorded it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session

from services.api.sources.schemas import SourceOut, SourcesOut
from shared.sources.status import (
    BLOCKED,
    PARSE_FAILURE,
    STALE_AFTER_INTERVALS,
    SourceStatus,
    all_statuses,
    latest_run_state,
)


def list_sources(session: Session) -> SourcesOut:
    return SourcesOut(
        as_of=datetime.now(UTC), sources=[source_out(s) for s in all_statuses(session)]
    )


def source_out(status: SourceStatus) -> SourceOut:
    state = latest_run_state(status)
    return SourceOut(
        name=status.name,
        status=state,
        interval_s=status.interval_s,
        last_run_at=status.last_run_at,
        last_success_at=status.last_success_at,
        last_error_at=status.last_error_at,
        last_error=status.last_error,
        consecutive_failures=status.consecutive_failures,
        last_parse_failure_at=status.last_parse_failure_at,
        parse_failure=state == PARSE_FAILURE,
        blocked=state == BLOCKED,
        stale=status.stale,
        stale_after=_stale_after(status),
        last_summary=_summary(status.last_summary),
    )


def _stale_after(status: SourceStatus) -> datetime | None:
    if status.last_success_at is None:
        return None
    return status.last_success_at + timedelta(seconds=status.interval_s * STALE_AFTER_INTERVALS)


def _summary(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None  # a truncated summary is not worth failing the endpoint over
    return found if isinstance(found, dict) else None
