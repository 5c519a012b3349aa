"""Pricing's own table: the fitted indexes, stored so a new process reads them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, LargeBinary
from sqlmodel import Field, SQLModel

from shared.models import UTCDateTime


class IndexFit(SQLModel, table=True):
    """The newest fit of one index ("market:3", "cloud"), with the revision it was fitted
    at (shared/pricing/index_store.py): read only while the revision still matches."""

    __tablename__ = "index_fit"

    name: str = Field(primary_key=True, max_length=64)
    # sha256 of the fitting code's version and digest, the peer classes and the watermark.
    revision: str = Field(max_length=64)
    fitted_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    # zlib-compressed JSON of the MarketIndex (shared/pricing/index_codec.py).
    body: bytes = Field(sa_column=Column(LargeBinary(), nullable=False))
