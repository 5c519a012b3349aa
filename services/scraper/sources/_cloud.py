"""What the cloud adapters share."""

from __future__ import annotations

from datetime import UTC, datetime


def observed(observed_at: datetime | None) -> datetime:
    """The caller's observation time, or now; always timezone-aware UTC."""
    when = observed_at or datetime.now(UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)
