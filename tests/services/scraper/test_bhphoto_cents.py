"""B&H prices drawn as "$849" + a superscript "00", and the bh-preloaded-data app state.

No real B&H page was captured: every sample under samples/bhphoto is SYNTHETIC, written
from a description of the real markup (and says so on its first line).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlmodel import Session, select

from services.scraper import pipeline
from services.scraper.sources import bhphoto
from shared.matching import match_title
from shared.models import PriceObservation
from tests.services.scraper.fixture_server import SAMPLES_DIR, reply, sample_file
from tests.services.scraper.scrape_env import PATHS, ScrapeEnv

URL = "https://www.bhphotovideo.com/c/search?q=gpu&sts=ma"
SPLIT = SAMPLES_DIR / "bhphoto" / "search_split_cents.html"
PRELOADED = SAMPLES_DIR / "bhphoto" / "search_preloaded.html"
EXPECTED = {
    "1869123-REG": Decimal("849.00"),
    "1871044-REG": Decimal("1049.00"),
    "1607991-REG": Decimal("12499.95"),
}
# What joining the two elements as text gives: never a price we may keep.
WRONG = {Decimal("84900"), Decimal("104900"), Decimal("1.049"), Decimal("1249995")}


@pytest.mark.parametrize(
    ("dollars", "cents", "amount", "text"),
    [
        ("$849", "00", "849.00", "$849.00"),
        ("$1,049", "00", "1049.00", "$1,049.00"),
        ("$12,499", "95", "12499.95", "$12,499.95"),
        ("$1,999", ".99", "1999.99", "$1,999.99"),  # cents printed with their dot
        ("$849", "", "849.00", "$849.00"),
        ("$849.00", "", "849.00", "$849.00"),
    ],
)
def test_dollars_and_cents_elements(dollars: str, cents: str, amount: str, text: str) -> None:
    shown, money, issue = bhphoto.split_price(dollars, cents)
    assert issue is None and money is not None
    assert (money.amount, money.currency, shown) == (Decimal(amount), "USD", text)


@pytest.mark.parametrize(
    ("dollars", "cents", "issue"),
    [
        ("", "", "missing_price"),
        ("$1,049", "0", "unparseable_price"),  # one cent digit: not B&H's layout
        ("$849.00", "00", "unparseable_price"),  # cents twice
        ("$1,04900", "", "unparseable_price"),  # the joined text is refused, not read as 1.049
        ("From $1,049", "00", "unparseable_price"),
        ("$1,049 - $1,299", "", "price_range"),
    ],
)
def test_prices_that_do_not_fit_are_refused(dollars: str, cents: str, issue: str) -> None:
    _, money, found = bhphoto.split_price(dollars, cents)
    assert (money, found) == (None, issue)


@pytest.mark.parametrize("page", [SPLIT, PRELOADED])
def test_both_samples_give_dollars_and_cents(page) -> None:
    listings = bhphoto.parse(page.read_bytes(), URL)
    prices = {item.listing_id: item.price.amount for item in listings if item.price}
    assert prices == EXPECTED
    assert not set(prices.values()) & WRONG


def test_prices_survive_the_pipeline_as_dollars() -> None:
    normalized = pipeline.normalize(bhphoto.parse(SPLIT.read_bytes(), URL), match_title)
    units = {item.listing.listing_id: item.unit_price_usd for item in normalized.kept}
    assert units == {"1869123-REG": Decimal("849.00"), "1871044-REG": Decimal("1049.00")}
    # The A100 is "Special Order": out of stock, dropped with a reason.
    assert [(d.reason, d.ref) for d in normalized.dropped] == [
        ("out_of_stock", "bhphoto:1607991-REG")
    ]


def test_every_sample_says_it_is_synthetic() -> None:
    pages = sorted((SAMPLES_DIR / "bhphoto").glob("*.html"))
    assert pages
    for page in pages:
        first = page.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("<!-- SYNTHETIC"), page.name


def _variant(*, preloaded: str | None = None, json_ld: bool = False) -> bytes:
    """The preloaded sample with its app state replaced (or removed) and, optionally, a
    JSON-LD block whose price differs from both other readings."""
    html = PRELOADED.read_text(encoding="utf-8")
    start = html.index('bh-preloaded-data="')
    end = html.index('"', start + len('bh-preloaded-data="'))
    replacement = "" if preloaded is None else f'bh-preloaded-data="{preloaded}"'
    html = html[:start] + replacement + html[end + 1 :]
    if json_ld:
        block = (
            '<script type="application/ld+json">{"@context": "https://schema.org", '
            '"@type": "Product", "name": "PNY GeForce RTX 5070 Ti 16GB OC Graphics Card", '
            '"url": "/c/product/1869123-REG/pny.html", "offers": {"@type": "Offer", '
            '"price": "829.00", "priceCurrency": "USD"}}</script>'
        )
        html = html.replace("</head>", block + "</head>")
    return html.encode()


def test_the_app_state_is_read_first_from_its_escaped_attribute() -> None:
    raw = PRELOADED.read_text(encoding="utf-8")
    assert 'bh-preloaded-data="{&quot;' in raw  # the sample holds HTML-escaped JSON
    state = (
        "{&quot;items&quot;:[{&quot;skuNo&quot;:1869123,&quot;itemSource&quot;:&quot;REG&quot;,"
        "&quot;shortDescription&quot;:&quot;PNY GeForce RTX 5070 Ti 16GB&quot;,"
        "&quot;price&quot;:&quot;$819.00&quot;,&quot;inStock&quot;:true}]}"
    )
    [listing] = bhphoto.parse(_variant(preloaded=state, json_ld=True), URL)
    assert listing.listing_id == "1869123-REG"
    assert listing.price is not None and listing.price.amount == Decimal("819.00")
    assert listing.url == URL  # the state gave no detailsUrl


def test_json_ld_then_markup_when_there_is_no_usable_app_state() -> None:
    [from_json_ld] = bhphoto.parse(_variant(json_ld=True), URL)
    assert from_json_ld.price is not None and from_json_ld.price.amount == Decimal("829.00")
    # A truncated attribute is not fatal: the markup still holds the page.
    from_markup = bhphoto.parse(_variant(preloaded="{&quot;items&quot;:["), URL)
    assert {item.listing_id: item.price_text for item in from_markup} == {
        "1869123-REG": "$849.00",
        "1871044-REG": "$1,049.00",
        "1607991-REG": "$12,499.95",
    }


def test_a_scrape_run_stores_dollars_not_joined_digits(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["bhphoto"], sample_file("bhphoto", "search_split_cents.html"))
    [report] = scrape_env.run(["bhphoto"])
    assert report.status == "ok" and report.stored == 2
    with Session(scrape_env.engine) as session:
        stored = session.exec(select(PriceObservation)).all()
    assert sorted(o.price_usd for o in stored) == [Decimal("849.00"), Decimal("1049.00")]
    assert not {o.price_usd for o in stored} & WRONG


def test_a_scrape_run_reads_the_app_state(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(
        PATHS["bhphoto"],
        reply(200, PRELOADED.read_bytes(), Content_Type="text/html; charset=utf-8"),
    )
    [report] = scrape_env.run(["bhphoto"])
    assert report.status == "ok" and report.stored == 2
    assert report.rejected == {"normalize.out_of_stock": 1}
