"""The eBay adapter on real captured markup: trimmed golden fixtures and the full pages.

The fixtures say in their first comment where their markup comes from (and
samples/ebay/PROVENANCE.md lists them); one card of real_us_sold.html was edited into a
price range (the 2025 captures have none; real_com_active_2026.html has real ones), and
real_us_auction_edited.html is two real cards edited into a live auction and an asking
price for an RTX 3080. The 2026 captures (www.ebay.com, www.ebay.de) are tested further in
test_real_markup_2026.py.
"""

from __future__ import annotations

import asyncio
import copy
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from bs4 import BeautifulSoup, Tag

from services.scraper.collect import Crawl, Harvest
from services.scraper.fetch import Fetcher
from services.scraper.listing import Condition, ListingType, RawListing
from services.scraper.money import Money
from services.scraper.sources import ebay
from services.scraper.sources._common import class_list, decode_markup
from tests.services.scraper.fixture_server import (
    SAMPLES_DIR,
    FixtureServer,
    reply,
    sample_file,
)
from tests.services.scraper.golden import check_golden, outcome
from tests.services.scraper.support import FakeClock, make_settings

EBAY = SAMPLES_DIR / "ebay"
FULL = EBAY / "real_full"
US_SOLD_URL = "https://www.ebay.com/sch/i.html?_nkw=pokemon+card&LH_Sold=1&LH_Complete=1&_sop=13"
UK_ACTIVE_URL = "https://www.ebay.co.uk/sch/i.html?_nkw=blu+ray"
COM_2026_URL = "https://www.ebay.com/sch/i.html?_nkw=wireless+earbuds&_sop=12"
DE_ACTIVE_URL = "https://www.ebay.de/sch/i.html?_nkw=LEGO+7075+sealed"
DE_ITEM_URL = "https://www.ebay.de/itm/198187151691"
AUCTION_URL = "https://www.ebay.com/sch/i.html?_nkw=rtx+3080"
SG_URL = "https://www.ebay.com.sg/sch/i.html?_nkw=blu+ray"
US_FULL = FULL / "ebay_us_pokemon_card_sold_2025-09.html"
UK_FULL = FULL / "ebay_uk_blu_ray_active_2025-08.html"

REAL_CASES = [
    ("real_us_sold.html", US_SOLD_URL),
    ("real_uk_active.html", UK_ACTIVE_URL),
    ("real_com_active_2026.html", COM_2026_URL),
    ("real_de_active.html", DE_ACTIVE_URL),
    ("real_de_item_page.html", DE_ITEM_URL),
    ("real_us_auction_edited.html", AUCTION_URL),
    ("real_pe_es_auction_edited.html", AUCTION_URL),
    ("real_sg_sgd_edited.html", SG_URL),
]
# Samples this module covers, for test_golden's every-sample-has-a-case check.
REAL_EBAY_PAGES = {("ebay", page) for page, _ in REAL_CASES} | {("ebay", "PROVENANCE.md")}

STRUCK_IDS = {"197730663698", "404405432962"}
RANGE_ID = "297628051769"


def _parse(path: Path, url: str) -> list[RawListing]:
    return ebay.parse(path.read_bytes(), url)


def _by_id(listings: list[RawListing]) -> dict[str, RawListing]:
    return {listing.listing_id: listing for listing in listings}


@pytest.mark.parametrize(("page", "url"), REAL_CASES, ids=[page for page, _ in REAL_CASES])
def test_golden_real(page: str, url: str) -> None:
    sample = EBAY / page
    check_golden(sample, outcome(ebay.parse, sample.read_bytes(), url))


def test_fixtures_say_where_their_markup_comes_from() -> None:
    for page, _ in REAL_CASES:
        head = (EBAY / page).read_text(encoding="utf-8")[:400]
        assert head.startswith("<!--") and "REAL eBay markup" in head and "commit" in head
    assert (FULL / "PROVENANCE.md").exists()


def test_us_sold_fixture() -> None:
    listings = _by_id(_parse(EBAY / "real_us_sold.html", US_SOLD_URL))
    assert len(listings) == 8  # the placeholder card outside the list is not a listing
    assert all(item.listing_type is ListingType.SOLD for item in listings.values())
    for item_id in STRUCK_IDS:
        struck = listings[item_id]
        assert struck.price is None and struck.price_issue == "best_offer_accepted"
    price_range = listings[RANGE_ID]
    assert (price_range.price, price_range.price_issue) == (None, "price_range")
    assert price_range.price_text == "$3.25 to $195.87"
    # "New (Other)" is eBay's open box, also beside a struck "Was:" price that is ignored.
    gardevoir = listings["317207406604"]
    assert gardevoir.condition is Condition.OPEN_BOX
    assert gardevoir.price == Money(Decimal("157.50"), "USD")
    ordinary = listings["317346510524"]
    assert ordinary.title.startswith("Marshadow 146/132")  # hidden "New Listing" dropped
    assert ordinary.condition is Condition.USED
    assert ordinary.shipping == Money(Decimal("7.90"), "USD")


