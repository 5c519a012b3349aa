"""The history's market price and total are reused only while no price was stored."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from services.api.prices.cache import PriceCache
from tests.factories import make_observation
from tests.services.api.prices_data import RUN2, history_client  # noqa: F401  (fixture)

URL = "/gpus/rtx-3090/prices"


def test_a_value_is_reused_for_the_same_key_and_version() -> None:
    cache = PriceCache()
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert cache.get("k", 1, compute) == 1
    assert cache.get("k", 1, compute) == 1
    assert cache.get("k", 2, compute) == 2  # a new price: computed again
    assert cache.get("other", 2, compute) == 3


def test_a_value_expires_after_its_lifetime(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr("services.api.prices.cache.time.monotonic", lambda: clock[0])
    cache = PriceCache(ttl_s=60)
    assert cache.get("k", 1, lambda: "first") == "first"
    clock[0] += 60
    assert cache.get("k", 1, lambda: "second") == "first"
    clock[0] += 0.1
    assert cache.get("k", 1, lambda: "third") == "third"


def test_the_oldest_entries_make_room() -> None:
    cache = PriceCache(max_entries=2)
    for key in ("a", "b", "c"):
        cache.get(key, 1, lambda key=key: key)  # type: ignore[misc]
    assert cache.get("a", 1, lambda: "again") == "again"
    assert cache.get("c", 1, lambda: "again") == "c"


def test_a_stored_price_shows_in_the_next_answer(history_client: TestClient) -> None:  # noqa: F811
    before = history_client.get(URL).json()
    assert history_client.get(URL).json() == before  # served again, unchanged
    engine = history_client.app.state.engine  # type: ignore[attr-defined]
    with Session(engine) as session:
        session.add(
            # One more sale: the used price is made of sales, so it moves at once.
            make_observation(
                gpu_id="rtx-3090",
                source="ebay:sold",
                condition="used",
                listing_id="S",
                usd="640",
                observed_at=RUN2 - timedelta(hours=1),
            )
        )
        session.commit()
    after = history_client.get(URL).json()
    assert after["total"] == before["total"] + 1
    used, was = after["market"]["used"], before["market"]["used"]
    assert (used["n"], used["sold_n"]) == (was["n"] + 1, was["sold_n"] + 1)
    assert Decimal(used["usd"]) == Decimal("700.00")  # the median of 640, 700 and 760
