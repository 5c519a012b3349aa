"""GET /gpus/{id}/prices over a real database: history, filters, market summary, errors."""

from __future__ import annotations

from decimal import Decimal

import pytest
from fastapi.testclient import TestClient

from tests.services.api.prices_data import history_client  # noqa: F401  (fixture)

URL = "/gpus/rtx-3090/prices"


def test_history_newest_first_with_provenance_and_quarantine_flag(
    history_client: TestClient,  # noqa: F811
) -> None:
    body = history_client.get(URL).json()
    assert body["total"] == 7
    items = body["items"]
    times = [i["observed_at"] for i in items]
    assert times == sorted(times, reverse=True)
    assert set(items[0]) >= {"kind", "source", "url", "observed_at", "quarantined", "usd"}
    assert [i["listing_id"] for i in items if i["quarantined"]] == ["Q"]
    page = history_client.get(URL, params={"limit": 2, "offset": 2}).json()
    assert [i["listing_id"] for i in page["items"]] == [i["listing_id"] for i in items[2:4]]


def test_filters(history_client: TestClient) -> None:  # noqa: F811
    used = history_client.get(URL, params={"condition": "used"}).json()
    assert {i["condition"] for i in used["items"]} == {"used", "refurbished"}
    ebay = history_client.get(URL, params={"source": "ebay"}).json()
    assert {i["source"] for i in ebay["items"]} == {"ebay", "ebay:sold"}
    recent = history_client.get(URL, params={"since": "2026-11-01T13:00:00"}).json()
    assert recent["total"] == 4


def test_market_summary_states_method_n_spread_and_freshness(
    history_client: TestClient,  # noqa: F811
) -> None:
    market = history_client.get(URL).json()["market"]
    used = market["used"]
    # Sold C ($700) and the vanished listing B ($760); asking A, R and quarantined Q are out.
    assert used["basis"] == "sold"
    assert (used["n"], used["sold_n"], used["probable_sales"]) == (2, 1, 1)
    assert Decimal(used["usd"]) == Decimal("730.00")
    assert (Decimal(used["low_usd"]), Decimal(used["high_usd"])) == (Decimal("700"), Decimal("760"))
    assert "probable sales" in used["method"]
    assert used["age_days"] > 0 and used["stale"] is False
    assert {s["source"] for s in used["by_source"]} == {"ebay", "ebay:sold"}
    new = market["new"]
    # B&H is stale and the only source of new prices: used, but marked.
    assert new["stale"] is True and new["basis"] == "asking"
    assert "stale" in new["method"]


def test_errors_name_the_field_and_valid_values(history_client: TestClient) -> None:  # noqa: F811
    assert history_client.get("/gpus/rtx-9999/prices").status_code == 404
    bad = history_client.get(URL, params={"condition": "mint"})
    assert bad.status_code == 422
    assert bad.json()["message"].startswith("condition:")
    assert "'new', 'used' or 'refurbished'" in bad.json()["message"]
    unknown = history_client.get(URL, params={"source": "craigslist"})
    assert unknown.status_code == 422
    assert unknown.json()["message"].startswith("source:")
    assert "ebay:sold" in unknown.json()["detail"][0]["valid"]
    # A scraper source with no prices of this GPU yet (a fresh install): an empty answer.
    none_yet = history_client.get(URL, params={"source": "lambda"})
    assert none_yet.status_code == 200 and none_yet.json()["items"] == []
    for params in ({"since": "yesterday"}, {"limit": 0}, {"offset": -1}):
        response = history_client.get(URL, params=params)
        assert response.status_code == 422
        assert response.json()["message"].startswith(next(iter(params)))


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"since": "9999-12-31T23:59:59-23:59"}, "since"),
        ({"since": "0001-01-01T00:00:00+01:00"}, "since"),
        ({"offset": "9223372036854775808"}, "offset"),
    ],
)
def test_extreme_query_values_are_422_not_500(
    history_client: TestClient,  # noqa: F811
    params: dict[str, str],
    field: str,
) -> None:
    response = history_client.get("/gpus/rtx-3090/prices", params=params)
    assert response.status_code == 422
    assert response.json()["message"].startswith(f"{field}:")
