"""Prices shown in another currency, converted at a dated rate or refused (issue 39).

Rates are the bundled ECB table (services/scraper/data/ecb_rates/); the expected figures
come from its rows read directly (ecb_oracle), not from the code under test.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from services.scraper import pipeline
from services.scraper.exchange import (
    BUNDLED_RATES,
    Exchange,
    RateTable,
    rate_table,
    read_ecb_csv,
)
from services.scraper.listing import Condition, ListingType, RawListing
from services.scraper.money import Money
from services.scraper.settings import ScraperSettings
from tests.services.scraper.ecb_oracle import usd_per

CENT = Decimal("0.01")
# A Friday, the Monday after it, and the newest day of the bundled table.
FRIDAY = date(2025, 9, 26)
MONDAY = date(2025, 9, 29)
NEWEST = date(2026, 10, 30)


class _Matched:
    gpu_id = "rtx-3090"
    quantity = 1
    reason = pipeline.MATCHED


def _listing(price: Money, shipping: Money | None = None, **overrides: Any) -> RawListing:
    values: dict[str, Any] = {
        "source": "ebay",
        "listing_id": "1",
        "title": "NVIDIA GeForce RTX 3090 Founders Edition 24GB",
        "url": "https://www.ebay.com/itm/1",
        "price_text": str(price),
        "price": price,
        "shipping": shipping,
        "condition": Condition.USED,
    }
    values.update(overrides)
    return RawListing(**values)


def _normalize(listing: RawListing, observed_on: date) -> pipeline.StageResult[Any]:
    return pipeline.normalize([listing], lambda _t: _Matched(), Exchange(rate_table(), observed_on))


@pytest.mark.parametrize("currency", ["SGD", "GBP", "EUR", "CAD", "JPY", "CHF"])
def test_a_price_is_converted_at_the_rate_of_its_day(currency: str) -> None:
    shown = Money(Decimal("1234.50"), currency)
    [item] = _normalize(_listing(shown), FRIDAY).kept
    expected = (Decimal("1234.50") * usd_per(currency, FRIDAY)).quantize(CENT)
    assert item.unit_price_usd == expected
    assert item.listing.price == shown  # the amount and currency shown stay on the listing
    assert item.usd_rate is not None
    assert (item.usd_rate.currency, item.usd_rate.day) == (currency, FRIDAY)
    assert "ECB" in item.usd_rate.source


def test_a_weekend_uses_the_last_reference_day_before_it() -> None:
    # No ECB rates on Saturday 2025-09-27: Friday's rate, never Monday's (not yet known).
    [item] = _normalize(_listing(Money(Decimal("100"), "SGD")), date(2025, 9, 27)).kept
    assert item.usd_rate is not None and item.usd_rate.day == FRIDAY
    assert usd_per("SGD", FRIDAY) != usd_per("SGD", MONDAY)


def test_shipping_is_converted_too() -> None:
    listing = _listing(Money(Decimal("1000"), "SGD"), Money(Decimal("25"), "SGD"))
    [item] = _normalize(listing, MONDAY).kept
    assert item.unit_price_usd == (Decimal("1025") * usd_per("SGD", MONDAY)).quantize(CENT)
    assert item.shipping_known


def test_a_sale_is_converted_at_its_sale_day() -> None:
    sold = _listing(
        Money(Decimal("500"), "GBP"), listing_type=ListingType.SOLD, sold_at=date(2025, 9, 1)
    )
    [item] = _normalize(sold, date(2025, 10, 20)).kept
    assert item.usd_rate is not None and item.usd_rate.day == date(2025, 9, 1)
    assert item.unit_price_usd == (Decimal(500) * usd_per("GBP", date(2025, 9, 1))).quantize(CENT)


@pytest.mark.parametrize(
    ("currency", "observed_on", "detail"),
    [
        # The ECB does not quote the sol: read and kept, never converted at a guess.
        ("PEN", MONDAY, "no PEN rate in the ECB euro reference rate table"),
        # Past the table's end by more than the 7 days a rate is used for.
        ("SGD", date(2026, 11, 7), "no SGD rate within 7 days before 2026-11-07"),
        ("EUR", date(2026, 12, 8), "no EUR rate within 7 days before 2026-12-08"),
        # Before the table's start.
        ("GBP", date(2022, 6, 1), "no GBP rate within 7 days before 2022-06-01"),
    ],
)
def test_no_rate_for_the_day_is_a_counted_drop(
    currency: str, observed_on: date, detail: str
) -> None:
    result = _normalize(_listing(Money(Decimal("700"), currency)), observed_on)
    assert result.kept == []
    [drop] = result.dropped
    assert (drop.stage, drop.reason) == ("normalize", "no_exchange_rate")
    assert drop.detail.startswith(detail)


def test_a_rate_exactly_max_age_days_old_is_used_and_one_day_older_is_not() -> None:
    listing = _listing(Money(Decimal("100"), "SGD"))
    assert _normalize(listing, date(2026, 11, 6)).kept  # 7 days after the newest
    assert not _normalize(listing, date(2026, 11, 7)).kept


def test_usd_needs_no_rate_on_any_day() -> None:
    listing = _listing(Money(Decimal("100"), "USD"), Money(Decimal("5"), "USD"))
    [item] = _normalize(listing, date(2031, 1, 1)).kept
    assert (item.unit_price_usd, item.usd_rate) == (Decimal("105.00"), None)


def test_a_run_counts_the_drop_under_its_reason() -> None:
    bounds = pipeline.PriceBounds(Decimal(20), Decimal(100000))
    listings = [
        _listing(Money(Decimal("1500"), "SGD"), listing_id="sgd"),
        _listing(Money(Decimal("3000"), "PEN"), listing_id="pen"),
    ]
    result = pipeline.run(listings, lambda _t: _Matched(), bounds, Exchange(rate_table(), MONDAY))
    assert [item.listing.listing_id for item in result.accepted] == ["sgd"]
    assert result.stats.dropped == {"normalize.no_exchange_rate": 1}


def test_the_bundled_table_spans_2023_to_its_newest_day_and_lacks_the_sol() -> None:
    table = rate_table()
    assert table.span("SGD") == (date(2023, 1, 2), NEWEST)
    assert table.span("EUR") == (date(2023, 1, 2), NEWEST)
    assert {"USD", "EUR", "GBP", "SGD", "CAD", "AUD", "JPY"} <= table.currencies
    assert "PEN" not in table.currencies
    assert (BUNDLED_RATES.parent / "PROVENANCE.md").exists()


def test_an_operators_ecb_file_is_read_with_its_gaps(tmp_path: Path) -> None:
    # The ECB file's own form: a trailing comma, "N/A" for a currency not quoted that day.
    path = tmp_path / "eurofxref-hist.csv"
    path.write_text(
        "Date,USD,SGD,PEN,\n2026-12-07,1.16,1.50,N/A,\n2026-12-04,1.15,1.49,3.9,\n",
        encoding="utf-8",
    )
    table = read_ecb_csv(path)
    monday = table.usd_rate("SGD", date(2026, 12, 8), 7)
    assert monday is not None and monday.day == date(2026, 12, 7)
    assert monday.usd_per_unit == Decimal("1.16") / Decimal("1.50")
    # The sol has no rate on the 7th: the two legs of a cross rate must share one day.
    assert table.usd_rate("PEN", date(2026, 12, 8), 7) is None
    pen = table.usd_rate("PEN", date(2026, 12, 5), 7)
    assert pen is not None and pen.usd_per_unit == Decimal("1.15") / Decimal("3.9")


def test_settings_choose_the_table_and_the_age(tmp_path: Path) -> None:
    path = tmp_path / "rates.csv"
    path.write_text("Date,USD,SGD\n2026-12-01,1.2,1.6\n", encoding="utf-8")
    settings = ScraperSettings(exchange_rates_path=path, exchange_rate_max_age_days=10)
    exchange = Exchange.from_settings(settings, date(2026, 12, 8))
    assert isinstance(exchange.table, RateTable) and exchange.max_age_days == 10
    converted = exchange.to_usd(Money(Decimal("16"), "SGD"), date(2026, 12, 8))
    assert converted is not None
    assert converted.usd == Decimal("16") * Decimal("1.2") / Decimal("1.6")
    assert Exchange.from_settings(ScraperSettings(), NEWEST).table is rate_table()
