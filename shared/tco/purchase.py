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
from shared.pricing.market import MarketPrice
from shared.pricing.measures import describe
from shared.pricing.window import market_observations
from shared.scoring.compute import SourceHealth, gpu_prices
from shared.tco.request import TcoInputError, from_request
from shared.tco.resale import estimate_resale
from shared.tco.schemas import TcoRequest


def market_price_for(
    session: Session, gpu_id: str, condition: str, settings: Settings
) -> MarketPrice | None:
    policy = SourceHealth.read(session).policy(settings, datetime.now(UTC))
    return gpu_prices(market_observations(session, [gpu_id], policy)[gpu_id], policy)[condition]


def price_basis(price: MarketPrice) -> d.Basis:
    kind = price.kind
    return kind if kind in ("scraped", "snapshot", "msrp") else "input"  # type: ignore[return-value]


def purchase_total(
    session: Session,
    req: TcoRequest,
    gpu: GpuSpec,
    build: Build,
    settings: Settings,
    out: list[Sourced],
) -> tuple[Decimal, float]:
    """(purchase, share of it that is GPUs: what the resale estimate applies to)."""
    price = market_price_for(session, gpu.id, req.condition, settings)
    system_usd = build.system_usd
    gpu_share = 1.0
    if price is not None:
        gpus = price.usd * req.count
        gpu_share = float(gpus / (gpus + system_usd))
    if req.purchase_usd is not None:
        out.append(from_request("purchase_usd", req.purchase_usd, "USD"))
        return req.purchase_usd, gpu_share
    if price is None:
        raise TcoInputError(
            "purchase_usd", f"no market price for {gpu.id} ({req.condition}): give purchase_usd"
        )
    out.append(
        Sourced(
            f"gpu_price ({price.condition})",
            price.usd,
            "USD per GPU",
            price_basis(price),
            f"{price.source}: {price.method} ({describe(price.measure)})",
            price.observed_at.date(),
        )
    )
    out.append(Sourced("system_share", system_usd, "USD", "assumption", build.system_basis()))
    total = build.total_usd(price.usd * req.count)
    out.append(
        Sourced(
            "purchase_usd", total, "USD", "assumption", f"{req.count} x GPU price + system share"
        )
    )
    return total, gpu_share


def resale_share(
    session: Session,
    req: TcoRequest,
    gpu: GpuSpec,
    years: float,
    share: float,
    out: list[Sourced],
) -> float:
    if req.resale_pct is not None:
        out.append(from_request("resale_pct", req.resale_pct, "share of purchase"))
        return req.resale_pct
    estimate = estimate_resale(session, gpu, load_catalog(), years)
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
