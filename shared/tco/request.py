"""What the parts of a TCO report share: the input error, given values, the GPU lookup.

The request itself, with its bounds and choices, is `shared.tco.schemas.TcoRequest`.
"""

from __future__ import annotations

from decimal import Decimal

from shared.builds.assumptions import Sourced
from shared.catalog.aliases import catalog_id
from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.errors import InputError
from shared.tco.schemas import TcoRequest


class TcoInputError(InputError):
    """A request that cannot be answered: names the field and what would be valid."""


def from_request(name: str, value: float | Decimal, unit: str) -> Sourced:
    return Sourced(name, value, unit, "input", "request")


def gpu_spec(field_name: str, gpu_id: str, error: type[TcoInputError] = TcoInputError) -> GpuSpec:
    """The catalog GPU `gpu_id`, or `error` naming the field (quotes raise their own)."""
    spec = load_catalog().get(gpu_id)
    if spec is None:
        raise error(field_name, f"unknown GPU {gpu_id!r}", ["GET /gpus lists the ids"])
    return spec


def with_catalog_ids(req: TcoRequest) -> TcoRequest:
    """The request with catalog ids for the GPU names or aliases it may give."""
    cloud = req.cloud_gpu
    return req.model_copy(
        update={
            "gpu": catalog_id("gpu", req.gpu),
            "cloud_gpu": None if cloud is None else catalog_id("cloud_gpu", cloud),
        }
    )