def test_uk_active_fixture_is_priced_in_pounds() -> None:
    listings = _parse(EBAY / "real_uk_active.html", UK_ACTIVE_URL)
    assert len(listings) == 6
    assert {item.price.currency for item in listings if item.price} == {"GBP"}
    assert all(item.price is not None for item in listings)
    # "Free international postage" is a shipping row, free in the page's currency.
    assert {item.shipping for item in listings} == {Money(Decimal(0), "GBP")}
    assert all(item.url.startswith("https://www.ebay.co.uk/itm/") for item in listings)
    assert _by_id(listings)["357137470627"].quantity_available == 1  # "Last one"


def _soup(page: str) -> BeautifulSoup:
    return BeautifulSoup((EBAY / page).read_bytes(), "html.parser")


def _first_card(soup: BeautifulSoup) -> Tag:
    card = soup.select_one("ul.srp-results > li.s-card")
    assert card is not None
    return card


def test_placeholder_card_inside_the_list_is_skipped() -> None:
    # The real placeholder card, moved from its hidden block into the list.
    soup = _soup("real_us_sold.html")
    placeholder = soup.select_one(".s-clipped li.s-card")
    assert placeholder is not None and "Shop on eBay" in placeholder.get_text()
    _first_card(soup).insert_before(placeholder.extract())
    assert len(ebay.parse(str(soup), US_SOLD_URL)) == 8


def test_condition_is_read_from_any_subtitle_row() -> None:
    # A real card with a seller's tagline added as its first subtitle row.
    soup = _soup("real_us_sold.html")
    card = _first_card(soup)
    row = card.select_one(".s-card__subtitle-row")
    assert row is not None
    tagline = copy.copy(row)
    subtitle = tagline.select_one(".s-card__subtitle")
    assert subtitle is not None
    subtitle.string = "Brand new stock every week · fast shipping"
    row.insert_before(tagline)
    [first, *_] = ebay.parse(str(soup), US_SOLD_URL)
    assert first.condition is Condition.USED  # "Pre-Owned", the condition label


def test_either_best_offer_signal_withholds_the_price() -> None:
    # The real struck card without its strikethrough, then without its caption row.
    for signal in ("strikethrough", "Best offer accepted"):
        soup = _soup("real_us_sold.html")
        card = soup.select_one("li[data-listingid='197730663698']")
        assert card is not None
        price = card.select_one(".s-card__price")
        assert price is not None
        if signal == "strikethrough":
            price["class"] = " ".join(c for c in class_list(price) if c != "strikethrough")
        else:
            for text in card.find_all(string="Best offer accepted"):
                text.replace_with("")
        listing = _by_id(ebay.parse(str(soup), US_SOLD_URL))["197730663698"]
        assert (listing.price, listing.price_issue) == (None, "best_offer_accepted")


@pytest.mark.parametrize(
    ("shown", "price", "issue"),
    [
        # A real card as eBay serves it to a visitor from Peru or Singapore (issue 39).
        ("S/. 16.88", Money(Decimal("16.88"), "PEN"), None),
        ("S$ 16.88", Money(Decimal("16.88"), "SGD"), None),
        # A symbol several currencies share: refused, never read as dollars.
        ("kr 16,88", None, "unknown_currency"),
    ],
)
def test_localized_price_keeps_its_currency(
    shown: str, price: Money | None, issue: str | None
) -> None:
    soup = _soup("real_us_sold.html")
    element = _first_card(soup).select_one(".s-card__price")
    assert element is not None
    element.string = shown
    [first, *_] = ebay.parse(str(soup), US_SOLD_URL)
    assert (first.price, first.price_issue, first.price_text) == (price, issue, shown)


def test_full_us_sold_page() -> None:
    listings = _parse(US_FULL, US_SOLD_URL)
    assert len(listings) == 60
    assert all(item.listing_type is ListingType.SOLD and item.sold_at for item in listings)
    struck = {item.listing_id for item in listings if item.price_issue == "best_offer_accepted"}
    assert struck == STRUCK_IDS
    assert all(item.price is None for item in listings if item.listing_id in STRUCK_IDS)
    prices = [item.price for item in listings if item.price is not None]
    assert len(prices) == 58 and {price.currency for price in prices} == {"USD"}
    open_box = [item for item in listings if item.condition is Condition.OPEN_BOX]
    assert len(open_box) == 10  # every "New (Other)" card
    assert {item.condition for item in listings} == {Condition.USED, Condition.OPEN_BOX}
    assert not [item for item in listings if item.price and " to " in (item.price_text or "")]


