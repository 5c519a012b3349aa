"""Catalog queries: listing, detail with prices and cloud offers."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import Session, select

from services.api.gpus.schemas import CloudPrice, GpuDetail, GpuSummary, TodayPriceOut
from services.api.prices.service import market_out, quotes_of
from shared.catalog.specs import GpuSpec
from shared.catalog.tasks import CLOUD_CONDITIONS
from shared.kit.settings import Settings
from shared.models import CloudOffer
from shared.pricing.cloud import PRICINGS, Currency, current_offers, to_price
from shared.pricing.market import PricePolicy, market_price
from shared.pricing.quotes import QuoteViewer
from shared.pricing.today import Priced, TodayPrice, Unpriced, bought_today, rented_today
from shared.pricing.window import market_observations
from shared.scoring.compute import SourceHealth, gpu_prices

PROVENANCE_FIELDS = ("sources", "notes")


def summary(spec: GpuSpec) -> GpuSummary:
    return GpuSummary.model_validate(asdict(spec))


def _cloud_prices(session: Session, gpu_id: str, currency: Currency) -> list[CloudPrice]:
    offers = session.exec(select(CloudOffer).where(CloudOffer.gpu_id == gpu_id)).all()
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


def detail(
    session: Session, spec: GpuSpec, settings: Settings, viewer: QuoteViewer | None = None
) -> GpuDetail:
    """The GPU's specs and prices; `best_quote` holds the quotes `viewer` sees (None: an
    anonymous caller, no quotes)."""
    now = datetime.now(UTC)
    policy = SourceHealth.read(session).policy(settings, now)
    observations = market_observations(session, [spec.id], policy)[spec.id]
    kinds = sorted({o.kind for o in observations})
    latest_by_kind = {}
    for kind in kinds:
        of_kind = [o for o in observations if o.kind == kind]
        for condition in ("new", "used"):
            price = market_price(of_kind, condition, policy)
            if price is not None:
                latest_by_kind[f"{kind}:{condition}"] = market_out(price)
    spec_fields = {k: v for k, v in asdict(spec).items() if k not in PROVENANCE_FIELDS}
    best_quote, _recent = quotes_of(session, spec.id, now, settings.price_stale_days, viewer)
    return GpuDetail(
        id=spec.id,
        name=spec.name,
        specs=spec_fields,
        provenance={"sources": spec.sources, "notes": spec.notes, "catalog": "gpu_catalog.csv"},
        market_prices={k: market_out(v) for k, v in gpu_prices(observations, policy).items()},
        latest_by_kind=latest_by_kind,
        today_prices=_today_prices(session, spec.id, policy, settings),
        cloud=_cloud_prices(session, spec.id, Currency.from_settings(settings, now)),
        best_quote=best_quote,
    )


def _today_prices(
    session: Session, gpu_id: str, policy: PricePolicy, settings: Settings
) -> dict[str, TodayPriceOut]:
    found: dict[str, Priced | None] = dict(bought_today(session, [gpu_id], policy)[gpu_id])
    currency = Currency.from_settings(settings, policy.now)
    rented = rented_today(session, [gpu_id], currency, settings.cloud_quarantine_factor)[gpu_id]
    for condition, pricing in CLOUD_CONDITIONS.items():
        found[condition] = rented[pricing]
    return {c: _today_out(p, c) for c, p in found.items() if p is not None}


def _today_out(priced: Priced, condition: str) -> TodayPriceOut:
    price = priced.price
    today = price if isinstance(price, TodayPrice) else None
    return TodayPriceOut(
        usd=today.usd if today else None,
        unit="usd_per_gpu_hour" if condition.startswith("cloud:") else "usd",
        band_usd=today.band if today else None,
        estimated=today.estimated if today else False,
        basis=today.basis if today else None,
        last_usd=price.last_usd,
        last_observed_at=price.last_observed_at,
        source=price.source,
        measure=price.measure,
        note=priced.note,
        reason=price.reason if isinstance(price, Unpriced) else None,
    )
