"""The stored decision: a /recommend answer as it was given, with what it rested on.

The answer and its prices are kept as the JSON text that was returned (a record is read
back unchanged, never rebuilt from tables that move on); the columns beside them are the
ones a read filters on. A decision always belongs to the API key that made it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from shared.models import UTCDateTime


class Decision(SQLModel, table=True):
    """One kept /recommend answer, owned by the write key that asked for it."""

    __tablename__ = "decision"
    __table_args__ = (
        # A key's own decisions, newest first.
        Index("ix_decision_owner", "owner_key_id", "created_at"),
    )

    id: str = Field(primary_key=True, max_length=32)
    owner_key_id: int = Field(foreign_key="api_key.id")
    note: str | None = Field(default=None, max_length=2000)
    # The query as the caller gave it (replay re-asks exactly it).
    query_json: str = Field(sa_column=Column(Text, nullable=False))
    # The /recommend body, byte for byte as it was answered.
    answer_json: str = Field(sa_column=Column(Text, nullable=False))
    # The price observations and cloud offers behind each ranked price (decisions/prices.py).
    prices_json: str = Field(sa_column=Column(Text, nullable=False))
    model_version: str = Field(max_length=64)
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