def test_full_uk_active_page() -> None:
    listings = _parse(UK_FULL, UK_ACTIVE_URL)
    # The whole list is "from eBay international sellers": exact matches, kept.
    assert len(listings) == 60
    assert all(item.listing_type is ListingType.ACTIVE for item in listings)
    assert all(item.price is not None and item.price.currency == "GBP" for item in listings)
    assert {item.condition for item in listings} == {Condition.NEW}
    assert not [item for item in listings if item.price and " to " in (item.price_text or "")]


def test_no_sold_flag_in_the_url_still_marks_captioned_cards_sold() -> None:
    listings = _parse(US_FULL, "https://www.ebay.com/sch/i.html?_nkw=pokemon+card")
    assert all(item.listing_type is ListingType.SOLD for item in listings)


@pytest.mark.parametrize(
    "notice",
    [
        "Results matching fewer words",
        # The notice seen on a real Spanish-UI page before 60 cards the adapter then dropped.
        "Simplificamos los resultados de tu búsqueda",
        "We simplified your search results",
    ],
)
def test_a_rewrite_notice_before_the_list_never_hides_the_listings(notice: str) -> None:
    # The real UK answer before the list, reworded: whatever it says, the 6 cards stay.
    soup = _soup("real_uk_active.html")
    answer = soup.select_one(".srp-river-answer--REWRITE_START")
    assert answer is not None
    for text in answer.find_all(string=True):
        text.replace_with("")
    answer.append(notice)
    listings = ebay.parse(str(soup), UK_ACTIVE_URL)
    assert len(listings) == 6
    assert listings == _parse(EBAY / "real_uk_active.html", UK_ACTIVE_URL)


EBAY_PAGES = [
    (US_FULL, US_SOLD_URL),
    (UK_FULL, UK_ACTIVE_URL),
    *((EBAY / page, url) for page, url in REAL_CASES if page != "real_de_item_page.html"),
    (EBAY / "search_active.html", "https://www.ebay.com/sch/i.html?_nkw=rtx+4090"),
    (EBAY / "search_sold.html", "https://www.ebay.com/sch/i.html?_nkw=rtx+4090&LH_Sold=1"),
    (EBAY / "search_legacy_sold.html", "https://www.ebay.com/sch/i.html?LH_Sold=1"),
    (EBAY / "no_results.html", "https://www.ebay.com/sch/i.html?_nkw=rtx+4090"),
]


@pytest.mark.parametrize(("page", "url"), EBAY_PAGES, ids=[p.name for p, _ in EBAY_PAGES])
def test_fast_parse_gives_the_same_listings(page: Path, url: str) -> None:
    """Cutting out the results changes nothing: same listings as the whole page."""
    fast = _parse(page, url)
    assert ebay.parse_whole(decode_markup(page.read_bytes()), url) == fast


def test_ebay_requests_ask_for_the_us_english_site(server: FixtureServer, clock: FakeClock) -> None:
    server.route("/robots.txt", reply(200, "User-agent: *\nAllow: /\n"))
    server.route("/sch/i.html", sample_file("ebay", "real_us_sold.html"))
    settings = make_settings(ebay_base_url=server.base_url, max_pages=1)

    async def go() -> Harvest:
        harvest = Harvest(observed_at=datetime(2026, 11, 5, tzinfo=UTC))
        async with Fetcher(settings, clock=clock, sleep=clock.sleep) as fetcher:
            crawl = Crawl(fetcher, settings, harvest, "ebay", lambda _source, _url: None)
            await ebay.collect(crawl, ["rtx 4090"])
        return harvest

    harvest = asyncio.run(go())
    requests = server.requests_to("/sch/i.html")
    assert len(requests) == 2  # active and sold
    for request in requests:
        assert request.header("Accept-Language") == "en-US,en;q=0.9"
        assert parse_qs(request.query)["_fcid"] == ["1"]
    assert len(harvest.listings) == 16


def test_as_sold_search_keeps_the_query() -> None:
    query = parse_qs(urlsplit(ebay.as_sold_search(UK_ACTIVE_URL)).query)
    assert query == {"_nkw": ["blu ray"], "LH_Sold": ["1"], "LH_Complete": ["1"]}
    assert ebay.is_sold_search(ebay.as_sold_search(UK_ACTIVE_URL))
