"""Shapes of the alert endpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from shared.alerts.triggers import Trigger


class AlertCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(max_length=2048, description="http(s) endpoint that receives the webhooks")
    trigger: Trigger
    description: str | None = Field(default=None, max_length=512)
    cooldown_s: int | None = Field(
        default=None, ge=0, le=30 * 86400, description="false this long before it re-arms"
    )


class AlertPatch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, max_length=2048)
    trigger: Trigger | None = None
    description: str | None = Field(default=None, max_length=512)
    cooldown_s: int | None = Field(default=None, ge=0, le=30 * 86400)
    enabled: bool | None = None


class AlertOut(BaseModel):
    id: str
    url: str
    trigger: dict[str, Any]
    description: str | None
    enabled: bool
    disabled_reason: str | None
    armed: bool
    cooldown_s: int
    last_fired_at: datetime | None
    failing_since: datetime | None
    created_at: datetime
    updated_at: datetime


class AlertCreated(AlertOut):
    secret: str = Field(description="whsec_... signing secret; shown only once")


class AlertList(BaseModel):
    items: list[AlertOut]


class TestResult(BaseModel):
    status_code: int | None
    latency_ms: int
    ok: bool
    error: str | None = Field(description="why it failed (never the target's response body)")


class DeliveryOut(BaseModel):
    webhook_id: str
    event_type: str
    status: str
    attempts: int
    next_attempt_at: datetime | None
    created_at: datetime
    delivered_at: datetime | None
    attempts_log: list[dict[str, Any]]


class DeliveryList(BaseModel):
    items: list[DeliveryOut]
