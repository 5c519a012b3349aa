"""What the parts of a TCO report share: the input error, given values, the GPU lookup.

The request itself, with its bounds and choices, is `shared.tco.schemas.TcoRequest`.
"""

from __future__ import annotations

from decimal import Decimal

from shared.builds.assumptions import Sourced
from shared.catalog.specs import GpuSpec, load_catalog
from shared.kit.errors import InputError


class TcoInputError(InputError):
    """A request that cannot be answered: names the field and what would be valid."""


def from_request(name: str, value: float | Decimal, unit: str) -> Sourced:
    return Sourced(name, value, unit, "input", "request")


def gpu_spec(field_name: str, gpu_id: str) -> GpuSpec:
    spec = load_catalog().get(gpu_id)
    if spec is None:
        raise TcoInputError(field_name, f"unknown GPU {gpu_id!r}", ["GET /gpus lists the ids"])
    return spec
