"""Resolve a TCO request: apply every default from the database and the model, sourced.

Both the API and the CLI call `build_report`; it only reads the session.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import Session, select

from shared.builds import assumptions as d
from shared.builds.assumptions import Sourced
from shared.builds.build import Build, check_choices, cloud_layout, plan_build
from shared.builds.constants import AUTO
from shared.builds.layout import Layout, plan_layout
from shared.builds.speed import build_speedup
from shared.catalog.specs import GpuSpec, load_catalog
from shared.catalog.tasks import PRECISION_NAMES, TASKS
from shared.kit.errors import InputError
from shared.kit.money import money
from shared.kit.settings import Settings
from shared.models import PriceObservation
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.power import power_limit
from shared.perfmodel.workloads import TASK_CLASS
from shared.pricing.cloud import CloudPrice, Currency, cheapest_offer, gpus_with_offers
from shared.pricing.market import MarketPrice
from shared.pricing.measures import describe
from shared.scoring.compute import SourceHealth, gpu_prices
from shared.tco.model import TcoInputs, TcoResult, compute_tco
from shared.tco.resale import estimate_resale

CONDITIONS = ("new", "used", "any")


class TcoInputError(InputError):
    """A request that cannot be answered: names the field and what would be valid."""


@dataclass(frozen=True, slots=True)
class TcoRequest:
    gpu: str
    count: int = 1
    cloud_gpu: str | None = None
    pricing: str = "on-demand"
    task: str = "cv"
    precision: str = "fp16"
    condition: str = "any"
    deployment: str = AUTO
    network: str = "infiniband"
    power_limit_w: float | None = None
    purchase_usd: Decimal | None = None
    gpu_watts: float | None = None
    system_watts: float | None = None
    utilization: float | None = None
    electricity_usd_per_kwh: Decimal | None = None
    pue: float | None = None
    years: float | None = None
    resale_pct: float | None = None
    cloud_usd_per_hour: Decimal | None = None
    spot_interruption_overhead: float | None = None
    carbon_kg_per_kwh: float | None = None


@dataclass(slots=True)
class TcoReport:
    gpu: GpuSpec
    cloud_gpu: GpuSpec
    request: TcoRequest
    inputs: TcoInputs
    result: TcoResult
    assumptions: list[Sourced] = field(default_factory=list)
    cloud_offer: CloudPrice | None = None
    model_version: str = ""
    # The machines the owned side was priced and timed on (shared/builds).
    layout: Layout | None = None


def _input(name: str, value: float | Decimal, unit: str) -> Sourced:
    return Sourced(name, value, unit, "input", "request")


def market_price_for(
    session: Session, gpu_id: str, condition: str, settings: Settings
) -> MarketPrice | None:
    query = select(PriceObservation).where(PriceObservation.gpu_id == gpu_id)
    observations = session.exec(query).all()
    policy = SourceHealth.read(session).policy(settings, datetime.now(UTC))
    return gpu_prices(observations, policy)[condition]


def price_basis(price: MarketPrice) -> d.Basis:
    kind = price.kind
    return kind if kind in ("scraped", "snapshot", "msrp") else "input"  # type: ignore[return-value]


def layout_speed(
    model: ClassModel,
    gpu: GpuSpec,
    layout: Layout,
    req: TcoRequest,
    factor: float,
    field_name: str = "precision",
) -> float:
    """Throughput of the layout's GPUs relative to one reference GPU (the build model)."""
    found = build_speedup(model, [gpu], layout, req.task, req.precision, req.network)
    if found is None:
        raise TcoInputError(field_name, f"{gpu.id} cannot run {req.precision}")
    return found.single.relative_throughput * found.speedup * factor


def _gpu(field_name: str, gpu_id: str) -> GpuSpec:
    spec = load_catalog().get(gpu_id)
    if spec is None:
        raise TcoInputError(field_name, f"unknown GPU {gpu_id!r}", ["GET /gpus lists the ids"])
    return spec


def _power(req: TcoRequest, gpu: GpuSpec, out: list[Sourced]) -> tuple[float, float]:
    """(watts per GPU, throughput factor of the power limit)."""
    factor = 1.0
    if req.power_limit_w is not None:
        try:
            factor = power_limit(gpu, req.power_limit_w).throughput_factor
        except ValueError as exc:
            raise TcoInputError("power_limit_w", str(exc), [f">= 30 % of {gpu.tdp_w} W"]) from exc
        out.append(
            Sourced(
                "power_limit_throughput_factor",
                round(factor, 3),
                "x",
                "calibrated",
                "shared/perfmodel/power.py: (cap/TDP) ** 0.325, RTX 2080 Ti measurement",
            )
        )
    if req.gpu_watts is not None:
        out.append(_input("gpu_watts", req.gpu_watts, "W per GPU"))
        return req.gpu_watts, factor
    if req.power_limit_w is not None:
        watts = min(float(gpu.tdp_w), req.power_limit_w)
        out.append(Sourced("gpu_watts", watts, "W per GPU", "input", "power_limit_w"))
        return watts, factor
    out.append(Sourced("gpu_watts", gpu.tdp_w, "W per GPU", "spec", f"catalog TDP of {gpu.id}"))
    return float(gpu.tdp_w), factor


