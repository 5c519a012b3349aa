"""One GPU's prices today as the last recompute stored them (the Score rows /recommend
ranks on), per condition: what a single-GPU answer prices its cost per unit with."""

from __future__ import annotations

from sqlmodel import Session, select

from shared.builds.build import plan_build
from shared.builds.errors import BuildInputError
from shared.builds.unit_cost import CardPrice, Costing, OwnTerms
from shared.catalog.specs import GpuSpec
from shared.kit.settings import Settings
from shared.models import Score
from shared.scoring.ages import PRICE_PRECISION, PRICE_TASK
from shared.scoring.value import price_band


def card_prices(session: Session, gpu_id: str) -> dict[str, CardPrice]:
    """Today's ranked prices of `gpu_id` by condition (none where it is unranked)."""
    rows = session.exec(
        select(Score).where(
            Score.gpu_id == gpu_id, Score.task == PRICE_TASK, Score.precision == PRICE_PRECISION
        )
    )
    out = {}
    for row in rows:
        if row.unranked_reason is not None:
            continue
        unit = "per GPU-hour" if row.condition.startswith("cloud:") else row.price_condition
        estimated = "estimated " if row.price_estimated else ""
        said = (
            f"{estimated}${row.price_usd:,.4g} {unit} ({row.price_source}, "
            f"{row.price_observed_at.date().isoformat()})"
        )
        out[row.condition] = CardPrice(row.price_usd, price_band(row), row.condition, said)
    return out


def costing_for(
    session: Session,
    settings: Settings,
    gpu: GpuSpec,
    count: int,
    deployment: str,
    network: str,
    terms: OwnTerms | None = None,
) -> Costing | None:
    """What pricing `count` x `gpu` needs; None for a build the layout refuses (the
    prediction names the field)."""
    try:
        build = plan_build([gpu], count, settings, deployment, network)
    except BuildInputError:
        return None
    prices = card_prices(session, gpu.id)
    return Costing(prices, build.system_usd, build.busy_watts, terms or OwnTerms())
