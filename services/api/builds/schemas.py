"""The layout every endpoint that prices or times a build answers with (the choices it
takes are in shared/builds/schemas.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.builds.layout import Layout


class LayoutOut(BaseModel):
    """The machines a build was priced and timed on."""

    deployment: Literal["workstation", "datacenter"]
    node_kind: str = Field(description="desktop-1-2, workstation-4 or server-8")
    nodes: int
    gpus_per_node: int = Field(description="in the fullest machine")
    node_counts: list[int]
    total_gpus: int
    reason: str = Field(description="why this deployment ('requested' when it was given)")

    @classmethod
    def of(cls, layout: Layout) -> LayoutOut:
        return cls.model_validate(layout.as_dict())


class ThroughputOut(BaseModel):
    """A build's throughput in the workload's own unit (shared/perfmodel/units.py)."""

    value: float = Field(description="for the whole build")
    unit: str = Field(
        description="output tokens/s, training tokens/s, images/s, sequences/s or images/min"
    )
    interval: tuple[float, float] = Field(description="80 %: the ratio's and the level's")
    per_user: float | None = Field(
        default=None, description="llm-inference: output tokens/s each user gets"
    )
    per_user_interval: tuple[float, float] | None = None
    ttft_ms: float | None = Field(
        default=None, description="llm-inference: time to first token of prompt_tokens"
    )
    ttft_ms_interval: tuple[float, float] | None = None
    concurrency: int | None = Field(
        default=None, description="llm-inference: sequences served at once by the build"
    )
    prompt_tokens: int | None = None
    software: str = Field(description="what the figure assumes")
    workload: str = Field(default="", description="what the figure is at, in words")
    basis: str
    caveats: list[str] = Field(default_factory=list)


class CostPerUnitOut(BaseModel):
    """Dollars per unit of work (shared/builds/unit_cost.py): usd = usd_per_hour /
    units_per_hour x the unit's scale."""

    usd: float
    unit: str = Field(
        description="usd per 1M output tokens, usd per 1M training tokens, usd per 1k "
        "images or usd per 1k sequences"
    )
    interval: tuple[float, float] = Field(
        description="80 %: the price band's high end over the throughput's low end, and the reverse"
    )
    basis: str
    usd_per_hour: float = Field(description="the build's cost per (busy) hour")
    units_per_hour: float
    run_usd: float | None = Field(default=None, description="a stated run's dollars")
