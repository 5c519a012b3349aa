"""Issue 39 section 5: prices in soles and Singapore dollars, and Spanish-UI auctions.

The pages are real eBay markup with visible texts edited (samples/ebay/PROVENANCE.md):
no capture priced in PEN or SGD, nor of the Spanish UI, is in the repository or the team
folder. `real_pe_es_auction_edited.html`: a live auction ("27 pujas") and an asking price,
in "S/."; `real_sg_sgd_edited.html`: six cards in "S$", two of them GPUs.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from sqlmodel import Session, select

from services.scraper import pipeline
from services.scraper.exchange import Exchange, rate_table
from services.scraper.listing import Condition, ListingType, RawListing
from services.scraper.money import Money
from services.scraper.sources import ebay
from shared.matching.titles import match_title
from shared.models import PriceObservation
from shared.pricing.measures import ASK, BID
from tests.services.scraper.ecb_oracle import usd_per
from tests.services.scraper.fixture_server import SAMPLES_DIR, reply, sample_file
from tests.services.scraper.scrape_env import PATHS, RUN_AT, ScrapeEnv, ebay_pages
from tests.services.scraper.test_golden_real_ebay import AUCTION_URL, SG_URL

EBAY = SAMPLES_DIR / "ebay"
PEN_PAGE = EBAY / "real_pe_es_auction_edited.html"
SGD_PAGE = EBAY / "real_sg_sgd_edited.html"
BID_ID = "257117837237"  # "27 pujas", S/. 781.20 + S/. 26.54 de envío
ASK_ID = "317346510524"  # "o Mejor oferta", S/. 1,411.20 + S/. 26.54 de envío
RTX_3090_ID = "357137470627"  # S$1,068.90, free postage
RTX_4090_ID = "236163622328"  # S$2,806.73, free postage
# The ECB reference day the runs' prices are converted at: the newest before RUN_AT.
RATE_DAY = date(2026, 10, 30)
# The sold search's answer in these runs: eBay's "no exact matches" marker, no card.
NO_SALES = reply(
    200,
    '<html><body><div class="srp-save-null-search">0 results</div></body></html>',
    Content_Type="text/html",
)


def _by_id(listings: list[RawListing]) -> dict[str, RawListing]:
    return {listing.listing_id: listing for listing in listings}


def test_spanish_ui_page_reads_soles_the_bid_and_the_ask() -> None:
    cards = _by_id(ebay.parse(PEN_PAGE.read_bytes(), AUCTION_URL))
    bid, ask = cards[BID_ID], cards[ASK_ID]
    assert (bid.listing_type, ask.listing_type) == (ListingType.AUCTION, ListingType.ACTIVE)
    assert bid.price == Money(Decimal("781.20"), "PEN")
    assert ask.price == Money(Decimal("1411.20"), "PEN")
    assert bid.shipping == ask.shipping == Money(Decimal("26.54"), "PEN")
    assert (bid.condition, ask.condition) == (Condition.OPEN_BOX, Condition.USED)


@pytest.mark.parametrize(
    ("row", "listing_type"),
    [
        ("27 pujas", ListingType.AUCTION),
        ("1 puja", ListingType.AUCTION),
        ("27 ofertas", ListingType.AUCTION),
        ("0 ofertas", ListingType.AUCTION),
        ("Oferta actual", ListingType.AUCTION),
        ("Puja actual", ListingType.AUCTION),
        # Best offer on a fixed price and a time left alone are not a bid.
        ("o Mejor oferta", ListingType.ACTIVE),
        ("Quedan 2 d 4 h", ListingType.ACTIVE),
    ],
)
def test_spanish_ui_bid_rows(row: str, listing_type: ListingType) -> None:
    # The real auction card with its bid-count row's text replaced.
    page = PEN_PAGE.read_text(encoding="utf-8")
    assert page.count(">27 pujas<") == 1
    markup = page.replace(">27 pujas<", f">{row}<")
    assert _by_id(ebay.parse(markup, AUCTION_URL))[BID_ID].listing_type is listing_type


def test_a_spanish_ui_bid_on_a_sold_page_is_a_sale() -> None:
    sold_url = ebay.as_sold_search(AUCTION_URL)
    assert _by_id(ebay.parse(PEN_PAGE.read_bytes(), sold_url))[BID_ID].listing_type is (
        ListingType.SOLD
    )


def test_singapore_dollars_are_read_on_every_card() -> None:
    cards = _by_id(ebay.parse(SGD_PAGE.read_bytes(), SG_URL))
    assert len(cards) == 6
    assert {card.price.currency for card in cards.values() if card.price} == {"SGD"}
    assert all(card.price is not None for card in cards.values())
    assert cards[RTX_3090_ID].price == Money(Decimal("1068.90"), "SGD")
    assert cards[RTX_4090_ID].shipping == Money(Decimal(0), "SGD")
    assert all(card.url.startswith("https://www.ebay.com.sg/itm/") for card in cards.values())


def test_pipeline_converts_sgd_and_refuses_pen_with_its_reason() -> None:
    listings = [
        *ebay.parse(SGD_PAGE.read_bytes(), SG_URL),
        *ebay.parse(PEN_PAGE.read_bytes(), AUCTION_URL),
    ]
    bounds = pipeline.PriceBounds(Decimal(20), Decimal(100000))
    result = pipeline.run(listings, match_title, bounds, Exchange(rate_table(), RATE_DAY))
    kept = {item.listing.listing_id: item for item in result.accepted}
    assert set(kept) == {RTX_3090_ID, RTX_4090_ID}
    rate = usd_per("SGD", RATE_DAY)
    assert kept[RTX_3090_ID].unit_price_usd == (Decimal("1068.90") * rate).quantize(Decimal("0.01"))
    # Soles: no ECB rate. Both cards are counted as drops, with the reason.
    pen = [drop for drop in result.dropped if drop.reason == "no_exchange_rate"]
    assert sorted(drop.ref for drop in pen) == sorted([f"ebay:{BID_ID}", f"ebay:{ASK_ID}"])
    assert all("no PEN rate" in drop.detail for drop in pen)
    assert result.stats.dropped["normalize.no_exchange_rate"] == 2


def _stored(env: ScrapeEnv) -> dict[str, PriceObservation]:
    with Session(env.engine) as session:
        rows = session.exec(select(PriceObservation).where(PriceObservation.source == "ebay"))
        return {o.listing_id or "": o for o in rows}


def test_a_run_on_the_sgd_page_stores_dollars_at_the_runs_rate(scrape_env: ScrapeEnv) -> None:
    # Through the fetcher and the local fixture server, as a scheduled run; the sold
    # search answers with no results.
    scrape_env.server.route(PATHS["ebay"], ebay_pages(sample_file("ebay", SGD_PAGE.name), NO_SALES))
    [report] = scrape_env.run(["ebay"])
    assert report.status == "ok" and report.listings == 6
    assert report.stored == 2 and report.rejected["normalize.no_exchange_rate"] == 0
    stored = _stored(scrape_env)
    rate = usd_per("SGD", RATE_DAY)
    for listing_id, shown, gpu_id in (
        (RTX_3090_ID, Decimal("1068.90"), "rtx-3090"),
        (RTX_4090_ID, Decimal("2806.73"), "rtx-4090"),
    ):
        row = stored[listing_id]
        assert (row.gpu_id, row.measure, row.observed_at) == (gpu_id, ASK, RUN_AT)
        assert row.price_usd == (shown * rate).quantize(Decimal("0.01"))
        assert row.currency == "USD"


def test_a_run_on_the_spanish_page_counts_the_soles_and_stores_nothing(
    scrape_env: ScrapeEnv,
) -> None:
    scrape_env.server.route(
        PATHS["ebay"],
        ebay_pages(sample_file("ebay", PEN_PAGE.name), sample_file("ebay", PEN_PAGE.name)),
    )
    [report] = scrape_env.run(["ebay"])
    # Active and sold searches, two cards each: every one counted, none stored as dollars.
    assert report.status == "ok" and report.listings == 4
    assert report.rejected["normalize.no_exchange_rate"] == 4
    assert report.stored == 0 and _stored(scrape_env) == {}


def test_the_spanish_bid_is_stored_as_a_bid_when_priced_in_dollars(scrape_env: ScrapeEnv) -> None:
    # The Spanish-UI page as shown with US dollars ("US $"): the bid path end to end.
    markup = (
        PEN_PAGE.read_text(encoding="utf-8")
        .replace(">S/. 781.20<", ">US $232.50<")
        .replace(">S/. 1,411.20<", ">US $420.00<")
        .replace(">+S/. 26.54 de envío<", ">+US $7.90 de envío<")
    )
    body = markup.encode("utf-8")
    scrape_env.server.route(
        PATHS["ebay"],
        ebay_pages(
            reply(200, body, Content_Type="text/html"),
            NO_SALES,
        ),
    )
    [report] = scrape_env.run(["ebay"])
    assert report.status == "ok" and report.bids == 1
    stored = _stored(scrape_env)
    assert (stored[BID_ID].measure, stored[BID_ID].price_usd) == (BID, Decimal("240.40"))
    assert (stored[ASK_ID].measure, stored[ASK_ID].price_usd) == (ASK, Decimal("427.90"))
