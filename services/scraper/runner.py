"""One scrape run: harvest each source, put it through the pipeline, store it, record
the source's health.

Sources are harvested concurrently (the fetcher keeps each host polite) and stored one
by one, each in its own transaction: a source's prices and its status commit together,
and a failing source commits only its status. Scores are recomputed after the commit
(`enqueue_after_commit`), for the GPUs whose accepted prices changed.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from services.scraper import pipeline, store
from services.scraper.cloud_match import UNMAPPED_REASONS, SkippedCloudListing
from services.scraper.collect import Crawl, Harvest, PageHook
from services.scraper.errors import Blocked, FetchError, ParseError, SourceNotConfigured
from services.scraper.exchange import Exchange
from services.scraper.fetch import Fetcher, utc_now
from services.scraper.listing import CloudListing
from services.scraper.registry import SourceKind, SourceSpec, get_source, search_terms
from services.scraper.settings import ScraperSettings
from shared.kit.context import Context
from shared.kit.db import session_scope
from shared.kit.events import enqueue_after_commit, recompute_call
from shared.kit.settings import Settings
from shared.matching.titles import match_title
from shared.models import Gpu
from shared.pricing.ingest import ingest_prices
from shared.pricing.measures import BID
from shared.pricing.quarantine import QuarantineRules
from shared.seed import seed_catalog
from shared.sources.status import record_failure, record_success, status_for

log = logging.getLogger(__name__)

OK = "ok"
DRY_RUN = "dry_run"
FAILED = "failed"
PARSE_FAILURE = "parse_failure"
# The site served a bot-check page: it refused us; not "no listings", not a parse failure.
BLOCKED = "blocked"
NOT_CONFIGURED = "not_configured"

# SourceStatus.last_summary holds at most 4096 characters; record_success cuts longer
# text, which would leave broken JSON for GET /sources.
MAX_SUMMARY_CHARS = 4096
MAX_UNMAPPED_NAMES = 50

FetcherFactory = Callable[[ScraperSettings], Fetcher]
Now = Callable[[], datetime]


@dataclass
class RunReport:
    source: str
    status: str = OK
    pages: int = 0
    not_modified: int = 0
    capped: bool = False
    listings: int = 0
    matched: int = 0
    stored: int = 0
    quarantined: int = 0
    # Stored live auctions' current bids (measure "bid", counted in `stored` too).
    bids: int = 0
    cloud_offers: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    error: str | None = None
    gpu_ids: list[str] = field(default_factory=list)
    # Cloud instance types that look like GPU machines but map to no catalog GPU (or to
    # no GPU count): named in the summary, so a new SKU is seen rather than lost.
    unmapped: list[str] = field(default_factory=list)
    # The exception behind a failure, kept for callers that retry transient ones.
    exception: BaseException | None = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "status": self.status,
            "pages": self.pages,
            "not_modified": self.not_modified,
            "capped": self.capped,
            "listings": self.listings,
            "matched": self.matched,
            "stored": self.stored,
            "quarantined": self.quarantined,
            "bids": self.bids,
            "cloud_offers": self.cloud_offers,
            "rejected": dict(sorted(self.rejected.items())),
            "unmapped": {"total": len(self.unmapped), "names": self.unmapped[:MAX_UNMAPPED_NAMES]},
            "error": self.error,
        }

    def summary_json(self) -> str:
        """The summary as stored in SourceStatus.last_summary: valid JSON within its size,
        so the unmapped names are cut (the total stays) until it fits."""
        summary = self.as_dict()
        names: list[str] = summary["unmapped"]["names"]
        text = json.dumps(summary, separators=(",", ":"))
        while len(text) > MAX_SUMMARY_CHARS and names:
            names.pop()
            text = json.dumps(summary, separators=(",", ":"))
        return text


def _no_page(_source: str, _url: str) -> None:
    pass


def run_sources(
    names: Sequence[str],
    *,
    ctx: Context,
    scraper_settings: ScraperSettings,
    dry_run: bool = False,
    now: Now = utc_now,
    fetcher_factory: FetcherFactory = Fetcher,
    on_page: PageHook = _no_page,
    on_done: Callable[[RunReport], None] | None = None,
) -> list[RunReport]:
    """Scrape `names` (validated against the registry first) and store the results."""
    specs = [get_source(name) for name in names]
    if not dry_run:
        _ensure_catalog(ctx.engine)

    started = now()

    async def harvest_all() -> list[Harvest | BaseException]:
        async with fetcher_factory(scraper_settings) as fetcher:
            jobs = (harvest(spec, fetcher, scraper_settings, started, on_page) for spec in specs)
            return await asyncio.gather(*jobs, return_exceptions=True)

    reports = []
    for spec, outcome in zip(specs, asyncio.run(harvest_all()), strict=True):
        report = finish(ctx, spec, outcome, scraper_settings, started, dry_run=dry_run)
        if on_done is not None:
            on_done(report)
        reports.append(report)
    return reports


async def harvest(
    spec: SourceSpec,
    fetcher: Fetcher,
    settings: ScraperSettings,
    observed_at: datetime,
    on_page: PageHook = _no_page,
) -> Harvest:
    result = Harvest(observed_at)
    terms = search_terms(settings) if spec.searched else []
    await spec.collector(Crawl(fetcher, settings, result, spec.name, on_page), terms)
    if not (result.listings or result.cloud):
        # Every page parsed, none had a listing: a silent layout change, or a search
        # that no longer works; either way not a reason to report "no prices".
        raise ParseError(spec.name, "", f"no listings on any of {result.pages} pages")
    return result


def finish(
    ctx: Context,
    spec: SourceSpec,
    outcome: Harvest | BaseException,
    scraper_settings: ScraperSettings,
    started: datetime,
    *,
    dry_run: bool = False,
) -> RunReport:
    """Store a harvest (or record its failure, dated `started`) in one transaction."""
    if isinstance(outcome, BaseException) and not isinstance(outcome, Exception):
        raise outcome  # KeyboardInterrupt and friends are not a source failure
    if isinstance(outcome, SourceNotConfigured):
        return RunReport(spec.name, NOT_CONFIGURED, error=outcome.reason, exception=outcome)
    if dry_run:
        return _dry_run(ctx, spec, outcome, scraper_settings)
    interval = ctx.settings.scrape_schedule().get(spec.name) or spec.default_interval_s
    if isinstance(outcome, Exception):
        return _record_failure(ctx, spec, interval, started, outcome)
    try:
        with ctx.session() as session:
            report = store_harvest(session, spec, outcome, scraper_settings, ctx.settings)
            record_success(
                status_for(session, spec.name, interval), outcome.observed_at, report.summary_json()
            )
        return report
    except Exception as exc:
        # A harvest the database refused (rolled back whole): the run is recorded as
        # failed in GET /sources, and the other sources of the run go on.
        log.exception("%s: storing the harvest failed", spec.name)
        return _record_failure(ctx, spec, interval, started, exc)


def _record_failure(
    ctx: Context, spec: SourceSpec, interval: int, started: datetime, error: Exception
) -> RunReport:
    report = _failure_report(spec, error)
    log.warning("%s: %s (%s)", spec.name, report.status, report.error)
    with ctx.session() as session:
        status = status_for(session, spec.name, interval)
        record_failure(
            status,
            started,
            report.error or "",
            parse_failure=_is_parse(error),
            blocked=isinstance(error, Blocked),
        )
    return report


def _is_parse(error: Exception) -> bool:
    return isinstance(error, ParseError)


def _failure_report(spec: SourceSpec, error: Exception) -> RunReport:
    status = (
        PARSE_FAILURE if _is_parse(error) else BLOCKED if isinstance(error, Blocked) else FAILED
    )
    if isinstance(error, FetchError | ParseError):
        message = f"{type(error).__name__}: {error}"
    else:
        message = f"unexpected {type(error).__name__}: {error}"
    return RunReport(spec.name, status, error=message, exception=error)


def _dry_run(
    ctx: Context, spec: SourceSpec, outcome: Harvest | Exception, settings: ScraperSettings
) -> RunReport:
    if isinstance(outcome, Exception):
        return _failure_report(spec, outcome)
    # Read-only: medians come from the database, nothing is written.
    with Session(ctx.engine) as session:
        report = store_harvest(session, spec, outcome, settings, ctx.settings, dry_run=True)
        session.rollback()
    report.status = DRY_RUN
    return report


def store_harvest(
    session: Session,
    spec: SourceSpec,
    harvest: Harvest,
    scraper_settings: ScraperSettings,
    settings: Settings,
    *,
    dry_run: bool = False,
) -> RunReport:
    """Pipeline, then store: listings through the shared ingest path
    (shared/pricing/ingest.py), cloud offers here; a dry run adds nothing and sends no
    events."""
    report = RunReport(
        spec.name, pages=harvest.pages, not_modified=harvest.not_modified, capped=harvest.capped
    )
    if spec.kind is SourceKind.CLOUD:
        _store_cloud(session, spec, harvest, report, dry_run=dry_run)
        if not dry_run and report.gpu_ids:
            # Hourly prices rank rentals (condition=cloud); alerts follow the recompute.
            enqueue_after_commit(session, recompute_call(report.gpu_ids))
        return report
    when = harvest.observed_at
    bounds = pipeline.PriceBounds.from_settings(scraper_settings)
    # Prices shown in another currency: at the rate of the run's day (a sale, its day).
    exchange = Exchange.from_settings(scraper_settings, when.date())
    result = pipeline.run(harvest.listings, match_title, bounds, exchange)
    report.listings = result.stats.seen
    report.rejected.update(result.stats.dropped)
    report.matched = result.stats.seen - sum(
        n for reason, n in result.stats.dropped.items() if reason.startswith("normalize.")
    )
    # The one ingest path of scraped and posted prices: quarantine, dedupe against what
    # earlier runs stored, rows, recompute after the commit. Dry runs judge prices by the
    # same quarantine settings a real run would.
    records = [store.to_record(item, spec.name, when) for item in result.accepted]
    rules = QuarantineRules.from_settings(settings)
    ingested = ingest_prices(session, records, rules, now=when, dry_run=dry_run)
    report.rejected.update(f"quarantine.{reason}" for reason in ingested.reasons if reason)
    if ingested.already_stored:
        report.rejected["dedupe.already_stored"] += ingested.already_stored
    report.stored = sum(1 for o in ingested.stored if not o.quarantined)
    report.quarantined = sum(1 for o in ingested.stored if o.quarantined)
    report.bids = sum(1 for o in ingested.stored if o.measure == BID)
    # The GPUs whose usable prices changed (a bid is never a market price, nor is a
    # quarantined one): the ingest enqueued their recompute.
    report.gpu_ids = ingested.gpu_ids
    return report


def _store_cloud(
    session: Session, spec: SourceSpec, harvest: Harvest, report: RunReport, *, dry_run: bool
) -> None:
    offers, drops = store.to_cloud_offers(harvest.cloud, spec.name)
    report.listings = len(harvest.cloud)
    report.matched = len(harvest.cloud) - sum(1 for d in drops if d.stage != "dedupe")
    report.rejected.update(_cloud_drop_key(d) for d in drops)
    report.unmapped = sorted(
        {
            d.listing.instance_type
            for d in drops
            if d.reason in UNMAPPED_REASONS and isinstance(d.listing, CloudListing)
        }
    )
    report.cloud_offers = len(offers)
    report.stored = len(offers)
    report.gpu_ids = sorted({o.gpu_id for o in offers})
    if not dry_run:
        session.add_all(offers)
        session.flush()


def _cloud_drop_key(drop: pipeline.Drop) -> str:
    # Rows the adapter refused (unverified hosts, GPU SKUs it could not read) reach the
    # drops through the match step; count them under the adapter's name for what it did.
    if isinstance(drop.listing, SkippedCloudListing) and drop.stage == "match":
        return f"source.{drop.reason}"
    return f"{drop.stage}.{drop.reason}"


def _ensure_catalog(engine: Engine) -> None:
    """Observations reference catalog GPUs: load the catalog into an empty database."""
    with session_scope(engine) as session:
        if session.exec(select(Gpu.id).limit(1)).first() is None:
            seed_catalog(session)
