"""A rental's band says how sure its price is: from the offers' spread and number, never zero
for one offer; spot offers are checked against their own provider's on-demand offer."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from shared.models import CloudOffer
from shared.pricing.cloud import ONE_OFFER_LOG_SD, Currency, rentals_of
from shared.pricing.today import rental_today
from tests.factories import make_offer

NOW = datetime(2026, 12, 2, tzinfo=UTC)
Z_80 = 1.2816


def _offer(provider: str, on_demand: str | None, spot: str | None = None) -> CloudOffer:
    return make_offer(
        "h100-sxm5",
        on_demand or "0",
        NOW - timedelta(days=2),
        provider=provider,
        instance_type=f"{provider}-1x",
        on_demand_usd_per_hour=None if on_demand is None else Decimal(on_demand),
        spot_usd_per_hour=None if spot is None else Decimal(spot),
    )


def _rentals(*offers: CloudOffer):
    return rentals_of(offers, Currency(NOW), Decimal("2"))


def _ratio(a: Decimal, b: Decimal) -> float:
    return math.log(float(a) / float(b))


def test_one_offer_is_priced_at_the_offer_with_the_measured_one_offer_band():
    rental = _rentals(_offer("solo", "2.00"))["on-demand"]
    assert rental is not None
    today = rental_today(rental)
    assert today.usd == Decimal("2.00") and today.n == 1
    half = Z_80 * ONE_OFFER_LOG_SD
    assert math.isclose(_ratio(today.usd, today.band_low), half, abs_tol=1e-4)
    assert math.isclose(_ratio(today.band_high, today.usd), half, abs_tol=1e-4)
    assert math.isclose(today.log_spread, half, abs_tol=1e-4)


def test_two_offers_far_apart_are_banded_by_their_own_spread():
    rental = _rentals(_offer("a", "1.00"), _offer("b", "4.00"))["on-demand"]
    assert rental is not None
    low, high, half = rental.band()
    own = math.log(4.0) / math.sqrt(2)  # the sample standard deviation of two log prices
    assert own > ONE_OFFER_LOG_SD
    assert math.isclose(half, Z_80 * own / math.sqrt(2), rel_tol=1e-9)
    assert rental.cheapest.usd_per_gpu_hour == Decimal("1.00") and low < Decimal("1.00")
    assert high >= rental.median_usd


def test_two_close_offers_are_banded_at_least_by_the_floor():
    rental = _rentals(_offer("a", "2.00"), _offer("b", "2.02"))["on-demand"]
    assert rental is not None
    _, _, half = rental.band()
    assert math.isclose(half, Z_80 * ONE_OFFER_LOG_SD / math.sqrt(2), rel_tol=1e-9)


def test_many_agreeing_offers_are_surer_than_one_and_the_top_reaches_the_median():
    prices = ["2.00", "2.05", "2.10", "2.10", "2.15", "2.20", "3.00"]
    many = _rentals(*(_offer(f"p{i}", p) for i, p in enumerate(prices)))["on-demand"]
    one = _rentals(_offer("solo", "2.00"))["on-demand"]
    assert many is not None and one is not None
    many_today, one_today = rental_today(many), rental_today(one)
    assert many_today.usd == one_today.usd == Decimal("2.00")
    assert _ratio(many_today.band_high, many_today.band_low) < _ratio(
        one_today.band_high, one_today.band_low
    )
    assert many_today.band_high >= many.median_usd == Decimal("2.10000")
    assert many_today.band_low < many_today.usd


def test_a_spot_offer_above_its_providers_on_demand_is_held_back_with_a_reason():
    offers = [_offer("a", "2.00", spot="2.50"), _offer("b", None, spot="1.50")]
    offers.append(_offer("c", "3.00"))
    spot = _rentals(*offers)["spot"]
    assert spot is not None and spot.note is None
    assert spot.cheapest.provider == "b" and spot.prices == (Decimal("1.50"),)
    [reason] = spot.not_spot
    assert "a a-1x at $2.50000/h is above a's on-demand $2.00000/h" in reason
    assert "held back as above their provider's on-demand" in rental_today(spot).basis


def test_a_spot_offer_is_not_judged_by_another_providers_on_demand():
    # b's spot is b's spot price, though a's on-demand is cheaper: not held back; the spot
    # ranking still rents at the cheaper on-demand offer, and says which spot it passed over.
    rentals = _rentals(_offer("a", "1.00"), _offer("b", "3.00", spot="1.50"))
    spot = rentals["spot"]
    assert spot is not None and spot.not_spot == ()
    assert spot.cheapest.provider == "a" and spot.cheapest.pricing == "on-demand"
    assert spot.note is not None and "cheapest spot $1.50000/h, b" in spot.note


def test_a_card_whose_only_spot_offers_are_no_spot_price_rents_on_demand_saying_why():
    spot = _rentals(_offer("a", "2.00", spot="2.40"))["spot"]
    assert spot is not None and spot.cheapest.pricing == "on-demand"
    assert spot.note is not None and spot.note.startswith("no spot price (a a-1x at $2.40000/h")
