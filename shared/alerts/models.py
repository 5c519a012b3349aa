"""API keys, alert rules and the webhook outbox."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, UniqueConstraint, false
from sqlmodel import Field, SQLModel

from shared.models import UTCDateTime


def _tz() -> Column[datetime]:
    return Column(UTCDateTime(), nullable=False)


def _optional_tz() -> Column[datetime]:
    return Column(UTCDateTime(), nullable=True)


class ApiKey(SQLModel, table=True):
    """Only a hash and a short prefix of the key are stored; the key is shown once."""

    __tablename__ = "api_key"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=128)
    prefix: str = Field(max_length=16, unique=True)
    key_hash: str = Field(max_length=64)
    scope: str = Field(max_length=8)  # read | write
    created_at: datetime = Field(sa_column=_tz())
    revoked_at: datetime | None = Field(default=None, sa_column=_optional_tz())
    # Sees every key's posted quotes and the operator's (best_quote, price history) and
    # its alerts fire on them; without it a key sees and is alerted on only its own.
    all_quotes: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class Alert(SQLModel, table=True):
    __table_args__ = (Index("ix_alert_owner", "owner_key_id"),)

    id: str = Field(primary_key=True, max_length=40)
    owner_key_id: int = Field(foreign_key="api_key.id")
    url: str = Field(max_length=2048)
    trigger_type: str = Field(max_length=32)
    # The trigger's parameters as JSON (validated by shared/alerts/triggers.py).
    trigger: str = Field(max_length=2048)
    # Used to sign deliveries, so it is stored as given (whsec_...); shown once.
    secret: str = Field(max_length=128)
    description: str | None = Field(default=None, max_length=512)
    enabled: bool = True
    disabled_reason: str | None = Field(default=None, max_length=512)
    armed: bool = True
    cooldown_s: int = 3600
    last_fired_at: datetime | None = Field(default=None, sa_column=_optional_tz())
    last_false_at: datetime | None = Field(default=None, sa_column=_optional_tz())
    failing_since: datetime | None = Field(default=None, sa_column=_optional_tz())
    created_at: datetime = Field(sa_column=_tz())
    updated_at: datetime = Field(sa_column=_tz())
    deleted_at: datetime | None = Field(default=None, sa_column=_optional_tz())


class AlertEvent(SQLModel, table=True):
    """One event to deliver to one alert's endpoint: the outbox row.

    (alert_id, event_key) is unique so an evaluation that runs twice cannot create the
    same event twice; `webhook_id` stays the same across every retry of the event.
    """

    __tablename__ = "alert_event"
    __table_args__ = (
        UniqueConstraint("alert_id", "event_key", name="uq_alert_event"),
        Index("ix_alert_event_due", "status", "next_attempt_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    alert_id: str = Field(foreign_key="alert.id", max_length=40)
    event_key: str = Field(max_length=200)
    webhook_id: str = Field(max_length=64, unique=True)
    event_type: str = Field(max_length=64)
    payload: str = Field(max_length=8192)
    status: str = Field(max_length=16)  # pending, delivered, failed, cancelled
    attempts: int = 0
    next_attempt_at: datetime = Field(sa_column=_tz())
    last_status_code: int | None = None
    last_error: str | None = Field(default=None, max_length=1024)
    created_at: datetime = Field(sa_column=_tz())
    delivered_at: datetime | None = Field(default=None, sa_column=_optional_tz())


class DeliveryAttempt(SQLModel, table=True):
    __tablename__ = "delivery_attempt"
    __table_args__ = (Index("ix_delivery_attempt_event", "event_id"),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="alert_event.id")
    alert_id: str = Field(max_length=40)
    attempted_at: datetime = Field(sa_column=_tz())
    status_code: int | None = None
    duration_ms: int
    error: str | None = Field(default=None, max_length=1024)
    test: bool = False
