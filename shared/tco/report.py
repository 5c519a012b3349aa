"""Resolve a TCO request: apply every default from the database and the model, sourced.

Both the API and the CLI call `build_report`; it only reads the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from sqlmodel import Session

from shared.builds import unit_cost
from shared.builds.assumptions import Sourced
from shared.builds.build import cloud_layout, plan_build
from shared.builds.layout import Layout, plan_layout
from shared.builds.speed import build_speedup
from shared.builds.throughput import task_units
from shared.builds.unit_cost import CostPerUnit, OwnTerms
from shared.catalog.specs import GpuSpec
from shared.kit.money import money
from shared.kit.settings import Settings
from shared.perfmodel.absolute import Ratio
from shared.perfmodel.classmodel import ClassModel
from shared.perfmodel.units import Throughput, UnknownSoftware
from shared.perfmodel.workloads import TASK_CLASS
from shared.pricing.cloud import CloudPrice
from shared.scoring.as_of import AsOf, parse_as_of
from shared.tco.cloud import closest_cloud_gpu, cloud_price
from shared.tco.model import TcoInputs, TcoResult, compute_tco
from shared.tco.operating import gpu_power, running_inputs
from shared.tco.purchase import purchase_total, resale_share
from shared.tco.request import TcoInputError, gpu_spec
from shared.tco.schemas import TcoRequest


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
    # Each side's throughput in the workload's unit and its dollars per unit of work.
    own_throughput: Throughput | None = None
    cloud_throughput: Throughput | None = None
    own_cost: CostPerUnit | None = None
    cloud_cost: CostPerUnit | None = None
    # The day the prices are as of (None: today's).
    as_of: AsOf | None = None


def layout_ratio(
    model: ClassModel,
    gpu: GpuSpec,
    layout: Layout,
    req: TcoRequest,
    factor: float,
    field_name: str = "precision",
) -> Ratio:
    """The layout's throughput relative to one reference GPU, with its 80 % interval."""
    found = build_speedup(model, [gpu], layout, req.task, req.precision, req.network)
    if found is None:
        raise TcoInputError(field_name, f"{gpu.id} cannot run {req.precision}")
    low, high = found.interval
    scale = found.speedup * factor
    return Ratio(found.single.relative_throughput * scale, (low * scale, high * scale))


def build_report(
    session: Session, req: TcoRequest, settings: Settings, model: ClassModel
) -> TcoReport:
    """The report; with `req.as_of`, from only the prices observed by the end of that
    day, aged as of it (an InputError names as_of and the valid range)."""
    as_of = parse_as_of(session, req.as_of, datetime.now(UTC))
    gpu = gpu_spec("gpu", req.gpu)
    out: list[Sourced] = []
    watts, factor = gpu_power(req, gpu, out)
    build = plan_build([gpu], req.count, settings, req.deployment, req.network)
    own_ratio = layout_ratio(model, gpu, build.layout, req, factor)
    own_speed = own_ratio.value
    one = plan_layout([gpu], 1, req.deployment)
    own_single = layout_ratio(model, gpu, one, req, 1.0).value
    if req.cloud_gpu is not None:
        cloud_gpu = gpu_spec("cloud_gpu", req.cloud_gpu)
    else:
        cloud_gpu = closest_cloud_gpu(session, gpu, req, own_single, settings, model, as_of)
    rented = cloud_layout(cloud_gpu, req.count)
    cloud_ratio = layout_ratio(model, cloud_gpu, rented, req, 1.0, "cloud_gpu")
    cloud_speed = cloud_ratio.value
    simple = running_inputs(req, build, out)
    purchase, share, band = purchase_total(session, req, gpu, build, settings, out, as_of)
    resale = resale_share(session, req, gpu, float(simple["years"]), share, out, as_of)
    hourly, offer = cloud_price(session, req, cloud_gpu, settings, out, as_of)
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
    own_units = _units(model, gpu, req, own_ratio, build.layout)
    cloud_units = _units(model, cloud_gpu, req, cloud_ratio, rented)
    terms = OwnTerms(
        years=inputs.years,
        utilization=inputs.utilization,
        electricity_usd_per_kwh=inputs.electricity_usd_per_kwh,
        pue=inputs.pue,
        resale_pct=inputs.resale_pct,
        resale_basis=f"less resale of {inputs.resale_pct:.0%} (assumptions: resale_pct)",
    )
    watts = inputs.gpu_watts * inputs.count + inputs.system_watts
    hourly_build = inputs.cloud_usd_per_hour * inputs.count
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
        own_throughput=own_units,
        cloud_throughput=cloud_units,
        own_cost=unit_cost.owned(own_units, inputs.purchase_usd, band, watts, terms),
        cloud_cost=unit_cost.rented(
            cloud_units,
            hourly_build,
            (hourly_build, hourly_build),
            spot=inputs.spot_interruption_overhead > 0,
            spot_overhead=inputs.spot_interruption_overhead,
        ),
        as_of=as_of,
    )


def _units(
    model: ClassModel, gpu: GpuSpec, req: TcoRequest, ratio: Ratio, layout: Layout
) -> Throughput:
    """One side's throughput in the task's unit (the default LLM for llm-inference)."""
    try:
        return task_units(
            model, gpu, req.task, req.precision, ratio, layout.node_counts, software=req.software
        )
    except UnknownSoftware as exc:
        raise TcoInputError("software", str(exc), list(exc.valid)) from exc


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
