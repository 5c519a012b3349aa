"""Bodies of the quote endpoints. Requests are the domain's schemas
(shared/quotes/schemas.py, which the CLI uses too) under the names the OpenAPI document
has always given them (ClusterIn, CompareIn, CandidateIn): clients generate code from
those names."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from shared.quotes.schemas import MAX_CANDIDATES, Candidate, ClusterRequest, CompareRequest

ExportFormat = Literal["json", "csv"]


class ClusterIn(ClusterRequest):
    """POST /quotes/cluster: give `count`, or a target (`target_relative_throughput` x one
    RTX 3090, or `memory_gb` in total); with both targets the larger count wins."""


class CandidateIn(Candidate):
    pass


class CompareIn(CompareRequest):
    candidates: list[CandidateIn] = Field(min_length=1, max_length=MAX_CANDIDATES)  # type: ignore[assignment]


class QuoteOut(BaseModel):
    id: str
    kind: str
    standard_key: str | None
    gpu_ids: list[str]
    total_usd: Decimal
    model_version: str
    prices_as_of: datetime | None
    created_at: datetime
    updated_at: datetime
    request: dict[str, Any]
    result: dict[str, Any]


class QuoteList(BaseModel):
    items: list[QuoteOut]
    limit: int
    offset: int
