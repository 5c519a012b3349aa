"""Which HTTP answers are worth retrying, and how long a Retry-After header asks to wait."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

RETRYABLE_STATUSES = frozenset({408, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or 500 <= status <= 599


def parse_retry_after(value: str | None, now: datetime) -> float | None:
    """Retry-After as seconds from `now`: delta-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())
