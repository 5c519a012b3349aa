"""Catalog queries: listing, detail with prices and cloud offers."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import func
from sqlmodel import Session, select

from services.api.as_of import as_of_fields
from services.api.gpus.schemas import CloudPrice, GpuDetail, GpuSummary, TodayPriceOut
from services.api.prices.cache import PriceCache
from services.api.prices.market_rows import MarketRows
from services.api.prices.service import market_out, market_rows, quotes_of
from shared.catalog.specs import GpuSpec
from shared.kit.money import CENT
from shared.kit.settings import Settings
from shared.models import CloudOffer, Score
from shared.perfmodel.base import PerformanceModel
from shared.pricing.cloud import PRICINGS, Currency, current_offers, to_price
from shared.pricing.market import PricePolicy, cheapest, preferred, series_prices
from shared.pricing.quotes import QuoteViewer
from shared.scoring.ages import PRICE_PRECISION, PRICE_TASK
from shared.scoring.as_of import AsOf
from shared.scoring.compute import RowKeys, SourceHealth, scores_as_of

PROVENANCE_FIELDS = ("sources", "notes")


def summary(spec: GpuSpec) -> GpuSummary:
    return GpuSummary.model_validate(asdict(spec))


def _cloud_prices(session: Session, gpu_id: str, currency: Currency) -> list[CloudPrice]:
    found = session.exec(select(CloudOffer).where(CloudOffer.gpu_id == gpu_id)).all()
    # As of a past date: the offers seen by then.
    offers = [o for o in found if currency.seen(o.observed_at)]
    current = {id(o) for o in current_offers(offers, currency)}
    prices = []
    for offer in offers:
        for pricing in PRICINGS:
            price = to_price(offer, pricing)
            if price is None:
                continue
            prices.append(
                CloudPrice(
                    provider=price.provider,
                    instance_type=price.instance_type,
                    region=price.region,
                    gpu_count=price.gpu_count,
                    usd_per_gpu_hour=price.usd_per_gpu_hour.quantize(Decimal("0.0001")),
                    pricing=pricing,
                    source=price.source,
                    observed_at=price.observed_at,
                    measure=price.measure,
                    current=id(offer) in current,
                )
            )
    prices.sort(key=lambda p: (not p.current, p.pricing, p.usd_per_gpu_hour))
    return prices


def cloud_version(session: Session, gpu_id: str) -> int:
    """How many cloud offers the GPU has: offers are only ever added (seed, scraper), so
    the count names the list. (Its newest id would not: PostgreSQL walks the primary key
    back through every other GPU's newer offers for it, ~8 ms at a million prices.)"""
    query = select(func.count()).select_from(CloudOffer).where(CloudOffer.gpu_id == gpu_id)
    return session.exec(query).one()


def cloud_prices(
    session: Session, gpu_id: str, currency: Currency, cache: PriceCache | None = None
) -> list[CloudPrice]:
    """The GPU's cloud prices, current first, from `cache` while no offer of it was added.

    The most listed datacenter module has ~1,100 offers at a million prices (bench/
    gpu_page.py): reading and pricing them took ~40 ms of each of its pages, the same
    after every new price of it. The cache's lifetime bounds how far `now`, which decides
    the current offers, has moved since they were priced."""
    if cache is None:
        return _cloud_prices(session, gpu_id, currency)
    # Counted before the list is read: a list may be newer than its count, never older.
    version = cloud_version(session, gpu_id)
    return cache.get(("cloud", gpu_id), version, lambda: _cloud_prices(session, gpu_id, currency))


def detail(
    session: Session,
    spec: GpuSpec,
    settings: Settings,
    viewer: QuoteViewer | None = None,
    rows: MarketRows | None = None,
    cache: PriceCache | None = None,
) -> GpuDetail:
    """The GPU's specs and prices; `best_quote` holds the quotes `viewer` sees (None: an
    anonymous caller, no quotes). Prices from `rows` when given (the same rows as the
    database's market window, kept up to date), cloud prices from `cache` when given."""
    now = datetime.now(UTC)
    policy = SourceHealth.read(session).policy(settings, now)
    currency = Currency.from_settings(settings, now)
    return _detail(
        session,
        spec,
        settings,
        viewer,
        policy,
        _today_prices(session, spec.id),
        cloud_prices(session, spec.id, currency, cache),
        rows,
    )


def detail_as_of(
    session: Session,
    spec: GpuSpec,
    settings: Settings,
    model: PerformanceModel,
    as_of: AsOf,
    viewer: QuoteViewer | None = None,
) -> GpuDetail:
    """The GPU's page as of a past date: market, today's and cloud prices and quotes from
    what was observed by the end of that day, aged as of it; today's prices computed as
    the recompute would have then (in memory, not stored), by today's model."""
    keys = RowKeys(tasks={PRICE_TASK}, precisions={PRICE_PRECISION})
    scores = scores_as_of(session, as_of, model, settings, [spec.id], keys)
    answer = _detail(
        session,
        spec,
        settings,
        viewer,
        as_of.policy(settings),
        {row.condition: _today_out(row) for row in scores},
        _cloud_prices(session, spec.id, as_of.currency(settings)),
        None,
        as_of.before,
    )
    fields = {**as_of_fields(as_of, model.version), "model_version": model.version}
    return answer.model_copy(update=fields)


def _detail(
    session: Session,
    spec: GpuSpec,
    settings: Settings,
    viewer: QuoteViewer | None,
    policy: PricePolicy,
    today_prices: dict[str, TodayPriceOut],
    cloud: list[CloudPrice],
    rows: MarketRows | None,
    quotes_before: datetime | None = None,
) -> GpuDetail:
    now = policy.now
    observations = market_rows(session, spec.id, policy, rows)
    # Every series' price once per condition: the price of a kind is the preferred of
    # its series' (market_price over the kind's rows), the market price of all of them.
    candidates = {c: series_prices(observations, c, policy) for c in ("new", "used")}
    latest_by_kind = {}
    for kind in sorted({o.kind for o in observations}):
        for condition in ("new", "used"):
            price = preferred(p for p in candidates[condition] if p.kind == kind)
            if price is not None:
                latest_by_kind[f"{kind}:{condition}"] = market_out(price)
    # As gpu_prices (shared/scoring/compute.py) from the same series prices.
    prices = {condition: preferred(found) for condition, found in candidates.items()}
    spec_fields = {k: v for k, v in asdict(spec).items() if k not in PROVENANCE_FIELDS}
    best_quote, _recent = quotes_of(
        session, spec.id, now, settings.price_stale_days, viewer, quotes_before
    )
    return GpuDetail(
        id=spec.id,
        name=spec.name,
        specs=spec_fields,
        provenance={"sources": spec.sources, "notes": spec.notes, "catalog": "gpu_catalog.csv"},
        market_prices={
            k: market_out(v) for k, v in {**prices, "any": cheapest(prices.values())}.items()
        },
        latest_by_kind=latest_by_kind,
        today_prices=today_prices,
        cloud=cloud,
        best_quote=best_quote,
    )


def _today_prices(session: Session, gpu_id: str) -> dict[str, TodayPriceOut]:
    """Today's price per condition as the last recompute stored it for the ranking (one
    row per condition; prices do not depend on the task): the same numbers /recommend
    ranks on, read without refitting or re-reading the market."""
    rows = session.exec(
        select(Score).where(
            Score.gpu_id == gpu_id, Score.task == PRICE_TASK, Score.precision == PRICE_PRECISION
        )
    )
    return {row.condition: _today_out(row) for row in rows}


def _today_out(row: Score) -> TodayPriceOut:
    rental = row.condition.startswith("cloud:")

    def money(usd: Decimal) -> Decimal:
        # Purchases in cents as /recommend shows them; hourly prices as stored.
        return usd if rental else usd.quantize(CENT)

    band = (
        (money(row.price_band_low), money(row.price_band_high))
        if row.price_band_low is not None and row.price_band_high is not None
        else None
    )
    return TodayPriceOut(
        usd=money(row.price_usd) if row.unranked_reason is None else None,
        unit="usd_per_gpu_hour" if rental else "usd",
        band_usd=band,
        estimated=row.price_estimated,
        basis=row.price_basis,
        last_usd=money(row.price_last_usd if row.price_last_usd is not None else row.price_usd),
        last_observed_at=row.price_last_observed_at or row.price_observed_at,
        source=row.price_source,
        measure=row.price_measure,
        note=row.price_note,
        reason=row.unranked_reason,
    )
