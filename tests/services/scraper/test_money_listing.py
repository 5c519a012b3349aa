from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from services.scraper import pipeline
from services.scraper.listing import (
    CloudListing,
    Condition,
    RawListing,
    condition_from_text,
    price_fields,
)
from services.scraper.money import Money, PriceTextError, parse_money, parse_shipping
from shared.matching.titles import match_title


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("$1,299.99", "1299.99", "USD"),
        ("US $749.99", "749.99", "USD"),
        ("C $1,000.00", "1000.00", "CAD"),
        ("AU $2,450.00", "2450.00", "AUD"),
        ("£899.00", "899.00", "GBP"),
        ("EUR 1.299,00", "1299.00", "EUR"),
        ("1799.99", "1799.99", "USD"),
        # Issue 39: what eBay shows a visitor from Peru (sol) or Singapore.
        ("S/. 16.88", "16.88", "PEN"),
        ("S/ 16.88", "16.88", "PEN"),
        ("S/.2,999.00", "2999.00", "PEN"),
        ("S/. 1.234,56", "1234.56", "PEN"),
        ("PEN 1,234.56", "1234.56", "PEN"),
        ("S$ 1,299.00", "1299.00", "SGD"),
        ("S$68.90", "68.90", "SGD"),
        ("SGD 12.50", "12.50", "SGD"),
        ("SGD $12.50", "12.50", "SGD"),
        # Other symbols eBay shows that name one currency.
        ("NZ $45.00", "45.00", "NZD"),
        ("HK $1,000.00", "1000.00", "HKD"),
        ("R$ 100,00", "100.00", "BRL"),
        ("MX$100", "100", "MXN"),
        ("MXN $1,500.00", "1500.00", "MXN"),
        ("₹1,000", "1000", "INR"),
        ("123,00 zł", "123.00", "PLN"),
        ("RM 123.00", "123.00", "MYR"),
        ("₱1,234.00", "1234.00", "PHP"),
        ("CHF 12.50", "12.50", "CHF"),
    ],
)
def test_parse_money(text: str, amount: str, currency: str) -> None:
    assert parse_money(text) == Money(Decimal(amount), currency)


@pytest.mark.parametrize(
    "text",
    [
        "$300.00 to $350.00",
        "$1,599.99 – $1,799.99",
        "$650.00 - $900",
        "S/. 2.00 a S/. 5.00",
        "S$ 2.00 to S$ 5.00",
        "S/ 10,00 - S/ 20,00",
    ],
)
def test_price_ranges_are_refused(text: str) -> None:
    with pytest.raises(PriceTextError) as caught:
        parse_money(text)
    assert caught.value.reason == "price_range"


@pytest.mark.parametrize(
    "text",
    # Symbols shared by several currencies ("kr": SEK, NOK, DKK, ISK) or that we do not
    # map: never read as dollars.
    ["kr 100", "Fr. 12.50", "NT$1,000", "₩10,000", "Bs. 100"],
)
def test_unknown_currencies_are_refused_not_read_as_dollars(text: str) -> None:
    with pytest.raises(PriceTextError) as caught:
        parse_money(text)
    assert caught.value.reason == "unknown_currency"
    assert price_fields(text) == (None, "unknown_currency")


def test_dollar_sign_alone_stays_usd_and_pound_is_gbp() -> None:
    assert parse_money("$3.25") == Money(Decimal("3.25"), "USD")
    assert parse_money("£68.90") == Money(Decimal("68.90"), "GBP")
    # A bare number takes the caller's currency; a signed one is still a bare number.
    assert parse_money("16.88", "GBP") == Money(Decimal("16.88"), "GBP")
    assert parse_money("+16.88") == Money(Decimal("16.88"), "USD")


def test_shipping_in_an_unknown_currency_is_unknown() -> None:
    assert parse_shipping("+kr 50 delivery") is None
    assert parse_shipping("+S/. 5.00 de envío") == Money(Decimal("5.00"), "PEN")
    assert parse_shipping("Envío gratis", "PEN") == Money(Decimal(0), "PEN")
    assert parse_shipping("Free international postage", "GBP") == Money(Decimal(0), "GBP")


def test_pipeline_counts_an_unknown_currency() -> None:
    price, issue = price_fields("kr 29 990")
    listing = RawListing(
        source="ebay",
        listing_id="1",
        title="NVIDIA GeForce RTX 4090 Founders Edition 24GB",
        url="https://www.ebay.com/itm/1",
        price_text="kr 29 990",
        price=price,
        price_issue=issue,
        condition=Condition.USED,
    )
    result = pipeline.normalize([listing], match_title)
    assert [drop.reason for drop in result.dropped] == ["unknown_currency"]


def test_price_fields_name_the_issue() -> None:
    assert price_fields("See price in cart") == (None, "unparseable_price")
    assert price_fields(None) == (None, "missing_price")
    assert price_fields("$300.00 to $350.00") == (None, "price_range")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Free delivery", Money(Decimal(0), "USD")),
        ("Free 3 day shipping", Money(Decimal(0), "USD")),
        ("+$25.00 delivery", Money(Decimal("25.00"), "USD")),
        ("$9.99 Shipping", Money(Decimal("9.99"), "USD")),
        ("Shipping not specified", None),
        ("Special Shipping", None),
    ],
)
def test_parse_shipping(text: str, expected: Money | None) -> None:
    assert parse_shipping(text) == expected


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("Pre-Owned", Condition.USED),
        ("Brand New", Condition.NEW),
        ("Parts Only", Condition.FOR_PARTS),
        ("For parts or not working", Condition.FOR_PARTS),
        ("Certified - Refurbished", Condition.REFURBISHED),
        ("Open Box", Condition.OPEN_BOX),
        # eBay condition 1500: open box, not new.
        ("New (Other)", Condition.OPEN_BOX),
        ("New other (see details)", Condition.OPEN_BOX),
        ("Brand new", Condition.NEW),
        ("New", Condition.NEW),
        # The Spanish UI's labels.
        ("Totalmente nuevo", Condition.NEW),
        ("Nuevo", Condition.NEW),
        ("Nuevo (otro)", Condition.OPEN_BOX),
        ("De segunda mano", Condition.USED),
        ("Usado", Condition.USED),
        ("Reacondicionado", Condition.REFURBISHED),
        ("Para piezas o no funciona", Condition.FOR_PARTS),
        ("", Condition.UNKNOWN),
        ("NVIDIA", Condition.UNKNOWN),
    ],
)
def test_condition_from_text(text: str, condition: Condition) -> None:
    assert condition_from_text(text) is condition


def test_money_refuses_non_iso_currency() -> None:
    with pytest.raises(ValueError):
        Money(Decimal(1), "$")


def test_cloud_listing_per_gpu_hour_keeps_spot_apart() -> None:
    when = datetime(2026, 11, 5, tzinfo=UTC)
    listing = CloudListing(
        "azure",
        "Standard_ND96isr_H100_v5",
        "H100",
        8,
        "eastus",
        Decimal("98.32"),
        Decimal("39.328"),
        when,
    )
    assert listing.on_demand_usd_per_gpu_hour == Decimal("12.29")
    assert listing.spot_usd_per_gpu_hour == Decimal("4.916")
    with pytest.raises(ValueError):
        CloudListing("vast", "0x", "RTX 3080", 0, "PL", Decimal("1"), None, when)
