"""What a source run reports for what follows it: alert evaluations, page caps."""

from __future__ import annotations

from services.scraper import runner
from shared.kit.events import TaskCall
from tests.services.scraper.scrape_env import ScrapeEnv


def test_a_cloud_scrape_enqueues_the_recompute_of_its_gpus(scrape_env: ScrapeEnv, monkeypatch):
    """Rentals are ranked (condition=cloud); alert evaluation follows the recompute."""
    calls: list[TaskCall] = []
    monkeypatch.setattr(runner, "enqueue_after_commit", lambda session, call: calls.append(call))
    [report] = scrape_env.run(["vast"])
    assert report.cloud_offers > 0
    [call] = calls
    assert call.name == "compute.recompute_scores" and call.queue == "compute"
    assert call.args == (report.gpu_ids,) and report.gpu_ids


def test_a_search_stopped_at_max_pages_is_reported_as_capped(scrape_env: ScrapeEnv, monkeypatch):
    from services.scraper.sources import ebay

    [full] = scrape_env.run(["ebay"], max_pages=1)
    assert not full.capped  # the sample page is shorter than eBay's page: the search ended
    monkeypatch.setattr(ebay, "RESULTS_PER_PAGE", 5)  # now the same page counts as full
    scrape_env.later(hours=1)
    [capped] = scrape_env.run(["ebay"], max_pages=1)
    assert capped.capped and '"capped":true' in capped.summary_json()
