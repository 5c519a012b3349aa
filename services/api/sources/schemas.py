"""Shapes of GET /sources."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from shared.sources.status import RunState


class SourceOut(BaseModel):
    name: str
    status: RunState = Field(
        description=(
            "how the latest run ended: ok; failed (fetch or store error); parse_failure "
            "(a page it could not read); blocked (the site answered with a bot-check page: "
            "it is refusing the scraper, which is not a page without listings)"
        )
    )
    interval_s: int = Field(description="scrape interval; stale after 2 without a success")
    last_run_at: datetime | None
    last_success_at: datetime | None
    last_error_at: datetime | None
    last_error: str | None
    consecutive_failures: int
    last_parse_failure_at: datetime | None
    parse_failure: bool = Field(description="the latest run found a page it could not read")
    blocked: bool = Field(description="the latest run was refused with a bot-check page")
    stale: bool = Field(
        description="its prices are left out of market prices when fresh ones exist"
    )
    stale_after: datetime | None
    last_summary: dict[str, Any] | None


class SourcesOut(BaseModel):
    as_of: datetime
    sources: list[SourceOut]
