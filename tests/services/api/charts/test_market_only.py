"""A GPU's price chart (image, page, series) and its price history hold market prices
only (both backends): no auction bid, no quarantined jump in a series, and no posted
quote of another API key. The chart shows no quote at all, not even the caller's own (its
series are shared by every caller); the history lists the caller's own quotes only."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.alerts.keys import create_key
from shared.kit.db import migrate, session_scope
from shared.pricing.measures import BID
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation
from tests.services.api.conftest import NOW, _load_market
from tests.services.api.web.conftest import BROWSER

GPU = "rtx-3090"
BID_USD = "123.45"  # far below the market's $800: any leak moves a series' low
JUMP_USD = "9999.00"
Headers = dict[str, str]
# The market of tests/services/api/conftest.py for this card: used $800, new (MSRP) $1499.
MARKET_LINES = {
    f"used · test-market (scraped): 1 prices from {NOW.date()} to {NOW.date()}; "
    "latest period median $800 ($800-$800)",
    f"new · test-market (msrp): 1 prices from {NOW.date()} to {NOW.date()}; "
    "latest period median $1,499 ($1,499-$1,499)",
}


@pytest.fixture(scope="module")
def client(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    directory = tmp_path_factory.mktemp("market-only")
    url, pg_name = new_database(backend, directory)
    migrate(url)
    _load_market(url)
    settings = make_settings(url, directory, load_bundled_data=False)
    with TestClient(create_app(settings)) as test_client:
        yield test_client
    if pg_name:
        _drop_postgres_database(pg_name)


def _key(client: TestClient) -> Headers:
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        created = create_key(session, "market-only", "write")
    return {"Authorization": f"Bearer {created.key}"}


def _add_bid_and_jump(client: TestClient) -> None:
    """A live auction's bid and a quarantined jump of the card, as the scraper stores them."""
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        session.add(make_observation(gpu_id=GPU, usd=BID_USD, measure=BID, observed_at=NOW))
        session.add(make_observation(gpu_id=GPU, usd=JUMP_USD, quarantined=True, observed_at=NOW))


def _post_quote(client: TestClient, key: Headers, usd: str, source: str) -> None:
    body = {"gpu_id": GPU, "usd": usd, "condition": "used", "source": source}
    response = client.post("/prices", json=body, headers=key)
    assert response.status_code == 201, response.text
    assert response.json()["quarantined"] is False


def _chart_lines(client: TestClient, key: Headers | None = None) -> set[str]:
    """The series of the price-history image, from its text alternative (one per line)."""
    response = client.get("/charts/price-history.svg", params={"gpu": GPU}, headers=key or {})
    assert response.status_code == 200, response.text
    desc = ET.fromstring(response.content).find("{http://www.w3.org/2000/svg}desc")
    assert desc is not None and desc.text
    return set(desc.text.splitlines()[1:])


def _page_chart(client: TestClient, key: Headers | None = None) -> str:
    page = client.get(f"/gpus/{GPU}", headers={**BROWSER, **(key or {})})
    assert page.status_code == 200, page.text
    chart = re.search(
        r'<svg class="chart lines[^"]*" id="chart-price-history".*?</svg>', page.text, re.S
    )
    assert chart, "the page's price chart"
    return chart.group(0)


def _history(client: TestClient, key: Headers | None = None) -> dict[str, Any]:
    response = client.get(f"/gpus/{GPU}/prices", params={"limit": 500}, headers=key or {})
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    assert found["total"] == len(found["items"])
    return found


def test_bids_and_quotes_stay_out_of_the_chart_and_the_history(client: TestClient) -> None:
    # The chart's series are cached before the new rows: they are then updated period by
    # period, which must leave the new rows out as a full computation does.
    assert _chart_lines(client) == MARKET_LINES
    mine, theirs = _key(client), _key(client)
    _add_bid_and_jump(client)
    _post_quote(client, mine, "700", "Acme for me")
    _post_quote(client, theirs, "710", "Acme for them")

    # The chart: the market's two series, the same for every caller.
    for key in (None, mine, theirs):
        assert _chart_lines(client, key) == MARKET_LINES
        chart = _page_chart(client, key)
        assert "Acme" not in chart and "$123" not in chart and "manual" not in chart
        assert "$800 ($800-$800)" in chart
    series = client.app.state.series_cache  # type: ignore[attr-defined]
    with session_scope(client.app.state.engine) as session:  # type: ignore[attr-defined]
        drawn = series.get(session, GPU)
    assert sorted((s.condition, s.kind, s.n) for s in drawn) == [
        ("new", "msrp", 1),
        ("used", "scraped", 1),
    ]
    assert all(b.low >= 800 and b.high <= 1499 for s in drawn for b in s.buckets)

    # The history: no bid for anyone; each key's own quote, never the other's.
    def listed(key: Headers | None) -> tuple[set[str], set[str]]:
        items = _history(client, key)["items"]
        return {p["measure"] for p in items}, {
            p["source"] for p in items if p["measure"] == "quote"
        }

    anonymous, anonymous_quotes = listed(None)
    assert BID not in anonymous and anonymous_quotes == set()
    mine_measures, mine_quotes = listed(mine)
    assert BID not in mine_measures and mine_quotes == {"Acme for me"}
    theirs_measures, theirs_quotes = listed(theirs)
    assert BID not in theirs_measures and theirs_quotes == {"Acme for them"}
    # The quarantined jump stays listed, flagged, as the history always showed it.
    jumps = [p for p in _history(client)["items"] if p["usd"] == JUMP_USD]
    assert [p["quarantined"] for p in jumps] == [True]
