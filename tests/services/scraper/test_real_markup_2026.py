"""Issue 24 item 5: the scraper on the 2026 real markup.

Every page here is real captured markup (samples/ebay/PROVENANCE.md,
samples/blocks/PROVENANCE.md); where a test edits one, it says what it changed.
- a notice (`srp-river-answer--REWRITE_START`) never hides the listings; cards of which
  none reads as a listing are a `parse_failure`;
- a live auction's current bid is stored as measure `bid`, never as an asking price;
- eBay.de prices ("EUR 17,72", "EUR a bis EUR b"), judged in dollars at a dated rate, and
  www.ebay.com 2026 ranges;
- bot-block pages are `blocked`, never "0 listings" nor a success.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from sqlmodel import Session, select
from typer.testing import CliRunner

from services.cli import scrape as scrape_cli
from services.cli.main import app
from services.scraper import pipeline, store
from services.scraper.blocks import block_page
from services.scraper.errors import Blocked, FetchError, LayoutChanged
from services.scraper.exchange import Exchange, rate_table
from services.scraper.fetch import Fetcher
from services.scraper.listing import Condition, ListingType, RawListing
from services.scraper.money import Money, is_price_range, parse_money, parse_shipping
from services.scraper.sources import ebay
from services.scraper.verdict import listing_verdict
from shared.alerts.triggers import evaluate, parse_trigger
from shared.models import PriceObservation
from shared.pricing.ingest import observation, quarantine_reasons
from shared.pricing.market import PricePolicy, market_price
from shared.pricing.measures import ASK, BID, SALE
from shared.sources.status import SourceStatus
from tests.services.api.prices_data import app_with_routers
from tests.services.scraper.fixture_server import (
    SAMPLES_DIR,
    FixtureServer,
    Reply,
    reply,
    sample_file,
)
from tests.services.scraper.scrape_env import PATHS, RUN_AT, ScrapeEnv, by_source, ebay_pages
from tests.services.scraper.support import FakeClock, make_settings
from tests.services.scraper.test_golden_real_ebay import (
    AUCTION_URL,
    COM_2026_URL,
    DE_ACTIVE_URL,
    DE_ITEM_URL,
    US_SOLD_URL,
)

EBAY = SAMPLES_DIR / "ebay"
BLOCKS = SAMPLES_DIR / "blocks"
COM_2026 = EBAY / "real_com_active_2026.html"
DE_ACTIVE = EBAY / "real_de_active.html"
DE_ITEM = EBAY / "real_de_item_page.html"
AUCTION = EBAY / "real_us_auction_edited.html"
EBAY_BLOCK = BLOCKS / "ebay_pardon_our_interruption.html"
PX_BLOCK = BLOCKS / "walmart_robot_or_human.html"
# Samples this module covers, for test_golden's every-sample-has-a-case check.
BLOCK_PAGES = {("blocks", path.name) for path in (EBAY_BLOCK, PX_BLOCK)} | {
    ("blocks", "PROVENANCE.md")
}

BID_ID = "257117837237"  # the real auction card: "27 bids", made an RTX 3080 at $232.50
ASK_ID = "317346510524"  # the real fixed-price card, made an RTX 3080 at $420.00
DE_EXACT_ID = "303561926588"  # the one exact result of the eBay.de search

runner = CliRunner()


def _soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_bytes(), "html.parser")


# --- A notice never hides the listings -------------------------------------------------


def test_a_rewrite_between_cards_ends_the_querys_results() -> None:
    # As captured: "1 Ergebnis", the exact card, "Ergebnisse für weniger Suchbegriffe", 6
    # cards for the loosened query.
    [exact] = ebay.parse(DE_ACTIVE.read_bytes(), DE_ACTIVE_URL)
    assert exact.listing_id == DE_EXACT_ID


def test_a_rewrite_notice_before_the_first_card_hides_nothing() -> None:
    # The real eBay.de notice moved before the first card of the list: a notice about the
    # whole list, like the Spanish-UI one that hid 60 real cards.
    soup = _soup(DE_ACTIVE)
    notice = soup.select_one("li.srp-river-answer--REWRITE_START")
    first = soup.select_one("ul.srp-results > li.s-card")
    assert notice is not None and first is not None
    first.insert_before(notice.extract())
    listings = ebay.parse(str(soup), DE_ACTIVE_URL)
    assert len(listings) == 7
    assert listings[0].listing_id == DE_EXACT_ID


def _without_item_links(path: Path) -> str:
    # Real cards whose links no longer name an item: markup the parser cannot read.
    soup = _soup(path)
    for link in soup.select("ul.srp-results a[href]"):
        link["href"] = "https://www.ebay.com/b/Graphics-Video-Cards/27386"
    return str(soup)


def test_result_cards_none_of_which_reads_as_a_listing_are_a_layout_change() -> None:
    with pytest.raises(LayoutChanged, match="8 result cards, none read as a listing"):
        ebay.parse(_without_item_links(COM_2026), COM_2026_URL)
    with pytest.raises(LayoutChanged, match="8 result cards"):
        ebay.parse_whole(_without_item_links(COM_2026), COM_2026_URL)


def test_parse_page_exits_non_zero_for_cards_it_cannot_read(tmp_path: Path) -> None:
    page = tmp_path / "cards.html"
    page.write_text(_without_item_links(COM_2026), encoding="utf-8")
    result = runner.invoke(app, ["parse-page", "--source", "ebay", str(page)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert "none read as a listing" in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_page_whose_cards_cannot_be_read_is_a_parse_failure_of_the_run(
    scrape_env: ScrapeEnv,
) -> None:
    body = _without_item_links(COM_2026).encode()
    scrape_env.server.route(PATHS["ebay"], reply(200, body, Content_Type="text/html"))
    [report] = scrape_env.run(["ebay"])
    assert report.status == "parse_failure" and report.stored == 0
    assert "none read as a listing" in (report.error or "")
    with TestClient(app_with_routers(scrape_env.settings)) as client:
        shown = {s["name"]: s for s in client.get("/sources").json()["sources"]}["ebay"]
    assert (shown["status"], shown["parse_failure"], shown["blocked"]) == (
        "parse_failure",
        True,
        False,
    )


def test_an_item_page_is_no_search_page() -> None:
    with pytest.raises(LayoutChanged, match="an item page"):
        ebay.parse(DE_ITEM.read_bytes(), DE_ITEM_URL)
    result = runner.invoke(app, ["parse-page", "--source", "ebay", str(DE_ITEM)])
    assert (result.exit_code, result.stdout) == (1, "")
    assert "an item page" in result.stderr


# --- www.ebay.com 2026 and www.ebay.de prices --------------------------------------------


def test_2026_ranges_are_refused_as_shown() -> None:
    listings = {item.listing_id: item for item in ebay.parse(COM_2026.read_bytes(), COM_2026_URL)}
    ranges = {i: item.price_text for i, item in listings.items() if item.price_issue}
    assert ranges == {
        "356712571825": "$6.79 to $9.48",
        "334666199288": "$24.99 to $30.00",
        "226910730171": "$109.99 to $119.99",
    }
    assert all(listings[i].price is None for i in ranges)
    # A price beside a struck list price is one price, not a range.
    assert listings["235425329067"].price == Money(Decimal("24.99"), "USD")
    assert listings["335251351456"].condition is Condition.REFURBISHED
    assert listings["376914627052"].condition is Condition.OPEN_BOX


def _de_cards() -> dict[str, RawListing]:
    # The real eBay.de list without its rewrite answer: every card read.
    soup = _soup(DE_ACTIVE)
    notice = soup.select_one("li.srp-river-answer--REWRITE_START")
    assert notice is not None
    notice.decompose()
    return {item.listing_id: item for item in ebay.parse(str(soup), DE_ACTIVE_URL)}


def test_ebay_de_prices_are_euros_and_bis_ranges_are_refused() -> None:
    cards = _de_cards()
    assert len(cards) == 7
    exact = cards[DE_EXACT_ID]
    assert exact.price == Money(Decimal("399.99"), "EUR")  # "EUR 399,99", never dollars
    assert exact.shipping == Money(Decimal("33.00"), "EUR")  # "+EUR 33,00 Lieferung"
    assert exact.condition is Condition.NEW  # "Neu | Gewerblich"
    ranges = {i: item.price_text for i, item in cards.items() if item.price_issue}
    assert ranges == {
        "126016377118": "EUR 2,99 bis EUR 7,99",
        "176398210277": "EUR 5,00 bis EUR 6,00",
    }
    assert {item.price_issue for item in cards.values()} == {None, "price_range"}
    assert cards["277834885728"].shipping == Money(Decimal(0), "EUR")  # "Gratis Lieferung"
    # "Kostenloser Rückversand" is free returns, not free delivery.
    assert cards["327095500192"].shipping == Money(Decimal("10.00"), "EUR")


@pytest.mark.parametrize(
    "text",
    ["EUR 2,99 bis EUR 7,99", "$6.79 to $9.48", "US $2.00 a US $5.00", "$5 - $9"],
)
def test_a_range_in_one_text_is_never_one_price(text: str) -> None:
    assert is_price_range(text)
    with pytest.raises(ValueError, match="price_range"):
        parse_money(text)


def test_one_euro_price_is_not_a_range() -> None:
    assert parse_money("EUR 17,72") == Money(Decimal("17.72"), "EUR")
    assert not is_price_range("EUR 1.234,56")
    assert parse_shipping("Gratis 2-3 Tage Lieferung", "EUR") == Money(Decimal(0), "EUR")


def test_euro_listings_are_judged_in_dollars_at_the_runs_rate(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["ebay"], sample_file("ebay", "real_de_active.html"))
    [report] = scrape_env.run(["ebay"])
    # The exact card on the active and on the sold search: euros with a rate of the run's
    # week, so it gets to the title matcher, which refuses a LEGO set.
    assert report.status == "ok" and report.listings == 2
    assert report.rejected == Counter({"normalize.no_gpu": 2})
    assert report.stored == 0
    with Session(scrape_env.engine) as session:
        assert session.exec(select(PriceObservation)).first() is None


def test_parse_page_shows_euros_as_euros() -> None:
    result = runner.invoke(
        app, ["parse-page", "--source", "ebay", str(DE_ACTIVE), "--url", DE_ACTIVE_URL]
    )
    assert result.exit_code == 0, result.stderr
    [line] = [json.loads(text) for text in result.stdout.splitlines()]
    assert (line["price"], line["currency"], line["shipping_currency"]) == ("399.99", "EUR", "EUR")
    assert line["reason"] == "no_gpu"  # a LEGO set: the matcher's verdict comes first
    # The same card were it a GPU: kept out without a rate of its day, kept with one.
    [card] = ebay.parse(DE_ACTIVE.read_bytes(), DE_ACTIVE_URL)
    bounds = pipeline.PriceBounds(Decimal(20), Decimal(100000))
    verdict = listing_verdict(card, lambda _title: _Match("rtx-3090"), bounds)
    assert (verdict.gpu_id, verdict.reason) == ("rtx-3090", "no_exchange_rate")
    late = Exchange(rate_table(), date(2026, 12, 8))  # five weeks past the table's end
    verdict = listing_verdict(card, lambda _title: _Match("rtx-3090"), bounds, late)
    assert verdict.reason == "no_exchange_rate"
    captured = Exchange(rate_table(), date(2026, 4, 14))
    verdict = listing_verdict(card, lambda _title: _Match("rtx-3090"), bounds, captured)
    assert (verdict.gpu_id, verdict.reason) == ("rtx-3090", None)


# --- Live auctions: a current bid is not an asking price -------------------------------


def test_a_live_auction_card_is_read_as_a_bid() -> None:
    cards = {item.listing_id: item for item in ebay.parse(AUCTION.read_bytes(), AUCTION_URL)}
    assert cards[BID_ID].listing_type is ListingType.AUCTION  # the real "27 bids" row
    assert cards[BID_ID].price == Money(Decimal("232.50"), "USD")
    assert cards[ASK_ID].listing_type is ListingType.ACTIVE


def test_a_finished_auction_on_a_sold_page_is_a_sale() -> None:
    # The same real card as captured, on the sold search it came from.
    cards = {
        item.listing_id: item
        for item in ebay.parse((EBAY / "real_us_sold.html").read_bytes(), US_SOLD_URL)
    }
    finished = cards[BID_ID]
    assert finished.listing_type is ListingType.SOLD
    priced = pipeline.normalize([finished], lambda _title: _Match("rtx-3090"))
    [item] = priced.kept
    assert observation(store.to_record(item, "ebay", RUN_AT)).measure == SALE


class _Match:
    def __init__(self, gpu_id: str) -> None:
        self.gpu_id = gpu_id
        self.quantity = 1
        self.reason = pipeline.MATCHED


def test_a_bid_is_stored_as_a_bid_and_never_quarantined() -> None:
    cards = ebay.parse(AUCTION.read_bytes(), AUCTION_URL)
    bounds = pipeline.PriceBounds(Decimal(20), Decimal(100000))
    # Used RTX 3080s at $1,500 recently: the $240.40 bid and the $427.90 ask are both
    # below a third of it.
    medians = {("rtx-3080-10gb", "used"): Decimal(1500)}
    result = pipeline.run(cards, lambda _t: _Match("rtx-3080-10gb"), bounds)
    records = [store.to_record(item, "ebay", RUN_AT) for item in result.accepted]
    reasons = quarantine_reasons(records, medians, Decimal(3))
    measures = {
        record.listing_id: observation(record).measure
        for record, reason in zip(records, reasons, strict=True)
        if reason is None
    }
    assert measures == {BID_ID: BID}
    [held] = [record for record, reason in zip(records, reasons, strict=True) if reason]
    assert held.listing_id == ASK_ID  # the ask is judged, the bid is not


def _serve_auction_page(env: ScrapeEnv) -> None:
    env.server.route(
        PATHS["ebay"],
        ebay_pages(
            sample_file("ebay", "real_us_auction_edited.html"),
            sample_file("ebay", "real_us_sold.html"),
        ),
    )


def _stored(env: ScrapeEnv) -> dict[str, PriceObservation]:
    with Session(env.engine) as session:
        rows = session.exec(select(PriceObservation).where(PriceObservation.source == "ebay"))
        return {o.listing_id or "": o for o in rows}


def test_a_scraped_bid_is_stored_with_measure_bid_and_fires_no_price_alert(
    scrape_env: ScrapeEnv,
) -> None:
    _serve_auction_page(scrape_env)
    [report] = scrape_env.run(["ebay"])
    assert report.status == "ok" and report.bids == 1
    stored = _stored(scrape_env)
    bid, ask = stored[BID_ID], stored[ASK_ID]
    assert (bid.measure, bid.price_usd, bid.quarantined) == (BID, Decimal("240.40"), False)
    assert (ask.measure, ask.price_usd) == (ASK, Decimal("427.90"))
    now = RUN_AT + timedelta(hours=1)
    settings = scrape_env.settings

    def fired(max_usd: int) -> Any:
        trigger = parse_trigger(
            {"type": "price_below", "gpu_id": "rtx-3080-10gb", "max_price_usd": max_usd}
        )
        with Session(scrape_env.engine) as session:
            firing = evaluate(session, trigger, settings, now)
        return None if firing is None else firing.data["observation"]

    # The $232.50 bid (2 days left on the real page of the issue) fired this alert.
    assert fired(300) is None
    # Above both, the alert names the asking price, though the bid is cheaper.
    hit = fired(500)
    assert hit is not None and hit["measure"] == ASK and hit["price_usd"] == "427.90"
    with Session(scrape_env.engine) as session:
        rows = list(session.exec(select(PriceObservation)))
    market = market_price(rows, "used", PricePolicy(now=now, window_days=30))
    assert market is not None and market.usd == Decimal("427.90")


def test_the_cli_summary_counts_the_bids(scrape_env: ScrapeEnv) -> None:
    import io

    from rich.console import Console

    _serve_auction_page(scrape_env)
    out = io.StringIO()
    scrape_cli.run_scrape(
        ["ebay"],
        dry_run=False,
        ctx=scrape_env.ctx,
        scraper_settings=scrape_env.scraper,
        console=Console(file=out, width=200),
        fetcher_factory=scrape_env.fetcher,
    )
    assert "ebay: 1 of the stored prices are live auctions' current bids" in out.getvalue()


def test_parse_page_marks_the_bid() -> None:
    result = runner.invoke(app, ["parse-page", "--source", "ebay", str(AUCTION)])
    assert result.exit_code == 0, result.stderr
    lines = {line.split('"listing_id": "')[1][:12]: line for line in result.stdout.splitlines()}
    assert '"listing_type": "auction"' in lines[BID_ID]
    assert '"gpu_id": "rtx-3080-10gb"' in lines[BID_ID]
    assert '"listing_type": "active"' in lines[ASK_ID]


# --- Bot-block pages ---------------------------------------------------------------------


def test_block_pages_are_recognized_and_real_pages_are_not() -> None:
    assert block_page(EBAY_BLOCK.read_bytes()) == (
        'eBay\'s bot check page "Pardon Our Interruption..."'
    )
    assert block_page(PX_BLOCK.read_bytes()) == 'a PerimeterX bot check page "Robot or human?"'
    for page in [*EBAY.glob("*.html"), *EBAY.glob("real_full/*.html")]:
        assert block_page(page.read_bytes()) is None, page.name


@pytest.mark.parametrize("status", [200, 403, 503])
def test_the_fetcher_raises_blocked_for_a_block_page(
    server: FixtureServer, clock: FakeClock, status: int
) -> None:
    body = EBAY_BLOCK.read_bytes()
    server.route("/robots.txt", reply(200, "User-agent: *\nAllow: /\n"))
    server.route("/sch/i.html", lambda _r, _n: Reply(status, body, {"Content-Type": "text/html"}))
    settings = make_settings()

    async def go() -> FetchError:
        async with Fetcher(settings, clock=clock, sleep=clock.sleep, rng=random.Random(1)) as f:
            with pytest.raises(Blocked) as caught:
                await f.fetch(server.url("/sch/i.html?_nkw=rtx+3080"))
            assert f.stats.blocked == 1
            return caught.value

    error = asyncio.run(go())
    assert error.status == status and "Pardon Our Interruption" in error.reason
    assert len(server.requests_to("/sch/i.html")) == 1  # not retried, even after a 503


def _sources(env: ScrapeEnv) -> dict[str, dict[str, Any]]:
    with TestClient(app_with_routers(env.settings)) as client:
        return {s["name"]: s for s in client.get("/sources").json()["sources"]}


def test_a_blocked_run_is_blocked_in_get_sources_never_zero_listings(
    scrape_env: ScrapeEnv,
) -> None:
    scrape_env.run(["ebay", "newegg"])
    before = Counter(o.source for o in _all(scrape_env))
    scrape_env.server.route(
        PATHS["ebay"], sample_file("blocks", "ebay_pardon_our_interruption.html")
    )
    # PerimeterX's page as Walmart serves it, standing in for a retail source behind it.
    px = PX_BLOCK.read_bytes()
    scrape_env.server.route(PATHS["newegg"], reply(403, px, Content_Type="text/html"))
    scrape_env.later(hours=12)
    reports = by_source(scrape_env.run(["ebay", "newegg"]))
    assert {name: r.status for name, r in reports.items()} == {
        "ebay": "blocked",
        "newegg": "blocked",
    }
    assert reports["ebay"].listings == 0 and "Pardon Our Interruption" in (
        reports["ebay"].error or ""
    )
    assert Counter(o.source for o in _all(scrape_env)) == before  # nothing lost either
    shown = _sources(scrape_env)
    for name, blocked_by in (("ebay", "Pardon Our Interruption"), ("newegg", "Robot or human?")):
        source = shown[name]
        assert (source["status"], source["blocked"], source["parse_failure"]) == (
            "blocked",
            True,
            False,
        )
        assert source["consecutive_failures"] == 1
        assert blocked_by in str(source["last_error"])
        assert source["last_summary"] is not None  # the last success's counters, kept
    with Session(scrape_env.engine) as session:
        status = session.get(SourceStatus, "ebay")
        assert status is not None and status.last_success_at == RUN_AT

    scrape_env.server.route(PATHS["ebay"], sample_file("ebay", "search_active.html"))
    scrape_env.later(hours=12)
    [again] = scrape_env.run(["ebay"])
    assert again.status == "ok"
    assert _sources(scrape_env)["ebay"]["status"] == "ok"


def _all(env: ScrapeEnv) -> list[PriceObservation]:
    with Session(env.engine) as session:
        return list(session.exec(select(PriceObservation)))


def test_the_scrape_command_says_blocked_and_exits_non_zero(
    scrape_env: ScrapeEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typer

    monkeypatch.setattr("services.cli.context.get_settings", lambda: scrape_env.settings)
    monkeypatch.setattr(scrape_cli, "get_scraper_settings", lambda: scrape_env.scraper)
    scrape_env.server.route(
        PATHS["ebay"], sample_file("blocks", "ebay_pardon_our_interruption.html")
    )
    cli = typer.Typer()
    cli.command()(scrape_cli.scrape)
    cli.command("noop")(lambda: None)
    result = CliRunner().invoke(cli, ["scrape", "--source", "ebay"])
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "ebay: blocked: the site refused the scraper with a bot-check page" in text
    assert "not an empty search" in text


@pytest.mark.parametrize("page", [EBAY_BLOCK, PX_BLOCK], ids=["ebay", "perimeterx"])
def test_parse_page_says_a_saved_block_page_is_blocked(page: Path) -> None:
    result = runner.invoke(app, ["parse-page", "--source", "ebay", str(page)])
    assert (result.exit_code, result.stdout) == (1, "")
    [line] = result.stderr.splitlines()
    assert "is blocked" in line and "no listings were read" in line
