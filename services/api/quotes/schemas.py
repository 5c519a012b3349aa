"""Response bodies of the quote endpoints (the request bodies are the domain's schemas,
shared/quotes/schemas.py, which the CLI uses too)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any, Literal

from pydantic import BaseModel

ExportFormat = Literal["json", "csv"]


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
