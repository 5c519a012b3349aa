"""Beat's schedule (services/worker/schedule.py)."""

from __future__ import annotations

from services.worker.schedule import beat_schedule
from shared.kit.settings import Settings


def test_beat_scrapes_each_source_at_its_interval() -> None:
    settings = Settings(environment="test", scrape_sources="ebay=600,vast")
    schedule = beat_schedule(settings)
    assert schedule["scrape-ebay"]["schedule"] == 600.0
    assert schedule["scrape-vast"]["schedule"] == 3600.0
    assert schedule["scrape-vast"]["args"] == ["vast"]
