"""The owned side's money: the market price, the purchase total and the resale estimate."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import Session

from shared.builds import assumptions as d
from shared.builds.assumptions import Sourced
from shared.builds.build import Build
from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.settings import Settings
from shared.pricing.today import TodayPrice, Unpriced, bought_today
from shared.scoring.as_of import AsOf
from shared.scoring.compute import SourceHealth
from shared.tco.request import TcoInputError, from_request
from shared.tco.resale import estimate_resale
from shared.tco.schemas import TcoRequest


def price_today(
    session: Session, gpu_id: str, condition: str, settings: Settings, as_of: AsOf | None = None
) -> TodayPrice | Unpriced | None:
    """Today's price of the card in `condition` (shared/pricing/today.py): the ranking's
    price, an estimate with its band where the observation is stale, Unpriced where no
    index bridges the gap; None where the card was never priced in that condition. As of
    a past date: from the prices observed by then."""
    if as_of is not None:
        policy = as_of.policy(settings)
    else:
        policy = SourceHealth.read(session).policy(settings, datetime.now(UTC))
    priced = bought_today(session, [gpu_id], policy)[gpu_id].get(condition)
    return priced.price if priced is not None else None


def price_basis(price: TodayPrice) -> d.Basis:
    if price.estimated:
        return "estimated"
    kind = price.kind
    return kind if kind in ("scraped", "snapshot", "msrp") else "input"  # type: ignore[return-value]


def price_source(price: TodayPrice) -> str:
    """Where today's price comes from, in words, with its band."""
    low, high = price.band
    return f"{price.source}: {price.basis}; 80 % band ${low:,.2f}-${high:,.2f}"


def priced_or_error(
    price: TodayPrice | Unpriced | None, gpu_id: str, condition: str
) -> TodayPrice | str:
    """The price, or what the error says is missing (the caller names its field)."""
    if isinstance(price, TodayPrice):
        return price
    if price is None:
        return f"no market price for {gpu_id} ({condition})"
    return f"no price today for {gpu_id} ({condition}): {price.reason}"


def purchase_total(
    session: Session,
    req: TcoRequest,
    gpu: GpuSpec,
    build: Build,
    settings: Settings,
    out: list[Sourced],
    as_of: AsOf | None = None,
) -> tuple[Decimal, float, tuple[Decimal, Decimal]]:
    """(purchase, share of it that is GPUs: what the resale estimate applies to, and the
    purchase at the ends of today's price band: the purchase itself when given)."""
    found = priced_or_error(
        price_today(session, gpu.id, req.condition, settings, as_of), gpu.id, req.condition
    )
    system_usd = build.system_usd
    gpu_share = 1.0
    if isinstance(found, TodayPrice):
        gpus = found.usd * req.count
        gpu_share = float(gpus / (gpus + system_usd))
    if req.purchase_usd is not None:
        out.append(from_request("purchase_usd", req.purchase_usd, "USD"))
        return req.purchase_usd, gpu_share, (req.purchase_usd, req.purchase_usd)
    if not isinstance(found, TodayPrice):
        raise TcoInputError("purchase_usd", f"{found}: give purchase_usd")
    price = found
    out.append(
        Sourced(
            f"gpu_price ({price.condition})",
            price.usd,
            "USD per GPU",
            price_basis(price),
            price_source(price),
            price.last_observed_at.date(),
        )
    )
    out.append(Sourced("system_share", system_usd, "USD", "assumption", build.system_basis()))
    total = build.total_usd(price.usd * req.count)
    out.append(
        Sourced(
            "purchase_usd", total, "USD", "assumption", f"{req.count} x GPU price + system share"
        )
    )
    low, high = price.band
    band = (build.total_usd(low * req.count), build.total_usd(high * req.count))
    return total, gpu_share, band


def resale_share(
    session: Session,
    req: TcoRequest,
    gpu: GpuSpec,
    years: float,
    share: float,
    out: list[Sourced],
    as_of: AsOf | None = None,
) -> float:
    if req.resale_pct is not None:
        out.append(from_request("resale_pct", req.resale_pct, "share of purchase"))
        return req.resale_pct
    before = None if as_of is None else as_of.before
    estimate = estimate_resale(session, gpu, load_catalog(), years, before)
    if estimate is None:
        out.append(
            Sourced(
                "resale_pct",
                0.0,
                "share of purchase",
                "assumption",
                "no used-price history of comparable cards: no resale counted",
            )
        )
        return 0.0
    pct = round(estimate.horizon_pct * share, 4)
    out.append(
        Sourced(
            "resale_pct",
            pct,
            "share of purchase",
            "snapshot",
            f"{estimate.method}; times the GPUs' share of the purchase ({share:.0%}), "
            "the rest of the system assumed to resell for nothing",
            estimate.as_of,
        )
    )
    return pct
