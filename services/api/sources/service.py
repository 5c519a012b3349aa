"""Source health as the scraper recorded it, and every configured source that has not
run yet."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session

from services.api.sources.schemas import SourceOut, SourcesOut
from shared.kit.settings import Settings
from shared.sources.specs import SOURCE_INFO, SourceInfo, scrape_intervals
from shared.sources.status import (
    BLOCKED,
    PARSE_FAILURE,
    STALE_AFTER_INTERVALS,
    SourceStatus,
    all_statuses,
    latest_run_state,
)


def list_sources(session: Session, settings: Settings) -> SourcesOut:
    """Every source the scraper has, by name: the ones that ran as their last run left
    them, the others `never_run`; and a source that ran and is no longer built in (its
    row outlives it) as it was."""
    schedule = scrape_intervals(settings.scrape_schedule())
    ran = {status.name: status for status in all_statuses(session)}
    statuses = [ran.get(name) or _never_run(info, schedule) for name, info in SOURCE_INFO.items()]
    statuses += [status for name, status in ran.items() if name not in SOURCE_INFO]
    return SourcesOut(
        as_of=datetime.now(UTC),
        sources=[
            source_out(status, schedule)
            for status in sorted(statuses, key=lambda status: status.name)
        ],
    )


def _never_run(info: SourceInfo, schedule: dict[str, int]) -> SourceStatus:
    """The row a first run would create (not stored): its configured interval, no runs."""
    return SourceStatus(name=info.name, interval_s=schedule.get(info.name, info.default_interval_s))


def source_out(status: SourceStatus, schedule: dict[str, int]) -> SourceOut:
    state = latest_run_state(status)
    info = SOURCE_INFO.get(status.name)
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
        scheduled=status.name in schedule,
        needs_api_key=info is not None and info.needs_api_key,
        description=info.description if info else None,
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
