"""Price series for chart tests, built without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.api.charts.data import Bucket, Series


def monthly_series(count: int, buckets: int = 3, source: str = "source") -> list[Series]:
    """`count` used-card series of `buckets` monthly periods each, every one a little
    dearer than the one before, with a min-max band around its median."""
    start = datetime(2025, 1, 1, tzinfo=UTC)
    return [
        Series(
            "used",
            f"{source} {i}",
            "snapshot",
            tuple(
                Bucket(start + timedelta(days=30 * k), 100.0 + 10 * i + k, 90.0, 130.0 + i, 2)
                for k in range(buckets)
            ),
        )
        for i in range(count)
    ]
