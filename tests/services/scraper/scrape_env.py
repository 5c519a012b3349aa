"""A whole scrape against the fixture server: every source's routes, settings, a database."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from services.scraper.fetch import Fetcher
from services.scraper.runner import RunReport, run_sources
from services.scraper.settings import ScraperSettings
from shared.kit.context import Context
from shared.kit.settings import Settings
from shared.models import PriceObservation
from tests.services.scraper.fixture_server import (
    SAMPLES_DIR,
    Behaviour,
    FixtureServer,
    RecordedRequest,
    Reply,
    reply,
    sample_file,
)
from tests.services.scraper.support import FakeClock, make_settings

# After the sold dates in the eBay samples (Oct 26 - Nov 3, 2026).
RUN_AT = datetime(2026, 11, 5, 12, 0, tzinfo=UTC)
ALL_SOURCES = ["ebay", "ebay_browse", "newegg", "bhphoto", "azure", "aws", "vast", "lambda"]

PATHS = {
    "ebay": "/sch/i.html",
    "ebay_browse": "/buy/browse/v1/item_summary/search",
    "ebay_token": "/identity/v1/oauth2/token",
    "newegg": "/p/pl",
    "bhphoto": "/c/search",
    "azure": "/api/retail/prices",
    "azure_page2": "/api/retail/prices/page2",
    "aws": "/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.csv",
    "vast": "/api/v0/bundles/",
    "lambda": "/api/v1/instance-types",
}


def ebay_pages(active: Behaviour, sold: Behaviour) -> Behaviour:
    """Active and sold searches share a path; the query says which one is asked for."""

    def run(request: RecordedRequest, nth: int) -> Reply:
        return (sold if "LH_Sold=1" in request.query else active)(request, nth)

    return run


def route_all(server: FixtureServer) -> None:
    server.route(
        PATHS["ebay"],
        ebay_pages(
            sample_file("ebay", "search_active.html"), sample_file("ebay", "search_sold.html")
        ),
    )
    server.route(PATHS["ebay_token"], sample_file("ebay_browse", "token.json"))
    server.route(PATHS["ebay_browse"], sample_file("ebay_browse", "search.json"))
    server.route(PATHS["newegg"], sample_file("newegg", "search_grid.html"))
    server.route(PATHS["bhphoto"], sample_file("bhphoto", "search_cards.html"))
    page1 = json.loads((SAMPLES_DIR / "azure_prices/page1.json").read_text())
    page1["NextPageLink"] = server.url(PATHS["azure_page2"])
    server.route(PATHS["azure"], reply(200, json.dumps(page1), Content_Type="application/json"))
    server.route(PATHS["azure_page2"], sample_file("azure_prices", "page2.json"))
    server.route(PATHS["aws"], sample_file("aws_pricing", "us-east-1.csv"))
    server.route(PATHS["vast"], sample_file("vast", "offers.json"))
    server.route(PATHS["lambda"], sample_file("lambda_cloud", "instance_types.json"))


def scraper_settings(server: FixtureServer, **overrides: object) -> ScraperSettings:
    base = server.base_url
    values: dict[str, object] = {
        "ebay_base_url": base,
        "ebay_api_base_url": base,
        "ebay_client_id": "client",
        "ebay_client_secret": "secret",
        "newegg_base_url": base,
        "bhphoto_base_url": base,
        "azure_prices_base_url": base,
        "aws_pricing_base_url": base,
        "vast_base_url": base,
        "lambda_base_url": base,
        "lambda_api_key": "lambda-key",
        "search_terms": ["rtx 4090"],
        "max_pages": 1,
        "aws_regions": ["us-east-1"],
    }
    values.update(overrides)
    return make_settings(**values)


@dataclass
class ScrapeEnv:
    server: FixtureServer
    ctx: Context
    clock: FakeClock
    scraper: ScraperSettings
    now: datetime = RUN_AT

    @property
    def engine(self) -> Engine:
        return self.ctx.engine

    @property
    def settings(self) -> Settings:
        return self.ctx.settings

    def fetcher(self, settings: ScraperSettings) -> Fetcher:
        clock = self.clock
        return Fetcher(settings, clock=clock, sleep=clock.sleep, now=clock.wall)

    def run(
        self,
        sources: list[str] | None = None,
        *,
        dry_run: bool = False,
        fetcher_factory: Callable[[ScraperSettings], Fetcher] | None = None,
        **overrides: object,
    ) -> list[RunReport]:
        scraper = self.scraper.model_copy(update=overrides) if overrides else self.scraper
        return run_sources(
            sources or ALL_SOURCES,
            ctx=self.ctx,
            scraper_settings=scraper,
            dry_run=dry_run,
            now=lambda: self.now,
            fetcher_factory=fetcher_factory or self.fetcher,
        )

    def later(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def by_source(reports: list[RunReport]) -> dict[str, RunReport]:
    return {report.source: report for report in reports}


def source_counts(env: ScrapeEnv) -> Counter[str]:
    """Stored observations per source name."""
    with Session(env.engine) as session:
        return Counter(o.source for o in session.exec(select(PriceObservation)))
