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
    # Used prices of these cards are older than the stale age: moved to today (or, where
    # the estimate disagrees with fresh siblings, not used at all, saying why).
    answers = [
        _check(bundled_client, gpu=gpu, usd=1000, condition="used")
        for gpu in ("rtx-4090", "rtx-3090-ti", "rtx-4080", "a100-80gb-pcie")
    ]
    estimated = [a["evidence"] for a in answers if a["evidence"]["estimated"]]
    assert estimated and all("last seen" in e["basis"] for e in estimated)


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
    answer = _check(bundled_client, gpu="h200-sxm", usd=30000, condition="new")
    assert answer["verdict"] == "no_market" and answer["percentile"] is None
    assert answer["reference"] and "peer" in answer["reference"]
    # Without a band, a price far below the quarantine reference is still a red flag.
    red_flag = _check(bundled_client, gpu="h200-sxm", usd=99, condition="new")
    assert red_flag["verdict"] == "suspicious" and "reference price" in red_flag["reason"]


def _lowest_band_low(client: Any, gpu: str) -> Decimal:
    lows = []
    for condition in ("new", "used"):
        answer = _check(client, gpu=gpu, usd=1000, condition=condition)
        if answer["evidence"]["band_usd"]:
            lows.append(Decimal(answer["evidence"]["band_usd"][0]))
    return min(lows)


def test_a_price_far_below_every_band_is_suspicious_with_its_reason(bundled_client):
    answer = _check(bundled_client, gpu="rtx-3090", usd=99, condition="used")
    assert answer["verdict"] == "suspicious"
    # The reason names what it was compared with: the lowest band and the quarantine factor.
    low = _lowest_band_low(bundled_client, "rtx-3090")
    assert f"${low:,.0f}" in answer["reason"] and "1/3" in answer["reason"]
    assert "quarantine" in answer["reason"] and "per-hour" in answer["reason"]
    h100 = _check(bundled_client, gpu="h100-sxm5", usd=2000, condition="new")
    assert h100["verdict"] == "suspicious"
    # At the threshold (a third of the lowest band's low end) it is a low price, no more.
    at_threshold = _check(bundled_client, gpu="rtx-3090", usd=float(low / 3) + 1, condition="used")
    assert at_threshold["verdict"] == "below_market"


def test_a_realistic_low_price_is_below_market_not_suspicious(bundled_client):
    fair = _check(bundled_client, gpu="rtx-3090", usd=1207, condition="used")
    low = Decimal(fair["evidence"]["band_usd"][0])
    answer = _check(bundled_client, gpu="rtx-3090", usd=float(low) * 0.85, condition="used")
    assert answer["verdict"] == "below_market" and answer["percentile"] < 10
    assert "below the band" in answer["reason"]


def _rental_band(client: Any, gpu: str, pricing: str) -> tuple[Decimal, Decimal]:
    answer = _check(client, gpu=gpu, usd_per_hour=1, condition="cloud", pricing=pricing)
    low, high = answer["evidence"]["band_usd"]
    return Decimal(low), Decimal(high)


def test_a_cloud_quote_is_checked_against_the_rental_of_that_card(bundled_client):
    low, high = _rental_band(bundled_client, "h100-sxm5", "on-demand")
    today = Decimal(
        _check(bundled_client, gpu="h100-sxm5", usd_per_hour=1, condition="cloud")["evidence"][
            "today_usd"
        ]
    )
    # The band's median: today's rental, or the band's geometric middle where today's rental
    # is its cheapest end (banded up to the median offer).
    middle = float((low * high).sqrt()) if today == low else float(today)
    answer = _check(bundled_client, gpu="h100-sxm5", usd_per_hour=middle, condition="cloud")
    assert answer["pricing"] == "on-demand" and answer["unit"] == "usd_per_gpu_hour"
    assert answer["verdict"] == "fair" and 45 <= answer["percentile"] <= 55
    assert answer["usd"] == answer["total_usd"]
    dear = _check(
        bundled_client, gpu="h100-sxm5", usd_per_hour=float(high) * 1.5, condition="cloud"
    )
    assert dear["verdict"] == "above_market"
    available = answer["availability"]
    assert available == "unknown" or available["offers_now"] >= 1
    kinds = {(a["kind"], a["pricing"]) for a in answer["alternatives"]}
    assert kinds == {("cloud", "on-demand")}


