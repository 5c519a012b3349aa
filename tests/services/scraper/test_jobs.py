"""The plain job functions the Celery tasks call."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.scraper import jobs
from services.scraper.errors import TransientFetchError
from tests.services.scraper.fixture_server import reply
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv


@pytest.fixture
def job_env(scrape_env: ScrapeEnv, monkeypatch: pytest.MonkeyPatch) -> ScrapeEnv:
    monkeypatch.setattr(jobs, "get_engine", lambda: scrape_env.engine)
    monkeypatch.setattr(jobs, "get_settings", lambda: scrape_env.settings)
    scraper = scrape_env.scraper.model_copy(update={"max_retries": 0})
    monkeypatch.setattr(jobs, "get_scraper_settings", lambda: scraper)
    return scrape_env


def test_scrape_job_returns_its_summary(
    job_env: ScrapeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = jobs.scrape_job("vast")  # dated by the real clock
    assert summary["status"] == "ok" and summary["cloud_offers"] == 3
    ran = datetime.now(UTC)
    monkeypatch.setattr(jobs, "utc_now", lambda: ran + timedelta(hours=1))
    assert jobs.staleness_sweep_job() == {"changed": []}
    monkeypatch.setattr(jobs, "utc_now", lambda: ran + timedelta(hours=3))
    assert jobs.staleness_sweep_job() == {"changed": ["vast"]}


def test_scrape_job_raises_transient_failures_for_the_task_to_retry(job_env: ScrapeEnv) -> None:
    job_env.server.route(PATHS["vast"], reply(503, "busy"))
    with pytest.raises(TransientFetchError):
        jobs.scrape_job("vast")
