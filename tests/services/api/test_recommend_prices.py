"""Which price a ranking stands on: the fresh market, never a posted quote; rentals ranked
per GPU-hour; freshness in the answer and in /health. Dates are relative to today, so the
data stays fresh or stale as intended whenever the suite runs."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient

from services.api.app import create_app
from shared.alerts.keys import create_key
from shared.kit.db import make_engine, migrate, session_scope
from shared.kit.settings import get_settings
from shared.models import CloudOffer
from shared.seed import seed_catalog
from tests.conftest import _drop_postgres_database, new_database
from tests.factories import make_observation, recompute

TODAY = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _days_ago(days: int) -> datetime:
    return TODAY - timedelta(days=days)


def _offer(gpu_id: str, count: int, on_demand: str, spot: str | None, age: int) -> CloudOffer:
    return CloudOffer(
        provider="testcloud",
        instance_type=f"{count}x-{gpu_id}",
        gpu_id=gpu_id,
        gpu_count=count,
        region="us-test-1",
        on_demand_usd_per_hour=Decimal(on_demand),
        spot_usd_per_hour=Decimal(spot) if spot else None,
        kind="scraped",
        source="testcloud price list",
        observed_at=_days_ago(age),
        measure="list",
    )


def _market() -> list[Any]:
    snapshot = {"kind": "snapshot", "listing_id": None}
    return [
        make_observation(
            **snapshot, usd="1200", measure="cheapest_asks_mean", observed_at=_days_ago(20)
        ),
        make_observation(**snapshot, usd="700", measure="sold_average", observed_at=_days_ago(900)),
        make_observation(
            **snapshot,
            gpu_id="rtx-4090",
            usd="2400",
            measure="cheapest_asks_mean",
            observed_at=_days_ago(200),
        ),
        _offer("h100-sxm5", 8, "20.00", "11.20", age=10),  # $2.50 / $1.40 per GPU-hour
        _offer("h200-sxm", 1, "3.50", None, age=5),
        _offer("b200", 8, "24.00", None, age=200),  # a price list that old is history
    ]


@pytest.fixture(scope="module")
def db(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url, pg_name = new_database(backend, tmp_path_factory.mktemp("prices"))
    migrate(url)
    engine = make_engine(url)
    with session_scope(engine) as session:
        seed_catalog(session)
        session.add_all(_market())
        session.flush()
        recompute(session)
    engine.dispose()
    yield url
    if pg_name:
        _drop_postgres_database(pg_name)


@pytest.fixture
def client(db: str, monkeypatch: pytest.MonkeyPatch, tmp_path) -> Iterator[TestClient]:
    # In-process jobs read the process settings: point them at this database too.
    env = {
        "GPU_ADVISOR_DATABASE_URL": db,
        "GPU_ADVISOR_DATA_DIR": str(tmp_path),
        "GPU_ADVISOR_INPROCESS_MODE": "eager",
        "GPU_ADVISOR_INPROCESS_SCHEDULER": "false",
        "GPU_ADVISOR_LOAD_BUNDLED_DATA": "false",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    with TestClient(create_app(get_settings())) as test_client:
        yield test_client
    get_settings.cache_clear()


def _results(
    client: TestClient, headers: dict[str, str] | None = None, **params: Any
) -> dict[str, dict[str, Any]]:
    response = client.get(
        "/recommend", params={"task": "cv", "memory_gb": 24, **params}, headers=headers or {}
    )
    assert response.status_code == 200, response.text
    return {r["gpu"]["id"]: r for r in response.json()["results"]}


def test_the_ranking_stands_on_the_fresh_market_price_and_says_what_it_is(client):
    results = _results(client, condition="used")
    price = results["rtx-3090"]["price"]
    # The two-year-old sold average is history; this month's report is the market.
    assert price["usd"] == "1200.00" and price["measure"] == "cheapest_asks_mean"
    assert price["stale"] is False and price["observed_at"].startswith(
        _days_ago(20).date().isoformat()
    )
    assert "cheapest asking prices" in results["rtx-3090"]["explanation"]
    # The 4090's 200-day-old price is never used at face value; the only other card's
    # prices are from 20 and 900 days ago, so no index saw its market around that date:
    # it is listed as unranked, with its last price and why.
    assert "rtx-4090" not in results
    body = client.get(
        "/recommend", params={"task": "cv", "memory_gb": 24, "condition": "used"}
    ).json()
    [old] = [u for u in body["unranked"] if u["gpu"]["id"] == "rtx-4090"]
    assert old["last_usd"].startswith("2400") and "index has no data" in old["reason"]


def test_a_posted_price_moves_no_ranking_and_shows_as_a_quote(client, db):
    key = _write_key(db)
    before = _results(client)["rtx-3090"]
    absurd = {"gpu_id": "rtx-3090", "usd": "99", "condition": "used", "source": "too good"}
    posted = client.post("/prices", json=absurd, headers=key)
    assert posted.status_code == 201 and posted.json()["quarantined"] is True
    plausible = {**absurd, "usd": "1100", "source": "Acme quote 42"}
    assert client.post("/prices", json=plausible, headers=key).json()["quarantined"] is False
    after = _results(client, headers=key)["rtx-3090"]
    assert after["price"] == before["price"]
    assert after["perf_per_dollar"] == before["perf_per_dollar"]
    assert after["best_quote"]["usd"] == "1100.00"
    assert after["best_quote"]["source"] == "Acme quote 42"
    assert _results(client)["rtx-3090"]["best_quote"] is None  # the key's, not everyone's
    history = client.get("/gpus/rtx-3090/prices", headers=key).json()
    assert history["market"]["used"]["usd"] == "1200.00"
    assert history["best_quote"]["used"]["usd"] == "1100.00"
    assert {q["usd"] for q in history["quotes"]} == {"99.00", "1100.00"}


def test_condition_cloud_ranks_current_rentals_per_gpu_hour(client):
    results = _results(client, condition="cloud", count=2)
    assert set(results) == {"h100-sxm5", "h200-sxm"}  # the B200 list is history
    # ... listed as unranked: the rental index has no data from around its date.
    response = client.get(
        "/recommend", params={"task": "cv", "memory_gb": 24, "condition": "cloud"}
    ).json()
    [b200] = [u for u in response["unranked"] if u["gpu"]["id"] == "b200"]
    assert "index has no data" in b200["reason"] and Decimal(b200["last_usd"]) == Decimal("3")
    h100 = results["h100-sxm5"]
    assert h100["price"]["unit"] == "usd_per_gpu_hour" and h100["price"]["pricing"] == "on-demand"
    assert Decimal(h100["price"]["usd"]) == Decimal("2.5")
    assert Decimal(h100["total_cost_usd"]) == Decimal("5.0")  # two GPUs, per hour
    assert Decimal(h100["system_cost_usd"]) == 0
    assert h100["perf_per_dollar"] == pytest.approx(h100["relative_performance"] / 5.0, rel=1e-4)
    spot = _results(client, condition="cloud", pricing="spot")
    assert set(spot) == {"h100-sxm5"} and Decimal(spot["h100-sxm5"]["price"]["usd"]) == Decimal(
        "1.4"
    )


def test_health_reports_price_freshness_per_condition(client, db):
    health = client.get("/health").json()
    assert health["prices"]["used"]["stale"] is False
    assert health["prices"]["new"]["stale"] is None  # no new prices at all
    assert health["prices"]["cloud"]["stale"] is False
    assert health["status"] == "ok"
    # Read once per score revision: a new price and its recompute show at once.
    engine = make_engine(db)
    with session_scope(engine) as session:
        new_price = make_observation(
            gpu_id="rtx-5090", condition="new", usd="2900", observed_at=_days_ago(1)
        )
        session.add(new_price)
        session.flush()
        recompute(session, ["rtx-5090"])
    engine.dispose()
    again = client.get("/health").json()["prices"]["new"]
    assert again["stale"] is False and again["newest_at"].startswith(
        _days_ago(1).date().isoformat()
    )


def test_health_is_degraded_when_the_newest_price_is_stale(backend, tmp_path, monkeypatch):
    url, pg_name = new_database(backend, tmp_path)
    try:
        migrate(url)
        engine = make_engine(url)
        with session_scope(engine) as session:
            seed_catalog(session)
            session.add(make_observation(usd="704", observed_at=_days_ago(1127)))
        engine.dispose()
        monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", url)
        monkeypatch.setenv("GPU_ADVISOR_LOAD_BUNDLED_DATA", "false")
        monkeypatch.setenv("GPU_ADVISOR_INPROCESS_SCHEDULER", "false")
        get_settings.cache_clear()
        with TestClient(create_app(get_settings())) as client:
            health = client.get("/health").json()
        assert health["status"] == "degraded"
        assert health["prices"]["used"]["stale"] is True
        assert health["prices"]["used"]["age_days"] >= 1127
    finally:
        get_settings.cache_clear()
        if pg_name:
            _drop_postgres_database(pg_name)


def _write_key(url: str) -> dict[str, str]:
    engine = make_engine(url)
    with session_scope(engine) as session:
        created = create_key(session, "quotes", "write")
    engine.dispose()
    return {"Authorization": f"Bearer {created.key}"}


def test_pages_show_rentals_per_hour_and_quotes_beside_the_market(client, db):
    html = {"Accept": "text/html"}
    page = client.get("/?task=cv&memory_gb=24&condition=cloud&pricing=spot", headers=html)
    assert page.status_code == 200 and "/GPU-hour spot" in page.text
    quote = {"gpu_id": "rtx-4090", "usd": "2300", "condition": "used", "source": "Broker 7"}
    key = _write_key(db)
    assert client.post("/prices", json=quote, headers=key).status_code == 201
    ranked_quote = {**quote, "gpu_id": "rtx-3090", "usd": "1150"}
    assert client.post("/prices", json=ranked_quote, headers=key).status_code == 201
    # A key's quote is that key's: a browser without it is shown no best quote.
    gpu = client.get("/gpus/rtx-4090", headers=html).text
    assert 'id="best-quotes"' not in gpu
    assert "mean of the cheapest asking prices" in gpu and "stale" in gpu
    ranked = client.get("/?task=cv&memory_gb=24&condition=used", headers={**html, **key}).text
    assert "best posted quote $1,150 (Broker 7" in ranked
    anonymous = client.get("/?task=cv&memory_gb=24&condition=used", headers=html).text
    assert "Broker 7" not in anonymous
