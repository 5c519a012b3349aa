"""Database reads behind the charts, and the per-app cache of rendered images."""

from __future__ import annotations

import hashlib
from datetime import datetime

from fastapi import FastAPI
from sqlalchemy import select
from sqlmodel import Session, col

from services.api.charts.data import Observation
from services.api.recommend.cache import ResponseCache
from shared.catalog.aliases import catalog_id
from shared.catalog.specs import GpuSpec, load_catalog
from shared.models import PriceObservation
from shared.pricing.market import CONDITION_GROUPS


def resolve_gpu(text: str, field: str = "gpu") -> GpuSpec:
    """The catalog GPU for an id, catalog name or known alias, exactly; an InputError (422)
    naming the field and the closest ids otherwise."""
    return load_catalog().by_id[catalog_id(field, text)]


def observations(
    session: Session, gpu_id: str, condition: str | None = None, since: datetime | None = None
) -> list[Observation]:
    """Prices the market uses (quarantined jumps left out), oldest first."""
    # Plain columns through the connection: ORM objects cost ~30 us each, and popular
    # cards have thousands of prices.
    query = select(
        col(PriceObservation.observed_at),
        col(PriceObservation.price_usd),
        col(PriceObservation.condition),
        col(PriceObservation.kind),
        col(PriceObservation.source),
    ).where(
        col(PriceObservation.gpu_id) == gpu_id,
        col(PriceObservation.quarantined).is_(False),
    )
    if condition is not None:
        query = query.where(
            col(PriceObservation.condition).in_(CONDITION_GROUPS.get(condition, (condition,)))
        )
    if since is not None:
        query = query.where(col(PriceObservation.observed_at) >= since)
    query = query.order_by(col(PriceObservation.observed_at))
    return [
        # 'refurbished' is priced with 'used' everywhere else; the chart follows suit.
        Observation(at, float(usd), "used" if cond == "refurbished" else cond, kind, source)
        for at, usd, cond, kind, source in session.connection().execute(query)
    ]


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
