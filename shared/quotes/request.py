"""A cluster quote request: its fields and the checks that need the catalog."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from shared.builds import constants as c
from shared.builds.build import check_choices
from shared.builds.errors import BuildInputError
from shared.catalog.specs import GpuSpec, load_catalog
from shared.catalog.tasks import PRECISION_NAMES, TASKS
from shared.tco.request import TcoInputError

MAX_GPUS = 512


class QuoteInputError(TcoInputError):
    """Bad quote input: the field and its valid values (422 in the API, exit 2 in the CLI)."""


@dataclass(frozen=True, slots=True)
class ClusterRequest:
    gpu: str
    count: int | None = None
    target_relative_throughput: float | None = None
    memory_gb: float | None = None
    task: str = "cv"
    precision: str = "fp16"
    deployment: str = c.AUTO
    budget_usd: Decimal | None = None
    allow_geforce: bool = False
    power_limit_w: float | None = None
    network: str = "infiniband"
    condition: str = "any"
    additional_gpus: tuple[tuple[str, int], ...] = ()
    gpu_price_usd: Decimal | None = None
    utilization: float | None = None
    electricity_usd_per_kwh: Decimal | None = None
    pue: float | None = None


def spec_of(field_name: str, gpu_id: str) -> GpuSpec:
    spec = load_catalog().get(gpu_id)
    if spec is None:
        raise QuoteInputError(field_name, f"unknown GPU {gpu_id!r}", ["GET /gpus lists the ids"])
    return spec


def validate(req: ClusterRequest) -> None:
    choices = {
        "task": (req.task, tuple(TASKS)),
        "precision": (req.precision, PRECISION_NAMES),
        "condition": (req.condition, ("new", "used", "any")),
    }
    for name, (value, valid) in choices.items():
        if value not in valid:
            raise QuoteInputError(name, f"unknown value {value!r}", list(valid))
    try:
        check_choices(req.deployment, req.network)
    except BuildInputError as exc:
        raise QuoteInputError(exc.field, exc.message, exc.valid) from exc
    spec_of("gpu", req.gpu)
    for gpu_id, count in req.additional_gpus:
        spec_of("additional_gpus", gpu_id)
        if not 1 <= count <= MAX_GPUS:
            raise QuoteInputError("additional_gpus", "count out of range", [f"1-{MAX_GPUS}"])
    if req.count is not None and (req.target_relative_throughput or req.memory_gb):
        raise QuoteInputError(
            "count",
            "give count or a target, not both",
            ["count", "target_relative_throughput", "memory_gb"],
        )
