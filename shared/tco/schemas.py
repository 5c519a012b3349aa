"""The TCO request: GET /tco's query parameters, `gpu-advisor tco`'s options and what
`build_report` reads, each field with its default, bounds and description once."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from shared.builds import assumptions as d
from shared.builds.schemas import (
    AS_OF_DESCRIPTION,
    MAX_GPUS,
    Deployment,
    MarketCondition,
    Network,
    Precision,
    Pricing,
    Software,
    Task,
)


class TcoRequest(BaseModel):
    """Own `count` x `gpu` versus renting `cloud_gpu`; every assumption left out is
    filled in from the database and the model, and says where it came from."""

    # Unknown query parameters are ignored, as they always were on GET /tco.
    model_config = ConfigDict(frozen=True)

    gpu: str = Field(description="GPU to own (id, catalog name or known alias, exactly)")
    count: int = Field(default=1, ge=1, le=MAX_GPUS, description="GPUs in the build")
    cloud_gpu: str | None = Field(
        default=None, description="GPU to rent; default: the same, else the closest by speed"
    )
    pricing: Pricing = "on-demand"
    task: Task = Field(default="cv", description="sets the speed comparison")
    precision: Precision = "fp16"
    condition: MarketCondition = Field(default="any", description="market price used")
    deployment: Deployment = Field(
        default="auto", description="machines the owned build is priced in"
    )
    network: Network = Field(default="infiniband", description="between machines")
    power_limit_w: float | None = Field(default=None, gt=0, le=2000)
    purchase_usd: Decimal | None = Field(default=None, ge=0, le=100_000_000)
    gpu_watts: float | None = Field(default=None, ge=0, le=5000)
    system_watts: float | None = Field(default=None, ge=0, le=100_000)
    utilization: float | None = Field(
        default=None, ge=d.MIN_UTILIZATION, le=1, description="share of hours"
    )
    electricity_usd_per_kwh: Decimal | None = Field(default=None, ge=0, le=10)
    pue: float | None = Field(default=None, ge=1, le=3)
    years: float | None = Field(default=None, ge=d.MIN_YEARS, le=20)
    resale_pct: float | None = Field(default=None, ge=0, lt=1, description="0 disables resale")
    cloud_usd_per_hour: Decimal | None = Field(
        default=None, ge=0, le=1000, description="per GPU-hour"
    )
    spot_interruption_overhead: float | None = Field(default=None, ge=0, le=5)
    carbon_kg_per_kwh: float | None = Field(default=None, ge=0, le=5)
    software: Software | None = Field(
        default=None,
        description="what throughput and cost per unit assume (default per task: llama.cpp "
        "for llm-inference, pytorch for training, trt-llm for image-generation)",
    )
    as_of: str | None = Field(default=None, description=AS_OF_DESCRIPTION, examples=["2026-09-30"])
