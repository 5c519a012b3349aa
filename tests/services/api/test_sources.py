"""GET /sources over a real database."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.services.api.prices_data import history_client  # noqa: F401  (fixture)


def test_sources_show_success_failures_parse_failures_and_staleness(
    history_client: TestClient,  # noqa: F811
) -> None:
    response = history_client.get("/sources")
    assert response.status_code == 200
    sources = {s["name"]: s for s in response.json()["sources"]}
    assert list(sources) == ["bhphoto", "ebay"]
    ebay, bhphoto = sources["ebay"], sources["bhphoto"]
    assert ebay["last_success_at"].startswith("2026-11-01T18:00")
    assert ebay["stale"] is False and ebay["parse_failure"] is False
    assert ebay["stale_after"].startswith("2026-11-02T06:00")
    assert ebay["last_summary"] == {"pages": 2, "stored": 3}
    assert bhphoto["parse_failure"] is True and bhphoto["stale"] is True
    assert bhphoto["consecutive_failures"] == 4
    assert "LayoutChanged" in bhphoto["last_error"]
