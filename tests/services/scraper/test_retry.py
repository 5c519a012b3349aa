"""Which answers are retried, and how long Retry-After asks to wait."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.scraper.retry import is_retryable_status, parse_retry_after

NOW = datetime(2026, 10, 21, 7, 27, 53, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 0 ", 0.0),
        ("Wed, 21 Oct 2026 07:28:00 GMT", 7.0),
        ("Wed, 21 Oct 2026 07:00:00 GMT", 0.0),  # in the past: go now
        ("soon", None),
        ("", None),
        (None, None),
        ("-5", None),
    ],
)
def test_parse_retry_after(value: str | None, seconds: float | None) -> None:
    assert parse_retry_after(value, NOW) == seconds


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (408, True),
        (429, True),
        (500, True),
        (503, True),
        (404, False),
        (403, False),
        (200, False),
        (304, False),
    ],
)
def test_retryable_statuses(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable
