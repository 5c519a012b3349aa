"""GET /tco: resolve the request (shared/tco) and shape the answer."""

from __future__ import annotations

from dataclasses import asdict
from typing import TypeVar

from pydantic import BaseModel
from sqlmodel import Session

from services.api.as_of import as_of_fields
from services.api.builds.schemas import CostPerUnitOut, LayoutOut, ThroughputOut
from services.api.tco.schemas import (
    CloudOfferOut,
    CloudSide,
    GpuRef,
    MonthOut,
    OwnSide,
    SourcedOut,
    TcoResponse,
)
from shared.builds.assumptions import Sourced
from shared.builds.unit_cost import CostPerUnit
from shared.kit.settings import Settings
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.units import Throughput
from shared.tco import model
from shared.tco.report import TcoReport, build_report
from shared.tco.schemas import TcoRequest

WORK_HOUR = (
    "one hour of the owned build working at full speed; cloud hours are scaled by "
    "own speed / cloud speed (performance model)"
)
METHOD = "docs/tco_and_quotes.md; formulas in shared/tco/model.py"


def tco(
    session: Session, request: TcoRequest, settings: Settings, perf_model: ClassModel
) -> TcoResponse:
    return _response(build_report(session, request, settings, perf_model))


def _offer(report: TcoReport) -> CloudOfferOut | None:
    offer = report.cloud_offer
    if offer is None:
        return None
    data = asdict(offer)
    data["observed_at"] = offer.observed_at.date()
    return CloudOfferOut.model_validate(data)


def _own(report: TcoReport) -> OwnSide:
    r, i = report.result, report.inputs
    return OwnSide(
        purchase_usd=i.purchase_usd,
        resale_pct=i.resale_pct,
        net_purchase_usd=r.own_net_purchase_usd,
        kwh_per_year=r.own_kwh_per_year,
        co2_kg_per_year=r.own_co2_kg_per_year,
        energy_usd_per_year=r.own_energy_usd_per_year,
        total_usd=r.own_total_usd,
        usd_per_work_hour=r.own_usd_per_work_hour,
        usd_per_reference_gpu_hour=r.own_usd_per_reference_gpu_hour,
        relative_throughput=round(i.own_speed, 4),
    )


def _cloud(report: TcoReport) -> CloudSide:
    r, i = report.result, report.inputs
    return CloudSide(
        usd_per_gpu_hour=i.cloud_usd_per_hour,
        gpu_hours_per_year=r.cloud_gpu_hours_per_year,
        usd_per_year=r.cloud_usd_per_year,
        total_usd=r.cloud_total_usd,
        usd_per_work_hour=r.cloud_usd_per_work_hour,
        usd_per_reference_gpu_hour=r.cloud_usd_per_reference_gpu_hour,
        kwh_per_year=r.cloud_kwh_per_year,
        co2_kg_per_year=r.cloud_co2_kg_per_year,
        relative_throughput=round(i.cloud_speed, 4),
        spot_interruption_overhead=i.spot_interruption_overhead,
        offer=_offer(report),
    )


PRICE_INPUTS = ("gpu_price", "purchase_usd", "cloud_usd_per_hour")


def _prices_used(report: TcoReport) -> list[Sourced]:
    """Market or given prices; the purchase total derived from them is not one."""
    return [
        a
        for a in report.assumptions
        if a.name.split(" ")[0] in PRICE_INPUTS and (a.as_of is not None or a.basis == "input")
    ]


def _dated(price: Sourced) -> str:
    when = price.as_of.isoformat() if price.as_of else "given in the request"
    return f"{price.name} {price.value} {price.unit} ({when})"


Out = TypeVar("Out", bound=BaseModel)


def verdict(report: TcoReport) -> str:
    """One sentence a buyer can act on, naming the dates of the prices it rests on."""
    r, i = report.result, report.inputs
    cheaper = "Renting" if r.cheaper == "rent" else "Owning"
    text = f"{cheaper} is cheaper over {i.years:g} years at {i.utilization:.0%} utilization"
    if r.break_even_days is not None and r.break_even_within_horizon:
        text += f"; owning breaks even after {r.break_even_days / 30.4375:.1f} months"
    elif r.break_even_days is not None:
        text += f"; owning would break even after {r.break_even_days / 365.25:.1f} years"
    else:
        text += "; owning never breaks even at these prices"
    return f"{text}. Prices used: {'; '.join(_dated(p) for p in _prices_used(report))}."


def _response(report: TcoReport) -> TcoResponse:
    req, r = report.request, report.result
    return TcoResponse(
        gpu=GpuRef(id=report.gpu.id, name=report.gpu.name),
        cloud_gpu=GpuRef(id=report.cloud_gpu.id, name=report.cloud_gpu.name),
        count=req.count,
        pricing=req.pricing,
        task=req.task,
        precision=req.precision,
        years=report.inputs.years,
        utilization=report.inputs.utilization,
        busy_hours_per_year=r.busy_hours_per_year,
        break_even_days=r.break_even_days,
        break_even_within_horizon=r.break_even_within_horizon,
        cheaper=r.cheaper,
        verdict=verdict(report),
        prices_used=[SourcedOut.model_validate(asdict(a)) for a in _prices_used(report)],
        own=_own(report),
        cloud=_cloud(report),
        layout=None if report.layout is None else LayoutOut.of(report.layout),
        monthly=[MonthOut.model_validate(asdict(p)) for p in r.monthly],
        work_hour=WORK_HOUR,
        method=METHOD + "; " + (model.__doc__ or "").split("\n\n", 1)[0],
        assumptions=[SourcedOut.model_validate(asdict(a)) for a in report.assumptions],
        model_version=report.model_version,
        throughput=_out(ThroughputOut, report.own_throughput),
        cloud_throughput=_out(ThroughputOut, report.cloud_throughput),
        cost_per_unit=_out(CostPerUnitOut, report.own_cost),
        cloud_cost_per_unit=_out(CostPerUnitOut, report.cloud_cost),
        **as_of_fields(report.as_of, report.model_version),
    )


def _out(schema: type[Out], value: Throughput | CostPerUnit | None) -> Out | None:
    return None if value is None else schema.model_validate(value.as_dict())
