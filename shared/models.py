"""The data model shared by the API, the scraper and the workers.

Alembic migrations (shared/migrations) are the only way the schema is made; these
classes describe it for queries.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Column, DateTime, Dialect, Index, Numeric, UniqueConstraint
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

CONDITIONS = ("new", "used", "refurbished")
PRICE_KINDS = ("msrp", "snapshot", "scraped", "manual")


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC on every backend (SQLite stores naive timestamps)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: store timezone-aware UTC times")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _money() -> Column[Decimal]:
    return Column(Numeric(12, 2), nullable=False)


def _tz() -> Column[datetime]:
    return Column(UTCDateTime(), nullable=False)


class Gpu(SQLModel, table=True):
    """One catalog GPU; the specs the model needs live in the bundled catalog."""

    id: str = Field(primary_key=True, max_length=64)
    name: str = Field(max_length=128)
    vendor: str = Field(max_length=16)
    segment: str = Field(max_length=16)
    architecture: str = Field(max_length=32)
    form_factor: str = Field(max_length=16)
    release_date: date
    launch_price_usd: int | None = None
    memory_gb: float
    memory_bandwidth_gbs: float
    tdp_w: int
    geforce_eula: bool
    sources: str
    notes: str


class PriceObservation(SQLModel, table=True):
    """A dated, sourced price for one card (lots are stored per unit)."""

    __tablename__ = "price_observation"
    __table_args__ = (
        UniqueConstraint("source", "listing_id", "observed_at", name="uq_price_listing_time"),
        Index("ix_price_gpu_condition_time", "gpu_id", "condition", "observed_at"),
        # A GPU's newest scraped price and its market window (shared/pricing/window.py).
        Index("ix_price_gpu_kind_condition_time", "gpu_id", "kind", "condition", "observed_at"),
        # History pages, newest first (GET /gpus/{id}/prices); with `quarantined`, the
        # recompute's watermark of a GPU's prices is read from the index alone.
        Index("ix_price_gpu_time_id", "gpu_id", "observed_at", "id", "quarantined"),
        # The newest price of all (score_state.prices_as_of, /health).
        Index("ix_price_time", "observed_at"),
        # Whether a key posted any recent quote (shared/pricing/quotes.py).
        Index("ix_price_owner_time", "owner_key_id", "observed_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    gpu_id: str = Field(foreign_key="gpu.id", max_length=64)
    condition: str = Field(max_length=16)
    price: Decimal = Field(sa_column=_money())
    currency: str = Field(default="USD", max_length=3)
    price_usd: Decimal = Field(sa_column=_money())
    kind: str = Field(max_length=16)
    source: str = Field(max_length=128)
    url: str | None = Field(default=None, max_length=1024)
    listing_id: str | None = Field(default=None, max_length=128)
    title: str | None = Field(default=None, max_length=512)
    quantity: int = 1
    observed_at: datetime = Field(sa_column=_tz())
    quarantined: bool = False
    # What the price measures (shared/pricing/measures.py): a sale, an ask, a list price...
    measure: str = Field(default="ask", max_length=24)
    # The API key that posted this quote (shared/pricing/quotes.py: who sees it, whose
    # alerts it fires); None for market prices and for operator quotes (the CLI).
    owner_key_id: int | None = Field(default=None, foreign_key="api_key.id")


class CloudOffer(SQLModel, table=True):
    """An hourly cloud price for an instance with `gpu_count` GPUs of one type."""

    __tablename__ = "cloud_offer"
    __table_args__ = (
        UniqueConstraint(
            "provider", "instance_type", "region", "observed_at", name="uq_cloud_offer"
        ),
        Index("ix_cloud_gpu", "gpu_id"),
        Index("ix_cloud_gpu_time", "gpu_id", "observed_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    provider: str = Field(max_length=32)
    instance_type: str = Field(max_length=128)
    gpu_id: str = Field(foreign_key="gpu.id", max_length=64)
    gpu_count: float
    region: str = Field(max_length=64)
    on_demand_usd_per_hour: Decimal | None = Field(
        default=None, sa_column=Column(Numeric(12, 5), nullable=True)
    )
    spot_usd_per_hour: Decimal | None = Field(
        default=None, sa_column=Column(Numeric(12, 5), nullable=True)
    )
    kind: str = Field(max_length=16)
    source: str = Field(max_length=256)
    observed_at: datetime = Field(sa_column=_tz())
    # A provider's list price, a marketplace median, one marketplace offer...
    measure: str = Field(default="list", max_length=24)


class Score(SQLModel, table=True):
    """A precomputed perf-per-dollar row: one GPU, task, precision and price condition.

    Conditions "cloud:on-demand" and "cloud:spot" hold a rental price per GPU-hour in
    `price_usd` (no system cost): performance per dollar-hour.

    A recompute replaces a GPU's rows in one transaction, so readers never see a
    half-written ranking.
    """

    __table_args__ = (
        UniqueConstraint("gpu_id", "task", "precision", "condition", name="uq_score"),
        Index("ix_score_lookup", "task", "precision", "condition"),
    )

    id: int | None = Field(default=None, primary_key=True)
    gpu_id: str = Field(foreign_key="gpu.id", max_length=64)
    task: str = Field(max_length=32)
    precision: str = Field(max_length=8)
    condition: str = Field(max_length=16)
    relative_performance: float
    interval_low: float
    interval_high: float
    basis: str = Field(max_length=32)
    price_usd: Decimal = Field(sa_column=Column(Numeric(14, 5), nullable=False))
    price_condition: str = Field(max_length=16)
    price_kind: str = Field(max_length=16)
    price_source: str = Field(max_length=256)
    price_observed_at: datetime = Field(sa_column=_tz())
    price_n: int = 1
    price_measure: str = Field(default="", max_length=24)
    # Today's price (shared/pricing/today.py): `price_usd` is its value, these its 80 %
    # band, whether it is an estimate moved by the market index, and the words of it.
    price_band_low: Decimal | None = Field(default=None, sa_column=Column(Numeric(14, 5)))
    price_band_high: Decimal | None = Field(default=None, sa_column=Column(Numeric(14, 5)))
    price_estimated: bool = False
    price_basis: str | None = Field(default=None, max_length=512)
    # The observation today's price rests on.
    price_last_usd: Decimal | None = Field(default=None, sa_column=Column(Numeric(14, 5)))
    price_last_observed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    # A caveat about the price itself (used priced above new, ...).
    price_note: str | None = Field(default=None, max_length=512)
    # Set when the card has no price today: it is listed as unranked, with this reason.
    unranked_reason: str | None = Field(default=None, max_length=512)
    system_cost_usd: Decimal = Field(sa_column=_money())
    perf_per_dollar: float
    model_version: str = Field(max_length=64)
    explanation: str
    computed_at: datetime = Field(sa_column=_tz())


class ScoreState(SQLModel, table=True):
    """One row (id=1) stamped by every recompute: readers use it to know when to reload."""

    __tablename__ = "score_state"

    id: int = Field(default=1, primary_key=True)
    revision: int = 0
    model_version: str = Field(max_length=64)
    prices_as_of: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    computed_at: datetime = Field(sa_column=_tz())


class TaskRun(SQLModel, table=True):
    """One background task execution, kept so failures stay visible after retries end."""

    __tablename__ = "task_run"
    __table_args__ = (Index("ix_task_run_name_started", "name", "started_at"),)

    id: int | None = Field(default=None, primary_key=True)
    task_id: str = Field(max_length=64, unique=True)
    name: str = Field(max_length=128)
    args: str = Field(default="", max_length=4096)
    status: str = Field(max_length=16)  # started, retrying, success, failed
    attempts: int = 1
    error: str | None = Field(default=None, max_length=4096)
    started_at: datetime = Field(sa_column=_tz())
    finished_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))


class UnsentTask(SQLModel, table=True):
    """The broker's outbox (shared/kit/outbox.py): a task written in the transaction that
    caused it, relayed to Celery after the commit and deleted once sent; a failed send
    (broker down) stays with its attempts until a relay gets it through, so no price change
    is left without its recompute. `attempts` 0: not tried yet."""

    __tablename__ = "unsent_task"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=128)
    args: str = Field(max_length=8192)
    queue: str = Field(max_length=32)
    attempts: int = 1
    last_error: str | None = Field(default=None, max_length=1024)
    created_at: datetime = Field(sa_column=_tz())


class QueuedJob(SQLModel, table=True):
    """Background work of the embedded default, written in the transaction that caused
    it (an outbox), so a killed process loses none: it is deleted only after the job ran.
    Deployments with a broker queue in Redis instead."""

    __tablename__ = "queued_job"
    __table_args__ = (Index("ix_queued_job_runnable", "claimed_by", "not_before"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=128)
    args: str = Field(max_length=8192)
    queue: str = Field(max_length=32)
    created_at: datetime = Field(sa_column=_tz())
    # Not run before this (retry backoff).
    not_before: datetime = Field(sa_column=_tz())
    # The process running it ("host:pid:start:token") and since when; None: waiting.
    claimed_by: str | None = Field(default=None, max_length=160)
    claimed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    attempts: int = 0
    last_error: str | None = Field(default=None, max_length=1024)
    # Given up after the last retry: kept, never run again, counted by /health.
    failed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
