"""Test helpers without fixtures: a fake clock and fast scraper settings."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from services.scraper.settings import ScraperSettings

WALL_START = datetime(2026, 10, 21, 7, 27, 53, tzinfo=UTC)


class FakeClock:
    """Monotonic clock, wall clock and sleep in one: sleeping advances time instantly."""

    def __init__(self, start: float = 1000.0) -> None:
        self.start = start
        self.now = start
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def wall(self) -> datetime:
        return WALL_START + timedelta(seconds=self.now - self.start)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def make_settings(**overrides: object) -> ScraperSettings:
    """Fast, deterministic defaults for tests; env vars are not read."""
    values: dict[str, object] = {
        "per_host_delay_s": 0.0,
        "connect_timeout_s": 1.0,
        "read_timeout_s": 1.0,
        "max_retries": 2,
        "backoff_base_s": 1.0,
        "backoff_cap_s": 8.0,
        "max_retry_after_s": 60.0,
    }
    values.update(overrides)
    return ScraperSettings.model_validate(values)