def test_a_spot_quote_is_checked_against_the_spot_rental(bundled_client):
    gpu = "a40"  # rented spot and on demand in the bundled offers
    spot_low, spot_high = _rental_band(bundled_client, gpu, "spot")
    on_demand_low, _ = _rental_band(bundled_client, gpu, "on-demand")
    assert spot_low <= on_demand_low
    answer = _check(
        bundled_client,
        gpu=gpu,
        usd_per_hour=float(spot_high) * 1.5,
        condition="cloud",
        pricing="spot",
    )
    assert answer["pricing"] == "spot" and answer["verdict"] == "above_market"
    assert {a["pricing"] for a in answer["alternatives"]} == {"spot"}
    # Far below every rental band (the rental rule's factor, 2): a red flag.
    cheap = _check(
        bundled_client,
        gpu=gpu,
        usd_per_hour=float(spot_low) / 3,
        condition="cloud",
        pricing="spot",
    )
    assert cheap["verdict"] == "suspicious" and "1/2" in cheap["reason"]


def test_a_cloud_quote_for_a_card_never_rented_says_so(bundled_client):
    answer = _check(bundled_client, gpu="rtx-2080", usd_per_hour=0.2, condition="cloud")
    assert answer["verdict"] == "no_market" and answer["percentile"] is None
    assert "never offered for rent" in answer["reason"]
    assert "never offered for rent" in answer["evidence"]["basis"]


def test_the_price_must_fit_the_condition(bundled_client):
    for body, field in (
        ({"gpu": "rtx-4090", "usd": 2, "condition": "cloud"}, "usd_per_hour"),
        ({"gpu": "rtx-4090", "usd_per_hour": 2, "condition": "used"}, "usd_per_hour"),
        ({"gpu": "rtx-4090", "usd": 900, "condition": "used", "pricing": "spot"}, "pricing"),
        ({"gpu": "rtx-4090", "condition": "new"}, "usd"),
    ):
        response = bundled_client.post("/prices/check", json=body)
        assert response.status_code == 422, body
        assert response.json()["message"].startswith(f"{field}: "), response.text
    spot = bundled_client.post(
        "/prices/check",
        json={"gpu": "rtx-4090", "usd_per_hour": 1, "condition": "cloud", "pricing": "cheap"},
    )
    assert spot.status_code == 422 and "'on-demand' or 'spot'" in spot.json()["message"]


def test_alternatives_say_which_are_estimates_and_compare_gpus_alone(bundled_client):
    answer = _check(bundled_client, gpu="rtx-3090", usd=900, condition="used", count=3)
    assert answer["includes_system_cost"] is False
    total = Decimal(answer["total_usd"])
    for a in answer["alternatives"]:
        assert isinstance(a["estimated"], bool) and a["basis"] and a["observed_at"]
        if a["estimated"]:
            assert "last seen" in a["basis"]
        low, high = (Decimal(v) for v in a["band_usd"])
        assert low <= Decimal(a["usd"]) <= high
        # GPU alone, as the quote: perf per $1,000 is the card's performance over its price.
        ratio = a["perf_per_1000_usd"] / float(answer["quote_perf_per_1000_usd"])
        assert ratio > 0
        # same_money_buys is what its description says: total_usd / usd, 2 decimals.
        assert a["same_money_buys"] == round(float(total / Decimal(a["usd"])), 2)
        assert a["same_money_unit"] == ("gpu_hours" if a["kind"] == "cloud" else "gpus")
    assert any(a["estimated"] for a in answer["alternatives"])


def test_same_money_buys_counts_what_its_description_says(bundled_client):
    schema = bundled_client.get("/openapi.json").json()["components"]["schemas"]
    described = schema["AlternativeOut"]["properties"]["same_money_buys"]["description"]
    assert described.startswith("total_usd / usd (2 decimals)") and "GPU alone" in described
    assert "includes_system_cost" in schema["PriceCheckOut"]["properties"]
    answer = _check(bundled_client, gpu="h100-sxm5", usd_per_hour=3, condition="cloud", count=8)
    for a in answer["alternatives"]:
        assert a["same_money_buys"] == round(24 / float(a["usd"]), 2)
        assert a["same_money_unit"] == "gpus"


def test_the_answer_shows_availability_and_no_listing_in_the_window(bundled_client):
    # The bundled purchase prices are months old: nothing listed in the market window.
    answer = _check(bundled_client, gpu="rtx-3090", usd=1207, condition="used")
    available = answer["availability"]
    assert available["listings"] == 0 and available["window_days"] == 7
    assert available["offers_now"] is None and "no used listing" in available["note"]
    cloud = [a for a in answer["alternatives"] if a["kind"] == "cloud"]
    assert all(
        a["availability"] == "unknown" or a["availability"]["offers_now"] >= 1 for a in cloud
    )


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
    assert "'new', 'used', 'refurbished' or 'cloud'" in condition.json()["message"]
    negative = bundled_client.post(
        "/prices/check", json={"gpu": "rtx-4090", "usd": -5, "condition": "new"}
    )
    assert negative.status_code == 422 and "usd" in negative.json()["message"]
