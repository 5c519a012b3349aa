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
