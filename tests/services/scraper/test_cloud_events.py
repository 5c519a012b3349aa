"""A cloud scrape asks for an alert evaluation of the GPUs it priced, after its commit."""

from __future__ import annotations

from services.scraper import runner
from shared.events import TaskCall
from tests.services.scraper.scrape_env import ScrapeEnv


def test_a_cloud_scrape_enqueues_alert_evaluation_for_its_gpus(scrape_env: ScrapeEnv, monkeypatch):
    calls: list[TaskCall] = []
    monkeypatch.setattr(
        runner, "enqueue_after_commit", lambda session, call, settings: calls.append(call)
    )
    [report] = scrape_env.run(["vast"])
    assert report.cloud_offers > 0
    [call] = calls
    assert call.name == "alerts.evaluate" and call.queue == "alerts"
    assert call.args == (report.gpu_ids,) and report.gpu_ids
