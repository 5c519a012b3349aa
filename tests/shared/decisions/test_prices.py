"""The prices a /recommend answer used, by id (shared/decisions/prices.py), both
backends: a purchase price's market window, a rental's current offers."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from sqlmodel import Session

from services.api.recommend.service import recommend
from shared.decisions.prices import prices_used
from shared.perfmodel.registry import get_model
from shared.recommend.schemas import RecommendQuery
from shared.recommend.scores import ScoreCache
from shared.seed import seed_catalog
from tests.clock import TEST_TODAY
from tests.factories import make_observation, make_offer, plain_settings, recompute

NOW = TEST_TODAY - timedelta(days=5)


def answer(session: Session, **query: Any) -> dict[str, Any]:
    """/recommend's body for `query`, from the Score rows of this session."""
    values: dict[str, Any] = {
        "memory_basis": "requested",
        "precision": "fp16",
        "budget_usd": None,
        "count": 1,
        "datacenter": False,
        "limit": 10,
        "sort": "perf_per_dollar",
        **query,
    }
    settings, model = plain_settings(), get_model()
    found = recommend(session, ScoreCache(), RecommendQuery(**values), settings, model)
    return found.model_dump(mode="json")


def entry(used: list[dict[str, Any]], gpu_id: str) -> dict[str, Any]:
    (found,) = [e for e in used if e["gpu_id"] == gpu_id]
    return found


def test_a_purchase_price_lists_the_observations_of_its_window(session: Session) -> None:
    seed_catalog(session)
    rows = {
        "older": make_observation(usd="950", observed_at=NOW - timedelta(days=20)),
        "window": make_observation(usd="700", observed_at=NOW - timedelta(days=3)),
        # A third ask: two would be too thin for a market price.
        "middle": make_observation(usd="750", observed_at=NOW - timedelta(days=2)),
        "newest": make_observation(usd="800", observed_at=NOW),
        "quarantined": make_observation(
            usd="90", observed_at=NOW - timedelta(days=1), quarantined=True
        ),
        "new": make_observation(condition="new", usd="1500", observed_at=NOW),
        "other card": make_observation(gpu_id="rtx-4090", usd="1600", observed_at=NOW),
    }
    session.add_all(rows.values())
    session.flush()
    recompute(session)
    body = answer(session, task="cv", memory_gb=24, condition="used")

    used = entry(prices_used(session, body, plain_settings(), TEST_TODAY), "rtx-3090")
    listed = {row["id"]: row for row in used["price_observations"]}
    assert set(listed) == {rows["window"].id, rows["middle"].id, rows["newest"].id}
    flags = [listed[rows[name].id]["newest"] for name in ("newest", "middle", "window")]
    assert flags == [True, False, False]
    # The price is the median of exactly these.
    assert Decimal(used["usd"]) == Decimal("750.00")
    assert used["cloud_offers"] == []


def test_a_rental_lists_the_current_offers_and_the_one_it_is(session: Session) -> None:
    seed_catalog(session)
    cheap = make_offer("h100-pcie", "2.00", NOW, provider="cloud-a")
    dear = make_offer("h100-pcie", "3.00", NOW, provider="cloud-b")
    aged = make_offer("h100-pcie", "1.00", NOW - timedelta(days=200), provider="cloud-c")
    spot_only = make_offer(
        "h100-pcie", "1.50", NOW, provider="cloud-d", on_demand_usd_per_hour=None
    )
    spot_only.spot_usd_per_hour = Decimal("1.50")
    session.add_all([cheap, dear, aged, spot_only])
    session.flush()
    recompute(session)
    body = answer(session, task="nlp", memory_gb=80, condition="cloud", pricing="on-demand")

    used = entry(prices_used(session, body, plain_settings(), TEST_TODAY), "h100-pcie")
    offers = {row["id"]: row for row in used["cloud_offers"]}
    assert set(offers) == {cheap.id, dear.id}
    assert [offers[cheap.id]["rests_on"], offers[dear.id]["rests_on"]] == [True, False]
    assert Decimal(used["usd"]) == Decimal("2.00")
    assert used["pricing"] == "on-demand"
    assert used["price_observations"] == []
