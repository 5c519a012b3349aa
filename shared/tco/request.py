"""A TCO request: its fields, the range and choice checks, and the catalog lookup."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from shared.builds.assumptions import Sourced
from shared.builds.build import check_choices
from shared.builds.constants import AUTO
from shared.catalog.specs import GpuSpec, load_catalog
from shared.catalog.tasks import PRECISION_NAMES, TASKS
from shared.kit.errors import InputError

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


def from_request(name: str, value: float | Decimal, unit: str) -> Sourced:
    return Sourced(name, value, unit, "input", "request")


def gpu_spec(field_name: str, gpu_id: str) -> GpuSpec:
    spec = load_catalog().get(gpu_id)
    if spec is None:
        raise TcoInputError(field_name, f"unknown GPU {gpu_id!r}", ["GET /gpus lists the ids"])
    return spec


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
