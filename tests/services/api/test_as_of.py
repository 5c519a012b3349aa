"""`as_of=YYYY-MM-DD` on /recommend, /gpus/{id}, /tco and /prices/check: only the prices
observed by the end of that day answer, with that day as today; the answer names the day
and the (current) model; a date out of range or malformed is a 422 naming as_of and the
range. Dates are relative to the suite's today (tests/clock.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.kit.db import make_engine, migrate, session_scope
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, make_settings, new_database
from tests.factories import make_observation, make_offer, recompute

TODAY = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
FIRST = TODAY - timedelta(days=60)
BEFORE = TODAY - timedelta(days=40)
AS_OF = (TODAY - timedelta(days=20)).date().isoformat()
AFTER = TODAY - timedelta(days=5)


@pytest.fixture(scope="module")
def client(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """An RTX 3090 used at $800 before the as-of day and $500 after it; an RTX 4090 new at
    $1,800 before (still fresh today); its rental at $0.70/h before and $0.40/h after."""
    directory: Path = tmp_path_factory.mktemp("as_of")
    url, pg_name = new_database(backend, directory)
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
        # Three asks each: a market price needs them.
        for spread in (-10, 0, 10):
            for gpu_id, condition, usd, at in (
                ("rtx-3090", "used", 800, BEFORE),
                ("rtx-3090", "used", 500, AFTER),
                ("rtx-4090", "new", 1800, TODAY - timedelta(days=30)),
            ):
                session.add(
                    make_observation(
                        gpu_id=gpu_id, condition=condition, usd=usd + spread, observed_at=at
                    )
                )
        session.add(make_observation(gpu_id="gtx-1080-ti", usd="150", observed_at=FIRST))
        session.add(make_offer("rtx-4090", "0.70", TODAY - timedelta(days=30)))
        session.add(make_offer("rtx-4090", "0.40", AFTER))
        session.flush()
        recompute(session)
    engine.dispose()
    settings = make_settings(url, directory, load_bundled_data=False)
    with TestClient(create_app(settings)) as test_client:
        yield test_client
    if pg_name:
        _drop_postgres_database(pg_name)


def _get(client: TestClient, path: str, **params: Any) -> dict[str, Any]:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _result(body: dict[str, Any], gpu_id: str) -> dict[str, Any]:
    found = [r for r in body["results"] if r["gpu"]["id"] == gpu_id]
    assert found, [u["reason"] for u in body["unranked"]]
    result: dict[str, Any] = found[0]
    return result


def _says_as_of(body: dict[str, Any], day: str) -> None:
    assert body["as_of"] == day
    assert body["model_version"]
    assert body["model_version"] in body["as_of_note"]
    assert "current" in body["as_of_note"]


def test_recommend_as_of_uses_only_prices_observed_by_then(client: TestClient) -> None:
    live = _get(client, "/recommend", task="cv", condition="used", memory_gb=24)
    past = _get(client, "/recommend", task="cv", condition="used", memory_gb=24, as_of=AS_OF)
    again = _get(client, "/recommend", task="cv", condition="used", memory_gb=24)
    assert Decimal(_result(live, "rtx-3090")["price"]["usd"]) == Decimal("500")
    assert Decimal(_result(past, "rtx-3090")["price"]["usd"]) == Decimal("800")
    assert _result(past, "rtx-3090")["price"]["observed_at"][:10] == BEFORE.date().isoformat()
    # The answers are cached apart: the live one again is the live one.
    assert again == live
    _says_as_of(past, AS_OF)
    assert "as_of" not in live and "as_of_note" not in live


def test_recommend_as_of_rentals(client: TestClient) -> None:
    query = {"task": "cv", "condition": "cloud", "memory_gb": 24}
    live = _get(client, "/recommend", **query)
    past = _get(client, "/recommend", **query, as_of=AS_OF)
    assert Decimal(_result(live, "rtx-4090")["price"]["usd"]) == Decimal("0.40")
    assert Decimal(_result(past, "rtx-4090")["price"]["usd"]) == Decimal("0.70")


def test_recommend_as_of_today_matches_the_live_prices(client: TestClient) -> None:
    today = TODAY.date().isoformat()
    for condition in ("new", "used"):
        live = _get(client, "/recommend", task="cv", condition=condition, memory_gb=24)
        now = _get(client, "/recommend", task="cv", condition=condition, memory_gb=24, as_of=today)
        prices = [
            (r["gpu"]["id"], r["price"]["usd"], r["price"]["band_usd"]) for r in live["results"]
        ]
        assert prices
        assert [
            (r["gpu"]["id"], r["price"]["usd"], r["price"]["band_usd"]) for r in now["results"]
        ] == prices


@pytest.mark.parametrize(
    ("as_of", "says"),
    [
        ((TODAY + timedelta(days=1)).date().isoformat(), "future"),
        ((FIRST - timedelta(days=1)).date().isoformat(), "before the first stored price"),
        ("2026-13-01", "not a date"),
        ("last week", "not a date"),
    ],
)
def test_as_of_out_of_range_or_malformed_is_a_422(
    client: TestClient, as_of: str, says: str
) -> None:
    valid = f"{FIRST.date().isoformat()}..{TODAY.date().isoformat()}"
    checks = [
        ("get", "/recommend", {"params": {"task": "cv", "as_of": as_of}}),
        ("get", "/gpus/rtx-3090", {"params": {"as_of": as_of}}),
        ("get", "/tco", {"params": {"gpu": "rtx-3090", "as_of": as_of}}),
        (
            "post",
            "/prices/check",
            {"json": {"gpu": "rtx-3090", "usd": "700", "condition": "used", "as_of": as_of}},
        ),
    ]
    for method, path, kwargs in checks:
        response = getattr(client, method)(path, **kwargs)
        assert response.status_code == 422, (path, response.text)
        body = response.json()
        assert body["detail"][0]["loc"][-1] == "as_of", (path, body)
        assert says in body["message"] and valid.replace("..", " to ") in body["message"]
        assert body["detail"][0]["valid"] == [valid]


def test_gpu_as_of_shows_only_prices_observed_by_then(client: TestClient) -> None:
    live = _get(client, "/gpus/rtx-3090")
    past = _get(client, "/gpus/rtx-3090", as_of=AS_OF)
    assert Decimal(live["market_prices"]["used"]["usd"]) == Decimal("500")
    assert Decimal(live["today_prices"]["used"]["usd"]) == Decimal("500")
    assert Decimal(past["market_prices"]["used"]["usd"]) == Decimal("800")
    assert Decimal(past["today_prices"]["used"]["usd"]) == Decimal("800")
    _says_as_of(past, AS_OF)
    assert "as_of" not in live and "model_version" not in live
    rented = _get(client, "/gpus/rtx-4090", as_of=AS_OF)
    assert [Decimal(c["usd_per_gpu_hour"]) for c in rented["cloud"]] == [Decimal("0.70")]
    assert rented["cloud"][0]["current"] is True
    assert Decimal(rented["today_prices"]["cloud:on-demand"]["usd"]) == Decimal("0.70")
    live_rented = _get(client, "/gpus/rtx-4090")
    assert Decimal(live_rented["today_prices"]["cloud:on-demand"]["usd"]) == Decimal("0.40")


def test_gpu_as_of_today_matches_the_live_prices(client: TestClient) -> None:
    live = _get(client, "/gpus/rtx-4090")
    now = _get(client, "/gpus/rtx-4090", as_of=TODAY.date().isoformat())
    assert now["today_prices"]["new"] == live["today_prices"]["new"]
    assert now["market_prices"]["new"]["usd"] == live["market_prices"]["new"]["usd"]


def _tco_prices(body: dict[str, Any]) -> dict[str, Decimal]:
    return {p["name"].split(" ")[0]: Decimal(str(p["value"])) for p in body["prices_used"]}


def test_tco_as_of_uses_only_prices_observed_by_then(client: TestClient) -> None:
    query = {"gpu": "rtx-3090", "condition": "used", "cloud_gpu": "rtx-4090"}
    live = _tco_prices(_get(client, "/tco", **query))
    body = _get(client, "/tco", **query, as_of=AS_OF)
    past = _tco_prices(body)
    assert (live["gpu_price"], live["cloud_usd_per_hour"]) == (Decimal("500"), Decimal("0.4"))
    assert (past["gpu_price"], past["cloud_usd_per_hour"]) == (Decimal("800"), Decimal("0.7"))
    _says_as_of(body, AS_OF)
    today = _get(client, "/tco", gpu="rtx-4090", condition="new", as_of=TODAY.date().isoformat())
    fresh = _get(client, "/tco", gpu="rtx-4090", condition="new")
    assert _tco_prices(today) == _tco_prices(fresh)


def _check(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/prices/check", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_price_check_as_of_uses_only_prices_observed_by_then(client: TestClient) -> None:
    quote = {"gpu": "rtx-3090", "usd": "700", "condition": "used"}
    live = _check(client, **quote)
    past = _check(client, **quote, as_of=AS_OF)
    assert Decimal(live["evidence"]["today_usd"]) == Decimal("500")
    assert Decimal(past["evidence"]["today_usd"]) == Decimal("800")
    assert past["evidence"]["observed_at"][:10] == BEFORE.date().isoformat()
    _says_as_of(past, AS_OF)
    assert "as_of" not in live and "model_version" not in live
    rental = {"gpu": "rtx-4090", "usd_per_hour": "0.6", "condition": "cloud"}
    assert Decimal(_check(client, **rental, as_of=AS_OF)["evidence"]["today_usd"]) == Decimal("0.7")
    assert Decimal(_check(client, **rental)["evidence"]["today_usd"]) == Decimal("0.4")


def test_price_check_as_of_today_matches_the_live_band(client: TestClient) -> None:
    quote = {"gpu": "rtx-4090", "usd": "1700", "condition": "new"}
    live = _check(client, **quote)
    now = _check(client, **quote, as_of=TODAY.date().isoformat())
    assert now["evidence"] == live["evidence"]
    assert now["percentile"] == live["percentile"]
