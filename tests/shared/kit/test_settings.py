"""Settings that must agree with each other."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.kit.settings import Settings


def test_the_visibility_timeout_is_matched_to_the_task_limits() -> None:
    settings = Settings(environment="test")
    # A running task is never handed to a second worker, a retry countdown never
    # outlives the timeout, and a killed worker's task comes back in minutes, not an hour.
    assert settings.task_time_limit_s < settings.redis_visibility_timeout_s
    assert settings.task_retry_backoff_max_s < settings.redis_visibility_timeout_s
    assert settings.redis_visibility_timeout_s + settings.redis_restore_interval_s <= 15 * 60


def test_scrape_sources_parse_and_refuse_a_bad_interval() -> None:
    settings = Settings(environment="test", scrape_sources=" ebay=600 , vast,, newegg = 43200 ")
    assert settings.scrape_schedule() == {"ebay": 600, "vast": None, "newegg": 43200}
    for bad in ("ebay=six", "ebay=0", "ebay=-5", "ebay=1.5"):
        with pytest.raises(ValidationError, match="scrape_sources"):
            Settings(environment="test", scrape_sources=bad)
