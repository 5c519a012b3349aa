"""The Browse API adapter against REAL eBay `item_summary/search` item summaries.

samples/ebay_browse/real_*.json are real responses' items (GPU Poet, CC BY-SA 4.0; see
samples/ebay_browse/REAL_SOURCES.md), trimmed of unused keys and wrapped in a page
envelope. Where the real captures lack a case (an auction without Buy It Now, an
unconverted foreign currency, a missing price), a test derives it from a real item and
says which field it changed.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from services.scraper import pipeline
from services.scraper.exchange import Exchange, rate_table
from services.scraper.listing import Condition, RawListing
from services.scraper.sources import ebay_browse
from shared.matching import match_title
from shared.models import PriceObservation
from tests.services.scraper.ecb_oracle import usd_per
from tests.services.scraper.fixture_server import SAMPLES_DIR, sample_file
from tests.services.scraper.golden import check_golden, outcome
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv

URL = "https://api.ebay.com/buy/browse/v1/item_summary/search?q=gpu&category_ids=27386"
REAL = sorted((SAMPLES_DIR / "ebay_browse").glob("real_*.json"))
REAL = [path for path in REAL if not path.name.endswith(".expected.json")]


def page(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SAMPLES_DIR / "ebay_browse" / name).read_text())
    return data


def listings(name: str) -> dict[str, RawListing]:
    body = (SAMPLES_DIR / "ebay_browse" / name).read_bytes()
    return {item.listing_id: item for item in ebay_browse.parse(body, URL)}


def real_item(name: str, legacy_id: str) -> dict[str, Any]:
    [item] = [i for i in page(name)["itemSummaries"] if i["legacyItemId"] == legacy_id]
    return copy.deepcopy(item)


def parse_one(item: dict[str, Any]) -> RawListing:
    [listing] = ebay_browse.parse(json.dumps({"total": 1, "itemSummaries": [item]}), URL)
    return listing


def test_there_are_real_samples_and_their_provenance_note() -> None:
    assert [path.name for path in REAL] == [
        "real_a100_pcie.json",
        "real_rtx_4090.json",
        "real_rtx_5070_ti.json",
        "real_rtx_5090.json",
        "real_rtx_a5000.json",
    ]
    note = (SAMPLES_DIR / "ebay_browse" / "REAL_SOURCES.md").read_text()
    assert "be14fc82c9a2918530ea8752b18044d4dd81602a" in note and "CC BY-SA 4.0" in note
    for path in REAL:
        assert path.name in note


@pytest.mark.parametrize("sample", REAL, ids=[path.name for path in REAL])
def test_golden(sample: Path) -> None:
    check_golden(sample, outcome(ebay_browse.parse, sample.read_bytes(), URL))


@pytest.mark.parametrize(
    ("name", "legacy_id", "condition_id", "condition"),
    [
        ("real_rtx_4090.json", "235331379921", "1000", Condition.NEW),
        ("real_rtx_4090.json", "235328123199", "1500", Condition.OPEN_BOX),
        ("real_rtx_5090.json", "146882044597", "2000", Condition.REFURBISHED),
        ("real_rtx_4090.json", "285591934735", "2010", Condition.REFURBISHED),
        ("real_rtx_4090.json", "375096144929", "3000", Condition.USED),
        ("real_rtx_4090.json", "325912985506", "7000", Condition.FOR_PARTS),
        # The title says "NEW"; the condition id says open box, and wins.
        ("real_rtx_5070_ti.json", "167858203499", "1500", Condition.OPEN_BOX),
    ],
)
def test_condition_ids(name: str, legacy_id: str, condition_id: str, condition: Condition) -> None:
    assert real_item(name, legacy_id)["conditionId"] == condition_id
    assert listings(name)[legacy_id].condition is condition


def test_open_box_is_never_stored_as_new() -> None:
    kept = pipeline.normalize(
        [item for path in REAL for item in ebay_browse.parse(path.read_bytes(), URL)],
        match_title,
    ).kept
    open_box = [k for k in kept if k.listing.condition is Condition.OPEN_BOX]
    # How many pass depends on the title matcher; that every one is "used" does not.
    assert len(open_box) >= 5
    assert {k.condition for k in open_box} == {"used"}


def test_buy_it_now_on_an_auction_is_priced_at_buy_it_now_not_the_bid() -> None:
    item = real_item("real_rtx_5070_ti.json", "167858203499")
    assert item["buyingOptions"] == ["FIXED_PRICE", "AUCTION"]
    assert item["currentBidPrice"]["value"] == "675.00"
    listing = listings("real_rtx_5070_ti.json")["167858203499"]
    assert listing.price is not None and listing.price.amount == Decimal("890.00")
    assert listing.price_issue is None


def test_an_auction_without_buy_it_now_is_refused_and_counted() -> None:
    # Derived from the real item above: "FIXED_PRICE" removed from buyingOptions, which
    # leaves `price` as what it is for such listings, the current bid.
    item = real_item("real_rtx_5070_ti.json", "167858203499")
    item["buyingOptions"] = ["AUCTION"]
    item["price"] = item["currentBidPrice"]
    listing = parse_one(item)
    assert (listing.price, listing.price_issue) == (None, ebay_browse.AUCTION_BID)
    assert listing.price_text == "675.00 USD current bid"
    [drop] = pipeline.normalize([listing], match_title).dropped
    assert (drop.stage, drop.reason) == ("normalize", "auction_bid")


def test_a_price_ebay_converted_keeps_the_sellers_currency_and_converts_at_a_dated_rate() -> None:
    item = real_item("real_a100_pcie.json", "115962028346")
    assert item["price"] == {
        "value": "12271.70",
        "currency": "USD",
        "convertedFromValue": "9714.00",
        "convertedFromCurrency": "GBP",
    }
    listing = listings("real_a100_pcie.json")["115962028346"]
    assert listing.price is not None
    assert (listing.price.amount, listing.price.currency) == (Decimal("9714.00"), "GBP")
    assert listing.price_text == "12271.70 USD (converted from 9714.00 GBP)"
    cad = listings("real_rtx_4090.json")["134776150931"]
    assert cad.price is not None and cad.price.currency == "CAD"
    assert cad.shipping is not None and cad.shipping.currency == "CAD"
    # Without rates: refused, never read as dollars.
    normalized = pipeline.normalize([listing, cad], match_title)
    assert normalized.kept == []
    assert Counter(d.reason for d in normalized.dropped) == {"no_exchange_rate": 2}
    # At the ECB rate of any day of December 2023 (the capture month), the seller's pounds
    # and Canadian dollars come within 3 % of the dollars eBay itself converted them to.
    ebay_usd = {"115962028346": Decimal("12271.70"), "134776150931": Decimal("2436.85")}
    for day in (date(2023, 12, 1), date(2023, 12, 15), date(2023, 12, 29)):
        exchange = Exchange(rate_table(), day)
        # Any GPU id: the price is under test ("A100 40GB" alone is ambiguous to the matcher).
        converted = pipeline.normalize([listing, cad], lambda _t: _Matched(), exchange)
        assert converted.dropped == []
        for priced in converted.kept:
            shown = priced.listing.price
            assert shown is not None and priced.usd_rate is not None
            assert (priced.usd_rate.day, priced.usd_rate.currency) == (day, shown.currency)
            expected = ebay_usd[priced.listing.listing_id]
            assert abs(priced.unit_price_usd / expected - 1) < Decimal("0.03")


class _Matched:
    gpu_id = "a100-40gb-pcie"
    quantity = 1
    reason = pipeline.MATCHED


@pytest.mark.parametrize(
    ("change", "issue"),
    [
        ({"price": {"value": "2299.90", "currency": "EUR"}}, None),
        ({"price": {"value": "2299.90"}}, ebay_browse.INVALID_CURRENCY),
        ({"price": {"value": "2299.90", "currency": "usd"}}, ebay_browse.INVALID_CURRENCY),
        ({"price": None}, "missing_price"),
        ({"price": {"value": "", "currency": "USD"}}, "missing_price"),
        ({"price": {"value": "2,199.00 - 2,399.00", "currency": "USD"}}, "price_range"),
        ({"price": {"value": "NaN", "currency": "USD"}}, "unparseable_price"),
    ],
)
def test_derived_price_cases(change: dict[str, Any], issue: str | None) -> None:
    # Derived from a real 4090 listing, with `price` replaced as shown.
    item = real_item("real_rtx_4090.json", "235331379921")
    item.update(change)
    if change["price"] is None:
        del item["price"]
    listing = parse_one(item)
    assert listing.price_issue == issue
    if issue is None:
        assert listing.price is not None and listing.price.currency == "EUR"
        [drop] = pipeline.normalize([listing], match_title).dropped
        assert drop.reason == "no_exchange_rate"


def test_shipping_cost_unknown_when_calculated_or_absent() -> None:
    found = listings("real_rtx_4090.json")
    assert found["325912985506"].shipping is None  # CALCULATED, no cost given
    assert found["196112941435"].shipping is None  # no shippingOptions at all
    assert str(found["335151947401"].shipping) == "35.00 USD"


def test_variations_keep_their_variation_id() -> None:
    found = ebay_browse.parse((SAMPLES_DIR / "ebay_browse/real_rtx_a5000.json").read_bytes(), URL)
    ids = [item.listing_id for item in found]
    assert ids.count("165843319356/465345202297") == 2  # listed twice in the real answer
    assert "134744079138/434249736800" in ids


def test_what_the_adapter_refuses_in_the_real_samples_is_counted() -> None:
    # Only the reasons the adapter decides (condition, currency, price), which the
    # pipeline checks before the title matcher; the matcher's own verdicts are its tests'.
    counts: Counter[str] = Counter()
    for path in REAL:
        result = pipeline.normalize(ebay_browse.parse(path.read_bytes(), URL), match_title)
        counts.update(d.reason for d in result.dropped)
    assert (counts["for_parts"], counts["no_exchange_rate"]) == (3, 3)
    assert counts["auction_bid"] == counts["missing_price"] == counts["invalid_currency"] == 0


def test_a_scrape_run_on_a_real_page(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["ebay_browse"], sample_file("ebay_browse", "real_rtx_4090.json"))
    [report] = scrape_env.run(["ebay_browse"])
    assert report.status == "ok"
    assert report.listings == 12
    assert report.rejected["normalize.for_parts"] == 3
    assert report.rejected["normalize.no_exchange_rate"] == 0
    with Session(scrape_env.engine) as session:
        stored = session.exec(select(PriceObservation)).all()
    by_id = {o.listing_id: o for o in stored}
    # C$3,299.00 shipped free, at the ECB rate of 2026-10-30: the newest reference day
    # before the run (2026-11-05) and within the 7 days a rate is used for.
    cad_usd = (Decimal("3299.00") * usd_per("CAD", date(2026, 10, 30))).quantize(Decimal("0.01"))
    assert by_id["134776150931"].price_usd == cad_usd
    assert by_id["235328123199"].condition == "used"  # open box
    assert by_id["285591934735"].condition == "refurbished"
    assert by_id["335151947401"].price_usd == Decimal("2035.00")  # 2000.00 + 35.00 shipping
