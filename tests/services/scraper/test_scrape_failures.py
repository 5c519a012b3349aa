"""Scrape runs that go wrong: nothing stored is lost, failures stay visible."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from services.scraper.conditional_cache import PageCache
from services.scraper.fetch import Fetcher
from services.scraper.jobs import sweep
from services.scraper.settings import ScraperSettings
from shared.models import PriceObservation
from shared.pricing.market import PricePolicy, market_price
from shared.seed import seed_catalog
from shared.sources.status import SourceStatus
from tests.factories import make_observation
from tests.services.api.prices_data import app_with_routers
from tests.services.scraper.fixture_server import (
    SAMPLES_DIR,
    conditional,
    hang,
    reply,
    sample_file,
    sequence,
)
from tests.services.scraper.scrape_env import PATHS, RUN_AT, ScrapeEnv, by_source, source_counts


def status(env: ScrapeEnv, name: str) -> SourceStatus:
    with Session(env.engine) as session:
        found = session.get(SourceStatus, name)
    assert found is not None
    return found


def test_failing_sources_lose_and_overwrite_nothing(scrape_env: ScrapeEnv) -> None:
    scrape_env.run(["ebay", "newegg", "bhphoto", "vast"])
    before = source_counts(scrape_env)
    server = scrape_env.server
    server.route(PATHS["ebay"], hang(3.0))
    server.route(PATHS["newegg"], reply(503, "down for maintenance"))
    server.route(PATHS["bhphoto"], sample_file("bhphoto", "layout_changed.html"))
    server.route(PATHS["vast"], reply(200, '{"offers": [', Content_Type="application/json"))
    scrape_env.later(hours=6)

    reports = by_source(
        scrape_env.run(["ebay", "newegg", "bhphoto", "vast"], read_timeout_s=0.2, max_retries=1)
    )

    assert {name: r.status for name, r in reports.items()} == {
        "ebay": "failed",
        "newegg": "failed",
        "bhphoto": "parse_failure",
        "vast": "parse_failure",
    }
    assert "timeout" in (reports["ebay"].error or "")
    assert "HTTP 503" in (reports["newegg"].error or "")
    assert source_counts(scrape_env) == before
    newegg = status(scrape_env, "newegg")
    assert newegg.last_success_at == RUN_AT
    assert newegg.last_error_at == RUN_AT + timedelta(hours=6)
    assert newegg.consecutive_failures == 1
    bhphoto = status(scrape_env, "bhphoto")
    assert bhphoto.last_parse_failure_at == RUN_AT + timedelta(hours=6)
    assert "LayoutChanged" in (bhphoto.last_error or "")


def test_retry_after_is_obeyed(scrape_env: ScrapeEnv) -> None:
    busy = reply(503, "busy", Retry_After="7")
    scrape_env.server.route(
        PATHS["aws"], sequence(busy, sample_file("aws_pricing", "us-east-1.csv"))
    )
    [report] = scrape_env.run(["aws"])
    assert report.status == "ok" and report.cloud_offers == 6
    assert 7.0 in scrape_env.clock.sleeps
    first, second = scrape_env.server.requests_to(PATHS["aws"])
    assert second.at - first.at < 5  # the fake clock slept; the test did not


def test_a_page_without_its_results_container_is_a_parse_failure(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["newegg"], sample_file("newegg", "layout_changed.html"))
    [report] = scrape_env.run(["newegg"])
    assert report.status == "parse_failure" and report.stored == 0
    assert status(scrape_env, "newegg").last_parse_failure_at == RUN_AT
    assert source_counts(scrape_env)["newegg"] == 0
    with TestClient(app_with_routers(scrape_env.settings)) as client:
        sources = {s["name"]: s for s in client.get("/sources").json()["sources"]}
    shown = sources["newegg"]  # every other source is listed as never run
    assert shown["status"] == "parse_failure" and shown["parse_failure"] is True
    assert "item-cells-wrap" in shown["last_error"]


def test_a_run_where_every_page_is_empty_is_a_parse_failure(scrape_env: ScrapeEnv) -> None:
    scrape_env.server.route(PATHS["newegg"], sample_file("newegg", "no_results.html"))
    [report] = scrape_env.run(["newegg"])
    assert report.status == "parse_failure"
    assert "no listings on any of 1 pages" in (report.error or "")


def test_a_price_jump_is_quarantined_not_used(scrape_env: ScrapeEnv) -> None:
    with Session(scrape_env.engine) as session:
        seed_catalog(session)
        for day in (1, 2, 3):
            when = RUN_AT - timedelta(days=day)
            session.add(make_observation(gpu_id="rtx-4090", usd="500", observed_at=when))
        session.commit()
    [report] = scrape_env.run(["ebay"])
    # The active 4090 FE at $1,674.99 and the one sold at $1,610 are > 3x the $500 median.
    assert report.quarantined == 2
    assert report.rejected["quarantine.above_median_factor"] == 2
    with Session(scrape_env.engine) as session:
        rows = list(
            session.exec(select(PriceObservation).where(PriceObservation.gpu_id == "rtx-4090"))
        )
    held = [o for o in rows if o.quarantined]
    assert sorted((o.listing_id, o.price_usd) for o in held) == [
        ("256700001111", Decimal("1610.00")),
        ("256734128811", Decimal("1674.99")),
    ]
    price = market_price(rows, "used", PricePolicy(now=RUN_AT, window_days=30))
    assert price is not None and price.usd == Decimal("500.00")


def test_stale_after_two_intervals_and_fresh_again_after_a_success(
    scrape_env: ScrapeEnv,
) -> None:
    scrape_env.run(["vast"])  # interval: 1 hour

    def sweep_at(hours: float) -> list[str]:
        with scrape_env.ctx.session() as session:
            return sweep(session, RUN_AT + timedelta(hours=hours))

    assert sweep_at(1.9) == []
    assert sweep_at(2.1) == ["vast"]
    assert status(scrape_env, "vast").stale
    assert sweep_at(3) == []
    scrape_env.later(hours=3)
    scrape_env.run(["vast"])
    assert not status(scrape_env, "vast").stale


def test_not_modified_pages_are_reused(scrape_env: ScrapeEnv) -> None:
    body = (SAMPLES_DIR / "newegg/search_grid.html").read_bytes()
    scrape_env.server.route(PATHS["newegg"], conditional(body, etag='"v1"'))
    cache = PageCache(16)

    def fetcher(settings: ScraperSettings) -> Fetcher:
        clock = scrape_env.clock
        return Fetcher(settings, clock=clock, sleep=clock.sleep, page_cache=cache)

    [first] = scrape_env.run(["newegg"], fetcher_factory=fetcher)
    scrape_env.later(hours=12)
    [second] = scrape_env.run(["newegg"], fetcher_factory=fetcher)
    assert (first.not_modified, second.not_modified) == (0, 1)
    assert second.stored == first.stored == 4
    _, revalidation = scrape_env.server.requests_to(PATHS["newegg"])
    assert revalidation.header("If-None-Match") == '"v1"'
    # The listings were still there: the second run dates them again.
    assert source_counts(scrape_env)["newegg"] == 8


def test_dry_run_writes_nothing(scrape_env: ScrapeEnv) -> None:
    reports = scrape_env.run(["ebay", "azure"], dry_run=True)
    assert [r.status for r in reports] == ["dry_run", "dry_run"]
    # eBay: 4 asks (one of them priced in CAD, at the run's ECB rate) and 4 sales.
    assert reports[0].stored == 8 and reports[1].cloud_offers == 6
    with Session(scrape_env.engine) as session:
        assert session.exec(select(SourceStatus)).first() is None
        assert session.exec(select(PriceObservation)).first() is None


def test_sold_listings_are_stored_once_across_runs(scrape_env: ScrapeEnv) -> None:
    scrape_env.run(["ebay"])
    scrape_env.later(hours=6)
    [again] = scrape_env.run(["ebay"])
    # Sold records keep their sale date, so the second run finds them stored already;
    # the active listings are dated again by the new run.
    assert again.rejected["dedupe.already_stored"] == 4
    assert source_counts(scrape_env) == {"ebay": 8, "ebay:sold": 4}


def test_a_harvest_the_store_refuses_is_a_recorded_failure_and_the_run_goes_on(
    scrape_env: ScrapeEnv, monkeypatch
) -> None:
    from services.scraper import runner

    real = runner.store_harvest

    def refusing(session, spec, harvest, scraper_settings, settings, **kw):
        report = real(session, spec, harvest, scraper_settings, settings, **kw)
        if spec.name == "newegg":
            session.flush()
            raise ValueError("the database refused a row")
        return report

    monkeypatch.setattr(runner, "store_harvest", refusing)
    reports = by_source(scrape_env.run(["ebay", "newegg"]))
    assert reports["ebay"].status == "ok" and reports["ebay"].stored > 0
    assert reports["newegg"].status == "failed"
    assert "the database refused a row" in (reports["newegg"].error or "")
    recorded = status(scrape_env, "newegg")
    assert recorded.consecutive_failures == 1 and "refused" in (recorded.last_error or "")
    # Nothing of the refused harvest was kept (one transaction per source).
    with Session(scrape_env.engine) as session:
        sources = {o.source for o in session.exec(select(PriceObservation))}
    assert not any(s.startswith("newegg") for s in sources)


def test_a_nul_byte_in_one_title_loses_only_that_listing(scrape_env: ScrapeEnv) -> None:
    """Synthetic edit of the bundled Browse response: one title carries a NUL byte, which
    PostgreSQL refuses; the run stores the other listings and counts that one."""
    import json

    from tests.services.scraper.fixture_server import SAMPLES_DIR

    page = json.loads((SAMPLES_DIR / "ebay_browse" / "search.json").read_text())
    page["itemSummaries"][0]["title"] = "NVIDIA GeForce RTX 4090\u0000 Founders Edition"
    scrape_env.server.route(PATHS["ebay_browse"], reply(200, json.dumps(page)))
    [report] = scrape_env.run(["ebay_browse"])
    assert report.status == "ok", report.error
    assert report.rejected["normalize.invalid_text"] == 1
    with Session(scrape_env.engine) as session:
        titles = [o.title or "" for o in session.exec(select(PriceObservation))]
    assert titles and not any("\x00" in t for t in titles)
