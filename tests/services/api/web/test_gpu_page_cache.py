"""The GPU page and detail from the app's caches (cloud offers by their count, the
rendered offers' panel, the series and market rows by price) answer what an app with
nothing cached answers, right after a new price or a new cloud offer (both backends)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from services.api.charts.series_cache import SeriesCache
from services.api.prices.cache import PriceCache
from shared.kit.db import migrate, session_scope
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation, make_offer
from tests.services.api.conftest import NOW, _load_market
from tests.services.api.web.conftest import BROWSER

GPU = "rtx-3090"
CLOUD_PANEL = re.compile(r'<section class="panel" aria-labelledby="cloud-h">.*?</section>', re.S)


@pytest.fixture(scope="module")
def clients(
    backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, TestClient]]:
    """Two apps over one database: one keeps its caches, the other is made anew per check."""
    directory = tmp_path_factory.mktemp("gpu-page-cache")
    url, pg_name = new_database(backend, directory)
    migrate(url)
    _load_market(url)
    settings = make_settings(url, directory, load_bundled_data=False)
    with TestClient(create_app(settings)) as cached, TestClient(create_app(settings)) as fresh:
        yield cached, fresh
    if pg_name:
        _drop_postgres_database(pg_name)


def _fresh(client: TestClient) -> None:
    """Forget what the app has cached: its next answers are computed from the database."""
    state = client.app.state  # type: ignore[attr-defined]
    state.price_cache = PriceCache()
    state.series_cache = SeriesCache()


def _answers(client: TestClient) -> tuple[str, dict[str, Any]]:
    page = client.get(f"/gpus/{GPU}", headers=BROWSER)
    assert page.status_code == 200, page.text
    detail = client.get(f"/gpus/{GPU}")
    assert detail.status_code == 200, detail.text
    return page.text, detail.json()


def _same_as_uncached(clients: tuple[TestClient, TestClient]) -> tuple[str, dict[str, Any]]:
    cached, fresh = clients
    _fresh(fresh)
    found = _answers(cached)
    assert found == _answers(fresh)
    return found


def _add(client: TestClient, *rows: object) -> None:
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        session.add_all(rows)


def test_a_new_cloud_offer_is_on_the_next_page_and_detail(clients) -> None:
    cached, _ = clients
    page, detail = _same_as_uncached(clients)
    assert "No cloud offers for this GPU" in page and detail["cloud"] == []
    _add(cached, make_offer(GPU, "0.50", NOW))
    page, detail = _same_as_uncached(clients)
    panel = CLOUD_PANEL.search(page)
    assert panel and "$0.50" in panel.group(0) and "1 offers, cheapest first" in panel.group(0)
    assert [o["usd_per_gpu_hour"] for o in detail["cloud"]] == ["0.5000"]
    _add(cached, make_offer(GPU, "0.30", NOW, provider="cloud-b"))
    page, detail = _same_as_uncached(clients)
    panel = CLOUD_PANEL.search(page)
    assert panel and "2 offers, cheapest first" in panel.group(0)
    assert panel.group(0).index("$0.30") < panel.group(0).index("$0.50")
    assert [o["provider"] for o in detail["cloud"]] == ["cloud-b", "cloud-a"]


def test_the_page_right_after_a_new_price_shows_it(clients) -> None:
    cached, _ = clients
    before, _ = _same_as_uncached(clients)
    _add(cached, make_observation(gpu_id=GPU, usd="700.00", observed_at=NOW))
    after, detail = _same_as_uncached(clients)
    assert after != before
    assert "used · test-market (scraped): 2 prices" in after
    # The market price moved with it; the offers' panel did not.
    assert detail["market_prices"]["used"]["usd"] == "750.00"
    panels = CLOUD_PANEL.search(before), CLOUD_PANEL.search(after)
    assert panels[0] and panels[1] and panels[0].group(0) == panels[1].group(0)
