"""Shapes of GET /sources."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field


class SourceOut(BaseModel):
    name: str
    interval_s: int = Field(description="scrape interval; stale after 2 without a success")
    last_run_at: datetime | None
    last_success_at: datetime | None
    last_error_at: datetime | None
    last_error: str | None
    consecutive_failures: int
    last_parse_failure_at: datetime | None
    parse_failure: bool = Field(description="the latest run found a page it could not read")
    stale: bool = Field(
        description="its prices are left out of market prices when fresh ones exist"
    )
    stale_after: datetime | None
    last_summary: dict[str, Any] | None


class SourcesOut(BaseModel):
    as_of: datetime
    sources: list[SourceOut]
