"""GET /sources over a real database: every source the scraper has, run or not."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from services.api.app import create_app
from services.scraper.registry import SOURCES
from shared.kit.db import make_engine
from shared.sources.names import SCRAPED_SOURCES
from shared.sources.status import SourceStatus
from tests.conftest import make_settings
from tests.services.api.prices_data import history_client  # noqa: F401  (fixture)

# The fields GET /sources had before it listed sources that never ran: kept, same names.
RUN_FIELDS = {
    "name", "status", "interval_s", "last_run_at", "last_success_at", "last_error_at",
    "last_error", "consecutive_failures", "last_parse_failure_at", "parse_failure",
    "blocked", "stale", "stale_after", "last_summary",
}  # fmt: skip
NEEDS_KEY = {"ebay_browse", "lambda"}


def _sources(client: TestClient) -> dict[str, dict[str, Any]]:
    response = client.get("/sources")
    assert response.status_code == 200, response.text
    return {s["name"]: s for s in response.json()["sources"]}


def _client(url: str, directory: Path, **overrides: object) -> TestClient:
    settings = make_settings(url, directory, prepare_on_start=False, **overrides)
    return TestClient(create_app(settings))


def test_a_fresh_install_lists_every_source_as_never_run(seeded_url: str, tmp_path: Path) -> None:
    """The embedded default's first start (schema, bundled data, scores) has run no
    source: each is listed with its default interval and whether it needs a key."""
    with _client(seeded_url, tmp_path) as client:
        sources = _sources(client)
    assert list(sources) == sorted(SCRAPED_SOURCES)
    for spec in SOURCES.values():
        shown = sources[spec.name]
        assert set(shown) >= RUN_FIELDS
        assert shown["status"] == "never_run"
        assert shown["interval_s"] == spec.default_interval_s
        assert shown["needs_api_key"] is (spec.name in NEEDS_KEY)
        assert shown["description"] == spec.description
        assert shown["scheduled"] is False
        assert (shown["parse_failure"], shown["blocked"], shown["stale"]) == (False,) * 3
        assert shown["consecutive_failures"] == 0
        for empty in ("last_run_at", "last_success_at", "last_error_at", "last_error"):
            assert shown[empty] is None
        assert (shown["stale_after"], shown["last_summary"]) == (None, None)
    # Listing them stores nothing: the first run creates a source's row.
    engine = make_engine(seeded_url)
    with Session(engine) as session:
        assert session.exec(select(SourceStatus)).all() == []
    engine.dispose()


def test_a_never_run_source_has_the_interval_its_schedule_gives(
    seeded_url: str, tmp_path: Path
) -> None:
    """GPU_ADVISOR_SCRAPE_SOURCES sets the interval (as the runner reads it: a name alone
    takes the source's own default, vast's hourly offers every hour) and marks the source
    scheduled."""
    with _client(seeded_url, tmp_path, scrape_sources="ebay=600,vast,newegg") as client:
        sources = _sources(client)
    assert (sources["ebay"]["interval_s"], sources["ebay"]["scheduled"]) == (600, True)
    assert (sources["vast"]["interval_s"], sources["vast"]["scheduled"]) == (3600, True)
    assert (sources["newegg"]["interval_s"], sources["newegg"]["scheduled"]) == (43200, True)
    assert (sources["aws"]["interval_s"], sources["aws"]["scheduled"]) == (86400, False)
    assert {s["status"] for s in sources.values()} == {"never_run"}


def test_sources_show_success_failures_parse_failures_and_staleness(
    history_client: TestClient,  # noqa: F811
) -> None:
    """Sources that ran keep every field they had; the others are listed as never run."""
    sources = _sources(history_client)
    assert list(sources) == sorted(SCRAPED_SOURCES)
    ebay, bhphoto = sources["ebay"], sources["bhphoto"]
    assert set(ebay) >= RUN_FIELDS and set(bhphoto) >= RUN_FIELDS
    assert ebay["status"] == "ok" and ebay["interval_s"] == 6 * 3600
    assert ebay["last_run_at"].startswith("2026-11-01T18:00")
    assert ebay["last_success_at"].startswith("2026-11-01T18:00")
    assert ebay["stale"] is False and ebay["parse_failure"] is False
    assert ebay["stale_after"].startswith("2026-11-02T06:00")
    assert ebay["last_summary"] == {"pages": 2, "stored": 3}
    assert ebay["needs_api_key"] is False and ebay["description"].startswith("eBay search")
    assert bhphoto["status"] == "parse_failure"
    assert bhphoto["parse_failure"] is True and bhphoto["stale"] is True
    assert bhphoto["consecutive_failures"] == 4
    assert "LayoutChanged" in bhphoto["last_error"]
    assert bhphoto["last_parse_failure_at"].startswith("2026-11-03T18:00")
    never = {name for name, s in sources.items() if s["status"] == "never_run"}
    assert never == set(SCRAPED_SOURCES) - {"ebay", "bhphoto"}
    assert sources["lambda"]["needs_api_key"] is True


@pytest.fixture
def retired_source(migrated_url: str) -> Iterator[str]:
    """A row left by a source the scraper no longer has."""
    engine = make_engine(migrated_url)
    with Session(engine) as session:
        failed_at = datetime(2026, 1, 5, tzinfo=UTC)
        session.add(
            SourceStatus(
                name="retired_shop",
                interval_s=3600,
                last_run_at=failed_at,
                last_error_at=failed_at,
                last_error="HTTPStatusError: 410 Gone",
                consecutive_failures=2,
            )
        )
        session.commit()
    yield migrated_url
    with Session(engine) as session:
        row = session.get(SourceStatus, "retired_shop")
        if row is not None:
            session.delete(row)
        session.commit()
    engine.dispose()


def test_a_source_the_scraper_no_longer_has_is_still_listed(
    retired_source: str, tmp_path: Path
) -> None:
    with _client(retired_source, tmp_path, load_bundled_data=False) as client:
        sources = _sources(client)
    assert set(sources) == {*SCRAPED_SOURCES, "retired_shop"}
    retired = sources["retired_shop"]
    assert (retired["status"], retired["consecutive_failures"]) == ("failed", 2)
    assert retired["interval_s"] == 3600 and retired["scheduled"] is False
    assert (retired["description"], retired["needs_api_key"]) == (None, False)
