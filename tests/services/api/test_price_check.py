"""POST /prices/check: a quote against today's market, read only."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlmodel import select

from shared.alerts.models import AlertEvent
from shared.kit.db import session_scope
from shared.models import PriceObservation


def _check(client: Any, **body: Any) -> dict[str, Any]:
    response = client.post("/prices/check", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def _stored(client: Any) -> tuple[int, int]:
    with session_scope(client.app.state.engine) as session:
        prices = session.exec(select(func.count()).select_from(PriceObservation)).one()
        events = session.exec(select(func.count()).select_from(AlertEvent)).one()
    return prices, events


def test_a_quote_is_placed_in_todays_band_with_its_evidence(bundled_client):
    fair = _check(bundled_client, gpu="RTX 3090", usd=1207, condition="used")
    assert fair["verdict"] == "fair" and 40 <= fair["percentile"] <= 60
    evidence = fair["evidence"]
    low, high = (Decimal(v) for v in evidence["band_usd"])
    assert low < Decimal(evidence["today_usd"]) < high
    assert evidence["n"] >= 1 and evidence["measure"] and evidence["series"]
    assert evidence["observed_at"] and evidence["basis"]
    cheap = _check(bundled_client, gpu="rtx-3090", usd=float(low) * 0.9, condition="used")
    dear = _check(bundled_client, gpu="rtx-3090", usd=float(high) * 1.1, condition="refurbished")
    assert cheap["verdict"] == "below_market" and cheap["percentile"] < 10
    assert dear["verdict"] == "above_market" and dear["percentile"] > 90


def test_an_estimated_price_says_so_in_the_evidence(bundled_client):
    # The RTX 4090's newest used price is from April 2026: older than the stale age.
    answer = _check(bundled_client, gpu="rtx-4090", usd=2000, condition="used")
    assert answer["evidence"]["estimated"] is True
    assert "last seen" in answer["evidence"]["basis"]


def test_alternatives_are_what_the_same_money_buys_used_new_and_rented(bundled_client):
    answer = _check(
        bundled_client, gpu="rtx-4090", usd=2000, condition="used", count=4, task="llm-inference"
    )
    assert answer["total_usd"] == "8000" and answer["alternatives_memory_gb"] == 24
    kinds = {a["kind"]: a for a in answer["alternatives"]}
    assert set(kinds) == {"used", "new", "cloud"}
    for alternative in kinds.values():
        low, high = alternative["perf_per_1000_usd_interval"]
        assert low <= alternative["perf_per_1000_usd"] <= high
        assert alternative["same_money_buys"] > 0
    assert kinds["cloud"]["unit"] == "usd_per_gpu_hour" and kinds["cloud"]["same_money_buys"] > 1000


def test_a_card_without_a_market_gets_no_market_and_its_reference(bundled_client):
    answer = _check(bundled_client, gpu="h200-sxm", usd=99, condition="new")
    assert answer["verdict"] == "no_market" and answer["percentile"] is None
    assert answer["reference"] and "peer" in answer["reference"]


def test_the_check_stores_nothing_and_fires_nothing(bundled_client):
    before = _stored(bundled_client)
    for usd in (1, 600, 100000):
        _check(bundled_client, gpu="rtx-3090", usd=usd, condition="used")
    assert _stored(bundled_client) == before


def test_bad_input_names_the_field_and_the_valid_values(bundled_client):
    unknown = bundled_client.post(
        "/prices/check", json={"gpu": "not a 4090", "usd": 1, "condition": "new"}
    )
    assert unknown.status_code == 422 and unknown.json()["message"].startswith("gpu: unknown GPU")
    condition = bundled_client.post(
        "/prices/check", json={"gpu": "rtx-4090", "usd": 1, "condition": "mint"}
    )
    assert condition.status_code == 422
    assert "'new', 'used' or 'refurbished'" in condition.json()["message"]
    negative = bundled_client.post(
        "/prices/check", json={"gpu": "rtx-4090", "usd": -5, "condition": "new"}
    )
    assert negative.status_code == 422 and "usd" in negative.json()["message"]
