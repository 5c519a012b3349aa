"""The stored quote: a bill of materials plus the request that produced it.

The quote body is kept as JSON (it is a document the API returns whole, never queried
by field); the columns beside it are the ones lists and the recompute job filter on.

Who a quote belongs to: a standard quote (the system's own, recomputed by the job) has a
`standard_key` and no owner; a quote made with an API key has that key's id in
`owner_key_id`; a quote made without a key has neither (anonymous: never listed, reachable
only through its id).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import Column, Index, Numeric
from sqlmodel import Field, SQLModel

from shared.models import UTCDateTime


class Quote(SQLModel, table=True):
    """One cluster quote or compare result; standard quotes carry a `standard_key`, keyed
    quotes an `owner_key_id`, anonymous quotes neither."""

    __tablename__ = "quote"
    __table_args__ = (
        Index("ix_quote_standard", "standard_key", unique=True),
        # A key's own listing: its quotes, newest first.
        Index("ix_quote_owner", "owner_key_id", "created_at"),
    )

    id: str = Field(primary_key=True, max_length=32)
    kind: str = Field(max_length=16)  # cluster | compare
    # Set only for the documented standard builds; unique so a recompute updates in place.
    standard_key: str | None = Field(default=None, max_length=64)
    # The API key that made the quote; None for standard and anonymous quotes.
    owner_key_id: int | None = Field(default=None, foreign_key="api_key.id")
    # Comma-separated GPU ids the quote uses, so a price change finds the quotes to redo.
    gpu_ids: str = Field(max_length=512)
    request_json: str
    result_json: str
    total_usd: Decimal = Field(sa_column=Column(Numeric(12, 2), nullable=False))
    model_version: str = Field(max_length=64)
    prices_as_of: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    updated_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
