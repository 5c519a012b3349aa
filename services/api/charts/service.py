"""Database reads behind the charts, and the per-app cache of rendered images."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from fastapi import FastAPI
from sqlalchemy import ColumnElement, Float, cast, extract, func, select
from sqlmodel import Session, col

from services.api.charts import data
from services.api.charts.data import Observation
from services.api.recommend.cache import ResponseCache
from shared.catalog.aliases import catalog_id
from shared.catalog.specs import GpuSpec, load_catalog
from shared.models import PriceObservation
from shared.pricing.market import CONDITION_GROUPS
from shared.pricing.measures import NOT_MARKET_MEASURES, QUOTE_KINDS
from shared.pricing.window import market_group


def resolve_gpu(text: str, field: str = "gpu") -> GpuSpec:
    """The catalog GPU for an id, catalog name or known alias, exactly; an InputError (422)
    naming the field and the closest ids otherwise."""
    return load_catalog().by_id[catalog_id(field, text)]


def observations(
    session: Session, gpu_id: str, condition: str | None = None, since: datetime | None = None
) -> list[Observation]:
    """Prices the market uses (no quarantined jump, bid or quote), oldest first."""
    # Plain columns through the connection: ORM objects cost ~30 us each, and popular
    # cards have thousands of prices.
    query = (
        select(
            col(PriceObservation.observed_at),
            col(PriceObservation.price_usd),
            col(PriceObservation.condition),
            col(PriceObservation.kind),
            col(PriceObservation.source),
        )
        .where(*_history_filter(gpu_id, condition, since))
        .order_by(col(PriceObservation.observed_at))
    )
    return [
        # 'refurbished' is priced with 'used' everywhere else; the chart follows suit.
        Observation(at, float(usd), "used" if cond == "refurbished" else cond, kind, source)
        for at, usd, cond, kind, source in session.connection().execute(query)
    ]


def span(
    session: Session,
    gpu_id: str,
    condition: str | None,
    since: datetime | None,
    after_id: int | None = None,
    up_to: int | None = None,
) -> tuple[datetime | None, datetime | None, int]:
    """First and last time and count of the matching prices (with an id above `after_id`:
    the prices stored since; up to `up_to`)."""
    where = _history_filter(gpu_id, condition, since) + _ids(after_id, up_to)
    observed = col(PriceObservation.observed_at)
    query = select(func.min(observed), func.max(observed), func.count()).where(*where)
    first, last, n = session.connection().execute(query).one()
    # SQLite hands back naive datetimes from an aggregate: the column stores UTC.
    return _utc(first), _utc(last), n


def periods(
    session: Session,
    gpu_id: str,
    condition: str | None,
    since: datetime | None,
    origin: datetime,
    days: int,
    start: datetime | None = None,
) -> list[data.Period]:
    """Per-period figures of the matching prices from `start` on, periods of `days` from
    `origin`. PostgreSQL computes them itself: the most-priced card holds a quarter of a
    million rows at a million (bench/gpu_page.py), too many to send to Python per view.
    The embedded default's SQLite holds far fewer and has no median: its rows are read."""
    if start is not None:
        since = start if since is None else max(since, start)
    if session.connection().dialect.name != "postgresql":
        return data.periods_of(observations(session, gpu_id, condition, since), origin, days)
    observed = col(PriceObservation.observed_at)
    # As in `observations`: refurbished is priced with used.
    condition_of = market_group()
    # Whole days since the origin, then whole periods, as data.periods_of counts.
    index = func.floor(func.floor(extract("epoch", observed - origin) / 86400) / days)
    price = col(PriceObservation.price_usd)
    query = (
        select(
            condition_of,
            col(PriceObservation.source),
            col(PriceObservation.kind),
            index,
            # In double precision, as the rows' medians are computed from floats.
            func.percentile_cont(0.5).within_group(cast(price, Float)),
            func.min(price),
            func.max(price),
            func.count(),
        )
        .where(*_history_filter(gpu_id, condition, since))
        .group_by(condition_of, col(PriceObservation.source), col(PriceObservation.kind), index)
    )
    return [
        ((cond, source, kind), int(i), float(median), float(low), float(high), n)
        for cond, source, kind, i, median, low, high, n in session.connection().execute(query)
    ]


def prices(
    session: Session,
    gpu_id: str,
    condition: str | None,
    since: datetime | None,
    after_id: int | None = None,
    up_to: int | None = None,
) -> list[tuple[tuple[str, str, str], datetime, float]]:
    """The matching prices with after_id < id <= up_to as ((condition group, source,
    kind), time, USD): what `periods` aggregates, for a cache that aggregates them
    itself (series_cache.py)."""
    observed = col(PriceObservation.observed_at)
    query = select(
        market_group(),
        col(PriceObservation.source),
        col(PriceObservation.kind),
        observed,
        col(PriceObservation.price_usd),
    ).where(*_history_filter(gpu_id, condition, since), *_ids(after_id, up_to))
    return [
        ((cond, source, kind), at, float(usd))
        for cond, source, kind, at, usd in session.connection().execute(query)
    ]


def _ids(after_id: int | None, up_to: int | None) -> list[ColumnElement[bool]]:
    ids = col(PriceObservation.id)
    return [
        *([] if after_id is None else [ids > after_id]),
        *([] if up_to is None else [ids <= up_to]),
    ]


def _utc(value: datetime | None) -> datetime | None:
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def _history_filter(
    gpu_id: str, condition: str | None, since: datetime | None
) -> list[ColumnElement[bool]]:
    """The rows a market price may use (shared/pricing/market.py; index.py:load_points
    also leaves out list prices, which a chart keeps as the launch price's series): no
    quarantined jump, no auction bid (where an auction stands, not a price) and no posted
    quote. A quote belongs to the key that posted it, and a chart's series are shared by
    every caller (SeriesCache, the image cache): a chart shows none, not even the caller's
    own (GET /gpus/{id} and /gpus/{id}/prices list those for their key)."""
    where = [
        col(PriceObservation.gpu_id) == gpu_id,
        col(PriceObservation.quarantined).is_(False),
        col(PriceObservation.kind).not_in(sorted(QUOTE_KINDS)),
        col(PriceObservation.measure).not_in(sorted(NOT_MARKET_MEASURES)),
    ]
    if condition is not None:
        group = CONDITION_GROUPS.get(condition, (condition,))
        where.append(col(PriceObservation.condition).in_(group))
    if since is not None:
        where.append(col(PriceObservation.observed_at) >= since)
    return where


def image_cache(app: FastAPI) -> ResponseCache:
    """Rendered images by content key, created on first use (no import-time state)."""
    cache: ResponseCache | None = getattr(app.state, "chart_cache", None)
    if cache is None:
        # A race here only builds two caches, one of which is dropped: harmless.
        cache = ResponseCache(ttl_s=300.0, max_entries=256)
        app.state.chart_cache = cache
    return cache


def content_key(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()
