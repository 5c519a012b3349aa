"""The plain job functions the Celery tasks call."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.scraper import jobs
from services.scraper.errors import TransientFetchError
from services.scraper.settings import ScraperSettings
from tests.services.scraper.fixture_server import reply
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv


@pytest.fixture
def job_env(scrape_env: ScrapeEnv) -> ScrapeEnv:
    return scrape_env


def no_retries(env: ScrapeEnv) -> ScraperSettings:
    return env.scraper.model_copy(update={"max_retries": 0})


def test_scrape_job_returns_its_summary(
    job_env: ScrapeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = jobs.scrape_job(job_env.ctx, "vast", no_retries(job_env))  # dated by the real clock
    assert summary["status"] == "ok" and summary["cloud_offers"] == 3
    ran = datetime.now(UTC)
    monkeypatch.setattr(jobs, "utc_now", lambda: ran + timedelta(hours=1))
    assert jobs.staleness_sweep_job(job_env.ctx) == {"changed": []}
    monkeypatch.setattr(jobs, "utc_now", lambda: ran + timedelta(hours=3))
    assert jobs.staleness_sweep_job(job_env.ctx) == {"changed": ["vast"]}


def test_scrape_job_raises_transient_failures_for_the_task_to_retry(job_env: ScrapeEnv) -> None:
    job_env.server.route(PATHS["vast"], reply(503, "busy"))
    with pytest.raises(TransientFetchError):
        jobs.scrape_job(job_env.ctx, "vast", no_retries(job_env))
