"""Settings that must agree with each other."""

from __future__ import annotations

from shared.kit.settings import Settings


def test_the_visibility_timeout_is_matched_to_the_task_limits() -> None:
    settings = Settings(environment="test")
    # A running task is never handed to a second worker, a retry countdown never
    # outlives the timeout, and a killed worker's task comes back in minutes, not an hour.
    assert settings.task_time_limit_s < settings.redis_visibility_timeout_s
    assert settings.task_retry_backoff_max_s < settings.redis_visibility_timeout_s
    assert settings.redis_visibility_timeout_s + settings.redis_restore_interval_s <= 15 * 60
