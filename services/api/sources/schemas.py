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
            "it is refusing the scraper, which is not a page without listings); never_run "
            "(no run recorded yet: a fresh install, or a source no schedule runs)"
        )
    )
    interval_s: int = Field(
        description=(
            "scrape interval; stale after 2 without a success. A source that has not run "
            "yet: its interval in GPU_ADVISOR_SCRAPE_SOURCES, else the source's default"
        )
    )
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
    scheduled: bool = Field(
        description=(
            "this deployment runs it on a schedule (listed in GPU_ADVISOR_SCRAPE_SOURCES; "
            "the embedded default schedules none: `gpu-advisor scrape` runs them by hand)"
        )
    )
    needs_api_key: bool = Field(
        description="it cannot run without an API key or OAuth client (GPU_ADVISOR_SCRAPER_*)"
    )
    description: str | None = Field(
        description="what it scrapes; null for a source the scraper no longer has"
    )


class SourcesOut(BaseModel):
    as_of: datetime
    sources: list[SourceOut] = Field(
        description="every source the scraper has, by name, run or not, and any source "
        "that ran before and is no longer built in"
    )
