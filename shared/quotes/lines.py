"""The GPU lines of a quote's bill of materials, at the prices they were picked at."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from shared.builds import assumptions as d
from shared.builds.bom import LineItem, line
from shared.catalog.specs import load_catalog


@dataclass(frozen=True, slots=True)
class GpuPick:
    """The GPUs of one type in a build and the price they are quoted at."""

    gpu_id: str
    count: int
    unit_usd: Decimal
    condition: str
    basis: d.Basis
    source: str
    as_of: date | None


def gpu_lines(picks: list[GpuPick]) -> list[LineItem]:
    lines = []
    for pick in picks:
        name = load_catalog().by_id[pick.gpu_id].name
        lines.append(
            line(
                "gpu",
                f"{name} ({pick.condition})",
                pick.count,
                pick.unit_usd,
                pick.basis,
                pick.source,
                pick.as_of,
            )
        )
    return lines