def _purchase(
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
        out.append(_input("purchase_usd", req.purchase_usd, "USD"))
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


def _resale(
    session: Session,
    req: TcoRequest,
    gpu: GpuSpec,
    years: float,
    share: float,
    out: list[Sourced],
) -> float:
    if req.resale_pct is not None:
        out.append(_input("resale_pct", req.resale_pct, "share of purchase"))
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


def _closest_cloud_gpu(
    session: Session,
    gpu: GpuSpec,
    req: TcoRequest,
    own_single: float,
    settings: Settings,
    model: ClassModel,
) -> GpuSpec:
    currency = Currency.from_settings(settings, datetime.now(UTC))
    available = gpus_with_offers(session, req.pricing, currency)
    if gpu.id in available:
        return gpu
    best: tuple[float, str] | None = None
    for gpu_id in sorted(available):
        candidate = load_catalog().get(gpu_id)
        if candidate is None:
            continue
        prediction = model.predict(candidate, req.task, req.precision)
        if prediction is None:
            continue
        distance = abs(math.log(prediction.relative_throughput / own_single))
        if best is None or distance < best[0]:
            best = (distance, gpu_id)
    if best is None:
        raise TcoInputError(
            "cloud_gpu", f"no current {req.pricing} cloud offers stored: give cloud_gpu"
        )
    return load_catalog().by_id[best[1]]


def _cloud(
    session: Session,
    req: TcoRequest,
    cloud_gpu: GpuSpec,
    settings: Settings,
    out: list[Sourced],
) -> tuple[Decimal, CloudPrice | None]:
    if req.cloud_usd_per_hour is not None:
        out.append(_input("cloud_usd_per_hour", req.cloud_usd_per_hour, "USD per GPU-hour"))
        return req.cloud_usd_per_hour, None
    currency = Currency.from_settings(settings, datetime.now(UTC))
    offer = cheapest_offer(session, cloud_gpu.id, req.pricing, currency)
    if offer is None:
        raise TcoInputError(
            "cloud_usd_per_hour",
            f"no current {req.pricing} offer for {cloud_gpu.id}: give cloud_usd_per_hour",
        )
    basis: d.Basis = "scraped" if offer.kind == "scraped" else "snapshot"
    out.append(
        Sourced(
            "cloud_usd_per_hour",
            offer.usd_per_gpu_hour,
            "USD per GPU-hour",
            basis,
            f"cheapest current {req.pricing} offer ({describe(offer.measure)}): "
            f"{offer.provider} {offer.instance_type} ({offer.region}, {offer.gpu_count:g} GPU) "
            f"from {offer.source}",
            offer.observed_at.date(),
        )
    )
    return offer.usd_per_gpu_hour, offer


def _pick(
    name: str,
    given: float | Decimal | None,
    default: float | Decimal,
    unit: str,
    basis: d.Basis,
    source: str,
    out: list[Sourced],
) -> float | Decimal:
    if given is not None:
        out.append(_input(name, given, unit))
        return given
    out.append(Sourced(name, default, unit, basis, source))
    return default


def _simple_inputs(req: TcoRequest, build: Build, out: list[Sourced]) -> dict[str, float | Decimal]:
    lay = build.layout
    watts = build.power.system_watts_per_node * lay.nodes
    spot = d.SPOT_INTERRUPTION_OVERHEAD if req.pricing == "spot" else 0.0
    spot_source = d.SPOT_OVERHEAD_SOURCE if req.pricing == "spot" else "on-demand: not interrupted"
    return {
        "system_watts": _pick(
            "system_watts",
            req.system_watts,
            watts,
            "W",
            "assumption",
            f"{d.SYSTEM_WATTS_SOURCES[build.power.system_watts_per_node]}, x {lay.nodes} "
            f"machine(s) ({lay.describe()})",
            out,
        ),
        "utilization": _pick(
            "utilization",
            req.utilization,
            d.UTILIZATION,
            "share of hours",
            "seed",
            d.UTILIZATION_SOURCE,
            out,
        ),
        "electricity_usd_per_kwh": _pick(
            "electricity_usd_per_kwh",
            req.electricity_usd_per_kwh,
            d.ELECTRICITY_USD_PER_KWH,
            "USD/kWh",
            "seed",
            d.ELECTRICITY_SOURCE,
            out,
        ),
        "pue": _pick("pue", req.pue, d.PUE, "x", "seed", d.PUE_SOURCE, out),
        "years": _pick("years", req.years, d.YEARS, "years", "assumption", d.YEARS_SOURCE, out),
        "spot_interruption_overhead": _pick(
            "spot_interruption_overhead",
            req.spot_interruption_overhead,
            spot,
            "share of extra hours",
            "assumption",
            spot_source,
            out,
        ),
        "carbon_kg_per_kwh": _pick(
            "carbon_kg_per_kwh",
            req.carbon_kg_per_kwh,
            d.CARBON_KG_PER_KWH,
            "kg CO2/kWh",
            "assumption",
            d.CARBON_SOURCE,
            out,
        ),
    }


def build_report(
    session: Session, req: TcoRequest, settings: Settings, model: ClassModel
) -> TcoReport:
    gpu = _gpu("gpu", req.gpu)
    out: list[Sourced] = []
    watts, factor = _power(req, gpu, out)
    build = plan_build([gpu], req.count, settings, req.deployment, req.network)
    own_speed = layout_speed(model, gpu, build.layout, req, factor)
    own_single = layout_speed(model, gpu, plan_layout([gpu], 1, req.deployment), req, 1.0)
    if req.cloud_gpu is not None:
        cloud_gpu = _gpu("cloud_gpu", req.cloud_gpu)
    else:
        cloud_gpu = _closest_cloud_gpu(session, gpu, req, own_single, settings, model)
    rented = cloud_layout(cloud_gpu, req.count)
    cloud_speed = layout_speed(model, cloud_gpu, rented, req, 1.0, "cloud_gpu")
    simple = _simple_inputs(req, build, out)
    purchase, share = _purchase(session, req, gpu, build, settings, out)
    resale = _resale(session, req, gpu, float(simple["years"]), share, out)
    hourly, offer = _cloud(session, req, cloud_gpu, settings, out)
    out.extend(_speed_notes(model.version, gpu, cloud_gpu, req, own_speed, cloud_speed))
    inputs = TcoInputs(
        count=req.count,
        purchase_usd=money(purchase),
        gpu_watts=watts,
        system_watts=float(simple["system_watts"]),
        utilization=float(simple["utilization"]),
        electricity_usd_per_kwh=Decimal(str(simple["electricity_usd_per_kwh"])),
        pue=float(simple["pue"]),
        years=float(simple["years"]),
        resale_pct=resale,
        cloud_usd_per_hour=Decimal(str(hourly)),
        spot_interruption_overhead=float(simple["spot_interruption_overhead"]),
        carbon_kg_per_kwh=float(simple["carbon_kg_per_kwh"]),
        own_speed=own_speed,
        cloud_speed=cloud_speed,
        cloud_gpu_watts=float(cloud_gpu.tdp_w),
    )
    return TcoReport(
        gpu,
        cloud_gpu,
        req,
        inputs,
        compute_tco(inputs),
        out,
        offer,
        model.version,
        build.layout,
    )


def _speed_notes(
    version: str, gpu: GpuSpec, cloud_gpu: GpuSpec, req: TcoRequest, own: float, cloud: float
) -> list[Sourced]:
    source = (
        f"performance model {version}: {req.task} ({TASK_CLASS[req.task]}) "
        f"{req.precision}, {req.count} GPU(s) incl. multi-GPU scaling, relative to one RTX 3090"
    )
    return [
        Sourced(
            f"own_speed ({req.count} x {gpu.id})",
            round(own, 4),
            "x reference",
            "calibrated",
            source,
        ),
        Sourced(
            f"cloud_speed ({req.count} x {cloud_gpu.id})",
            round(cloud, 4),
            "x reference",
            "calibrated",
            source,
        ),
    ]


def _check(field_name: str, ok: bool, valid: str) -> None:
    if not ok:
        raise TcoInputError(field_name, f"out of range; valid: {valid}", [valid])


def validate_request(req: TcoRequest) -> None:
    """Range and choice checks shared by the API and the CLI."""
    choices = {
        "pricing": (req.pricing, ("on-demand", "spot")),
        "task": (req.task, tuple(TASKS)),
        "precision": (req.precision, PRECISION_NAMES),
        "condition": (req.condition, CONDITIONS),
    }
    for name, (value, valid) in choices.items():
        if value not in valid:
            raise TcoInputError(name, f"unknown value {value!r}", list(valid))
    check_choices(req.deployment, req.network)
    _check("count", 1 <= req.count <= 512, "1-512")
    _check("utilization", req.utilization is None or 0 < req.utilization <= 1, "0 < x <= 1")
    _check("pue", req.pue is None or 1 <= req.pue <= 3, "1 <= x <= 3")
    _check("years", req.years is None or 0 < req.years <= 20, "0 < x <= 20")
    _check("resale_pct", req.resale_pct is None or 0 <= req.resale_pct < 1, "0 <= x < 1")
    _check(
        "spot_interruption_overhead",
        req.spot_interruption_overhead is None or 0 <= req.spot_interruption_overhead <= 5,
        "0 <= x <= 5",
    )
    for name in ("purchase_usd", "cloud_usd_per_hour", "electricity_usd_per_kwh"):
        value = getattr(req, name)
        _check(name, value is None or value >= 0, ">= 0")
    for name in ("gpu_watts", "system_watts", "carbon_kg_per_kwh"):
        value = getattr(req, name)
        _check(name, value is None or value >= 0, ">= 0")
